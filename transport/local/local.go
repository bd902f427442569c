// Package local runs a game in this process behind the client.Transport
// interface.
package local

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/roomd/roomd/core/session"
	"github.com/roomd/roomd/internal/ids"
	"github.com/roomd/roomd/protocol"
	"github.com/roomd/roomd/transport/client"
)

// Config configures a Transport.
type Config struct {
	Game   session.Game
	Config json.RawMessage
	Seed   int64
	// Seats is the number of seats; zero means 1. The transport plays Seat.
	Seats int
	Seat  int
	// Clock is the session's clock in ms; nil means the wall clock.
	Clock session.Clock
	// EventBuffer is the size of the events channel; zero means 256.
	EventBuffer int
}

// LocalTransport runs a GameSession in this process behind the client.Transport
// interface: offline play, tests, and tools. Its clock is the caller's.
type Transport struct {
	cfg    Config
	events chan client.Event

	mu     sync.Mutex
	sess   *session.GameSession
	rev    uint64
	result *protocol.Result
	closed bool
}

// NewLocal returns a local transport; Start begins the session.
func New(cfg Config) *Transport {
	if cfg.Seats == 0 {
		cfg.Seats = 1
	}
	if cfg.EventBuffer == 0 {
		cfg.EventBuffer = 256
	}
	if cfg.Clock == nil {
		cfg.Clock = func() float64 { return float64(time.Now().UnixMilli()) }
	}
	return &Transport{cfg: cfg, events: make(chan client.Event, cfg.EventBuffer)}
}

// Start implements client.Transport: it starts the session and emits a snapshot.
func (t *Transport) Start(ctx context.Context) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.sess != nil {
		return errors.New("transport: already started")
	}
	sess, err := session.NewSession(t.cfg.Game, t.cfg.Seed, t.cfg.Config, t.cfg.Seats, t.cfg.Clock)
	if err != nil {
		return err
	}
	t.sess = sess
	seat := t.cfg.Seat
	return t.emit(ctx, client.Event{Kind: client.EventSnapshot, Snapshot: &protocol.Snapshot{Type: protocol.TypeSnapshot, Epoch: "local",
		Rev: t.rev, Seat: &seat, View: sess.Match().View(seat), Room: t.room()}})
}

func (t *Transport) room() protocol.Room {
	info := t.cfg.Game.Info()
	phase := protocol.PhaseRunning
	if st := t.sess.Status(); st.Over {
		phase = protocol.PhaseEnded
	}
	return protocol.Room{Code: "local", Phase: phase, Settings: t.cfg.Config, Match: 1,
		Game: protocol.GamePin{ID: info.ID, RulesVersion: info.RulesVersion}, Connected: []int{t.cfg.Seat},
		Clocks: protocol.Clocks{Now: int64(t.cfg.Clock()), ElapsedMs: t.sess.Elapsed(), Running: phase == protocol.PhaseRunning}}
}

// Send implements client.Transport. Only commands mean something locally; other
// actions are answered with a receipt and change nothing.
func (t *Transport) Send(ctx context.Context, a protocol.Action) (string, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return "", client.ErrStopped
	}
	if t.sess == nil {
		return "", errors.New("transport: not started")
	}
	if a.ID == "" {
		a.ID = ids.Action()
	}
	if a.Type != protocol.TypeCommand {
		return a.ID, t.emit(ctx, client.Event{Kind: client.EventReceipt, Receipt: &protocol.Receipt{Type: protocol.TypeReceipt, ID: a.ID, OK: true, Rev: t.rev}})
	}
	step, err := t.sess.Apply(t.cfg.Seat, a.Command)
	if err != nil {
		var rej *session.Rejection
		notice := &protocol.Notice{Code: protocol.CodeInvalidCommand, Message: err.Error()}
		if errors.As(err, &rej) {
			notice = &protocol.Notice{Code: rej.Code, Message: rej.Reason}
		}
		return a.ID, t.emit(ctx, client.Event{Kind: client.EventReceipt, Receipt: &protocol.Receipt{Type: protocol.TypeReceipt, ID: a.ID, Notice: notice}})
	}
	t.rev++
	seat := t.cfg.Seat
	u := &protocol.Update{Type: protocol.TypeUpdate, Epoch: "local", From: t.rev - 1, To: t.rev, By: &seat, Beats: step.Beats(seat)}
	if res, over := t.sess.Result(); over {
		log, _ := json.Marshal(res.Log)
		t.result = &protocol.Result{Match: 1, Status: res.Status, TimeMs: res.Time, Winners: res.Winners, Seed: res.Seed, Config: res.Config, Log: log}
		u.Result = t.result
		room := t.room()
		u.Room = &room
	}
	if err := t.emit(ctx, client.Event{Kind: client.EventReceipt, Receipt: &protocol.Receipt{Type: protocol.TypeReceipt, ID: a.ID, OK: true, Rev: t.rev}}); err != nil {
		return a.ID, err
	}
	return a.ID, t.emit(ctx, client.Event{Kind: client.EventUpdate, Update: u})
}

func (t *Transport) emit(ctx context.Context, ev client.Event) error {
	select {
	case t.events <- ev:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// State implements client.Transport: a started local transport is online
// until closed.
func (t *Transport) State() client.ConnState {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch {
	case t.closed:
		return client.StateClosed
	case t.sess == nil:
		return client.StateConnecting
	}
	return client.StateOnline
}

// Position implements client.Transport.
func (t *Transport) Position() (string, uint64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return "local", t.rev
}

// Seat implements client.Transport.
func (t *Transport) Seat() int { return t.cfg.Seat }

// Pending implements client.Transport: a local action is answered at once.
func (t *Transport) Pending() int { return 0 }

// Events implements client.Transport.
func (t *Transport) Events() <-chan client.Event { return t.events }

// Result implements client.Transport.
func (t *Transport) Result() (protocol.Result, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.result == nil {
		return protocol.Result{}, false
	}
	return *t.result, true
}

// Close implements client.Transport.
func (t *Transport) Close() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.closed {
		t.closed = true
		close(t.events)
	}
	return nil
}
var _ client.Transport = (*Transport)(nil)
