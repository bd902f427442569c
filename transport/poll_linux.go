package transport

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/coder/websocket"

	"github.com/gobwas/ws"
	"github.com/roomd/roomd/internal/epollset"
	"github.com/roomd/roomd/internal/rawsock"
	"github.com/roomd/roomd/protocol"
)

// The poller: once a socket's hello has put it in a room on this node, no
// goroutine of its own reads or writes it. A reader and a writer goroutine
// per socket cost their stacks — most of a connection's memory (BENCHMARKS.md,
// "Memory per connection") — and a goroutine wake-up per frame. Instead a
// poller's loop waits on an epoll set of many sockets, reads what each has
// (wsReader), hands the messages to the rooms as the reader did, and writes
// what a socket could not take at once when it can take more. The loop
// itself waits in Go's network poller (the epoll descriptor is one more
// descriptor there), so it parks like any goroutine — with one scheduler
// thread as well — and a blocked system call never holds a thread.
//
// The hello stays with coder/websocket and the socket's two goroutines (it
// may wait on the store, on sign-in, on another node); so does a socket
// without a descriptor of its own (TLS), a relayed one, and every socket
// outside Linux. The socket passes at a message boundary: what the
// hello's reader had buffered past it is carried over.

// pollSupported says this system has the poller.
const pollSupported = true

// closeWait is how long a socket the server closed waits for the peer's
// close frame (coder/websocket's Close waits as long).
const closeWait = 5 * time.Second

// poller is one epoll loop and the sockets it holds. Its loop goroutine
// runs while it holds sockets: the first added starts it (and its
// descriptors), the last gone ends it.
type poller struct {
	s *Server

	mu      sync.Mutex
	running bool
	set     *epollset.Set // while running: the epoll set and its kick eventfd
	tm      int           // while running: the sweep's timerfd, in the set; else -1
	adds    []*conn       // added, not yet in conns (the loop takes them)
	kicks   []*conn       // asked to be serviced (kick)
	stop    bool          // the server stopped: cut every socket

	// The loop's own.
	conns  map[int32]*conn
	events [128]unix.EpollEvent
	buf    []byte
	again  []*conn // sockets that may hold more to read (edge-triggered)
	todo   []*conn // kicked sockets taken from kicks, from head on not yet serviced
	head   int
	cuts   []cutAt      // refused sockets to cut, in the order of their deadlines
	batch  int          // serviceBatch (tests make it smaller)
	yields atomic.Int64 // how often the loop yielded (tests)
}

// serviceBatch is how many kicked sockets the loop services before it
// reads its ready sockets again: a crowded room's move is thousands of
// spectators' writes, and a move that arrives meanwhile is read, and its
// room's actor runs (the loop yields after two batches' work), before the
// fan-out ends — so a spectator not yet written gets both moves in one
// write, instead of the second move waiting unread for the whole first
// fan-out.
const serviceBatch = 128

// yield readies the loop again through Go's poller and lets it park: the
// scheduler looks there only when no goroutine is runnable, so the actors
// run first, and with them whatever the poller readies — a timer, a
// socket's data. (runtime.Gosched would put the loop
// back ahead of those: the runnable queues come before the poller.)
func (p *poller) yield(set *epollset.Set) {
	p.yields.Add(1)
	set.Wake()
}

// epState is a socket's state in its poller, the loop's alone but for p
// and fd.
type epState struct {
	p      *poller
	fd     int32
	rd     wsReader
	early  []byte // what the hello's reader had read past the hello
	pingAt int64  // when a ping went unanswered so far (Unix ns); 0 none
	byeAt  int64  // when the server's close frame was written; 0 none
	kicked atomic.Bool
	dead   bool
}

// pollReadBuf is the loop's read buffer: a read takes at most this much
// from one socket before the loop turns to the others.
const pollReadBuf = 64 << 10

func newPollers(s *Server) []*poller {
	ps := make([]*poller, max(1, runtime.GOMAXPROCS(0)))
	for i := range ps {
		ps[i] = &poller{s: s, tm: -1, batch: serviceBatch}
	}
	context.AfterFunc(s.ctx, func() {
		for _, p := range ps {
			p.mu.Lock()
			p.stop = true
			p.wakeLocked()
			p.mu.Unlock()
		}
	})
	return ps
}

// pick returns the poller for a socket: the sockets are spread by their
// descriptors.
func (s *Server) pick(fd int) *poller { return s.polls[fd%len(s.polls)] }

// canHandOver says whether the socket may leave its goroutines for a
// poller: its hello put it in a room here, it has a descriptor of its own
// and the reader that took the hello is one the poller can take over.
func (c *conn) canHandOver() bool {
	if c.srv.polls == nil || c.sock == nil || c.sock.raw == nil || c.sock.br == nil ||
		c.up.Load() != nil || c.room.Load() == nil || c.helloed.Load() != helloTaken {
		return false
	}
	select {
	case <-c.closing:
		return false
	default:
		return true
	}
}

// cutAt is when a socket whose frames were refused is cut, if its client
// has not closed it by then.
type cutAt struct {
	c  *conn
	ep *epState
	at int64 // Unix ns
}

// handOver moves the socket to a poller, with its reader's state rd (its
// budget); its writer has stopped. It reports false when it could not, and
// the socket is then the caller's to close.
func (c *conn) handOver(rd *wsReader) bool {
	s := c.sock
	if s.bw != nil && s.bw.Buffered() > 0 {
		return false // coder/websocket flushes every frame: never
	}
	var leftover []byte
	if n := s.br.Buffered(); n > 0 {
		b, _ := s.br.Peek(n)
		leftover = append([]byte(nil), b...)
	}
	// The socket's own descriptor: a copy of the connection's, whose
	// closing takes the original out of the runtime's poller.
	fd, derr := -1, error(nil)
	if err := s.raw.Control(func(sfd uintptr) { fd, derr = unix.FcntlInt(sfd, unix.F_DUPFD_CLOEXEC, 0) }); err != nil || derr != nil {
		return false
	}
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return false
	}
	p := c.srv.pick(fd)
	ep := &epState{p: p, fd: int32(fd), early: leftover, rd: *rd} // early is read by the loop's first service
	s.mu.Lock()
	s.fd = fd
	s.mu.Unlock()
	if err := p.add(c, ep); err != nil {
		c.srv.cfg.Logger.Warn("poller refused a socket", "err", err)
		s.mu.Lock()
		s.fd = -1
		s.mu.Unlock()
		unix.Close(fd)
		return false
	}
	// The poller holds it: the connection's own descriptor and
	// coder/websocket's Conn and buffers go. (Its Conn must be closed to
	// be collected: it keeps a finalizer on a structure that points to
	// itself. Closing it closes the sock's net.Conn, not the poller's copy.)
	c.ws.CloseNow()
	s.mu.Lock()
	s.raw, s.br, s.bw, s.wfunc, s.rd = nil, nil, nil, nil, rawsock.Reader{}
	s.mu.Unlock()
	c.ws = nil
	if c.writeTimer != nil {
		c.writeTimer.Stop()
		c.writeTimer = nil
	}
	if pong := c.pong.Swap(nil); pong != nil {
		c.writeControl(ws.OpPong, *pong) // a ping the writer had not answered
	}
	return true
}

// add registers c's descriptor and starts the loop if it is not running.
func (p *poller) add(c *conn, ep *epState) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stop {
		return context.Canceled
	}
	if !p.running {
		if err := p.open(); err != nil {
			return err
		}
	}
	// The descriptor is the token: conns is keyed by it, and a socket
	// leaves conns before its descriptor is closed.
	if err := p.set.Add(int(ep.fd), ep.fd, unix.EPOLLIN|unix.EPOLLOUT|unix.EPOLLRDHUP|unix.EPOLLET); err != nil {
		if !p.running {
			p.closeFDs()
		}
		return err
	}
	c.ep.Store(ep)
	p.adds = append(p.adds, c)
	ep.kicked.Store(true)
	p.kicks = append(p.kicks, c) // its first service: the carried bytes, the outbox
	p.wakeLocked()
	if !p.running {
		p.running = true
		go p.loop(p.set)
	}
	return nil
}

// open makes the loop's descriptors: the epoll set with its kick eventfd,
// and a timerfd for the sweep in it.
func (p *poller) open() error {
	set, err := epollset.New()
	if err != nil {
		return err
	}
	tm, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err != nil {
		set.Close()
		return err
	}
	tick := unix.NsecToTimespec(int64(p.sweepEvery()))
	if err = unix.TimerfdSettime(tm, 0, &unix.ItimerSpec{Interval: tick, Value: tick}, nil); err == nil {
		err = set.Add(tm, int32(tm), unix.EPOLLIN|unix.EPOLLET)
	}
	if err != nil {
		unix.Close(tm)
		set.Close()
		return err
	}
	p.set, p.tm = set, tm
	if p.conns == nil {
		p.conns = map[int32]*conn{}
		p.buf = make([]byte, pollReadBuf)
	}
	return nil
}

// sweepEvery is the sweep's period: a quarter of the shortest deadline it
// keeps (the heartbeat, the write timeout, the close wait), at most a
// second.
func (p *poller) sweepEvery() time.Duration {
	d := min(p.s.heartbeat(), p.s.cfg.WriteTimeout, closeWait) / 4
	return min(max(d, 5*time.Millisecond), time.Second)
}

func (p *poller) closeFDs() {
	if p.tm >= 0 {
		unix.Close(p.tm)
		p.tm = -1
	}
	if p.set != nil {
		p.set.Close()
		p.set = nil
	}
}

// wakeLocked wakes the loop (p.mu held).
func (p *poller) wakeLocked() {
	if p.set != nil {
		p.set.Wake()
	}
}

// kick asks the loop to service c: write what waits, or close it.
func (p *poller) kick(c *conn, ep *epState) {
	if ep.kicked.Swap(true) {
		return // asked already
	}
	p.mu.Lock()
	p.kicks = append(p.kicks, c)
	if len(p.kicks) == 1 {
		p.wakeLocked() // the loop takes the whole list at once
	}
	p.mu.Unlock()
}

// loop runs until the poller holds no socket. It waits in Go's poller on
// the epoll set and takes the ready events without blocking.
func (p *poller) loop(set *epollset.Set) {
	err := set.Run(func() bool { return p.cycle(set) })
	if err != nil {
		p.s.cfg.Logger.Error("poller stopped", "err", err)
		p.mu.Lock()
		p.stop = true
		p.mu.Unlock()
		p.cycle(set) // cuts every socket
	}
	// The loop closes the set it waits on (cycle let go of p.set when
	// the loop ended); the timerfd is closed there.
	set.Close()
}

// cycle takes the ready events and services the kicked sockets; it
// reports true when the loop ends. After some two batches' work it
// yields (returns with its own eventfd kicked), so that a crowded room's
// fan-out, thousands of writes, neither keeps the other sockets unread nor
// holds the scheduler from the rooms' actors and from what waits in Go's
// poller — the store's commit timer among them.
func (p *poller) cycle(set *epollset.Set) bool {
	for work := 0; ; {
		p.takeRequests()
		more := p.serviceSome()
		n := set.Ready(p.events[:])
		got := n > 0
		for _, ev := range p.events[:n] {
			if ev.Fd == epollset.KickToken {
				set.Woken()
			} else {
				p.event(ev.Fd, ev.Events)
			}
		}
		work += n
		work += len(p.again)
		p.readAgain()
		if !more && !got && len(p.again) == 0 {
			break
		}
		if more {
			work += p.batch
		}
		if work >= 2*p.batch {
			p.yield(set)
			return false
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.conns) > 0 || len(p.adds) > 0 || len(p.kicks) > 0 || len(p.todo) > 0 {
		return false
	}
	// Idle: the loop ends. The epoll set is closed by loop (it is the
	// file it waits on); the timerfd here.
	clear(p.cuts)
	p.cuts = p.cuts[:0]
	p.running = false
	p.set = nil
	unix.Close(p.tm)
	p.tm = -1
	return true
}

// takeRequests moves the added sockets into conns and the kicked ones to
// the loop's list (serviceSome); after the server stopped, it cuts every
// socket.
func (p *poller) takeRequests() {
	p.mu.Lock()
	adds, kicks, stop := p.adds, p.kicks, p.stop
	p.adds, p.kicks = nil, nil
	p.mu.Unlock()
	for _, c := range adds {
		ep := c.ep.Load()
		p.conns[ep.fd] = c
	}
	if p.head > 0 && 2*p.head >= len(p.todo) {
		// Kicks that keep coming while a fan-out is serviced would
		// otherwise grow the list past its serviced head for good.
		n := copy(p.todo, p.todo[p.head:])
		clear(p.todo[n:])
		p.todo, p.head = p.todo[:n], 0
	}
	p.todo = append(p.todo, kicks...)
	if stop {
		for _, c := range p.conns {
			c.teardown(c.ep.Load(), whyRestart)
		}
		clear(p.cuts)
		p.cuts = p.cuts[:0]
	}
}

// serviceSome services up to a batch of kicked sockets, in the order
// they were kicked; it reports whether more wait. A socket kicked again
// while it waits is serviced once, with everything queued for it.
func (p *poller) serviceSome() bool {
	end := min(p.head+p.batch, len(p.todo))
	for _, c := range p.todo[p.head:end] {
		ep := c.ep.Load()
		ep.kicked.Store(false)
		if !ep.dead {
			c.service(ep)
		}
	}
	clear(p.todo[p.head:end])
	p.head = end
	if p.head < len(p.todo) {
		return true
	}
	p.todo, p.head = p.todo[:0], 0
	return false
}

func (p *poller) event(fd int32, events uint32) {
	if int(fd) == p.tm {
		var b [8]byte
		_, _, _ = syscall.RawSyscall(syscall.SYS_READ, uintptr(fd), uintptr(unsafe.Pointer(&b[0])), 8)
		p.cutDue()
		p.sweep()
		return
	}
	c := p.conns[fd]
	if c == nil {
		p.takeRequests() // added since the last look
		if c = p.conns[fd]; c == nil {
			return // a socket closed since the event
		}
	}
	ep := c.ep.Load()
	if events&(unix.EPOLLIN|unix.EPOLLRDHUP|unix.EPOLLERR|unix.EPOLLHUP) != 0 {
		c.readable(ep)
	}
	if !ep.dead {
		c.service(ep) // what the read asked for, or what waited for EPOLLOUT
	}
}

// readAgain reads once more the sockets whose last read filled the
// buffer (with edge-triggered events, no new one comes for what is already
// there): one read each, then the loop looks at the others' events again,
// so a socket that never stops sending cannot hold the loop.
func (p *poller) readAgain() {
	again := p.again
	p.again = nil
	for _, c := range again {
		if ep := c.ep.Load(); !ep.dead {
			c.readable(ep)
			if !ep.dead {
				c.service(ep)
			}
		}
	}
}

// sweep keeps the deadlines: pings to silent sockets (and the close of one
// that answers none within a heartbeat), writes that take longer than
// WriteTimeout, and close handshakes the peer leaves unanswered.
func (p *poller) sweep() {
	now := time.Now().UnixNano()
	hb := int64(p.s.heartbeat())
	for _, c := range p.conns {
		ep := c.ep.Load()
		if ep.byeAt != 0 {
			if now-ep.byeAt > int64(closeWait) {
				c.teardown(ep, whyNone) // the client did not answer the server's close
			}
			continue
		}
		if since := c.sock.stalledSince(); since != 0 && now-since > int64(p.s.cfg.WriteTimeout) {
			c.noteEnd(whyWriteTimeout, 0, fmt.Sprintf("a write waited %s", p.s.cfg.WriteTimeout))
			c.teardown(ep, whyWriteTimeout)
			continue
		}
		heard := c.heard.Load()
		switch {
		case ep.pingAt != 0 && heard >= ep.pingAt:
			ep.pingAt = 0 // answered
		case ep.pingAt != 0 && now-ep.pingAt > hb:
			c.noteEnd(whyPingTimeout, 0, fmt.Sprintf("no answer to a ping within %s", p.s.heartbeat()))
			c.teardown(ep, whyPingTimeout)
			continue
		}
		if ep.pingAt == 0 && now-heard >= hb {
			ep.pingAt = now
			c.writeControl(ws.OpPing, nil)
		}
	}
}

// readable reads what the socket holds (up to the loop's buffer) and hands
// on its messages; its caller then services the socket.
func (c *conn) readable(ep *epState) {
	p := ep.p
	buf := p.buf
	if ep.rd.closing {
		// Past a refusal the socket is read for refuseRead bytes at most
		// (looking for the client's close); then no more, until the cut
		// (cutDue): closing it with bytes unread would reset it, and the
		// client could lose the close frame it has not read yet.
		left := refuseRead - ep.rd.drained
		if left <= 0 {
			return
		}
		buf = buf[:min(int64(len(buf)), left)]
	}
	n, errno := rawsock.Read(uintptr(ep.fd), buf)
	switch {
	case errno == syscall.EINTR:
		p.again = append(p.again, c)
		return
	case errno == syscall.EAGAIN:
		return
	case errno != 0 || n == 0:
		c.teardown(ep, whyPeerGone) // the peer went away
		return
	}
	c.heard.Store(time.Now().UnixNano())
	if !c.feed(ep, buf[:n]) {
		return
	}
	if n == len(buf) {
		p.again = append(p.again, c)
	}
}

// feed reads the frames b completes; it reports false when the socket
// has ended.
func (c *conn) feed(ep *epState, b []byte) bool {
	err := ep.rd.feed(b, &c.srv.limits, c.srv.mono(), func(op ws.OpCode, b []byte) bool { return c.frame(ep, op, b) })
	if ep.dead {
		return false
	}
	if err != nil {
		c.refusePolled(ep, err)
	}
	return true
}

// refusePolled closes a socket whose client sent a frame the reader
// refused: the close frame (after a bye, for a flood's 4029) at once, the
// outbox dropped; then the socket is read for the client's close, at most
// refuseRead more bytes (readable), and cut refuseWait after the refusal.
func (c *conn) refusePolled(ep *epState, err *wsError) {
	c.refused(err)
	if ep.byeAt == 0 {
		c.bye(ep) // and the cut
	} else if !c.req.refused {
		ep.p.cutLater(c, ep) // closing already, for another reason
	}
}

// cutLater cuts c refuseWait from now, unless its client closes it first.
func (p *poller) cutLater(c *conn, ep *epState) {
	p.cuts = append(p.cuts, cutAt{c: c, ep: ep, at: time.Now().UnixNano() + int64(refuseWait)})
	if len(p.cuts) == 1 {
		p.sweepIn(refuseWait)
	}
}

// cutDue cuts the refused sockets whose time has come, and sets the
// sweep's timer for the next one.
func (p *poller) cutDue() {
	now := time.Now().UnixNano()
	n := 0
	for ; n < len(p.cuts) && p.cuts[n].at <= now; n++ {
		if cu := p.cuts[n]; !cu.ep.dead {
			cu.c.teardown(cu.ep, whyNone)
		}
	}
	left := copy(p.cuts, p.cuts[n:])
	clear(p.cuts[left:])
	p.cuts = p.cuts[:left]
	if left > 0 {
		p.sweepIn(time.Duration(p.cuts[0].at - now))
	}
}

// sweepIn makes the sweep's timer fire after d (at least a millisecond),
// then every sweepEvery as before.
func (p *poller) sweepIn(d time.Duration) {
	tick := unix.NsecToTimespec(int64(p.sweepEvery()))
	first := unix.NsecToTimespec(int64(max(d, time.Millisecond)))
	_ = unix.TimerfdSettime(p.tm, 0, &unix.ItimerSpec{Interval: tick, Value: first}, nil)
}

// frame handles one message or control frame from the peer.
func (c *conn) frame(ep *epState, op ws.OpCode, b []byte) bool {
	switch op {
	case ws.OpText, ws.OpBinary:
		typ := websocket.MessageText
		if op == ws.OpBinary {
			typ = websocket.MessageBinary
		}
		// The message outlives the read buffer (a command's raw JSON goes
		// to the room's actor).
		c.message(c.srv.ctx, typ, append([]byte(nil), b...))
	case ws.OpPing:
		if ep.byeAt == 0 { // nothing after the server's close frame
			c.writeControl(ws.OpPong, b)
		}
	case ws.OpClose:
		if ep.byeAt == 0 {
			// The client closes first: its code is echoed (not its
			// reason), and the socket closed.
			code := closeCode(b)
			c.peerClosed(code)
			c.writeControlClose(code, "")
		}
		c.teardown(ep, whyPeerClose)
		return false
	}
	return true
}

// service writes what waits for the socket, or closes it when asked.
func (c *conn) service(ep *epState) {
	if early := ep.early; early != nil {
		// Bytes carried over from the hello's reader: read first.
		ep.early = nil
		if !c.feed(ep, early) {
			return
		}
	}
	select {
	case <-c.closing:
		if ep.byeAt == 0 {
			c.bye(ep)
		} else {
			c.pump()
		}
		return
	default:
	}
	if !c.pump() {
		c.noteEnd(whyWriteError, 0, "the socket refused a write")
		c.teardown(ep, whyWriteError)
	}
}

// pump writes, without waiting, what a write left and then the outbox; it
// reports false when the socket failed.
func (c *conn) pump() bool {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	s := c.sock
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.writeRestLocked() {
		return s.err == nil // the socket takes no more for now
	}
	if frames := c.out.Drain(); len(frames) > 0 {
		s.tryWrite(c.wire(frames))
	}
	return s.err == nil
}

// writeControl writes a ping or a pong, without waiting — and not at all
// while the socket has not taken what was written before it: a peer that
// does not read gets no answers to pile up (its writes time out instead).
// Control frames may go before data frames waiting in the outbox.
func (c *conn) writeControl(op ws.OpCode, payload []byte) {
	var b [2 + maxControl]byte
	s := c.sock
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.rest) == 0 {
		s.tryWrite(appendControl(b[:0], op, payload))
	}
}

// writeControlClose writes a close frame after what the socket has not
// taken yet; the socket is then closed.
func (c *conn) writeControlClose(code int, reason string) {
	s := c.sock
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queueLocked(closeFrame(code, reason))
}

// bye closes the socket as the writer's finish does: what waits (unless
// the client was too slow), the bye (for every code but a plain 1000) and
// the close frame; the peer's close frame, its going away or closeWait
// (refuseWait when the client's frames were refused) then ends it.
func (c *conn) bye(ep *epState) {
	req := c.req
	c.wmu.Lock()
	rest := c.out.Close()
	var b []byte
	if req.dropQueue {
		c.held.Add(-heldBy(rest))
		clear(rest)
	} else {
		b = c.wire(rest)
	}
	if !(req.code == protocol.CloseNormal && req.reason == "") && !req.quiet {
		b = appendFrame(b, c.byeFrame(req))
	}
	b = append(b, closeFrame(req.code, req.reason)...)
	s := c.sock
	s.mu.Lock()
	s.queueLocked(b)
	s.mu.Unlock()
	c.wmu.Unlock()
	ep.byeAt = time.Now().UnixNano()
	if req.refused {
		ep.p.cutLater(c, ep) // the client's close is waited for refuseWait, not closeWait
	}
}

// teardown ends a socket the poller holds: the descriptor is closed, the
// room told, and the server's count of it released. why is the reason,
// unless one is known already.
func (c *conn) teardown(ep *epState, why closeReason) {
	if ep.dead {
		return
	}
	ep.dead = true
	delete(ep.p.conns, ep.fd)
	c.sock.closeFD()
	if r := c.room.Load(); r != nil {
		r.Drop(c)
	}
	c.noteEnd(why, 0, "")
	c.close(closeReq{code: protocol.CloseNormal, dropQueue: true})
	rest := c.out.Close()
	c.held.Add(-heldBy(rest))
	clear(rest)
	ep.rd = wsReader{}
	c.release()
	close(c.finished)
}
