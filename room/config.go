package room

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/roomd/roomd/core/session"
	"github.com/roomd/roomd/store"
)

// Config configures a Manager. The zero value of every field but Games and
// Store works.
type Config struct {
	// Games are the games rooms can run. Required.
	Games *session.Registry
	// Store persists rooms. Required (package memstore has one that keeps
	// nothing past the process).
	Store store.Store
	// Leaderboards records finished results. Nil means none are recorded.
	Leaderboards store.Leaderboards
	// Outbox keeps what a room's changes owe the world beyond the room,
	// each stored in the same write as the entries that made it: a finished
	// match's leaderboard results (leaderboard.go, applied by
	// Manager.RecordScores) and, with Webhooks, webhook events (hooks.go).
	// A dispatcher (transport/webhook) hands them on. Nil means no webhooks,
	// and results recorded from memory once stored, best effort (a store
	// outage then drops them).
	Outbox store.Outbox
	// Webhooks makes the rooms put webhook events in the Outbox.
	Webhooks bool
	// HooksQueued is called by a room's actor once it has stored events in
	// the Outbox; it must not block (a dispatcher's Wake).
	HooksQueued func()
	// AliveEvery is how often the manager notes in Claims that this
	// process runs (pause.go: a crash's downtime is then known to the
	// second). Zero means 1 second; negative means never.
	AliveEvery time.Duration
	// Cluster, when set, makes this manager one node of several sharing
	// the store (cluster.go): it owns the rooms it runs by leases of
	// LeaseTTL (default 10 s) in Cluster, under the node id Node
	// (required then). Nil: this process alone writes the store.
	Cluster  store.Cluster
	Node     string
	LeaseTTL time.Duration
	// Ratings keeps the players' ratings per game and mode (rated.go).
	// Nil means no rated rooms and no ratings.
	Ratings store.Ratings
	// RatedModes are the game modes that may be rated, as "game/mode".
	// Nil means DefaultRatedModes.
	RatedModes []string
	// Claims holds the daily key and who played each daily (daily.go). Nil
	// means the server keeps no ranked dailies.
	Claims store.Claims
	// Logger receives the rooms' logs. Nil means discard.
	Logger *slog.Logger
	// Now is the host clock. Nil means time.Now.
	Now func() time.Time
	// Seeds makes each match's seed. Nil means a random reference seed
	// (session.IntSeed of a number in [0, 2^31-1), from crypto/rand).
	Seeds func() session.Seed
	// IdleTimeout closes a room after no accepted change and no connection
	// change for this long. Zero means 30 minutes.
	IdleTimeout time.Duration
	// AIDelay is how long an AI seat "thinks" before it moves. Zero means
	// 400 ms; a negative value means at once.
	AIDelay time.Duration
	// SnapshotEvery writes a snapshot after this many entries. Zero means 256.
	SnapshotEvery int
	// SnapshotInterval writes a snapshot when entries are older than this.
	// Zero means 30 seconds.
	SnapshotInterval time.Duration
	// CheckpointInterval writes a snapshot — with the game's checkpoint —
	// of a real-time match that has ticked this long since the last one, so
	// that a restore runs at most this many ticks again. Zero means 10 s.
	CheckpointInterval time.Duration
	// EndedTTL is how long a closed room stays in the store. Zero means 24 hours.
	EndedTTL time.Duration
	// MailboxSize bounds a room's queue of inputs. Zero means 4096.
	MailboxSize int
	// RetryAfter is what clients are told to wait before reconnecting when
	// the server shuts down. Zero means 1 second.
	RetryAfter time.Duration
	// StoreTimeout bounds one store call. Zero means 3 seconds.
	StoreTimeout time.Duration
	// PresenceInterval coalesces presence messages. Zero means 100 ms.
	PresenceInterval time.Duration
	// Heartbeat is how often connections are pinged; clients are told it.
	// Zero means 15 seconds.
	Heartbeat time.Duration
	// SeatGrace is how long a seat in the lobby may have no connection
	// before the room gives it up (a seat taken over HTTP that never comes
	// online, or a player who left without leaving). Zero means 30 seconds.
	SeatGrace time.Duration
	// QuickStart is the countdown of a room made by quick play (quick.go):
	// once its mode's minimum seats are taken and connected, its match
	// starts this long after. Zero means 5 seconds (DefaultQuickStart).
	QuickStart time.Duration
	// LobbyTimeout closes a room in the lobby that has had no connection for
	// this long. Zero means 2 minutes.
	LobbyTimeout time.Duration
	// MaxSpectators bounds the spectators of one room. Zero means 1,000.
	MaxSpectators int
	// MaxRooms bounds the rooms held in memory; Create fails with
	// ErrTooManyRooms beyond it (rooms already stored still load). Zero
	// means 100,000.
	MaxRooms int
	// MaxMatchMoves bounds the moves one match may log; further commands are
	// refused with match-full. Zero means each game's own bound
	// (session.Info.MaxMoves, 10,000 by default).
	MaxMatchMoves int
	// Metrics receives the rooms' measurements. Nil means none.
	Metrics *Metrics

	// Pool holds the tickets of rated quick play (pool.go): the store's
	// when nodes share one, else one in process (memstore.NewPool). Nil
	// means no rated quick play.
	Pool store.Pool
	// PoolEvery is how often the pairing loop runs. Zero means 250 ms.
	PoolEvery time.Duration
	// MaxPool bounds the waiting tickets of one pool. Zero means 10,000.
	MaxPool int
	// Rater gives the rating a player enters a pool with. Nil means the
	// manager's ratings (Rating); tests give ratings of their own.
	Rater PoolRater
	// RatedRooms makes the rooms of pairs. Nil means this manager's
	// (CreateRated).
	RatedRooms RatedRooms
}

func (c *Config) setDefaults() error {
	if c.Games == nil {
		return errors.New("room: Config.Games is required")
	}
	if c.Store == nil {
		return errors.New("room: Config.Store is required")
	}
	if c.Cluster != nil {
		setDur(&c.LeaseTTL, 10*time.Second)
		if err := store.CheckLease(c.Node, c.LeaseTTL); err != nil {
			return fmt.Errorf("room: Config.Node, LeaseTTL: %w", err)
		}
	}
	if c.Seeds == nil {
		c.Seeds = newSeed
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	setDur(&c.PoolEvery, DefaultPoolEvery)
	if c.MaxPool == 0 {
		c.MaxPool = DefaultMaxPool
	}
	setDur(&c.IdleTimeout, 30*time.Minute)
	setDur(&c.AIDelay, 400*time.Millisecond)
	if c.AIDelay < 0 {
		c.AIDelay = 0
	}
	if c.SnapshotEvery == 0 {
		c.SnapshotEvery = 256
	}
	setDur(&c.SnapshotInterval, 30*time.Second)
	setDur(&c.CheckpointInterval, 10*time.Second)
	setDur(&c.EndedTTL, 24*time.Hour)
	if c.MailboxSize == 0 {
		c.MailboxSize = 4096
	}
	setDur(&c.RetryAfter, time.Second)
	setDur(&c.StoreTimeout, 3*time.Second)
	setDur(&c.PresenceInterval, 100*time.Millisecond)
	setDur(&c.Heartbeat, 15*time.Second)
	setDur(&c.SeatGrace, 30*time.Second)
	setDur(&c.LobbyTimeout, 2*time.Minute)
	setDur(&c.QuickStart, DefaultQuickStart)
	if c.MaxSpectators == 0 {
		c.MaxSpectators = 1000
	}
	if c.MaxRooms == 0 {
		c.MaxRooms = 100_000
	}
	return nil
}

func setDur(d *time.Duration, def time.Duration) {
	if *d == 0 {
		*d = def
	}
}
