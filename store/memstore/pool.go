package memstore

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/roomd/roomd/store"
)

// Pool is the rated quick-play pool in process memory: the pool of a node
// alone (whatever its store) and of the memory store's nodes in one
// process (Memory embeds one).
type Pool struct {
	mu      sync.Mutex
	tickets map[string]*store.Ticket
	waiting map[string]string // player → its waiting ticket
	// sweep is how many tickets were kept after the last sweep of the
	// lapsed ones: the next comes when there are twice as many.
	sweep int
}

var _ store.Pool = (*Pool)(nil)

// NewPool returns an empty pool.
func NewPool() *Pool {
	return &Pool{tickets: map[string]*store.Ticket{}, waiting: map[string]string{}}
}

// poolGrace is how long a ticket that is not waiting stays past its
// Expires before a sweep drops it.
const poolGrace = 60_000

// live returns ticket id if it has not expired before now.
func (p *Pool) live(id string, now int64) (*store.Ticket, bool) {
	t, ok := p.tickets[id]
	if !ok || t.Expires < now {
		return nil, false
	}
	return t, true
}

// drop forgets ticket t.
func (p *Pool) drop(t *store.Ticket) {
	delete(p.tickets, t.ID)
	if p.waiting[t.Player] == t.ID {
		delete(p.waiting, t.Player)
	}
}

// sweepLapsed drops the tickets expired for long, now and then.
func (p *Pool) sweepLapsed(now int64) {
	if len(p.tickets) < max(64, 2*p.sweep) {
		return
	}
	for _, t := range p.tickets {
		if t.Expires+poolGrace < now || (t.State == store.TicketWaiting && t.Expires < now) {
			p.drop(t)
		}
	}
	p.sweep = len(p.tickets)
}

// PoolEnter implements store.Pool.
func (p *Pool) PoolEnter(ctx context.Context, t store.Ticket, now int64, max int) error {
	const op = "pool enter"
	if err := store.CheckTicket(t); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.sweepLapsed(now)
	if id, ok := p.waiting[t.Player]; ok {
		if old, ok := p.live(id, now); ok && old.State == store.TicketWaiting {
			return fmt.Errorf("%s: %w", op, store.ErrQueued)
		}
	}
	if _, ok := p.tickets[t.ID]; ok {
		return fmt.Errorf("%s: %w: ticket %q exists", op, store.ErrBadTicket, t.ID)
	}
	n := 0
	for _, o := range p.tickets {
		if o.Pool == t.Pool && o.State == store.TicketWaiting && o.Expires >= now {
			n++
		}
	}
	if n >= max {
		return fmt.Errorf("%s: %w", op, store.ErrPoolFull)
	}
	t.State = store.TicketWaiting
	p.tickets[t.ID] = &t
	p.waiting[t.Player] = t.ID
	return nil
}

// PoolTicket implements store.Pool.
func (p *Pool) PoolTicket(ctx context.Context, id string, now, expires int64) (store.Ticket, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	t, ok := p.live(id, now)
	if !ok {
		return store.Ticket{}, fmt.Errorf("pool ticket: %w", store.ErrNoTicket)
	}
	if expires != 0 && t.State == store.TicketWaiting {
		t.Expires = expires
	}
	return copyTicket(t), nil
}

// PoolLeave implements store.Pool.
func (p *Pool) PoolLeave(ctx context.Context, pool, id string, now int64) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	t, ok := p.tickets[id]
	switch {
	case !ok || t.Pool != pool:
		return nil
	case t.State != store.TicketWaiting && t.Expires >= now:
		return fmt.Errorf("pool leave: %w", store.ErrPaired)
	}
	p.drop(t)
	return nil
}

// PoolWaiting implements store.Pool.
func (p *Pool) PoolWaiting(ctx context.Context, pool string, now int64, limit int) ([]store.Ticket, error) {
	limit = store.PoolReadLimit(limit)
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []store.Ticket
	for _, t := range p.tickets {
		if t.Pool != pool || t.State != store.TicketWaiting {
			continue
		}
		if t.Expires < now {
			p.drop(t)
			continue
		}
		out = append(out, copyTicket(t))
	}
	slices.SortFunc(out, func(a, b store.Ticket) int {
		return cmp.Or(cmp.Compare(a.Joined, b.Joined), strings.Compare(a.ID, b.ID))
	})
	return out[:min(len(out), limit)], nil
}

// PoolPair implements store.Pool.
func (p *Pool) PoolPair(ctx context.Context, pool, a, b string, now, expires int64) (bool, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if a == b {
		return false, nil
	}
	ta, oka := p.live(a, now)
	tb, okb := p.live(b, now)
	if !oka || !okb || ta.Pool != pool || tb.Pool != pool || ta.State != store.TicketWaiting || tb.State != store.TicketWaiting {
		return false, nil
	}
	for _, x := range [][2]*store.Ticket{{ta, tb}, {tb, ta}} {
		t, o := x[0], x[1]
		t.State, t.Partner, t.Expires = store.TicketPaired, o.ID, expires
		if p.waiting[t.Player] == t.ID {
			delete(p.waiting, t.Player)
		}
	}
	return true, nil
}

// PoolSettle implements store.Pool.
func (p *Pool) PoolSettle(ctx context.Context, id string, outcome []byte, now, expires int64) error {
	const op = "pool settle"
	if len(outcome) > store.MaxOutcome {
		return fmt.Errorf("%s: %w: outcome of %d bytes", op, store.ErrBadTicket, len(outcome))
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	t, ok := p.live(id, now)
	switch {
	case !ok:
		return fmt.Errorf("%s: %w", op, store.ErrNoTicket)
	case t.State != store.TicketPaired:
		return fmt.Errorf("%s: %w", op, store.ErrNotPaired)
	}
	t.State, t.Outcome, t.Expires = store.TicketSettled, slices.Clone(outcome), expires
	return nil
}

func copyTicket(t *store.Ticket) store.Ticket {
	c := *t
	c.Outcome = slices.Clone(t.Outcome)
	return c
}
