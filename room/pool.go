package room

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/roomd/roomd/internal/ids"
	"github.com/roomd/roomd/store"
)

// pool.go: rated quick play (PROTOCOL.md §2.13). A signed-in player asks
// for a rated match of a game, mode and clock (EnterPool): the manager
// puts a ticket with the player's rating in the pool (store.Pool: Redis
// when nodes share one, so players on every node meet; in process on a
// node alone), and its pairing loop — one goroutine of the manager, never
// a room's actor — pairs the tickets of the pools this node has waiters
// in, by rating within a window that widens with the time waited (Window).
// A pair is taken out of the pool atomically (two nodes never pair one
// ticket twice), its room opened (Config.RatedRooms, on the least-loaded
// node when transport sets PoolOpener), and each ticket settled with its
// seat: what the waiting player reads (PoolStatus).

// Pool defaults and bounds.
const (
	// DefaultPoolEvery is how often the pairing loop runs.
	DefaultPoolEvery = 250 * time.Millisecond
	// DefaultMaxPool bounds the waiting tickets of one pool.
	DefaultMaxPool = 10_000
	// PoolKeep is how long a waiting ticket lives past its last poll.
	PoolKeep = 10 * time.Second
	// PoolGone is how long it lives once a poll's client went away (the
	// time to poll again).
	PoolGone = 3 * time.Second
	// pairedKeep is how long a paired ticket waits for its room, and
	// settledKeep how long a settled one keeps its seat for its player.
	pairedKeep  = 30 * time.Second
	settledKeep = 60 * time.Second
	// poolIdle is how long the loop keeps looking at a pool this node
	// has seen no waiter in.
	poolIdle = 30 * time.Second
)

// The rating window (PROTOCOL.md §2.13): two tickets pair when their
// ratings differ by at most the smaller of their windows. A ticket's
// window is ±100 when it enters and widens by 50 every 5 s it waits, up to
// ±500 (after 40 s); from 60 s of waiting it is unbounded.
const (
	WindowStart     = 100.0
	WindowStep      = 50.0
	WindowEvery     = 5 * time.Second
	WindowMax       = 500.0
	WindowUnbounded = 60 * time.Second
)

// Window is the rating window of a ticket that has waited waited:
// math.Inf(1) once it is unbounded.
func Window(waited time.Duration) float64 {
	if waited >= WindowUnbounded {
		return math.Inf(1)
	}
	w := WindowStart + WindowStep*float64(max(waited, 0)/WindowEvery)
	return min(w, WindowMax)
}

// PoolRequest asks for a rated match.
type PoolRequest struct {
	Game string
	// Settings are the game's settings (a mode among them) with an
	// optional clock (settings.clock).
	Settings json.RawMessage
	// Player is the signed-in player's id (required) and Name its name.
	Player, Name string
}

// PoolStatus is a ticket as its player sees it.
type PoolStatus struct {
	Ticket string  `json:"ticket"`
	Pool   string  `json:"pool"`
	State  string  `json:"state"` // waiting, paired or settled
	Rating float64 `json:"rating"`
	// WaitedMs is how long the ticket has waited; Window the rating
	// window it has now (-1: unbounded).
	WaitedMs int64   `json:"waitedMs"`
	Window   float64 `json:"window"`
	// Outcome, once settled: the seat (PoolSeat), or why there is none.
	Outcome *PoolSeat `json:"outcome,omitempty"`
}

// PoolSeat is what a paired player is handed: its seat in the rated room
// (room code, seat token and seat) and the node that runs the room (its
// id and its URL for clients, when known), or the error that left it
// without one.
type PoolSeat struct {
	Room     string  `json:"room,omitempty"`
	Token    string  `json:"token,omitempty"`
	Seat     int     `json:"seat"`
	Node     string  `json:"node,omitempty"`
	URL      string  `json:"url,omitempty"`
	Opponent string  `json:"opponent,omitempty"`
	Rating   float64 `json:"opponentRating,omitempty"`
	// WaitedMs and OpponentWaitedMs are how long each ticket had waited
	// when they were paired (their windows then: Window).
	WaitedMs         int64  `json:"waitedMs,omitempty"`
	OpponentWaitedMs int64  `json:"opponentWaitedMs,omitempty"`
	Error            string `json:"error,omitempty"`
}

// PoolRoom is a rated room opened for a pair, on the node that runs it.
type PoolRoom struct {
	RatedRoom
	Node, URL string
}

// PoolOpener opens a pair's rated room; transport sets one that opens it
// on the least-loaded node (SetPoolOpener).
type PoolOpener func(ctx context.Context, req RatedRequest) (PoolRoom, error)

// OpenRated opens a pair's rated room on this node (Config.RatedRooms).
func (m *Manager) OpenRated(ctx context.Context, req RatedRequest) (PoolRoom, error) {
	r, err := m.ratedRooms().CreateRated(ctx, req)
	return PoolRoom{RatedRoom: r, Node: m.cfg.Node}, err
}

// pooler is the manager's pairing loop and the pools it watches.
type pooler struct {
	mu     sync.Mutex
	pools  map[string]int64 // pool → when this node last saw a waiter in it (Unix ms)
	opener PoolOpener
	stop   chan struct{}
	done   chan struct{}
	once   sync.Once
}

// SetPoolOpener makes open what opens a pair's room (nil: this node's
// Config.RatedRooms).
func (m *Manager) SetPoolOpener(open PoolOpener) {
	m.pool.mu.Lock()
	m.pool.opener = open
	m.pool.mu.Unlock()
}

func (m *Manager) startPool() {
	if m.cfg.Pool == nil {
		return
	}
	m.pool.pools = map[string]int64{}
	m.pool.stop, m.pool.done = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(m.pool.done)
		t := time.NewTicker(m.cfg.PoolEvery)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				m.pairPools()
			case <-m.pool.stop:
				return
			}
		}
	}()
}

func (m *Manager) stopPool() {
	if m.pool.stop == nil {
		return
	}
	m.pool.once.Do(func() { close(m.pool.stop) })
	<-m.pool.done
}

// watch notes that pool has a waiter this node knows of.
func (m *Manager) watch(pool string, now int64) {
	m.pool.mu.Lock()
	m.pool.pools[pool] = now
	m.pool.mu.Unlock()
}

// poolKey returns the pool of req: "game/mode/clockkey", with the
// canonical settings (the game's, and the clock in canonical form) rooms
// of it are made with.
func (m *Manager) poolKey(req PoolRequest) (pool, mode string, settings json.RawMessage, err error) {
	if len(req.Settings) == 0 || string(req.Settings) == "null" {
		req.Settings = json.RawMessage("{}")
	}
	g, ok := m.cfg.Games.Lookup(req.Game)
	if !ok {
		return "", "", nil, fmt.Errorf("%w %q", ErrUnknownGame, req.Game)
	}
	rs, err := configure(g, req.Settings) // the room's own reading: the clock out, then the game's
	if err != nil {
		return "", "", nil, fmt.Errorf("%w: %v", ErrBadSettings, err)
	}
	mode = rs.Mode.ID
	if rs.Mode.MaxSeats < RatedSeats || rs.Mode.MinSeats > RatedSeats || !m.ratedMode(req.Game, mode) {
		return "", "", nil, fmt.Errorf("%w: %s/%s is not (rated: %v)", ErrNotRatedMode, req.Game, mode, m.ratedModes())
	}
	return req.Game + "/" + mode + "/" + clockKey(rs.Clock), mode, rs.Settings, nil
}

// clockKey is a clock's part of a pool key: "none", "move5000" (a limit
// of 5 s a move) or "300000+2000" (a chess clock of 5 min plus 2 s a
// move).
func clockKey(c *clockSpec) string {
	switch {
	case c == nil:
		return "none"
	case !c.chess():
		return "move" + strconv.FormatInt(c.MoveMs, 10)
	}
	return strconv.FormatInt(c.BaseMs, 10) + "+" + strconv.FormatInt(c.IncrementMs, 10)
}

// EnterPool puts req's player in the pool of req's game, mode and clock
// with its rating. It fails with ErrNoPool when this manager has no pool
// or keeps no ratings, ErrNotRatedMode for a mode that is not rated, ErrQueued when the
// player waits already and ErrPoolFull when the pool is full.
func (m *Manager) EnterPool(ctx context.Context, req PoolRequest) (PoolStatus, error) {
	if m.cfg.Pool == nil || m.cfg.Ratings == nil {
		return PoolStatus{}, ErrNoPool
	}
	if req.Player == "" {
		return PoolStatus{}, errors.New("room: rated play needs a signed-in player")
	}
	pool, mode, settings, err := m.poolKey(req)
	if err != nil {
		return PoolStatus{}, err
	}
	rating, err := m.rater().PoolRating(ctx, req.Game, mode, req.Player)
	if err != nil {
		return PoolStatus{}, fmt.Errorf("%w: the player's rating: %v", ErrStorage, err)
	}
	now := m.cfg.Now().UnixMilli()
	t := store.Ticket{ID: ids.Token(), Pool: pool, Player: req.Player, Name: cleanName(req.Name), Node: m.cfg.Node,
		Settings: string(settings), Rating: rating, Joined: now, Expires: now + PoolKeep.Milliseconds()}
	switch err := m.cfg.Pool.PoolEnter(ctx, t, now, m.cfg.MaxPool); {
	case errors.Is(err, store.ErrQueued):
		return PoolStatus{}, ErrQueued
	case errors.Is(err, store.ErrPoolFull):
		return PoolStatus{}, ErrPoolFull
	case errors.Is(err, store.ErrBadTicket):
		return PoolStatus{}, fmt.Errorf("%w: %v", ErrBadSettings, err)
	case err != nil:
		return PoolStatus{}, fmt.Errorf("%w: %v", ErrStorage, err)
	}
	m.watch(pool, now)
	t.State = store.TicketWaiting
	return status(t, now), nil
}

// PoolStatus returns player's ticket id, first keeping it alive for keep
// (a waiter still there; 0: as it is). It fails with ErrNoTicket when the
// ticket is gone, lapsed or another player's.
func (m *Manager) PoolStatus(ctx context.Context, id, player string, keep time.Duration) (PoolStatus, error) {
	if m.cfg.Pool == nil {
		return PoolStatus{}, ErrNoPool
	}
	now := m.cfg.Now().UnixMilli()
	expires := int64(0)
	if keep > 0 {
		expires = now + keep.Milliseconds()
	}
	// The ticket id is a secret its player alone was given: refreshing
	// before the check below is no help to anyone else.
	t, err := m.cfg.Pool.PoolTicket(ctx, id, now, expires)
	switch {
	case errors.Is(err, store.ErrNoTicket):
		return PoolStatus{}, ErrNoTicket
	case err != nil:
		return PoolStatus{}, fmt.Errorf("%w: %v", ErrStorage, err)
	case t.Player != player:
		return PoolStatus{}, ErrNoTicket
	}
	if keep > 0 && t.State == store.TicketWaiting {
		m.watch(t.Pool, now)
	}
	return status(t, now), nil
}

// LeavePool takes player's ticket id out of its pool. It fails with
// ErrPaired when the ticket is paired already (its seat is on the way:
// PoolStatus) and with ErrNoTicket when the ticket is another player's.
func (m *Manager) LeavePool(ctx context.Context, id, player string) error {
	if m.cfg.Pool == nil {
		return ErrNoPool
	}
	now := m.cfg.Now().UnixMilli()
	t, err := m.cfg.Pool.PoolTicket(ctx, id, now, 0)
	switch {
	case errors.Is(err, store.ErrNoTicket):
		return nil // gone already
	case err != nil:
		return fmt.Errorf("%w: %v", ErrStorage, err)
	case t.Player != player:
		return ErrNoTicket
	}
	switch err := m.cfg.Pool.PoolLeave(ctx, t.Pool, id, now); {
	case errors.Is(err, store.ErrPaired):
		return ErrPaired
	case err != nil:
		return fmt.Errorf("%w: %v", ErrStorage, err)
	}
	return nil
}

// status is ticket t as its player sees it at now.
func status(t store.Ticket, now int64) PoolStatus {
	waited := time.Duration(max(now-t.Joined, 0)) * time.Millisecond
	w := Window(waited)
	if math.IsInf(w, 1) {
		w = -1
	}
	s := PoolStatus{Ticket: t.ID, Pool: t.Pool, State: t.State, Rating: t.Rating, WaitedMs: waited.Milliseconds(), Window: w}
	if t.State == store.TicketSettled {
		var seat PoolSeat
		if json.Unmarshal(t.Outcome, &seat) != nil {
			seat = PoolSeat{Error: "the seat could not be read"}
		}
		s.Outcome = &seat
	}
	return s
}

// pairPools runs one round of the pairing loop over the pools this node
// watches.
func (m *Manager) pairPools() {
	now := m.cfg.Now().UnixMilli()
	m.pool.mu.Lock()
	var pools []string
	for p, seen := range m.pool.pools {
		if now-seen > poolIdle.Milliseconds() {
			delete(m.pool.pools, p)
			continue
		}
		pools = append(pools, p)
	}
	m.pool.mu.Unlock()
	slices.Sort(pools)
	for _, p := range pools {
		ctx, cancel := context.WithTimeout(context.Background(), m.cfg.StoreTimeout)
		waiting, err := m.cfg.Pool.PoolWaiting(ctx, p, now, store.MaxPoolRead)
		cancel()
		if err != nil {
			m.cfg.Logger.Warn("rated pool: reading the pool failed", "pool", p, "err", err)
			continue
		}
		if len(waiting) > 0 {
			m.watch(p, now)
		}
		// Pairs open their rooms at once (on this node or another: a
		// round trip each), a few at a time; the round ends with them.
		var wg sync.WaitGroup
		slots := make(chan struct{}, pairsAtOnce)
		for _, pair := range Pairs(waiting, now) {
			slots <- struct{}{}
			wg.Go(func() {
				defer func() { <-slots }()
				m.pair(p, pair[0], pair[1], now)
			})
		}
		wg.Wait()
	}
}

// pairsAtOnce bounds the pairs of one round whose rooms open at once.
const pairsAtOnce = 8

// Pairs chooses the pairs of waiting (oldest first) at now: each ticket
// in turn, the oldest first, is paired with the unpaired ticket of the same
// settings and another player whose rating is nearest its own, when the
// difference is within both tickets' windows (the older ticket first in
// each pair).
func Pairs(waiting []store.Ticket, now int64) [][2]store.Ticket {
	windows := make([]float64, len(waiting))
	for i, t := range waiting {
		windows[i] = Window(time.Duration(max(now-t.Joined, 0)) * time.Millisecond)
	}
	taken := make([]bool, len(waiting))
	var out [][2]store.Ticket
	for i, a := range waiting {
		if taken[i] {
			continue
		}
		best, bestDiff := -1, math.Inf(1)
		for j := i + 1; j < len(waiting); j++ {
			b := waiting[j]
			if taken[j] || b.Player == a.Player || b.Settings != a.Settings {
				continue
			}
			diff := math.Abs(a.Rating - b.Rating)
			if diff <= min(windows[i], windows[j]) && diff < bestDiff {
				best, bestDiff = j, diff
			}
		}
		if best >= 0 {
			taken[i], taken[best] = true, true
			out = append(out, [2]store.Ticket{a, waiting[best]})
		}
	}
	return out
}

// pair takes a and b out of their pool and, when this node got them,
// opens their room and settles both tickets with their seats.
func (m *Manager) pair(pool string, a, b store.Ticket, now int64) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*m.cfg.StoreTimeout)
	defer cancel()
	ok, err := m.cfg.Pool.PoolPair(ctx, pool, a.ID, b.ID, now, now+pairedKeep.Milliseconds())
	if err != nil || !ok {
		if err != nil {
			m.cfg.Logger.Warn("rated pool: pairing failed", "pool", pool, "err", err)
		}
		return // another node paired one of them, or a ticket lapsed
	}
	m.cfg.Logger.Info("rated pool: paired", "pool", pool, "a", a.Player, "b", b.Player,
		"ratings", fmt.Sprintf("%.0f/%.0f", a.Rating, b.Rating), "waited_ms", now-min(a.Joined, b.Joined))
	game, mode, _ := strings.Cut(pool, "/")
	mode, _, _ = strings.Cut(mode, "/")
	m.pool.mu.Lock()
	open := m.pool.opener
	m.pool.mu.Unlock()
	if open == nil {
		open = m.OpenRated
	}
	req := RatedRequest{Game: game, Mode: mode, Settings: json.RawMessage(a.Settings),
		Players: []RatedPlayer{{Player: a.Player, Name: a.Name}, {Player: b.Player, Name: b.Name}}}
	r, err := open(ctx, req)
	seats := [2]PoolSeat{}
	if err == nil && len(r.Seats) != 2 {
		err = fmt.Errorf("the rated room has %d seats for 2 players", len(r.Seats))
	}
	for i := range 2 {
		other := []store.Ticket{b, a}[i]
		if err != nil {
			seats[i] = PoolSeat{Error: "the room could not be opened: " + err.Error() + " (ask again)"}
			continue
		}
		seats[i] = PoolSeat{Room: r.Code, Token: r.Seats[i].Token, Seat: r.Seats[i].Seat, Node: r.Node, URL: r.URL,
			Opponent: other.Name, Rating: other.Rating, WaitedMs: now - []store.Ticket{a, b}[i].Joined, OpponentWaitedMs: now - other.Joined}
	}
	if err != nil {
		m.cfg.Logger.Warn("rated pool: opening the room failed", "pool", pool, "err", err)
	}
	settled := m.cfg.Now().UnixMilli()
	for i, t := range []store.Ticket{a, b} {
		data, _ := json.Marshal(seats[i])
		if err := m.cfg.Pool.PoolSettle(ctx, t.ID, data, settled, settled+settledKeep.Milliseconds()); err != nil {
			m.cfg.Logger.Warn("rated pool: settling a ticket failed", "pool", pool, "player", t.Player, "err", err)
		}
	}
}

// PoolTickets is the number of waiting tickets of pool (for tests and the
// admin view).
func (m *Manager) PoolTickets(ctx context.Context, pool string) (int, error) {
	if m.cfg.Pool == nil {
		return 0, ErrNoPool
	}
	list, err := m.cfg.Pool.PoolWaiting(ctx, pool, m.cfg.Now().UnixMilli(), store.MaxPoolRead)
	return len(list), err
}
