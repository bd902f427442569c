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

	"github.com/gobwas/ws"

	"github.com/roomd/roomd/protocol"
)

// Config configures a Remote.
type Config struct {
	// URL is the server's base URL, e.g. http://127.0.0.1:8080.
	URL string
	// URLs are more base URLs of the same service: several roomd nodes
	// that share one store, any of which reaches any room. The client dials
	// URL first (URLs[0] when URL is empty); after a lost socket, a refused
	// dial or a close that asks it to come back, it dials the next one of
	// the list in turn (round robin), so a dead node costs one attempt.
	URLs []string
	// IgnoreMovedURL keeps the client to its own URLs when a server closes
	// with 4009 (the room moved) and names the room's new node: for a
	// client that must go through one gateway. By default it follows the
	// node named (an http(s) URL; never from TLS to plain text).
	IgnoreMovedURL bool
	// Room is the room code.
	Room string
	// Token is the seat token; empty for a spectator or to ask for a seat.
	Token string
	Name  string
	Watch bool
	Game  protocol.GamePin
	// Auth is the site's sign-in token (a JWT), sent in every hello
	// (PROTOCOL.md §2.9).
	Auth string
	// OnToken is called when the server gives this client a new seat token,
	// and with "" when the token opens nothing any more (closes 4002, 4004
	// and 4006: protocol.ForgetsToken): forget it.
	OnToken func(room, token string)
	// Backoff returns the wait before reconnect attempt n (from 0). Nil
	// means DefaultBackoff. Keep it bounded by a couple of seconds: when a
	// node dies, its rooms come back on another node within the lease's TTL
	// (10 s by default) and a client that waits longer between attempts
	// stays away longer than its room does.
	Backoff func(attempt int) time.Duration
	// EventBuffer is the size of the events channel. Zero means 256. A
	// consumer that stops reading stops the socket's reads too, as a slow
	// client would.
	EventBuffer int
	// Handler, when set, receives every event in place of the events
	// channel: called on the socket's reader goroutine, in order, as soon
	// as the message is read — no hand-off to another goroutine per
	// message. While it runs the socket is not read, as with a consumer
	// that stops reading the channel. It may call Send and the other
	// methods, but not Close (which waits for this goroutine). The events
	// channel then carries nothing and is closed when the transport stops,
	// as always.
	Handler func(Event)
	// DialTimeout bounds one connection attempt. Zero means 5 seconds.
	DialTimeout time.Duration
	// WriteTimeout bounds a write: one still blocked after it (the server
	// stopped reading) closes the socket, and the transport reconnects.
	// Zero means DefaultWriteTimeout.
	WriteTimeout time.Duration
	// ReadLimit is the largest message (and frame) accepted: a larger one
	// closes the socket with 1009 and the transport reconnects. Zero means
	// DefaultReadLimit (4 MiB).
	ReadLimit int64
	// Heartbeat is how long the client hears nothing from a server before
	// it pings it, until the server's welcome names its own heartbeatMs
	// (which then replaces it); a server that then answers nothing for as
	// long again is gone: the socket is closed and the client reconnects
	// (PROTOCOL.md §2). Zero means DefaultHeartbeat (15 s, roomd's);
	// MinHeartbeat at least.
	Heartbeat time.Duration
	// CloseTimeout bounds how long Close (or the end of Start's context)
	// waits for the server's close frame after sending its own, before it
	// closes the connection anyway. Zero means DefaultCloseTimeout.
	CloseTimeout time.Duration
	// HTTPClient dials the socket. Nil means http.DefaultClient.
	HTTPClient *http.Client
	// Logger receives the client's logs. Nil means discard.
	Logger *slog.Logger
}

// DefaultCloseTimeout is Config.CloseTimeout's default: roomd answers a
// close at once, so a second is a server (or a network) that is not there.
const DefaultCloseTimeout = time.Second

// BackoffCap is the longest wait DefaultBackoff gives before the jitter:
// with the jitter, a client that lost its socket tries again at least every
// 2 s, so a room taken over by another node after its owner died (at the
// lease's TTL, 10 s by default) is played again within 2 s of coming back.
const BackoffCap = 1750 * time.Millisecond

// DefaultBackoff is min(1.75 s, 500 ms·2ⁿ) plus up to 250 ms of jitter:
// 0.5, 1, 1.75, 1.75… s, never more than 2 s.
func DefaultBackoff(attempt int) time.Duration {
	d := BackoffCap
	if attempt >= 0 && attempt < 5 {
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

// Remote plays in a room on a server. It reconnects with backoff (or after
// the server's retryAfterMs), rejoins with its token, resends actions that
// have no receipt with their original ids, asks for a resync on a gap, and
// stops for good on the terminal codes of PROTOCOL.md §2.3 (1000 and 4001
// to 4007: protocol.Terminal), forgetting its token on 4002, 4004 and 4006.
// Given several nodes (Config.URLs) it dials them in turn; told that its
// room moved (4009) it comes back at once, to the node the bye names,
// MaxMovesInARow times in a row at most. Its position in the room is its
// Tracker's.
type Remote struct {
	*Tracker
	cfg    Config
	nodes  *nodes // the run goroutine's
	events chan Event
	ctx    context.Context
	cancel context.CancelFunc // by stop only, after the close handshake
	done   chan struct{}
	take   chan struct{}

	mu          sync.Mutex
	ws          *sock
	node        string        // the base URL of the node dialed last
	closing     chan struct{} // closed (under mu) when the transport begins to stop
	stopCode    int           // the close code it stops with (under mu)
	startedOnce sync.Once
	stopOnce    sync.Once
}

// NewRemote returns a transport for cfg; Start connects it.
func NewRemote(cfg Config) (*Remote, error) {
	nodes, err := newNodes(cfg.URL, cfg.URLs)
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
		cfg.ReadLimit = DefaultReadLimit
	}
	if cfg.WriteTimeout <= 0 {
		cfg.WriteTimeout = DefaultWriteTimeout
	}
	if cfg.Heartbeat <= 0 {
		cfg.Heartbeat = DefaultHeartbeat
	}
	if cfg.CloseTimeout <= 0 {
		cfg.CloseTimeout = DefaultCloseTimeout
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Remote{Tracker: NewTracker(cfg.Token), cfg: cfg, nodes: nodes, events: make(chan Event, cfg.EventBuffer),
		ctx: ctx, cancel: cancel, done: make(chan struct{}), take: make(chan struct{}, 1), closing: make(chan struct{})}, nil
}

// Dial creates a Remote and starts it.
func Dial(ctx context.Context, cfg Config) (*Remote, error) {
	t, err := NewRemote(cfg)
	if err != nil {
		return nil, err
	}
	return t, t.Start(ctx)
}

// Start begins connecting in the background and returns at once (watch
// Events for the state going online). The transport runs until Close, a
// terminal close code, or the end of ctx — which closes the socket as
// Close does, with 1001 (going away) rather than 1000.
func (t *Remote) Start(ctx context.Context) error {
	started := false
	t.startedOnce.Do(func() {
		started = true
		stop := context.AfterFunc(ctx, func() { t.stop(protocol.CloseGoingAway) })
		go func() {
			defer stop()
			t.run()
		}()
	})
	if !started {
		return errors.New("transport: already started")
	}
	return nil
}

// Events implements Transport.
func (t *Remote) Events() <-chan Event { return t.events }

// Send implements Transport. Off line it fails with ErrOffline; once it has
// returned an id, the action gets a receipt: if the socket breaks under the
// write, the action stays pending and is resent after the reconnect. A zero
// a.Rev is filled with the newest revision the transport has received.
func (t *Remote) Send(ctx context.Context, a protocol.Action) (string, error) {
	t.mu.Lock()
	ws := t.ws
	t.mu.Unlock()
	if ws == nil && t.State() == StateOnline {
		return "", ErrOffline
	}
	a, err := t.Tracker.Send(a)
	if err != nil {
		return "", err
	}
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
	return ws.write(ctx, frame)
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
		ws.close()
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

// Close implements Transport. A connected socket is closed with the
// close handshake: a close frame with 1000 (normal closure), then a wait
// of at most Config.CloseTimeout for the server's close before the
// connection is dropped. It returns once the transport has stopped.
func (t *Remote) Close() error {
	t.startedOnce.Do(func() { // never started: nothing to stop
		close(t.events)
		close(t.done)
	})
	t.stop(protocol.CloseNormal)
	<-t.done
	return nil
}

// stop begins the end, once: the events stop (emit refuses them), the
// socket, if there is one, is closed with code and the close handshake,
// then the transport's context ends (a dial or a backoff under way).
func (t *Remote) stop(code int) {
	t.stopOnce.Do(func() {
		t.mu.Lock()
		t.stopCode = code
		close(t.closing)
		ws := t.ws
		t.mu.Unlock()
		if ws != nil {
			ws.goAway(code, t.cfg.CloseTimeout)
		}
		t.cancel()
	})
}

// stopping says whether the transport has begun to stop.
func (t *Remote) stopping() bool {
	select {
	case <-t.closing:
		return true
	default:
		return false
	}
}

// Done is closed when the transport has stopped.
func (t *Remote) Done() <-chan struct{} { return t.done }

// Node returns the base URL of the node the transport dialed last: the one
// it is connected through when online.
func (t *Remote) Node() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.node
}

func (t *Remote) write(ctx context.Context, ws *sock, v any) error {
	if ws == nil {
		return ErrOffline
	}
	var frame []byte
	var err error
	if a, ok := v.(protocol.Action); ok {
		// A move: no reflection, one allocation of about its size.
		frame, err = protocol.AppendAction(make([]byte, 0, 64+len(a.ID)+len(a.Command)), &a)
	} else {
		frame, err = protocol.Encode(v)
	}
	if err != nil {
		return err
	}
	return ws.write(ctx, frame)
}

// emit hands ev on; false once the transport is stopping (the event may
// not have been delivered).
func (t *Remote) emit(ev Event) bool {
	if h := t.cfg.Handler; h != nil {
		h(ev)
		return !t.stopping()
	}
	select {
	case t.events <- ev:
		return true
	case <-t.closing:
		return false
	}
}

func (t *Remote) setState(s ConnState, code int) {
	if t.SetState(s, code) {
		t.emit(Event{Kind: EventState, State: s, Close: code, URL: t.Node()})
	}
}

func (t *Remote) run() {
	defer close(t.done)
	defer close(t.events)
	attempt := 0 // failed attempts since the last time online
	moves := 0   // moved closes in a row
	for {
		c := t.connect()
		code := c.code
		if t.stopping() {
			t.setState(StateClosed, code)
			return
		}
		if protocol.ForgetsToken(code) {
			t.SetToken("")
			if t.cfg.OnToken != nil {
				t.cfg.OnToken(t.cfg.Room, "")
			}
		}
		if protocol.Terminal(code) {
			t.setState(StateClosed, code)
			if code != protocol.CloseReplaced {
				return
			}
			select { // a replaced tab waits for a take-back
			case <-t.take:
				t.TakingBack()
				attempt, moves = 0, 0
				continue
			case <-t.ctx.Done():
				return
			}
		}
		if c.online {
			attempt = 0
		}
		if c.onlineFor >= movedCalm {
			moves = 0
		}
		delay := t.RetryAfter()
		if movedBye(code, c.bye) {
			// The room moved to another node (a node draining, or one that
			// lost the room's lease): come back at once, to the node named
			// when there is one, as long as moves do not follow each other
			// more than MaxMovesInARow times; then back off as usual.
			moves++
			switch {
			case c.bye == nil || c.bye.URL == "":
				// No new node named: the node that said so answers and
				// routes to the room's node (PROTOCOL.md §2.11), so the
				// client comes back to it rather than try another node
				// that may be the one gone quiet.
			case t.cfg.IgnoreMovedURL || !t.nodes.moveTo(c.bye.URL, c.socket):
				t.nodes.advance()
			}
			if moves > MaxMovesInARow {
				delay = max(delay, t.cfg.Backoff(moves-MaxMovesInARow-1))
			}
			code = protocol.CloseMoved
		} else {
			moves = 0
			t.nodes.advance()
			if delay == 0 {
				delay = t.cfg.Backoff(attempt)
			}
			attempt++
		}
		t.cfg.Logger.Debug("reconnecting", "in", delay, "code", code, "node", c.base, "err", c.err)
		t.setState(StateReconnecting, code)
		select {
		case <-time.After(delay):
		case <-t.ctx.Done():
			t.setState(StateClosed, code)
			return
		}
	}
}

// ended is how one connection ended.
type ended struct {
	code         int           // the close code (0: none; -1: not a close)
	online       bool          // it got as far as a snapshot
	onlineFor    time.Duration // how long it was online
	bye          *protocol.Bye // the last bye it received
	base, socket string        // the node dialed
	err          error
}

// connect runs one connection: dial, hello, read until it ends.
func (t *Remote) connect() (c ended) {
	c.base, c.socket = t.nodes.pick()
	t.mu.Lock()
	t.node = c.base
	t.mu.Unlock()
	var onlineAt time.Time
	defer func() {
		if c.online {
			c.onlineFor = time.Since(onlineAt)
		}
	}()
	dctx, cancel := context.WithTimeout(t.ctx, t.cfg.DialTimeout)
	rwc, err := dialSocket(dctx, t.cfg.HTTPClient, c.socket)
	cancel()
	if err != nil {
		c.err = err
		return c
	}
	sk := newSock(rwc, t.cfg.WriteTimeout, t.cfg.ReadLimit)
	defer sk.close()
	t.mu.Lock()
	if t.stopping() {
		// Stopped during the dial: stop did not see this socket. Say so
		// (no wait for the answer: nothing reads it).
		code := t.stopCode
		t.mu.Unlock()
		_ = sk.writeFrame(ws.OpClose, closePayload(code))
		c.err = ErrStopped
		return c
	}
	t.ws = sk
	t.mu.Unlock()
	// The transport's end (stop) closes the socket with the close
	// handshake; until then the heartbeat closes it if the server goes
	// silent. Either ends the read below.
	sk.startBeat(t.cfg.Heartbeat)
	defer func() {
		t.mu.Lock()
		t.ws = nil
		t.mu.Unlock()
	}()
	hello := t.Hello(t.cfg.Room, t.cfg.Name, t.cfg.Watch, t.cfg.Game)
	hello.Auth = t.cfg.Auth
	if err := t.write(t.ctx, sk, hello); err != nil {
		c.err = err
		return c
	}
	// Once the transport stops (frame says so), what comes is read and
	// dropped until the socket ends: the server's answer to the close
	// frame stop sent, or stop's wait for it running out.
	stopped := false
	for {
		data, err := sk.read()
		if err != nil {
			c.code, c.err = closeStatus(err), err
			return c
		}
		stopped = stopped || !t.frame(&c, &onlineAt, sk, data)
	}
}

// frame handles one frame the server sent on sk (its messages in order);
// false when the transport has stopped. data is this frame's own copy
// (sock.read): the decoded beats and views may alias it.
func (t *Remote) frame(c *ended, onlineAt *time.Time, sk *sock, data []byte) bool {
	stopped := false
	err := protocol.DecodeServerFrameOwned(data, func(raw []byte, msg protocol.ServerMessage, err error) bool {
		if err != nil {
			t.cfg.Logger.Warn("undecodable server message", "err", err)
			return true
		}
		if msg.Welcome != nil && msg.Welcome.HeartbeatMs > 0 {
			sk.setBeat(time.Duration(msg.Welcome.HeartbeatMs) * time.Millisecond)
		}
		if msg.Snapshot != nil && !c.online {
			c.online, *onlineAt = true, time.Now()
		}
		if msg.Bye != nil {
			c.bye = msg.Bye
		}
		stopped = !t.handle(sk, c.base, msg, raw)
		return !stopped
	})
	if err != nil {
		t.cfg.Logger.Warn("undecodable server frame", "err", err)
	}
	return !stopped
}

// handle applies one server message and does what the tracker says.
func (t *Remote) handle(ws *sock, base string, msg protocol.ServerMessage, raw []byte) bool {
	st := t.Receive(msg, raw)
	st.Event.URL = base
	if st.Token != "" && t.cfg.OnToken != nil {
		t.cfg.OnToken(t.cfg.Room, st.Token)
	}
	if st.Resync != nil {
		t.cfg.Logger.Debug("gap; resyncing", "from", st.Resync.Rev)
		_ = t.write(t.ctx, ws, *st.Resync)
		return true
	}
	// Actions still waiting for a receipt go out again, with their ids,
	// before the client is told it is online: a new action cannot overtake
	// them.
	for _, a := range st.Resend {
		if err := t.write(t.ctx, ws, a); err != nil {
			break
		}
	}
	if st.Online {
		t.setState(StateOnline, 0)
	}
	if st.Emit && !t.emit(st.Event) {
		return false
	}
	if st.TakeBack != nil {
		_ = t.write(t.ctx, ws, *st.TakeBack)
	}
	return true
}
