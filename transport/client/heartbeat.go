package client

import (
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gobwas/ws"
)

// DefaultHeartbeat is Config.Heartbeat's default: roomd's own heartbeat
// (room.Config.Heartbeat), the heartbeatMs its welcomes name.
const DefaultHeartbeat = 15 * time.Second

// MinHeartbeat is the shortest heartbeat the client keeps, whatever a
// welcome says: a server cannot make it ping without pause.
const MinHeartbeat = 10 * time.Millisecond

// errSilent ends a socket whose server said nothing for a heartbeat, then
// did not answer the ping that followed for another.
var errSilent = errors.New("client: the server is silent: no answer to a ping for a heartbeat after a heartbeat without a word")

// heartbeat finds a silent server (PROTOCOL.md §2): once the socket has
// read nothing for a heartbeat, one ping goes out (a WebSocket ping,
// which roomd answers with a pong wherever the socket is read); if the
// socket still reads nothing for another heartbeat after it, the server
// is gone and the socket is closed (errSilent): the Remote reconnects as
// after any lost socket. Anything read counts as the server's answer: a
// pong, a message, its own ping.
//
// It is one timer per socket, not moved per read: a read only stores
// when it happened, and the timer, when it fires, works out from that
// when it is next due (the write timer's way, sock.stalled). Before it
// counts the server gone it makes sure that the client is not the one
// behind: a socket whose reader is away from its read (in a Handler or
// on a full events channel) is looked at again a quarter of a heartbeat
// later.
type heartbeat struct {
	born    time.Time    // the socket's opening: heard and pingAt count from it
	heard   atomic.Int64 // when the socket last read anything (ns after born)
	waiting atomic.Bool  // the socket's own goroutine waits in a read
	silent  atomic.Bool  // the socket was closed for its silent server

	mu     sync.Mutex
	every  time.Duration
	timer  *time.Timer
	pinged bool  // a ping is out, not yet answered
	pingAt int64 // when it went out (ns after born)
	off    bool  // the socket is closed
}

// since is the time since the socket opened: the heartbeat's clock
// (monotonic).
func (b *heartbeat) since() int64 { return int64(time.Since(b.born)) }

// startBeat arms the heartbeat at every, from now: a socket just opened,
// whose server has said nothing yet.
func (s *sock) startBeat(every time.Duration) {
	b := &s.beat
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.off {
		return
	}
	b.every = max(every, MinHeartbeat)
	b.timer = time.AfterFunc(b.every, s.beatDue)
}

// setBeat takes the heartbeat a welcome named.
func (s *sock) setBeat(every time.Duration) {
	b := &s.beat
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.off || b.timer == nil {
		return
	}
	b.every = max(every, MinHeartbeat)
	b.timer.Reset(0) // beatDue works out when it is next due
}

// heardNow notes that the socket read something.
func (s *sock) heardNow() { s.beat.heard.Store(s.beat.since()) }

// stopBeat stops the heartbeat of a socket that is closed.
func (s *sock) stopBeat() {
	b := &s.beat
	b.mu.Lock()
	b.off = true
	if b.timer != nil {
		b.timer.Stop()
	}
	b.mu.Unlock()
}

// beatDue is the heartbeat's timer: it pings a socket that read nothing
// for a heartbeat, closes one whose ping went unanswered for a heartbeat,
// and otherwise arms itself for when one of these is next due.
func (s *sock) beatDue() {
	b := &s.beat
	b.mu.Lock()
	if b.off {
		b.mu.Unlock()
		return
	}
	now, every, heard := b.since(), int64(b.every), b.heard.Load()
	if b.pinged && heard >= b.pingAt {
		b.pinged = false // answered
	}
	if !b.pinged {
		if left := heard + every - now; left > 0 {
			b.timer.Reset(time.Duration(left))
			b.mu.Unlock()
			return
		}
		b.pinged, b.pingAt = true, now
		b.timer.Reset(b.every)
		b.mu.Unlock()
		// A write that fails (the socket broken, or closing) ends the
		// reading by itself; one that blocks is the write timeout's.
		_ = s.writeFrame(ws.OpPing, nil)
		return
	}
	if left := b.pingAt + every - now; left > 0 {
		b.timer.Reset(time.Duration(left))
		b.mu.Unlock()
		return
	}
	if s.behind() {
		b.timer.Reset(max(b.every/4, MinHeartbeat))
		b.mu.Unlock()
		return
	}
	b.off = true
	b.mu.Unlock()
	b.silent.Store(true)
	s.shut()
}

// behind says whether the client, not the server, is why nothing was
// read: the socket's reader is not in a read.
func (s *sock) behind() bool { return !s.beat.waiting.Load() }

// lost is how a socket's reading ended when err ended it: errSilent when
// the heartbeat closed it.
func (s *sock) lost(err error) error {
	if s.beat.silent.Load() {
		return errSilent
	}
	return err
}
