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
	"github.com/roomd/roomd/store"
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
}

func newConn(s *Server, ws *websocket.Conn) *conn {
	c := &conn{id: ids.New(), srv: s, ws: ws, out: queue.New[[]byte](s.cfg.OutboxSize),
		closing: make(chan struct{}), finished: make(chan struct{}),
		limiter: rate.NewLimiter(s.cfg.RateLimit, s.cfg.RateBurst)}
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
	c.logger().Info("outbox full; closing slow client", "outbox", why)
	c.close(closeReq{code: protocol.CloseSlow, reason: "slow consumer", dropQueue: true})
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
	c.close(closeReq{code: code, reason: reason, retryAfter: retryAfter})
}

// Moved implements room.Mover: 4009, with the room's new node.
func (c *conn) Moved(url string, retryAfter time.Duration) {
	c.close(closeReq{code: protocol.CloseMoved, reason: "room moved", retryAfter: retryAfter, url: url})
}

func (c *conn) close(req closeReq) {
	c.once.Do(func() {
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
	c.ws.SetReadLimit(c.srv.cfg.ReadLimit)
	// A socket without a hello in time is told so and closed with 1002 by
	// its writer. (Not a read deadline: coder/websocket cuts the connection
	// itself when a read's context ends, with no notice and no close frame.)
	helloTimer := time.AfterFunc(c.srv.cfg.HelloTimeout, c.helloLate)
	defer helloTimer.Stop()
	writerDone := make(chan struct{})
	hctx, handOver := context.WithCancel(ctx)
	defer handOver()
	go func() {
		defer close(writerDone)
		c.writer(ctx, hctx)
	}()
	if c.reader(ctx) {
		// The hello put the socket in a room here: it passes to a poller
		// once its writer has stopped.
		handOver()
		<-writerDone
		if c.handOver() {
			return true
		}
		c.ws.CloseNow()
	}
	if r := c.room.Load(); r != nil {
		r.Drop(c)
	}
	if up := c.up.Load(); up != nil {
		up.CloseNow() // the room's node drops the client as it would a direct one
	}
	// Stop the writer if nobody asked for a close: the peer went away.
	c.close(closeReq{code: protocol.CloseNormal, reason: "", dropQueue: true})
	select {
	case <-writerDone:
	case <-time.After(c.srv.cfg.WriteTimeout + 6*time.Second):
		cancel()
		<-writerDone
	}
	c.ws.CloseNow()
	close(c.finished)
	return false
}

// writer writes the outbox and pings until the connection closes, or
// until hctx ends: the socket passes to a poller.
func (c *conn) writer(ctx, hctx context.Context) {
	ping := time.NewTicker(c.srv.heartbeat())
	defer ping.Stop()
	for {
		select {
		case <-c.out.Signal():
			if err := c.writeQueued(ctx); err != nil {
				c.logger().Debug("write failed", "err", err)
				c.ws.CloseNow()
				return
			}
		case <-ping.C:
			if time.Since(time.Unix(0, c.heard.Load())) < c.srv.heartbeat() {
				continue // it spoke within the heartbeat: alive
			}
			pctx, cancel := context.WithTimeout(hctx, c.srv.heartbeat())
			err := c.ws.Ping(pctx)
			cancel()
			if err != nil && hctx.Err() != nil {
				return // handed over: the poller waits for the pong
			}
			if err != nil {
				c.logger().Info("peer did not answer a ping; closing", "err", err)
				c.ws.CloseNow()
				return
			}
		case <-c.closing:
			c.finish(ctx)
			return
		case <-hctx.Done():
			if ctx.Err() != nil {
				c.ws.CloseNow()
			}
			return
		}
	}
}

// finish writes what is still queued (unless the client was too slow), the
// bye (for every code but a plain 1000), and the close frame.
func (c *conn) finish(ctx context.Context) {
	req := c.req
	c.wmu.Lock()
	rest := c.out.Close()
	var err error
	if !req.dropQueue {
		err = c.writeAll(ctx, rest)
	}
	c.wmu.Unlock()
	if err != nil {
		c.ws.CloseNow()
		return
	}
	if req.code == protocol.CloseNormal && req.reason == "" {
		c.ws.Close(websocket.StatusNormalClosure, "")
		return
	}
	if req.quiet {
		_ = c.ws.Close(websocket.StatusCode(req.code), req.reason)
		return
	}
	// A slow client gets its bye too (its backlog is dropped, not the bye):
	// the write is bounded by WriteTimeout like any other.
	if frame := c.byeFrame(req); frame != nil {
		_ = c.write(ctx, frame)
	}
	_ = c.ws.Close(websocket.StatusCode(req.code), req.reason)
}

// byeFrame is the bye that goes before a close with req's code.
func (c *conn) byeFrame(req closeReq) []byte {
	bye := protocol.Bye{Type: protocol.TypeBye, Code: req.code, Reason: req.reason, Reconnect: !protocol.Terminal(req.code), URL: req.url}
	if bye.Reconnect {
		bye.RetryAfterMs = int(req.retryAfter / time.Millisecond)
	}
	frame, _ := protocol.Encode(bye)
	return frame
}

// writeQueued writes what a non-blocking write left (Flush), then what
// waits in the outbox.
func (c *conn) writeQueued(ctx context.Context) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.sock != nil && c.sock.pending() {
		c.armWriteTimer()
		err := c.sock.flushRest()
		c.writeTimer.Stop()
		if err != nil {
			return err
		}
	}
	return c.writeAll(ctx, c.out.Drain())
}

// wire encodes frames taken from the outbox as writeAll writes them — the
// same batches — but as WebSocket frames back to back in batchBuf, for one
// write. frames is cleared, as writeAll clears it.
func (c *conn) wire(frames [][]byte) []byte {
	defer clear(frames)
	c.held.Add(-heldBy(frames))
	b := c.batchBuf[:0]
	for len(frames) > 0 {
		if len(frames) == 1 || len(frames[0]) >= protocol.MaxBatch/2 || frames[0][0] == '[' {
			b = appendFrame(b, frames[0])
			frames = frames[1:]
			continue
		}
		n, size := 1, len(frames[0])+1
		for n < len(frames) && size+len(frames[n])+2 <= protocol.MaxBatch && frames[n][0] != '[' {
			size += len(frames[n]) + 1
			n++
		}
		if n == 1 {
			b = appendFrame(b, frames[0]) // alone: no brackets (seal)
		} else {
			b = appendBatchFrame(b, frames[:n], size+1) // and the closing bracket
		}
		frames = frames[n:]
	}
	if cap(b) <= 2<<10 {
		c.batchBuf = b[:0] // keep a small buffer; let a big one go
	} else {
		c.batchBuf = nil
	}
	return b
}

// heldBy is the bytes frames hold, as counted in held.
func heldBy(frames [][]byte) int64 {
	var n int64
	for _, f := range frames {
		n += int64(len(f))
	}
	return n
}

// appendBatchFrame appends one text frame holding frames as a batch, a
// JSON array of size bytes.
func appendBatchFrame(b []byte, frames [][]byte, size int) []byte {
	b = appendFrameHeader(b, size)
	b = append(b, '[')
	for i, f := range frames {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, f...)
	}
	return append(b, ']')
}

// writeAll writes frames taken from the outbox, joining those that wait
// together into batched frames — a JSON array of messages (PROTOCOL.md) of
// at most protocol.MaxBatch bytes — so that one write carries several.
// Frames are shared between connections, so a batch is built in the
// writer's own buffer. frames is the outbox's buffer: it is cleared here
// so that the frames it held are not kept alive until the next drain.
func (c *conn) writeAll(ctx context.Context, frames [][]byte) error {
	defer clear(frames)
	c.held.Add(-heldBy(frames))
	for len(frames) > 0 {
		// A frame that is a batch already (relayed from the room's node)
		// goes alone: batches do not nest.
		if len(frames) == 1 || len(frames[0]) >= protocol.MaxBatch/2 || frames[0][0] == '[' {
			if err := c.write(ctx, frames[0]); err != nil {
				return err
			}
			frames = frames[1:]
			continue
		}
		buf := append(append(c.batchBuf[:0], '['), frames[0]...)
		n := 1
		for n < len(frames) && len(buf)+len(frames[n])+2 <= protocol.MaxBatch && frames[n][0] != '[' {
			buf = append(append(buf, ','), frames[n]...)
			n++
		}
		err := c.write(ctx, c.seal(buf, n))
		if cap(buf) <= 2<<10 {
			c.batchBuf = buf[:0] // keep a small buffer; let a big one go
		} else {
			c.batchBuf = nil
		}
		if err != nil {
			return err
		}
		frames = frames[n:]
	}
	return nil
}

// seal ends a batch: n messages in brackets, or the one message alone.
func (c *conn) seal(buf []byte, n int) []byte {
	if n == 1 {
		return buf[1:]
	}
	return append(buf, ']')
}

// write sends one frame. A write that takes longer than WriteTimeout cuts
// the connection: one reusable timer per connection, armed around each write,
// rather than a context per frame (the writer is the hot path).
func (c *conn) write(ctx context.Context, frame []byte) error {
	c.armWriteTimer()
	err := c.ws.Write(context.Background(), websocket.MessageText, frame)
	c.writeTimer.Stop()
	if err == nil && ctx.Err() != nil {
		err = ctx.Err()
	}
	return err
}

// armWriteTimer starts the write deadline: stop it when the write is done.
func (c *conn) armWriteTimer() {
	if c.writeTimer == nil {
		c.writeTimer = time.AfterFunc(c.srv.cfg.WriteTimeout, func() {
			c.logger().Info("write timed out; closing", "timeout", c.srv.cfg.WriteTimeout)
			c.ws.CloseNow()
		})
		return
	}
	c.writeTimer.Reset(c.srv.cfg.WriteTimeout)
}

// helloLate closes a connection that has sent no hello within
// HelloTimeout: a hello-first notice, then 1002.
func (c *conn) helloLate() {
	if !c.helloed.CompareAndSwap(helloWaiting, helloLate) {
		return
	}
	c.notice(protocol.CodeHelloFirst, fmt.Sprintf("no hello within %s", c.srv.cfg.HelloTimeout))
	c.close(closeReq{code: protocol.CloseProtocolError, reason: "no hello"})
}

// reader reads frames until the connection ends, or until a hello has put
// the socket in a room that a poller may take it to (handOver true: the
// reader stopped at the hello's end).
func (c *conn) reader(ctx context.Context) (handOver bool) {
	// Reads use a context that is never done (each read with a cancellable
	// one costs a timer, and coder/websocket cuts the socket when one ends);
	// the connection's end closes the socket instead, which ends the read.
	stop := context.AfterFunc(ctx, func() { c.ws.CloseNow() })
	defer stop()
	for {
		typ, data, err := c.ws.Read(context.Background())
		if err != nil {
			return false
		}
		c.heard.Store(time.Now().UnixNano())
		if c.message(ctx, typ, data) && c.canHandOver() {
			return stop()
		}
	}
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
		c.logger().Info("too many invalid frames; closing", "count", c.invalid)
		c.close(closeReq{code: protocol.CloseProtocolError, reason: "too many invalid messages"})
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
		c.logger().Info("sustained flooding; closing", "refused", c.limited)
		c.close(closeReq{code: protocol.CloseRateLimited, reason: "too many actions", retryAfter: 5 * time.Second})
	}
	return false
}

// overQuota refuses a hello from an address past its quota: a too-many
// notice, then 4013 with when to come back.
func (c *conn) overQuota(kind quotaKind, wait time.Duration) {
	frame, _ := protocol.Encode(protocol.NoticeMessage{Type: protocol.TypeNotice, Code: protocol.CodeTooMany, Temporary: true,
		Message: fmt.Sprintf("too many %s from your address; try again in %s", quotaNames[kind], wait.Round(time.Second))})
	c.Send(frame)
	c.close(closeReq{code: protocol.CloseTryLater, reason: "quota", retryAfter: max(wait, time.Second)})
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
	c.close(closeReq{code: protocol.CloseRoomClosed, reason: "room closed"})
}

func (c *conn) hello(ctx context.Context, h *protocol.Hello) {
	id, err := c.srv.identify(ctx, h.Auth)
	if err != nil {
		c.notice(protocol.CodeAuthRequired, err.Error())
		c.close(closeReq{code: protocol.CloseUnauthorized, reason: "unauthorized"})
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
		c.close(closeReq{code: protocol.CloseRoomClosed, reason: "no such room"})
		return
	case errors.Is(err, room.ErrShuttingDown):
		c.close(closeReq{code: protocol.CloseRestarting, reason: "server restarting", retryAfter: c.srv.retryAfter()})
		return
	case errors.Is(err, store.ErrOwned):
		// Another node took the room since this socket was routed: the
		// client comes back and is routed there.
		c.close(closeReq{code: protocol.CloseMoved, reason: "room moved", retryAfter: room.MovedRetry})
		return
	case err != nil:
		c.logger().Warn("room unavailable", "room", h.Room, "err", err)
		c.notice(protocol.CodeStorageUnavailable, "the room cannot be loaded right now")
		c.close(closeReq{code: protocol.CloseRestarting, reason: "room unavailable", retryAfter: c.srv.retryAfter()})
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
		c.close(closeReq{code: protocol.CloseMoved, reason: "room moved", retryAfter: room.MovedRetry})
	default:
		c.close(closeReq{code: protocol.CloseRestarting, reason: "server restarting", retryAfter: c.srv.retryAfter()})
	}
}
