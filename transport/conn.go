package transport

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
	"golang.org/x/time/rate"

	"github.com/roomd/roomd/internal/ids"
	"github.com/roomd/roomd/internal/queue"
	"github.com/roomd/roomd/protocol"
	"github.com/roomd/roomd/room"
)

// conn is one WebSocket connection. Its reader decodes frames and hands them
// to the room's mailbox; its writer drains the bounded outbox. Neither the
// room nor any other connection ever waits on it.
type conn struct {
	id   string
	srv  *Server
	ws   *websocket.Conn
	addr netip.Addr // the client's, for its quotas

	// out is the outbox: a bounded queue whose buffers grow with use, so an
	// idle socket holds a few bytes of it rather than a channel's 128 slots.
	out  *queue.Queue[[]byte]
	held atomic.Int64 // bytes waiting in out
	// heard is when the peer last sent a frame (Unix ns): a peer heard
	// within a heartbeat is alive, and is not pinged.
	heard   atomic.Int64
	closing chan struct{}
	once    sync.Once
	req     closeReq // set once, before closing is closed

	room     atomic.Pointer[room.Room]
	helloed  atomic.Int32 // helloWaiting, then helloTaken or helloLate
	limiter  *rate.Limiter
	invalid  int // invalid frames so far (reader only)
	limited  int // rate-limited actions in the current window (reader only)
	window   time.Time
	finished chan struct{}

	writeTimer *time.Timer // the writer's write deadline
	// wmu is held by whoever takes frames from out and writes them: the
	// writer, or a room's actor in Flush (which only tries it). batchBuf is
	// its buffer for batched frames.
	wmu      sync.Mutex
	batchBuf []byte
	// sock is the socket's connection (hijack.go), for Flush's writes that
	// never wait; nil when the conn was made without one.
	sock *sock
	// queued says a room's actor queued frames (Queue) it has not flushed.
	queued atomic.Bool
	// ep is set when a poller holds the socket (poll_linux.go): no reader
	// or writer goroutine then, and what the writer would do is the
	// poller's, asked by a kick.
	ep atomic.Pointer[epState]
	// release tells the server the socket has ended (its count, quotas).
	release func()

	// In a cluster (relay.go): up is the socket to the room's node when
	// this one relays; origin and host are the client's, for that socket;
	// fromPeer says another node relays this socket (it is never relayed
	// again).
	up       atomic.Pointer[websocket.Conn]
	peer     atomic.Pointer[string] // the id of the node up leads to
	origin   string
	host     string
	fromPeer bool

	born int64                     // when the socket opened (Unix ns)
	end  atomic.Pointer[closeNote] // why it ends, once known (closes.go)
	// On goroutines (connread.go, connwrite.go): pong is the payload of
	// the last ping waiting for its pong; cut ends the wait for the
	// client's close after the server's (the writer sets it, serve stops it).
	pong atomic.Pointer[[]byte]
	cut  *time.Timer
}

// The hello's fate: the first of the reader (a hello) and the hello timer
// (none in time) to move helloed from helloWaiting decides it.
const (
	helloWaiting int32 = iota
	helloTaken
	helloLate
)

type closeReq struct {
	code       int
	reason     string
	retryAfter time.Duration
	dropQueue  bool   // slow consumer: the backlog is dropped
	quiet      bool   // no bye: a relayed socket's came from the room's node
	url        string // the bye's url (4009)
	// why and detail are what the close log says (closes.go); refused
	// says the client's frames were refused: its close is waited for
	// refuseWait, not closeWait.
	why     closeReason
	detail  string
	refused bool
}

func newConn(s *Server, ws *websocket.Conn) *conn {
	c := &conn{id: ids.New(), srv: s, ws: ws, out: queue.New[[]byte](s.cfg.OutboxSize),
		closing: make(chan struct{}), finished: make(chan struct{}),
		limiter: rate.NewLimiter(s.cfg.RateLimit, s.cfg.RateBurst), born: time.Now().UnixNano()}
	return c
}

// logger returns the connection's logger, made when something is logged
// (rarely): a logger kept per connection costs memory on every socket.
func (c *conn) logger() *slog.Logger {
	l := c.srv.cfg.Logger.With("conn", c.id)
	if r := c.room.Load(); r != nil {
		l = l.With("room", r.Code())
	}
	return l
}

// ID implements room.Client.
func (c *conn) ID() string { return c.id }

// Send implements room.Client: it never blocks. A full outbox means the
// client reads too slowly: it is closed with 4008 and its backlog dropped;
// when it comes back it resyncs.
func (c *conn) Send(frame []byte) {
	if !c.enqueue(frame) {
		return
	}
	if c.ep.Load() != nil {
		// No writer to wake: write it now if the socket takes it.
		c.queued.Store(true)
		c.Flush()
		return
	}
	c.out.Wake()
}

// wake asks whoever writes the socket — its writer goroutine or its
// poller — to write what waits, or to close it.
func (c *conn) wake() {
	if ep := c.ep.Load(); ep != nil {
		ep.p.kick(c, ep)
		return
	}
	c.out.Wake()
}

// Queue implements room.Flusher: Send without waking the writer. It
// reports whether the frame is the first since the last Flush.
func (c *conn) Queue(frame []byte) bool {
	return c.enqueue(frame) && !c.queued.Swap(true)
}

// Flush implements room.Flusher: a room's actor writes what it queued
// itself when nothing can make it wait — nobody else is writing, nothing is
// left of an earlier write, and the socket takes the bytes at once (one
// non-blocking write(2)). Anything else is left to the writer, woken here.
// This spares the writer's wake-up per update, a room's hot path.
func (c *conn) Flush() {
	if !c.queued.Swap(false) {
		return
	}
	if c.sock == nil || !c.wmu.TryLock() {
		c.wake()
		return
	}
	if !c.sock.tryLock() {
		c.wmu.Unlock()
		c.wake()
		return
	}
	frames := c.out.Drain()
	left := false
	if len(frames) > 0 {
		left = c.sock.tryWrite(c.wire(frames))
	}
	c.sock.unlock()
	c.wmu.Unlock()
	if left {
		c.wake() // the writer writes the rest, or acts on the failure
	}
}

// FlushSoon implements room.Flusher: what a room's actor queued is left
// to the writer or the poller, woken now.
func (c *conn) FlushSoon() {
	if c.queued.Swap(false) {
		c.wake()
	}
}

// enqueue adds frame to the outbox, closing the client as slow when the
// outbox is full; it reports whether the frame was queued.
func (c *conn) enqueue(frame []byte) bool {
	if len(frame) == 0 {
		return false
	}
	select {
	case <-c.closing:
		return false
	default:
	}
	if held := c.held.Add(int64(len(frame))); held > c.srv.cfg.OutboxBytes {
		c.held.Add(-int64(len(frame)))
		c.slow(fmt.Sprintf("%d bytes waiting", held))
		return false
	}
	switch err := c.out.Add(frame); {
	case errors.Is(err, queue.ErrFull):
		c.held.Add(-int64(len(frame)))
		c.slow(fmt.Sprintf("%d frames waiting", c.srv.cfg.OutboxSize))
		return false
	case err != nil:
		c.held.Add(-int64(len(frame))) // closed: the writer has finished
		return false
	}
	return true
}

// slow closes a client that reads too slowly: 4008, its backlog dropped.
func (c *conn) slow(why string) {
	c.srv.cfg.Metrics.slowClose(c.out.Len() + 1)
	c.close(closeReq{code: protocol.CloseSlow, reason: "slow consumer", dropQueue: true, why: whySlow, detail: "outbox full: " + why})
	// Leave the room at once: its presence shows the client gone and it
	// sends nothing more, while the close frame waits for the socket.
	if r := c.room.Load(); r != nil {
		r.Drop(c)
	}
}

// trySend queues a frame the client brought on itself (a rate-limit
// refusal) only while the outbox is less than half full: a flooding client
// is not closed as slow for its own refusals (the abuse limit closes it with
// 4029 instead), and they never crowd out what the room sends.
func (c *conn) trySend(frame []byte) {
	if c.out.Len() >= c.srv.cfg.OutboxSize/2 {
		return // keep the other half for what the room sends
	}
	select {
	case <-c.closing:
		return
	default:
	}
	c.held.Add(int64(len(frame)))
	if c.out.Push(frame) != nil {
		c.held.Add(-int64(len(frame)))
	}
}

// Close implements room.Client: the writer sends a bye and closes.
func (c *conn) Close(code int, reason string, retryAfter time.Duration) {
	c.close(closeReq{code: code, reason: reason, retryAfter: retryAfter, why: reasonOf(code, reason), detail: reason})
}

// Moved implements room.Mover: 4009, with the room's new node.
func (c *conn) Moved(url string, retryAfter time.Duration) {
	c.close(closeReq{code: protocol.CloseMoved, reason: "room moved", retryAfter: retryAfter, url: url, why: whyMoved})
}

// close starts the connection's close with req, once: its writer (or
// poller) sends what req says and closes.
func (c *conn) close(req closeReq) {
	c.once.Do(func() {
		c.noteEnd(req.why, req.code, req.detail)
		c.req = req
		close(c.closing)
		if ep := c.ep.Load(); ep != nil {
			ep.p.kick(c, ep)
		}
	})
}

// serve runs the connection until it ends, or until a poller holds it
// (handedOver: the poller then ends it).
func (c *conn) serve(ctx context.Context) (handedOver bool) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// A socket without a hello in time is told so and closed with 1002 by
	// its writer.
	helloTimer := time.AfterFunc(c.srv.cfg.HelloTimeout, c.helloLate)
	defer helloTimer.Stop()
	writerDone := make(chan struct{})
	hctx, handOver := context.WithCancel(ctx)
	defer handOver()
	go func() {
		defer close(writerDone)
		c.writer(ctx, hctx)
	}()
	if rd, toPoller := c.reader(ctx); toPoller {
		// The hello put the socket in a room here: it passes to a poller
		// once its writer has stopped.
		handOver()
		<-writerDone
		// A writer that began a close before it stopped (c.cut armed) keeps
		// the socket here: its cut must find the socket it closes.
		if c.cut == nil {
			if c.handOver(rd) {
				return true
			}
			c.noteEnd(whyInternal, 0, "no poller took the socket")
			c.ws.CloseNow()
		}
	}
	if r := c.room.Load(); r != nil {
		r.Drop(c)
	}
	if up := c.up.Load(); up != nil {
		up.CloseNow() // the room's node drops the client as it would a direct one
	}
	// Stop the writer if nobody asked for a close: the peer went away.
	c.close(closeReq{code: protocol.CloseNormal, reason: "", dropQueue: true, why: whyPeerGone})
	select {
	case <-writerDone:
	case <-time.After(c.srv.cfg.WriteTimeout + 6*time.Second):
		cancel()
		<-writerDone
	}
	if c.cut != nil {
		c.cut.Stop()
	}
	c.ws.CloseNow()
	close(c.finished)
	return false
}

// helloLate closes a connection that has sent no hello within
// HelloTimeout: a hello-first notice, then 1002.
func (c *conn) helloLate() {
	if !c.helloed.CompareAndSwap(helloWaiting, helloLate) {
		return
	}
	c.notice(protocol.CodeHelloFirst, fmt.Sprintf("no hello within %s", c.srv.cfg.HelloTimeout))
	c.close(closeReq{code: protocol.CloseProtocolError, reason: "no hello", why: whyHelloTimeout})
}

// message handles one message from the client; it reports whether it was
// a hello. data is the message's own.
func (c *conn) message(ctx context.Context, typ websocket.MessageType, data []byte) (hello bool) {
	select {
	case <-c.closing:
		return false // closing: ignore what the client still sends
	default:
	}
	if up := c.up.Load(); up != nil {
		c.upFrame(up, typ, data) // relayed: the room's node reads it
		return false
	}
	if typ != websocket.MessageText {
		c.bad("binary frames are not part of the protocol; send JSON text")
		return false
	}
	in, err := protocol.DecodeClient(data)
	if err != nil {
		if in.Type != "" && !protocol.Known(in.Type) {
			c.notice(protocol.CodeUnknownType, fmt.Sprintf("unknown message type %q", in.Type))
			c.strike()
			return false
		}
		c.bad(err.Error())
		return false
	}
	c.handle(ctx, in)
	return in.Hello != nil
}

// bad answers an invalid frame, and closes after too many of them.
func (c *conn) bad(msg string) {
	c.notice(protocol.CodeInvalidMessage, msg)
	c.strike()
}

func (c *conn) strike() {
	c.invalid++
	c.srv.cfg.Metrics.invalidFrame()
	if c.invalid > c.srv.cfg.MaxInvalid {
		c.close(closeReq{code: protocol.CloseProtocolError, reason: "too many invalid messages", refused: true,
			why: whyInvalidMessages, detail: fmt.Sprintf("%d invalid messages", c.invalid)})
	}
}

func (c *conn) notice(code, msg string) {
	frame, _ := protocol.Encode(protocol.NoticeMessage{Type: protocol.TypeNotice, Code: code, Message: msg})
	c.Send(frame)
}

func (c *conn) handle(ctx context.Context, in protocol.Inbound) {
	r := c.room.Load()
	if in.Hello != nil {
		if !c.helloed.CompareAndSwap(helloWaiting, helloTaken) {
			if c.helloed.Load() == helloTaken {
				c.bad("hello was already sent on this connection")
			}
			return // too late: the connection is closing
		}
		if c.relayHello(ctx, in.Hello) {
			return
		}
		c.hello(ctx, in.Hello)
		return
	}
	if r == nil {
		c.notice(protocol.CodeHelloFirst, "the first message must be a hello")
		c.strike()
		return
	}
	if !c.allow() {
		if in.Action != nil {
			frame, _ := protocol.Encode(protocol.Receipt{Type: protocol.TypeReceipt, ID: in.Action.ID,
				Notice: &protocol.Notice{Code: protocol.CodeRateLimited, Message: "too many actions; slow down", Temporary: true}})
			c.trySend(frame)
		}
		return
	}
	switch {
	case in.Ping != nil:
		frame, _ := protocol.Encode(protocol.Pong{Type: protocol.TypePong, T: in.Ping.T, Now: c.srv.now().UnixMilli()})
		c.Send(frame)
	case in.Action != nil:
		if err := r.Act(c, in.Action); err != nil {
			c.roomGone(in.Action.ID, err)
		}
	}
}

// allow applies the rate limit. Sustained abuse (AbuseLimit refusals within
// ten seconds) closes the connection with 4029.
func (c *conn) allow() bool {
	if c.limiter.Allow() {
		return true
	}
	now := c.srv.now()
	if now.Sub(c.window) > 10*time.Second {
		c.window, c.limited = now, 0
	}
	c.limited++
	c.srv.cfg.Metrics.rateLimited()
	if c.limited > c.srv.cfg.AbuseLimit {
		c.close(closeReq{code: protocol.CloseRateLimited, reason: "too many actions", retryAfter: 5 * time.Second, refused: true,
			why: whyMessageFlood, detail: fmt.Sprintf("%d messages rate-limited in 10 s", c.limited)})
	}
	return false
}

// overQuota refuses a hello from an address past its quota: a too-many
// notice, then 4013 with when to come back.
func (c *conn) overQuota(kind quotaKind, wait time.Duration) {
	frame, _ := protocol.Encode(protocol.NoticeMessage{Type: protocol.TypeNotice, Code: protocol.CodeTooMany, Temporary: true,
		Message: fmt.Sprintf("too many %s from your address; try again in %s", quotaNames[kind], wait.Round(time.Second))})
	c.Send(frame)
	c.close(closeReq{code: protocol.CloseTryLater, reason: "quota", retryAfter: max(wait, time.Second), why: whyQuota, detail: quotaNames[kind]})
}

func (c *conn) roomGone(actionID string, err error) {
	if actionID != "" && errors.Is(err, room.ErrClosed) {
		// The room's actor is stopping: it closes every member with the
		// right code (4004 closed for good, 4000 a restart, 4009 a move)
		// as it ends. The action is not acknowledged; a client resends it
		// where the room is next.
		return
	}
	if errors.Is(err, room.ErrBusy) {
		frame, _ := protocol.Encode(protocol.Receipt{Type: protocol.TypeReceipt, ID: actionID,
			Notice: &protocol.Notice{Code: protocol.CodeRateLimited, Message: "the room is busy; try again", Temporary: true}})
		c.Send(frame)
		return
	}
	c.close(closeReq{code: protocol.CloseRoomClosed, reason: "room closed", why: whyRoomClosed})
}

func (c *conn) hello(ctx context.Context, h *protocol.Hello) {
	id, err := c.srv.identify(ctx, h.Auth)
	if err != nil {
		c.notice(protocol.CodeAuthRequired, err.Error())
		c.close(closeReq{code: protocol.CloseUnauthorized, reason: "unauthorized", why: whyUnauthorized})
		return
	}
	h.Player, h.PlayerName = id.Subject, id.Name
	q := c.srv.quotas
	if wait, spent := q.exhausted(ctx, c.addr, qLookups); spent {
		c.overQuota(qLookups, wait)
		return
	}
	if h.Token == "" && !h.Watch {
		if wait, ok := q.spend(ctx, c.addr, qJoins); !ok {
			c.overQuota(qJoins, wait)
			return
		}
	}
	r, err := c.srv.cfg.Rooms.Get(ctx, h.Room)
	switch {
	case errors.Is(err, room.ErrNoRoom):
		q.spend(ctx, c.addr, qLookups)
		c.notice(protocol.CodeNoRoom, fmt.Sprintf("there is no room %q (it may have closed)", h.Room))
		c.close(closeReq{code: protocol.CloseRoomClosed, reason: "no such room", why: whyRoomClosed, detail: "no such room"})
		return
	case errors.Is(err, room.ErrShuttingDown):
		c.close(closeReq{code: protocol.CloseRestarting, reason: "server restarting", retryAfter: c.srv.retryAfter(), why: whyRestart})
		return
	case errors.Is(err, room.ErrOwned):
		// Another node took the room since this socket was routed: the
		// client comes back and is routed there.
		c.close(closeReq{code: protocol.CloseMoved, reason: "room moved", retryAfter: room.MovedRetry, why: whyMoved})
		return
	case err != nil:
		c.logger().Warn("room unavailable", "room", h.Room, "err", err)
		c.notice(protocol.CodeStorageUnavailable, "the room cannot be loaded right now")
		c.close(closeReq{code: protocol.CloseRestarting, reason: "room unavailable", retryAfter: c.srv.retryAfter(),
			why: whyUnavailable, detail: "room " + h.Room + " not loaded: " + err.Error()})
		return
	}
	c.room.Store(r)
	if err := r.Hello(c, h); err != nil {
		c.helloRefused(ctx, h.Room, err)
	}
}

// helloRefused answers a hello the room's actor did not take: busy, or
// stopped since Get found it — closed for good (4004), or stopping for a
// restart or a move, when the client must come back instead.
func (c *conn) helloRefused(ctx context.Context, code string, err error) {
	if errors.Is(err, room.ErrBusy) {
		c.roomGone("", err)
		return
	}
	c.room.Store(nil)
	_, gerr := c.srv.cfg.Rooms.Get(ctx, code)
	switch {
	case errors.Is(gerr, room.ErrNoRoom):
		c.roomGone("", err)
	case c.srv.cl != nil:
		c.close(closeReq{code: protocol.CloseMoved, reason: "room moved", retryAfter: room.MovedRetry, why: whyMoved})
	default:
		c.close(closeReq{code: protocol.CloseRestarting, reason: "server restarting", retryAfter: c.srv.retryAfter(), why: whyRestart})
	}
}
