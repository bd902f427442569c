package room

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/roomd/roomd/core/session"
	"github.com/roomd/roomd/internal/ids"
	"github.com/roomd/roomd/protocol"
	"github.com/roomd/roomd/store"
)

// Manager finds, creates, restores and shuts down rooms.
type Manager struct {
	cfg Config

	deadline atomic.Pointer[sharedDeadline] // storeCtx's

	mu      sync.Mutex
	rooms   map[string]*Room
	loading map[string]chan struct{}
	closing bool
	wg      sync.WaitGroup

	// writeFailures counts the rooms' store writes that failed since the
	// last one that succeeded: /readyz is degraded while it is not zero.
	writeFailures atomic.Int64
	lastFailure   atomic.Pointer[string]

	scores     chan finished // to the leaderboard writer
	scoresQuit chan struct{} // closed by Shutdown
	scoresDone chan struct{} // closed when the writer has stopped
	stopScores sync.Once

	replaySlots chan struct{} // a token per replay being validated (SubmitReplay)

	// The rating writer (rated.go), without an outbox.
	ratings         chan store.RatedMatch
	ratingsQuit     chan struct{}
	ratingsDone     chan struct{}
	stopRatingsOnce sync.Once

	reports reports // reported chat messages (chat.go)

	// started is when this manager began, and lastAlive (Unix ms) the last
	// heartbeat of the process before it (0: none known) — pause.go.
	started   time.Time
	lastAlive int64
	aliveStop chan struct{}
	aliveDone chan struct{}
	aliveOnce sync.Once

	leaseStop chan struct{} // the lease renewer (cluster.go)
	leaseDone chan struct{}
	leaseOnce sync.Once

	dailyMu       sync.Mutex
	dailyKeyBytes []byte // the daily key, once claimed (daily.go)

	listing listing // the public rooms and quick play (listing.go)

	pool pooler // rated quick play's pairing loop (pool.go)
}

// NewManager validates cfg and returns a manager with no rooms loaded.
func NewManager(cfg Config) (*Manager, error) {
	if err := cfg.setDefaults(); err != nil {
		return nil, err
	}
	m := &Manager{cfg: cfg, rooms: map[string]*Room{}, loading: map[string]chan struct{}{},
		scoresQuit: make(chan struct{}), scoresDone: make(chan struct{}), replaySlots: make(chan struct{}, maxReplaysAtOnce)}
	m.startAlive()
	m.startLeases()
	m.startRatings()
	m.startPool()
	if cfg.Leaderboards != nil {
		m.scores = make(chan finished, 1024)
		go m.writeScores()
	} else {
		close(m.scoresDone)
	}
	return m, nil
}

// Config returns the manager's configuration with defaults applied.
func (m *Manager) Config() Config { return m.cfg }

// Games returns the registry of games.
func (m *Manager) Games() *session.Registry { return m.cfg.Games }

// CreateRequest asks for a new room.
type CreateRequest struct {
	Game     string          `json:"game"`
	Settings json.RawMessage `json:"settings,omitempty"`
	Name     string          `json:"name,omitempty"`
	// Access is public, unlisted (the default) or locked; WatchLocked makes
	// watching a locked room need the invite too.
	Access      string `json:"access,omitempty"`
	WatchLocked bool   `json:"watchLocked,omitempty"`
	// Public is a shorthand for access "public"; with another access it
	// is refused.
	Public bool `json:"public,omitempty"`
	// Daily asks for a room that plays today's ranked daily of the
	// settings' game, mode and board (daily.go): a locked room, watched only
	// with its invite, that plays one match.
	Daily bool `json:"daily,omitempty"`
	// Client names the client's address (set by the server, never read
	// from the body): a daily is played once per address.
	Client string `json:"-"`
	// Player is the site's player id when the creator signed in (set by
	// the server from a verified token, never read from the body).
	Player string `json:"-"`
	// Quick marks a room made by quick play (set by QuickPlay, never read
	// from the body): it starts by itself (quick.go).
	Quick bool `json:"-"`
}

// Create makes a room whose host is a new seat named req.Name, stores it
// and starts its actor.
func (m *Manager) Create(ctx context.Context, req CreateRequest) (JoinResult, error) {
	if len(req.Settings) == 0 || string(req.Settings) == "null" {
		req.Settings = json.RawMessage("{}")
	}
	if err := req.resolvePublic(); err != nil {
		return JoinResult{}, err
	}
	var daily *dailyState
	for range 8 {
		code := ids.Code()
		m.mu.Lock()
		closing, taken, full := m.closing, m.rooms[code] != nil, len(m.rooms) >= m.cfg.MaxRooms
		m.mu.Unlock()
		if closing {
			return JoinResult{}, ErrShuttingDown
		}
		if full {
			return JoinResult{}, ErrTooManyRooms
		}
		if taken {
			continue
		}
		t := m.cfg.Now().UnixMilli()
		st, err := newState(m.cfg.Games, code, ids.New(), req.Game, req.Settings, t)
		if err != nil {
			return JoinResult{}, err
		}
		token := ids.Token()
		host := &player{ID: ids.New(), Name: cleanName(req.Name), TokenHash: ids.HashToken(token), Player: req.Player}
		st.Players, st.Host, st.Quick = []*player{host}, host.ID, req.Quick
		switch req.Access {
		case "", protocol.AccessUnlisted:
		case protocol.AccessPublic:
			st.Access = req.Access
		case protocol.AccessLocked:
			st.Access, st.Invite, st.WatchLocked = req.Access, ids.Token(), req.WatchLocked
		default:
			return JoinResult{}, fmt.Errorf("%w: access must be public, unlisted or locked, not %q", ErrBadSettings, req.Access)
		}
		if req.Daily {
			if daily == nil { // claimed once, whatever code the room ends up with
				if daily, err = m.startDaily(ctx, req, st); err != nil {
					return JoinResult{}, err
				}
			}
			st.Daily, st.Access, st.Invite, st.WatchLocked = daily, protocol.AccessLocked, ids.Token(), true
		}
		data, keep, err := st.encode()
		if err != nil {
			return JoinResult{}, err
		}
		snap := store.Snapshot{Rev: 0, Data: data, Keep: keep}
		lease, err := m.createInStore(ctx, code, snap)
		if errors.Is(err, store.ErrExists) {
			continue
		}
		if err != nil {
			return JoinResult{}, fmt.Errorf("%w: %v", ErrStorage, err)
		}
		r := newRoom(m, st, lease, store.Record{Snapshot: snap})
		m.mu.Lock()
		if m.closing {
			m.mu.Unlock()
			return JoinResult{}, ErrShuttingDown
		}
		m.rooms[code] = r
		m.start(r)
		m.mu.Unlock()
		m.cfg.Logger.Info("room created", "room", code, "room_id", r.id, "game", req.Game)
		m.hookCreated(ctx, st, t)
		return JoinResult{Room: code, Token: token, Seat: 0, Invite: st.Invite}, nil
	}
	return JoinResult{}, errors.New("room: could not find a free room code")
}

func (m *Manager) start(r *Room) {
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		r.run()
	}()
}

// NormalizeCode upper-cases a room code and trims spaces.
func NormalizeCode(code string) string { return strings.ToUpper(strings.TrimSpace(code)) }

// Get returns the live room with code, restoring it from the store if it is
// not loaded. It fails with ErrNoRoom for an unknown or closed room.
func (m *Manager) Get(ctx context.Context, code string) (*Room, error) {
	code = NormalizeCode(code)
	if !ids.IsCode(code) {
		return nil, ErrNoRoom // not a code this server makes: the store is not asked
	}
	for {
		m.mu.Lock()
		if m.closing {
			m.mu.Unlock()
			return nil, ErrShuttingDown
		}
		if r := m.rooms[code]; r != nil {
			m.mu.Unlock()
			return r, nil
		}
		if ch := m.loading[code]; ch != nil {
			m.mu.Unlock()
			select {
			case <-ch:
				continue
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		ch := make(chan struct{})
		m.loading[code] = ch
		m.mu.Unlock()
		r, err := m.restore(ctx, code)
		m.mu.Lock()
		delete(m.loading, code)
		if err == nil {
			if m.closing {
				err = ErrShuttingDown
			} else {
				m.rooms[code] = r
				m.start(r)
			}
		}
		m.mu.Unlock()
		close(ch)
		return r, err
	}
}

func (m *Manager) restore(ctx context.Context, code string) (*Room, error) {
	lease, rec, err := m.openInStore(ctx, code)
	if errors.Is(err, store.ErrNotFound) {
		return nil, ErrNoRoom
	}
	if errors.Is(err, store.ErrOwned) {
		return nil, err // another node runs it: an *store.OwnedError
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrStorage, err)
	}
	if rec.Ended {
		return nil, ErrNoRoom
	}
	st, err := rebuild(m.cfg.Games, rec.Snapshot.Data, rec.Entries)
	if err != nil {
		m.cfg.Logger.Error("room does not restore", "room", code, "err", err)
		return nil, fmt.Errorf("restore %s: %w", code, err)
	}
	if st.Closed {
		return nil, ErrNoRoom
	}
	m.rerate(st)
	if rec.Rewound {
		if err := m.moveRewound(ctx, lease, st, &rec); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrStorage, err)
		}
	}
	r := newRoom(m, st, lease, rec)
	m.cfg.Logger.Info("room restored", "room", code, "room_id", r.id, "rev", st.Rev, "replayed", len(rec.Entries))
	return r, nil
}

// RestoreAll loads every live room in the store (in a cluster, every one
// no other node owns) and returns how many came back. Rooms that fail to restore are logged and counted in the error.
func (m *Manager) RestoreAll(ctx context.Context) (int, error) {
	codes, err := m.cfg.Store.List(ctx)
	if err != nil {
		return 0, err
	}
	n := 0
	var errs []error
	for _, code := range codes {
		if _, err := m.Get(ctx, code); err != nil {
			if !errors.Is(err, ErrNoRoom) && !errors.Is(err, store.ErrOwned) { // another node's room is its own
				errs = append(errs, err)
			}
			continue
		}
		n++
	}
	return n, errors.Join(errs...)
}

// Rooms returns the live rooms.
func (m *Manager) Rooms() []*Room {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]*Room, 0, len(m.rooms))
	for _, r := range m.rooms {
		out = append(out, r)
	}
	return out
}

// Lookup returns a loaded room without restoring it.
func (m *Manager) Lookup(code string) (*Room, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.rooms[NormalizeCode(code)]
	return r, ok
}

func (m *Manager) forget(r *Room) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.rooms[r.code] == r {
		delete(m.rooms, r.code)
	}
}

// PingStore asks the store whether it answers (GET /readyz): transport/
// reaches the store through the manager, not through its Config.
func (m *Manager) PingStore(ctx context.Context) error { return m.cfg.Store.Ping(ctx) }

// StoreHealth reports whether the rooms' writes land: an error while the
// last store writes failed (since the last one that succeeded).
func (m *Manager) StoreHealth() error {
	if n := m.writeFailures.Load(); n > 0 {
		why := ""
		if p := m.lastFailure.Load(); p != nil {
			why = ": " + *p
		}
		return fmt.Errorf("%d store writes failed since the last that succeeded%s", n, why)
	}
	return nil
}

// noteWrite records the outcome of a room's store write.
func (m *Manager) noteWrite(err error) {
	if err == nil {
		m.writeFailures.Store(0)
		return
	}
	msg := err.Error()
	m.lastFailure.Store(&msg)
	m.writeFailures.Add(1)
}

// close refuses new rooms from now on and returns the live ones.
func (m *Manager) close() []*Room {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.closing = true
	rooms := make([]*Room, 0, len(m.rooms))
	for _, r := range m.rooms {
		rooms = append(rooms, r)
	}
	return rooms
}

// Shutdown stops every room: each writes a final snapshot and tells its
// clients to come back after RetryAfter. It returns when all actors have
// stopped or ctx ends.
func (m *Manager) Shutdown(ctx context.Context) error {
	m.stopPool()
	m.stopAlive()
	for _, r := range m.close() {
		r.shutdown()
	}
	done := make(chan struct{})
	go func() {
		m.wg.Wait()
		close(done)
	}()
	var err error
	select {
	case <-done:
	case <-ctx.Done():
		err = fmt.Errorf("room: shutdown: %w", ctx.Err())
	}
	// The leases stop once the rooms have (their final writes need them).
	m.stopLeases()
	// The leaderboard writer stops either way (rooms still running then
	// drop their results, logged), after writing what was queued.
	m.stopScores.Do(func() { close(m.scoresQuit) })
	select {
	case <-m.scoresDone:
	case <-ctx.Done():
		err = errors.Join(err, fmt.Errorf("room: shutdown: leaderboard writer: %w", ctx.Err()))
	}
	return errors.Join(err, m.stopRatings(ctx))
}
