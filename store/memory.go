package store

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"sync"
	"time"
)

// Memory keeps rooms in process memory. It is for unit tests and for running
// without persistence: nothing survives the process.
type Memory struct {
	mu     sync.Mutex
	rooms  map[string]*memRoom
	boards map[string][]Score
	closed bool
	// Now is the clock used for expiry; zero means time.Now.
	Now func() time.Time
	// Fail, when set, is returned by every write (for tests of outages).
	Fail error
}

type memRoom struct {
	fence   uint64
	snap    Snapshot
	entries []Entry
	ended   bool
	expires time.Time
}

var (
	_ Store        = (*Memory)(nil)
	_ Leaderboards = (*Memory)(nil)
)

// NewMemory returns an empty memory store.
func NewMemory() *Memory {
	return &Memory{rooms: make(map[string]*memRoom), boards: make(map[string][]Score)}
}

func (m *Memory) now() time.Time {
	if m.Now != nil {
		return m.Now()
	}
	return time.Now()
}

// SetFail makes every later write fail with err (nil restores writes).
func (m *Memory) SetFail(err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.Fail = err
}

func (m *Memory) check() error {
	if m.closed {
		return ErrClosed
	}
	return m.Fail
}

func (m *Memory) live(room string) (*memRoom, bool) {
	r, ok := m.rooms[room]
	if ok && r.ended && !r.expires.IsZero() && !m.now().Before(r.expires) {
		delete(m.rooms, room)
		return nil, false
	}
	return r, ok
}

func (m *Memory) Create(ctx context.Context, room string, snap Snapshot) (Lease, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.check(); err != nil {
		return Lease{}, fmt.Errorf("create %s: %w", room, err)
	}
	if _, ok := m.live(room); ok {
		return Lease{}, fmt.Errorf("create %s: %w", room, ErrExists)
	}
	r := &memRoom{fence: firstToken(time.Now()), snap: cloneSnap(snap)}
	m.rooms[room] = r
	return Lease{Room: room, Token: r.fence}, nil
}

func (m *Memory) Open(ctx context.Context, room string) (Lease, Record, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.check(); err != nil {
		return Lease{}, Record{}, fmt.Errorf("open %s: %w", room, err)
	}
	r, ok := m.live(room)
	if !ok {
		return Lease{}, Record{}, fmt.Errorf("open %s: %w", room, ErrNotFound)
	}
	r.fence++
	rec := Record{Snapshot: cloneSnap(r.snap), Ended: r.ended}
	for _, e := range r.entries {
		rec.Entries = append(rec.Entries, Entry{Rev: e.Rev, Data: slices.Clone(e.Data)})
	}
	return Lease{Room: room, Token: r.fence}, rec, nil
}

func (m *Memory) held(op string, lease Lease) (*memRoom, error) {
	if err := m.check(); err != nil {
		return nil, fmt.Errorf("%s %s: %w", op, lease.Room, err)
	}
	r, ok := m.live(lease.Room)
	if !ok {
		return nil, fmt.Errorf("%s %s: %w", op, lease.Room, ErrNotFound)
	}
	if r.fence != lease.Token {
		return nil, fmt.Errorf("%s %s: token %d, current %d: %w", op, lease.Room, lease.Token, r.fence, ErrFenced)
	}
	return r, nil
}

func (m *Memory) Append(ctx context.Context, lease Lease, entries []Entry) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, err := m.held("append", lease)
	if err != nil {
		return err
	}
	last := r.snap.Rev
	if n := len(r.entries); n > 0 {
		last = r.entries[n-1].Rev
	}
	if len(entries) > 0 && entries[0].Rev <= last && r.stored(entries) {
		return nil // a retry of an append that landed
	}
	for _, e := range entries {
		if e.Rev != last+1 {
			return fmt.Errorf("append %s: rev %d after %d: %w", lease.Room, e.Rev, last, ErrGap)
		}
		last = e.Rev
	}
	for _, e := range entries {
		r.entries = append(r.entries, Entry{Rev: e.Rev, Data: slices.Clone(e.Data)})
	}
	return nil
}

// stored reports whether entries are all in the log with the same bytes.
func (r *memRoom) stored(entries []Entry) bool {
	i := sort.Search(len(r.entries), func(i int) bool { return r.entries[i].Rev >= entries[0].Rev })
	if len(r.entries)-i < len(entries) {
		return false
	}
	for j, e := range entries {
		if s := r.entries[i+j]; s.Rev != e.Rev || !bytes.Equal(s.Data, e.Data) {
			return false
		}
	}
	return true
}

func (m *Memory) WriteSnapshot(ctx context.Context, lease Lease, snap Snapshot) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, err := m.held("snapshot", lease)
	if err != nil {
		return err
	}
	if snap.Rev < r.snap.Rev {
		return nil // an older snapshot never replaces a newer one
	}
	r.snap = cloneSnap(snap)
	i := sort.Search(len(r.entries), func(i int) bool { return r.entries[i].Rev > snap.Rev })
	r.entries = slices.Clone(r.entries[i:])
	return nil
}

func (m *Memory) End(ctx context.Context, lease Lease, ttl time.Duration) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, err := m.held("end", lease)
	if err != nil {
		return err
	}
	r.ended, r.expires = true, m.now().Add(ttl)
	return nil
}

func (m *Memory) List(ctx context.Context) ([]string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, fmt.Errorf("list: %w", ErrClosed)
	}
	var out []string
	for code := range m.rooms {
		if r, ok := m.live(code); ok && !r.ended {
			out = append(out, code)
		}
	}
	sort.Strings(out)
	return out, nil
}

func (m *Memory) Ping(ctx context.Context) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.check(); err != nil {
		return fmt.Errorf("ping: %w", err)
	}
	return nil
}

func (m *Memory) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.closed = true
	return nil
}

func (m *Memory) Record(ctx context.Context, game, board, kind string, s Score) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.check(); err != nil {
		return fmt.Errorf("record score: %w", err)
	}
	if math.IsNaN(s.TimeMs) {
		return fmt.Errorf("record score: time is NaN")
	}
	k := game + "/" + board + "/" + kind
	list := append(m.boards[k], s)
	sort.SliceStable(list, func(i, j int) bool { return scoreLess(list[i], list[j]) })
	m.boards[k] = list
	return nil
}

func (m *Memory) Top(ctx context.Context, game, board, kind string, limit int) ([]Score, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, fmt.Errorf("top scores: %w", ErrClosed)
	}
	list := m.boards[game+"/"+board+"/"+kind]
	if limit > 0 && len(list) > limit {
		list = list[:limit]
	}
	return slices.Clone(list), nil
}

func cloneSnap(s Snapshot) Snapshot { return Snapshot{Rev: s.Rev, Data: slices.Clone(s.Data)} }

// scoreLess orders scores best first: lower time, then earlier At.
func scoreLess(a, b Score) bool {
	if a.TimeMs != b.TimeMs {
		return a.TimeMs < b.TimeMs
	}
	return a.At < b.At
}

// firstToken is the fencing token a room gets when it is created: the clock
// in microseconds, so that a code reused after its room expired never hands
// out a token an earlier holder of that code could still have.
func firstToken(now time.Time) uint64 {
	if us := now.UnixMicro(); us > 0 {
		return uint64(us)
	}
	return 1
}

// Forget deletes a room as a store that loses data would (a Redis restarted
// without persistence), for tests of how rooms recover from it.
func (m *Memory) Forget(room string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.rooms, room)
}
