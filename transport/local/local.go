// Package local plays a game in this process behind the client.Transport
// interface: a real room (the same actor, reducer and projections as a
// server's) over a store that keeps nothing, reached through the same
// client.Tracker as a remote transport. Receipts, updates, notices and their
// order are therefore a server's; only the socket is missing. For tests,
// tools and offline play.
package local

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/roomd/roomd/internal/ids"
	"github.com/roomd/roomd/internal/queue"
	"github.com/roomd/roomd/protocol"
	"github.com/roomd/roomd/room"
	"github.com/roomd/roomd/store/memstore"
	"github.com/roomd/roomd/transport/client"
)

// Config configures a Transport.
type Config struct {
	// Room configures the room: Games is required; the store is always a
	// memory one (Room.Store is ignored); a zero AIDelay means at once.
	Room room.Config
	// Game and Settings choose what is played; Name is the local player's.
	// The local player creates the room and hosts it, on seat 0.
	Game     string
	Settings json.RawMessage
	Name     string
	// EventBuffer is the size of the events channel. Zero means 256.
	EventBuffer int
}

// Transport is a local game. Start creates its room; actions and events
// then flow as with a remote room.
type Transport struct {
	*client.Tracker
	cfg    Config
	events chan client.Event
	in     *queue.Queue[[]byte] // frames from the room, in order
	done   chan struct{}
	quit   chan struct{}

	mu      sync.Mutex
	rooms   *room.Manager
	store   *memstore.Memory
	r       *room.Room
	c       *conn
	started bool
	closed  bool
}

var (
	_ client.Transport = (*Transport)(nil)
	_ room.Client      = (*conn)(nil)
)

// New returns a local transport; Start creates its room.
func New(cfg Config) *Transport {
	if cfg.EventBuffer == 0 {
		cfg.EventBuffer = 256
	}
	if cfg.Room.AIDelay == 0 {
		cfg.Room.AIDelay = -1
	}
	t := &Transport{Tracker: client.NewTracker(""), cfg: cfg, events: make(chan client.Event, cfg.EventBuffer),
		in: queue.New[[]byte](0), done: make(chan struct{}), quit: make(chan struct{})}
	t.c = &conn{t: t, id: ids.New()}
	return t
}

// conn is the transport's connection as its room sees it.
type conn struct {
	t  *Transport
	id string
}

func (c *conn) ID() string { return c.id }

// Send queues a frame for the transport's reader; it never blocks the room.
func (c *conn) Send(frame []byte) { _ = c.t.in.Push(frame) }

// Close ends the connection: as on a socket, a bye comes first.
func (c *conn) Close(code int, reason string, retryAfter time.Duration) {
	bye := protocol.Bye{Type: protocol.TypeBye, Code: code, Reason: reason, Reconnect: !protocol.Terminal(code)}
	if bye.Reconnect {
		bye.RetryAfterMs = int(retryAfter / time.Millisecond)
	}
	if frame, err := protocol.Encode(bye); err == nil {
		_ = c.t.in.Push(frame)
	}
	_ = c.t.in.Push(nil) // the end of the connection
}

// Start implements client.Transport: it creates the room (the local player
// hosts it) and joins it; the welcome and snapshot arrive as events.
func (t *Transport) Start(ctx context.Context) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.started {
		return errors.New("local: already started")
	}
	st := memstore.New()
	rc := t.cfg.Room
	rc.Store = st
	m, err := room.NewManager(rc)
	if err != nil {
		return err
	}
	created, err := m.Create(ctx, room.CreateRequest{Game: t.cfg.Game, Settings: t.cfg.Settings, Name: t.cfg.Name})
	if err != nil {
		m.Shutdown(ctx)
		return fmt.Errorf("local: %w", err)
	}
	r, err := m.Get(ctx, created.Room)
	if err != nil {
		m.Shutdown(ctx)
		return fmt.Errorf("local: %w", err)
	}
	t.rooms, t.store, t.r, t.started = m, st, r, true
	t.SetToken(created.Token)
	g, _ := m.Games().Lookup(t.cfg.Game)
	hello := t.Hello(created.Room, t.cfg.Name, false, protocol.GamePin{ID: t.cfg.Game, RulesVersion: g.Info().RulesVersion})
	go t.read()
	return r.Hello(t.c, &hello)
}

// read turns the room's frames into events, through the tracker, as a
// remote transport's socket reader does.
func (t *Transport) read() {
	defer close(t.done)
	defer close(t.events)
	for {
		select {
		case <-t.in.Signal():
		case <-t.quit:
			t.SetState(client.StateClosed, 0)
			return
		}
		for _, frame := range t.in.Drain() {
			if frame == nil {
				t.emitState(client.StateClosed, t.LastClose())
				return
			}
			msg, err := protocol.DecodeServer(frame)
			if err != nil {
				continue
			}
			if msg.Bye != nil {
				t.SetState(t.State(), msg.Bye.Code)
			}
			st := t.Receive(msg, append([]byte(nil), frame...))
			if st.Resync != nil { // a room in this process never skips a revision, but follow the protocol
				_ = t.r.Act(t.c, st.Resync)
				continue
			}
			if st.Online {
				t.emitState(client.StateOnline, 0)
			}
			if st.Emit && !t.emit(st.Event) {
				return
			}
		}
	}
}

func (t *Transport) emit(ev client.Event) bool {
	select {
	case t.events <- ev:
		return true
	case <-t.quit:
		return false
	}
}

func (t *Transport) emitState(s client.ConnState, code int) {
	if t.SetState(s, code) {
		t.emit(client.Event{Kind: client.EventState, State: s, Close: code})
	}
}

// Send implements client.Transport: the action goes to the room, and its
// receipt and effects arrive as events.
func (t *Transport) Send(ctx context.Context, a protocol.Action) (string, error) {
	a, err := t.Tracker.Send(a)
	if err != nil {
		return "", err
	}
	if err := t.r.Act(t.c, &a); err != nil {
		return "", fmt.Errorf("local: %w", err)
	}
	return a.ID, nil
}

// Events implements client.Transport.
func (t *Transport) Events() <-chan client.Event { return t.events }

// Close implements client.Transport: it stops the room and the reader.
func (t *Transport) Close() error {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return nil
	}
	t.closed = true
	started := t.started
	t.mu.Unlock()
	close(t.quit)
	if !started {
		close(t.events)
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := t.rooms.Shutdown(ctx)
	<-t.done
	return errors.Join(err, t.store.Close())
}
