package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/roomd/roomd/internal/ids"
	"github.com/roomd/roomd/protocol"
)

// Config configures a Remote.
type Config struct {
	// URL is the server's base URL, e.g. http://127.0.0.1:8080.
	URL string
	// Room is the room code.
	Room string
	// Token is the seat token; empty for a spectator or to ask for a seat.
	Token string
	Name  string
	Watch bool
	Game  protocol.GamePin
	// OnToken is called when the server gives this client a new seat token.
	OnToken func(room, token string)
	// Backoff returns the wait before reconnect attempt n (from 0). Nil
	// means DefaultBackoff.
	Backoff func(attempt int) time.Duration
	// EventBuffer is the size of the events channel. Zero means 256. A
	// consumer that stops reading stops the socket's reads too, as a slow
	// client would.
	EventBuffer int
	// DialTimeout bounds one connection attempt. Zero means 5 seconds.
	DialTimeout time.Duration
	// ReadLimit is the largest frame accepted. Zero means 4 MiB.
	ReadLimit int64
	// HTTPClient dials the socket. Nil means http.DefaultClient.
	HTTPClient *http.Client
	// Logger receives the client's logs. Nil means discard.
	Logger *slog.Logger
}

// DefaultBackoff is min(10 s, 500 ms·2ⁿ) plus up to 250 ms of jitter.
func DefaultBackoff(attempt int) time.Duration {
	d := 10 * time.Second
	if attempt < 5 {
		d = min(d, 500*time.Millisecond<<attempt)
	}
	return d + time.Duration(rand.Int64N(int64(250*time.Millisecond)))
}

// SocketURL turns a server base URL into its WebSocket URL.
func SocketURL(base string) (string, error) {
	u, err := url.Parse(base)
	if err != nil {
		return "", err
	}
	switch u.Scheme {
	case "http", "ws":
		u.Scheme = "ws"
	case "https", "wss":
		u.Scheme = "wss"
	default:
		return "", fmt.Errorf("transport: URL scheme %q is not http(s) or ws(s)", u.Scheme)
	}
	u.Path = strings.TrimSuffix(u.Path, "/") + protocol.SocketPath
	return u.String(), nil
}

// Remote plays in a room on a server. It reconnects with backoff
// (or after the server's retryAfterMs), rejoins with its token, resends
// actions that have no receipt with their original ids, asks for a resync
// on a gap, and stops for good on 4001, 4002, 4003 and 4004.
type Remote struct {
	cfg    Config
	wsURL  string
	events chan Event
	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{}
	take   chan struct{}

	mu          sync.Mutex
	ws          *websocket.Conn
	state       ConnState
	epoch       string
	rev         uint64
	seen        bool // a snapshot has been seen
	seat        *int
	token       string
	pending     []protocol.Action // sent, no receipt yet, in order
	result      *protocol.Result
	resyncing   bool
	takingBack  bool
	lastClose   int
	retryAfter  time.Duration
	startedOnce sync.Once
}

// NewRemote returns a transport for cfg; Start connects it.
func NewRemote(cfg Config) (*Remote, error) {
	wsURL, err := SocketURL(cfg.URL)
	if err != nil {
		return nil, err
	}
	if cfg.Backoff == nil {
		cfg.Backoff = DefaultBackoff
	}
	if cfg.EventBuffer == 0 {
		cfg.EventBuffer = 256
	}
	if cfg.DialTimeout == 0 {
		cfg.DialTimeout = 5 * time.Second
	}
	if cfg.ReadLimit == 0 {
		cfg.ReadLimit = 4 << 20
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Remote{cfg: cfg, wsURL: wsURL, events: make(chan Event, cfg.EventBuffer), ctx: ctx, cancel: cancel,
		done: make(chan struct{}), take: make(chan struct{}, 1), token: cfg.Token, state: StateConnecting}, nil
}

// Dial creates a Remote and starts it.
func Dial(ctx context.Context, cfg Config) (*Remote, error) {
	t, err := NewRemote(cfg)
	if err != nil {
		return nil, err
	}
	return t, t.Start(ctx)
}

// Start begins connecting in the background. It returns at once; watch
// Events for the state going online.
func (t *Remote) Start(ctx context.Context) error {
	started := false
	t.startedOnce.Do(func() {
		started = true
		go t.run()
	})
	if !started {
		return errors.New("transport: already started")
	}
	return nil
}

// Events implements Transport.
func (t *Remote) Events() <-chan Event { return t.events }

// State returns the connection state.
func (t *Remote) State() ConnState {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.state
}

// Position returns the epoch and revision the client has seen.
func (t *Remote) Position() (string, uint64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.epoch, t.rev
}

// Seat returns the client's seat, or -1 for a spectator or before a welcome.
func (t *Remote) Seat() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.seat == nil {
		return -1
	}
	return *t.seat
}

// Token returns the seat token, once known.
func (t *Remote) Token() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.token
}

// Pending returns how many sent actions still wait for a receipt.
func (t *Remote) Pending() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.pending)
}

// LastClose returns the code of the last close, or 0.
func (t *Remote) LastClose() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.lastClose
}

// Result implements Transport.
func (t *Remote) Result() (protocol.Result, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.result == nil {
		return protocol.Result{}, false
	}
	return *t.result, true
}

// Send implements Transport. Off line it fails with ErrOffline; once it has
// returned an id, the action gets a receipt: if the socket breaks under the
// write, the action stays pending and is resent after the reconnect. A zero
// a.Rev is filled with the newest revision the transport has received.
func (t *Remote) Send(ctx context.Context, a protocol.Action) (string, error) {
	t.mu.Lock()
	if t.state == StateClosed {
		t.mu.Unlock()
		return "", ErrStopped
	}
	if t.state != StateOnline || t.ws == nil {
		t.mu.Unlock()
		return "", ErrOffline
	}
	if a.ID == "" {
		a.ID = ids.Action()
	}
	if a.Rev == 0 {
		a.Rev = t.rev // the newest revision this transport has; a caller may pass the one it read
	}
	t.pending = append(t.pending, a)
	ws := t.ws
	t.mu.Unlock()
	if err := t.write(ctx, ws, a); err != nil {
		// The socket broke under the write: the action stays pending and is
		// resent, with its id, once the transport is back.
		t.cfg.Logger.Debug("write failed; the action will be resent", "id", a.ID, "err", err)
	}
	return a.ID, nil
}

// SendRaw writes a frame as is, bypassing the protocol (for tests and chaos
// options that send malformed frames).
func (t *Remote) SendRaw(ctx context.Context, frame []byte) error {
	t.mu.Lock()
	ws := t.ws
	t.mu.Unlock()
	if ws == nil {
		return ErrOffline
	}
	wctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	return ws.Write(wctx, websocket.MessageText, frame)
}

// Resend writes an already-sent action again with its original id (the
// chaos option that checks dedup).
func (t *Remote) Resend(ctx context.Context, a protocol.Action) error {
	t.mu.Lock()
	ws := t.ws
	t.mu.Unlock()
	if ws == nil {
		return ErrOffline
	}
	return t.write(ctx, ws, a)
}

// Ping sends an application ping; the pong arrives as an event.
func (t *Remote) Ping(ctx context.Context, at float64) error {
	frame, _ := protocol.Encode(protocol.Ping{Type: protocol.TypePing, T: at})
	return t.SendRaw(ctx, frame)
}

// Drop cuts the socket without a close handshake, as a network failure
// would; the transport reconnects by itself.
func (t *Remote) Drop() {
	t.mu.Lock()
	ws := t.ws
	t.mu.Unlock()
	if ws != nil {
		ws.CloseNow()
	}
}

// TakeBack reopens a transport that a newer tab replaced (4001) and sends a
// reconnect action once it is back.
func (t *Remote) TakeBack() {
	select {
	case t.take <- struct{}{}:
	default:
	}
}

// Close implements Transport.
func (t *Remote) Close() error {
	t.cancel()
	t.mu.Lock()
	ws := t.ws
	t.mu.Unlock()
	if ws != nil {
		ws.CloseNow()
	}
	<-t.done
	return nil
}

// Done is closed when the transport has stopped.
func (t *Remote) Done() <-chan struct{} { return t.done }

func (t *Remote) write(ctx context.Context, ws *websocket.Conn, v any) error {
	frame, err := protocol.Encode(v)
	if err != nil {
		return err
	}
	wctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	return ws.Write(wctx, websocket.MessageText, frame)
}

func (t *Remote) emit(ev Event) bool {
	select {
	case t.events <- ev:
		return true
	case <-t.ctx.Done():
		return false
	}
}

func (t *Remote) setState(s ConnState, code int) {
	t.mu.Lock()
	changed := t.state != s
	t.state = s
	if code != 0 {
		t.lastClose = code
	}
	t.mu.Unlock()
	if changed {
		t.emit(Event{Kind: EventState, State: s, Close: code})
	}
}

func (t *Remote) run() {
	defer close(t.done)
	defer close(t.events)
	attempt := 0
	for {
		code, online, err := t.connect()
		if t.ctx.Err() != nil {
			t.setState(StateClosed, code)
			return
		}
		if protocol.Terminal(code) {
			t.setState(StateClosed, code)
			if code != protocol.CloseReplaced {
				return
			}
			select { // a replaced tab waits for a take-back
			case <-t.take:
				t.mu.Lock()
				t.takingBack = true
				t.mu.Unlock()
				attempt = 0
				continue
			case <-t.ctx.Done():
				return
			}
		}
		if online {
			attempt = 0
		}
		t.mu.Lock()
		delay := t.retryAfter
		t.retryAfter = 0
		t.mu.Unlock()
		if delay == 0 {
			delay = t.cfg.Backoff(attempt)
		}
		attempt++
		t.cfg.Logger.Debug("reconnecting", "in", delay, "code", code, "err", err)
		t.setState(StateReconnecting, code)
		select {
		case <-time.After(delay):
		case <-t.ctx.Done():
			t.setState(StateClosed, code)
			return
		}
	}
}

// connect runs one connection: dial, hello, read until it ends. It returns
// the close code and whether the connection got as far as a snapshot.
func (t *Remote) connect() (code int, online bool, err error) {
	dctx, cancel := context.WithTimeout(t.ctx, t.cfg.DialTimeout)
	ws, _, err := websocket.Dial(dctx, t.wsURL, &websocket.DialOptions{HTTPClient: t.cfg.HTTPClient})
	cancel()
	if err != nil {
		return 0, false, err
	}
	defer ws.CloseNow()
	ws.SetReadLimit(t.cfg.ReadLimit)
	t.mu.Lock()
	t.ws = ws
	t.resyncing = false
	hello := protocol.Hello{Type: protocol.TypeHello, Room: t.cfg.Room, Token: t.token, Name: t.cfg.Name,
		Watch: t.cfg.Watch, Game: t.cfg.Game}
	if t.seen {
		hello.Epoch = t.epoch
		rev := t.rev
		hello.Rev = &rev
	}
	t.mu.Unlock()
	defer func() {
		t.mu.Lock()
		t.ws = nil
		t.mu.Unlock()
	}()
	if err := t.write(t.ctx, ws, hello); err != nil {
		return 0, false, err
	}
	for {
		_, data, err := ws.Read(t.ctx)
		if err != nil {
			return int(websocket.CloseStatus(err)), online, err
		}
		msgs, err := protocol.SplitServerFrame(data)
		if err != nil {
			t.cfg.Logger.Warn("undecodable server frame", "err", err)
			continue
		}
		for _, raw := range msgs {
			msg, err := protocol.DecodeServer(raw)
			if err != nil {
				t.cfg.Logger.Warn("undecodable server message", "err", err)
				continue
			}
			if msg.Snapshot != nil && !online {
				online = true
			}
			if !t.handle(ws, msg, raw) {
				return 0, online, t.ctx.Err()
			}
		}
	}
}

// handle applies one server message to the client's position and emits it.
func (t *Remote) handle(ws *websocket.Conn, msg protocol.ServerMessage, raw []byte) bool {
	ev := Event{Raw: raw}
	var resend []protocol.Action
	var resync, takeBack bool
	t.mu.Lock()
	switch {
	case msg.Welcome != nil:
		ev.Kind, ev.Welcome = EventWelcome, msg.Welcome
		t.seat = msg.Welcome.Seat
		if msg.Welcome.Token != "" {
			t.token = msg.Welcome.Token
			if t.cfg.OnToken != nil {
				defer t.cfg.OnToken(t.cfg.Room, msg.Welcome.Token)
			}
		}
	case msg.Snapshot != nil:
		s := msg.Snapshot
		if t.seen && s.Epoch == t.epoch && s.Rev < t.rev {
			t.mu.Unlock()
			return true // an older snapshot of the same epoch is ignored
		}
		ev.Kind, ev.Snapshot, ev.Resync = EventSnapshot, s, t.resyncing
		t.epoch, t.rev, t.seen, t.seat, t.resyncing = s.Epoch, s.Rev, true, s.Seat, false
		if s.Result != nil {
			t.result = s.Result
		}
		if t.state != StateOnline {
			resend = append(resend, t.pending...)
			takeBack, t.takingBack = t.takingBack, false
		}
	case msg.Update != nil:
		u := msg.Update
		if u.Epoch != t.epoch || u.From != t.rev {
			if !t.resyncing {
				t.resyncing, resync = true, true
			}
			t.mu.Unlock()
			if resync {
				t.cfg.Logger.Debug("gap; resyncing", "have", t.rev, "from", u.From)
				_ = t.write(t.ctx, ws, protocol.Action{Type: protocol.TypeResync, ID: ids.Action(), Rev: u.From})
			}
			return true
		}
		ev.Kind, ev.Update = EventUpdate, u
		t.rev = u.To
		if u.Seat != nil {
			t.seat = u.Seat
		}
		if u.Result != nil {
			t.result = u.Result
		}
	case msg.Receipt != nil:
		ev.Kind, ev.Receipt = EventReceipt, msg.Receipt
		for i, a := range t.pending {
			if a.ID == msg.Receipt.ID {
				t.pending = append(t.pending[:i], t.pending[i+1:]...)
				break
			}
		}
	case msg.Presence != nil:
		ev.Kind, ev.Presence = EventPresence, msg.Presence
	case msg.Notice != nil:
		ev.Kind, ev.Notice = EventNotice, msg.Notice
	case msg.Bye != nil:
		ev.Kind, ev.Bye = EventBye, msg.Bye
		if msg.Bye.Reconnect && msg.Bye.RetryAfterMs > 0 {
			t.retryAfter = time.Duration(msg.Bye.RetryAfterMs) * time.Millisecond
		}
	case msg.Pong != nil:
		ev.Kind, ev.Pong = EventPong, msg.Pong
	default:
		t.mu.Unlock()
		return true
	}
	t.mu.Unlock()
	// Actions still waiting for a receipt go out again, with their ids,
	// before the client is told it is online: a new action cannot overtake
	// them.
	for _, a := range resend {
		if err := t.write(t.ctx, ws, a); err != nil {
			break
		}
	}
	if ev.Kind == EventSnapshot {
		t.setState(StateOnline, 0)
	}
	if !t.emit(ev) {
		return false
	}
	if takeBack {
		t.mu.Lock()
		a := protocol.Action{Type: protocol.TypeReconnect, ID: ids.Action(), Rev: t.rev}
		t.pending = append(t.pending, a)
		t.mu.Unlock()
		_ = t.write(t.ctx, ws, a)
	}
	return true
}
