package store

import (
	"context"
	"errors"
	"fmt"
)

// Pool holds the tickets of rated quick play (PROTOCOL.md §2.13): players
// waiting to be paired, per pool ("game/mode/clockkey"). The nodes sharing
// a store share its pool, so that players who queued on any node meet; a
// store one process alone opens uses an in-process pool
// (memstore.NewPool). The pairing itself (who with whom) is the room
// layer's (room/pool.go): the pool only makes each step atomic, so that two
// nodes pairing at once never pair one ticket twice.
//
// Times are Unix milliseconds on the caller's clock (the nodes' clocks).
// A ticket lives until its Expires: a waiting ticket past it is never
// paired again and is dropped by the next PoolWaiting of its pool; any
// ticket past it is gone to PoolTicket. A ticket that is not waiting any
// more (paired or settled) is dropped some time after its Expires.
type Pool interface {
	// PoolEnter puts t (State waiting, Partner and Outcome empty) in its
	// pool. It fails with ErrQueued when t.Player has a live waiting
	// ticket (in any pool), and with ErrPoolFull when t.Pool holds max
	// live waiting tickets already.
	PoolEnter(ctx context.Context, t Ticket, now int64, max int) error
	// PoolTicket returns ticket id as stored, first setting its Expires to
	// expires when expires is not zero and the ticket waits (a waiter
	// still there; a paired or settled ticket keeps its Expires). It fails
	// with ErrNoTicket when the ticket is gone or expired before now.
	PoolTicket(ctx context.Context, id string, now, expires int64) (Ticket, error)
	// PoolLeave removes ticket id of pool while it waits. A ticket paired
	// already stays as it is and PoolLeave fails with ErrPaired; a ticket
	// gone is no error.
	PoolLeave(ctx context.Context, pool, id string, now int64) error
	// PoolWaiting returns at most limit (1..MaxPoolRead) live waiting
	// tickets of pool, the oldest first (by Joined, then ID), dropping
	// those expired before now.
	PoolWaiting(ctx context.Context, pool string, now int64, limit int) ([]Ticket, error)
	// PoolPair pairs tickets a and b of pool when both are live and
	// waiting: both leave the pool, become paired (each the other's
	// Partner) and live until expires. It reports false, changing
	// nothing, when either is not.
	PoolPair(ctx context.Context, pool, a, b string, now, expires int64) (bool, error)
	// PoolSettle gives paired ticket id its outcome (what its waiter is
	// handed: the room, or why there is none) and makes it settled, live
	// until expires. It fails with ErrNoTicket when the ticket is gone and
	// with ErrNotPaired when it is not paired.
	PoolSettle(ctx context.Context, id string, outcome []byte, now, expires int64) error
}

// Ticket states.
const (
	TicketWaiting = "waiting"
	TicketPaired  = "paired"
	TicketSettled = "settled"
)

// Bounds of a ticket's fields (CheckTicket) and of one read.
const (
	MaxPoolKey      = 256
	MaxTicketID     = 64
	MaxTicketPlayer = 128
	MaxTicketName   = 256
	MaxTicketConfig = 4 << 10
	MaxOutcome      = 4 << 10
	MaxPoolRead     = 1000
)

// Ticket is one player waiting in a pool, or paired from it.
type Ticket struct {
	ID     string `json:"id"`
	Pool   string `json:"pool"`
	Player string `json:"player"`
	Name   string `json:"name,omitempty"`
	// Node is the node the player queued on (informational).
	Node string `json:"node,omitempty"`
	// Settings are the canonical settings asked (clock included): only
	// tickets with equal settings are paired.
	Settings string `json:"settings,omitempty"`
	// Rating is the player's rating in the pool's game and mode when the
	// ticket was made.
	Rating float64 `json:"rating"`
	// Joined is when the ticket was made; Expires when it lapses.
	Joined  int64 `json:"joined"`
	Expires int64 `json:"expires"`
	// State is TicketWaiting, TicketPaired or TicketSettled.
	State string `json:"state"`
	// Partner is the other ticket of a pair.
	Partner string `json:"partner,omitempty"`
	// Outcome is what a settled ticket's waiter is handed.
	Outcome []byte `json:"outcome,omitempty"`
}

// Pool errors.
var (
	ErrQueued    = errors.New("store: the player is waiting in a pool already")
	ErrPoolFull  = errors.New("store: the pool is full")
	ErrNoTicket  = errors.New("store: no such ticket")
	ErrPaired    = errors.New("store: the ticket is paired already")
	ErrNotPaired = errors.New("store: the ticket is not paired")
	ErrBadTicket = errors.New("store: ticket out of bounds")
)

// CheckTicket returns the error PoolEnter returns for a ticket out of
// bounds before it stores anything, or nil.
func CheckTicket(t Ticket) error {
	switch {
	case t.ID == "" || len(t.ID) > MaxTicketID:
		return fmt.Errorf("%w: id of %d bytes", ErrBadTicket, len(t.ID))
	case t.Pool == "" || len(t.Pool) > MaxPoolKey:
		return fmt.Errorf("%w: pool of %d bytes", ErrBadTicket, len(t.Pool))
	case t.Player == "" || len(t.Player) > MaxTicketPlayer:
		return fmt.Errorf("%w: player of %d bytes", ErrBadTicket, len(t.Player))
	case len(t.Name) > MaxTicketName:
		return fmt.Errorf("%w: name of %d bytes", ErrBadTicket, len(t.Name))
	case len(t.Settings) > MaxTicketConfig:
		return fmt.Errorf("%w: settings of %d bytes", ErrBadTicket, len(t.Settings))
	case t.State != "" && t.State != TicketWaiting:
		return fmt.Errorf("%w: a new ticket waits, not %q", ErrBadTicket, t.State)
	case t.Partner != "" || len(t.Outcome) > 0:
		return fmt.Errorf("%w: a new ticket has no partner or outcome", ErrBadTicket)
	}
	return nil
}

// PoolReadLimit clamps a PoolWaiting limit to 1..MaxPoolRead.
func PoolReadLimit(limit int) int {
	if limit <= 0 || limit > MaxPoolRead {
		return MaxPoolRead
	}
	return limit
}
