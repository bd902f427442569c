// Package memstore keeps rooms and leaderboards in process memory: for unit
// tests and for running without persistence. It passes the conformance suite
// of store/storetest like the stores that persist.
package memstore

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/roomd/roomd/store"
	"github.com/roomd/roomd/store/internal/fence"
)

// Memory keeps rooms in process memory: nothing survives the process.
type Memory struct {
	mu     sync.Mutex
	rooms  map[string]*memRoom
	boards map[boardKey][]store.Score
	// expiry holds the boards that expire: ms since the epoch after which
	// each is dropped.
	expiry map[boardKey]int64
	claims map[string]memClaim
	// claimScan is how many claims were kept after the last scan for
	// expired ones: the next scan comes when there are twice as many.
	claimScan int
	outbox    map[string]store.Event
	leases    map[string]memLease // ownership (cluster.go)
	// ratingsData holds the ratings (rating.go).
	ratingsData memRatings
	nodes       map[string]memNode
	closed      bool
	// Now is the clock used for the expiry of rooms and boards; zero means
	// time.Now.
	Now func() time.Time
	// LeaderboardSize is how many scores each board keeps. Zero means 1000.
	LeaderboardSize int
	// Fail, when set, is returned by every write (for tests of outages).
	Fail error
	// MaxOutbox is how many events the outbox holds. Zero means
	// store.MaxOutbox.
	MaxOutbox int
	// Pool is the rated quick-play pool of the nodes on this store.
	*Pool
}

// boardKey is where a board's scores are kept: its name without Higher.
type boardKey struct{ game, board, kind string }

// memClaim is a claimed value; expires is zero when it never expires.
type memClaim struct {
	value   []byte
	expires time.Time
}

type memRoom struct {
	fence   uint64
	snap    store.Snapshot
	entries []store.Entry
	ended   bool
	expires time.Time
}

var (
	_ store.Store        = (*Memory)(nil)
	_ store.Leaderboards = (*Memory)(nil)
	_ store.Claims       = (*Memory)(nil)
	_ store.Outbox       = (*Memory)(nil)
	_ store.Backend      = (*Memory)(nil)
	_ store.Pool         = (*Memory)(nil)
)

// New returns an empty memory store.
func New() *Memory {
	return &Memory{
		Pool:   NewPool(),
		rooms:  make(map[string]*memRoom),
		boards: make(map[boardKey][]store.Score),
		expiry: make(map[boardKey]int64),
		claims: make(map[string]memClaim),
		outbox: make(map[string]store.Event),
		leases: make(map[string]memLease),
		nodes:  make(map[string]memNode),
	}
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
		return store.ErrClosed
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

func (m *Memory) Create(ctx context.Context, room string, snap store.Snapshot) (store.Lease, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.check(); err != nil {
		return store.Lease{}, fmt.Errorf("create %s: %w", room, err)
	}
	if _, ok := m.live(room); ok {
		return store.Lease{}, fmt.Errorf("create %s: %w", room, store.ErrExists)
	}
	r := &memRoom{fence: fence.First(time.Now()), snap: cloneSnap(snap)}
	m.rooms[room] = r
	return store.Lease{Room: room, Token: r.fence}, nil
}

func (m *Memory) Open(ctx context.Context, room string) (store.Lease, store.Record, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.check(); err != nil {
		return store.Lease{}, store.Record{}, fmt.Errorf("open %s: %w", room, err)
	}
	r, ok := m.live(room)
	if !ok {
		return store.Lease{}, store.Record{}, fmt.Errorf("open %s: %w", room, store.ErrNotFound)
	}
	r.fence++
	rec := store.Record{Snapshot: cloneSnap(r.snap), Ended: r.ended}
	for _, e := range r.entries {
		rec.Entries = append(rec.Entries, store.Entry{Rev: e.Rev, Data: slices.Clone(e.Data)})
	}
	return store.Lease{Room: room, Token: r.fence}, rec, nil
}

func (m *Memory) held(op string, lease store.Lease) (*memRoom, error) {
	if err := m.check(); err != nil {
		return nil, fmt.Errorf("%s %s: %w", op, lease.Room, err)
	}
	r, ok := m.live(lease.Room)
	if !ok {
		return nil, fmt.Errorf("%s %s: %w", op, lease.Room, store.ErrNotFound)
	}
	if r.fence != lease.Token {
		return nil, fmt.Errorf("%s %s: token %d, current %d: %w", op, lease.Room, lease.Token, r.fence, store.ErrFenced)
	}
	return r, nil
}

func (m *Memory) Append(ctx context.Context, lease store.Lease, entries []store.Entry) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	_, err := m.appendLocked("append", lease, entries)
	return err
}

// appendLocked appends entries under m.mu; dup is true when they were all
// stored already (a retry that changes nothing).
func (m *Memory) appendLocked(op string, lease store.Lease, entries []store.Entry) (dup bool, err error) {
	r, err := m.held(op, lease)
	if err != nil {
		return false, err
	}
	last := r.last()
	if len(entries) > 0 && entries[0].Rev <= last && r.stored(entries) {
		return true, nil // a retry of an append that landed
	}
	for _, e := range entries {
		if e.Rev != last+1 {
			return false, fmt.Errorf("%s %s: rev %d after %d: %w", op, lease.Room, e.Rev, last, store.ErrGap)
		}
		last = e.Rev
	}
	for _, e := range entries {
		r.entries = append(r.entries, store.Entry{Rev: e.Rev, Data: slices.Clone(e.Data)})
	}
	return false, nil
}

// last is the revision of the last entry, or of the snapshot when newer.
func (r *memRoom) last() uint64 {
	if n := len(r.entries); n > 0 {
		return max(r.entries[n-1].Rev, r.snap.Rev)
	}
	return r.snap.Rev
}

// stored reports whether entries are all in the log with the same bytes.
func (r *memRoom) stored(entries []store.Entry) bool {
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

func (m *Memory) WriteSnapshot(ctx context.Context, lease store.Lease, snap store.Snapshot) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, err := m.held("snapshot", lease)
	if err != nil {
		return err
	}
	if snap.Rev < r.snap.Rev {
		return nil // an older snapshot never replaces a newer one
	}
	if snap.Rev > r.last() {
		r.entries = nil // ahead of the log: nothing stored can lead up to it
	} else {
		keep := snap.FirstKept()
		i := sort.Search(len(r.entries), func(i int) bool { return r.entries[i].Rev >= keep })
		r.entries = slices.Clone(r.entries[i:])
	}
	r.snap = cloneSnap(snap)
	return nil
}

func (m *Memory) End(ctx context.Context, lease store.Lease, ttl time.Duration) error {
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
		return nil, fmt.Errorf("list: %w", store.ErrClosed)
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

// Record first drops the boards past their expiry. It then replaces the
// score of s's player id or name (store.SameWho), if any, when s ranks
// before it, inserts s after every
// score that does not rank after it, and drops the worst score when the
// board is over LeaderboardSize.
func (m *Memory) Record(ctx context.Context, b store.Board, s store.Score) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.check(); err != nil {
		return fmt.Errorf("record score: %w", err)
	}
	if math.IsNaN(s.Value) || math.IsInf(s.Value, 0) {
		return fmt.Errorf("record score: value %v is not a finite number", s.Value)
	}
	if b.Expires < 0 {
		return fmt.Errorf("record score: expiry %d is before the epoch", b.Expires)
	}
	now := m.now().UnixMilli()
	for k, at := range m.expiry {
		if now > at {
			delete(m.boards, k)
			delete(m.expiry, k)
		}
	}
	k := boardKey{b.Game, b.Board, b.Kind}
	if b.Expires != 0 {
		m.expiry[k] = b.Expires
	}
	list := m.boards[k]
	if i := slices.IndexFunc(list, func(old store.Score) bool { return store.SameWho(old, s) }); i >= 0 {
		if !b.Before(s, list[i]) {
			return nil // the player's or name's older score is as good
		}
		list = slices.Delete(list, i, i+1)
	}
	i := sort.Search(len(list), func(i int) bool { return b.Before(s, list[i]) })
	list = slices.Insert(list, i, s)
	size := m.LeaderboardSize
	if size <= 0 {
		size = 1000
	}
	if len(list) > size {
		list = list[:size]
	}
	m.boards[k] = list
	return nil
}

func (m *Memory) Top(ctx context.Context, b store.Board, limit int) ([]store.Score, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, fmt.Errorf("top scores: %w", store.ErrClosed)
	}
	k := boardKey{b.Game, b.Board, b.Kind}
	if at, ok := m.expiry[k]; ok && m.now().UnixMilli() > at {
		return nil, nil
	}
	list := m.boards[k]
	if limit > 0 && len(list) > limit {
		list = list[:limit]
	}
	return slices.Clone(list), nil
}

// Claim stores value under key unless a claim of key holds it and has not
// expired (by Now). Expired claims are replaced when claimed again, and
// dropped by a scan of all claims whenever a claim that stores finds twice
// as many claims as the last scan left (amortised O(1) a claim).
func (m *Memory) Claim(ctx context.Context, key string, value []byte, ttl time.Duration) ([]byte, bool, error) {
	if err := store.CheckClaim(key, value, ttl); err != nil {
		return nil, false, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.check(); err != nil {
		return nil, false, fmt.Errorf("claim: %w", err)
	}
	now := m.now()
	if c, ok := m.claims[key]; ok && (c.expires.IsZero() || now.Before(c.expires)) {
		return slices.Clone(nonNil(c.value)), false, nil
	}
	c := memClaim{value: slices.Clone(nonNil(value))}
	if ttl > 0 {
		c.expires = now.Add(ttl)
	}
	m.claims[key] = c
	if n := len(m.claims); n >= minClaimScan && n >= 2*m.claimScan {
		for k, c := range m.claims {
			if !c.expires.IsZero() && !now.Before(c.expires) {
				delete(m.claims, k)
			}
		}
		m.claimScan = len(m.claims)
	}
	return slices.Clone(c.value), true, nil
}

// Mark stores value under key for good, whatever is held there.
func (m *Memory) Mark(ctx context.Context, key string, value []byte) error {
	if err := store.CheckClaim(key, value, 0); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.check(); err != nil {
		return fmt.Errorf("mark: %w", err)
	}
	m.claims[key] = memClaim{value: slices.Clone(nonNil(value))}
	return nil
}

// minClaimScan is how many claims there are at least before Claim scans
// them for expired ones.
const minClaimScan = 64

func (m *Memory) maxOutbox() int {
	if m.MaxOutbox > 0 {
		return m.MaxOutbox
	}
	return store.MaxOutbox
}

// enqueueLocked adds events under m.mu and returns how many it dropped. An
// event whose ID is queued replaces it.
func (m *Memory) enqueueLocked(events []store.Event) (dropped int) {
	limit := m.maxOutbox()
	for _, e := range events {
		if _, ok := m.outbox[e.ID]; !ok && len(m.outbox) >= limit {
			dropped++
			continue
		}
		e.Data = slices.Clone(e.Data)
		m.outbox[e.ID] = e
	}
	return dropped
}

func (m *Memory) Enqueue(ctx context.Context, events []store.Event) (int, error) {
	if err := store.CheckEvents(events); err != nil {
		return 0, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.check(); err != nil {
		return 0, fmt.Errorf("enqueue: %w", err)
	}
	return m.enqueueLocked(events), nil
}

// AppendWith appends and enqueues under the one mutex: both or neither. A
// retry of an append that landed enqueues nothing (the first attempt did).
func (m *Memory) AppendWith(ctx context.Context, lease store.Lease, entries []store.Entry, events []store.Event) (int, error) {
	if err := store.CheckEvents(events); err != nil {
		return 0, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	dup, err := m.appendLocked("append", lease, entries)
	if err != nil || dup {
		return 0, err
	}
	return m.enqueueLocked(events), nil
}

func (m *Memory) Due(ctx context.Context, now int64, limit int) ([]store.Event, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, fmt.Errorf("due events: %w", store.ErrClosed)
	}
	var out []store.Event
	for _, e := range m.outbox {
		if e.Due <= now {
			out = append(out, e)
		}
	}
	slices.SortFunc(out, func(a, b store.Event) int {
		if a.Due != b.Due {
			return cmp.Compare(a.Due, b.Due)
		}
		return strings.Compare(a.ID, b.ID)
	})
	out = out[:min(len(out), store.DueLimit(limit))]
	for i := range out {
		out[i].Data = slices.Clone(out[i].Data)
	}
	return out, nil
}

func (m *Memory) Retry(ctx context.Context, id string, attempts int, due int64) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.check(); err != nil {
		return fmt.Errorf("retry event: %w", err)
	}
	if e, ok := m.outbox[id]; ok {
		e.Attempts, e.Due = attempts, due
		m.outbox[id] = e
	}
	return nil
}

func (m *Memory) Ack(ctx context.Context, ids []string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.check(); err != nil {
		return fmt.Errorf("ack events: %w", err)
	}
	for _, id := range ids {
		delete(m.outbox, id)
	}
	return nil
}

// nonNil makes an empty value read back as empty, not nil, as the stores
// that persist return it.
func nonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

// cloneSnap copies what is stored of a snapshot (not Keep).
func cloneSnap(s store.Snapshot) store.Snapshot {
	return store.Snapshot{Rev: s.Rev, Data: slices.Clone(s.Data)}
}

// Forget deletes a room as a store that loses data would (a Redis restarted
// without persistence), for tests of how rooms recover from it.
func (m *Memory) Forget(room string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.rooms, room)
}
