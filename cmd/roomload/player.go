package main

import (
	"bytes"
	"context"
	"io"
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"

	"github.com/roomd/roomd/internal/finetimer"
	"github.com/roomd/roomd/internal/rawscan"
)

// cellTails are the ends of every flag command of an expert board (16×30),
// encoded once: a move is its id and revision, then one of these.
var cellTails = func() [][]byte {
	var out [][]byte
	for r := range 16 {
		for c := range 30 {
			out = append(out, []byte(`,"command":{"type":"flag","r":`+strconv.Itoa(r)+`,"c":`+strconv.Itoa(c)+`}}`))
		}
	}
	return out
}()

// A move's state bits.
const (
	inWindow = 1 << iota // sent inside the measured window
	receipted
	updated // its own update came
	refused
)

type move struct {
	sent  time.Duration // since the run's start
	state uint8
}

// player is one seat with its socket: a sender goroutine (the open loop)
// and a reader goroutine that scans frames.
type player struct {
	st          *stats
	code, token string
	seat        int
	node        int // the index of the node (config.Nodes) its socket goes through
	ws          *websocket.Conn
	rev         atomic.Uint64 // the newest revision seen
	cell        int           // the next cell to flag
	readDone    chan struct{} // closed when readLoop returns
	watch       bool          // a spectator: it reads, times the room's updates, sends nothing
	times       *revTimes     // the room's revisions and their moves' send times
	gone        atomic.Bool   // the socket was counted lost (by its reader or its sender: once)

	mu      sync.Mutex
	moves   []move // by sequence number: the id is "m" and the number
	nextUpd int    // the oldest move that may still get its own update
}

// sendLoop sends flag toggles at rate per second with exponential think
// times until the window ends, sleeping on timer: a finetimer.Timer, or
// with --coarse-timers a finetimer.Coarse. The runtime wakes an idle
// process for a time.Timer only on whole milliseconds, so with those the
// sends bunch at its wake-ups — right after roomd's receipts — instead of
// arriving at random instants as players' moves do (BENCHMARKS.md, "the
// load generator's clock").
func (p *player) sendLoop(ctx context.Context, rate float64, timer finetimer.Sleeper) {
	st := p.st
	mean := float64(time.Second) / rate
	next := time.Duration(rand.ExpFloat64() * mean)
	defer context.AfterFunc(ctx, func() { timer.Close() })()
	buf := make([]byte, 0, 128)
	for {
		now := time.Since(st.t0)
		if next > now {
			if timer.Sleep(next-now) != nil {
				return // the run ended
			}
			now = time.Since(st.t0)
		}
		if now >= st.winEnd {
			return
		}
		m := move{sent: now}
		if now >= st.winStart {
			m.state = inWindow
			st.sent.Add(1)
		}
		p.mu.Lock()
		seq := len(p.moves)
		p.moves = append(p.moves, m)
		p.mu.Unlock()
		buf = append(buf[:0], `{"type":"command","id":"m`...)
		buf = strconv.AppendInt(buf, int64(seq), 10)
		buf = append(buf, `","rev":`...)
		buf = strconv.AppendUint(buf, p.rev.Load(), 10)
		buf = append(buf, cellTails[p.cell]...)
		p.cell = (p.cell + 1) % len(cellTails)
		if err := p.ws.Write(context.Background(), websocket.MessageText, buf); err != nil {
			p.lost()
			return
		}
		next += time.Duration(rand.ExpFloat64() * mean)
		if next < now-time.Second {
			st.behind.Add(1)
			next = now
		}
	}
}

// startReader reads p's socket on a goroutine of its own (readLoop) until
// it ends; readDone is closed then.
func (p *player) startReader() {
	p.readDone = make(chan struct{})
	go func() {
		defer close(p.readDone)
		p.readLoop()
	}()
}

// readLoop reads and scans frames until the socket ends: before the run
// starts (the other rooms being set up) only for the revisions they carry.
func (p *player) readLoop() {
	buf := make([]byte, 0, 4096)
	for {
		_, r, err := p.ws.Reader(context.Background())
		if err == nil {
			buf, err = readAll(r, buf[:0])
		}
		if err != nil {
			p.lost()
			return
		}
		now := time.Duration(-1) // before the run: nothing is timed or counted
		if p.st.running.Load() {
			now = time.Since(p.st.t0)
		}
		p.scan(buf, now)
	}
}

// lost counts the player's socket lost, once (its reader and its sender
// both see the end), unless the run is closing.
func (p *player) lost() {
	if !p.st.closing.Load() && p.gone.CompareAndSwap(false, true) {
		p.st.lost.Add(1)
	}
}

// readAll reads r to its end into buf, which it reuses.
func readAll(r io.Reader, buf []byte) ([]byte, error) {
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

var (
	typeKey    = []byte(`"type":"`)
	receiptTag = []byte(`receipt"`)
	updateTag  = []byte(`update"`)
	okKey      = []byte(`"ok":`)
)

// scan finds the receipts and updates of a frame (one message or an array)
// without decoding it: roomd and roomfloor both write "type" first.
func (p *player) scan(b []byte, now time.Duration) {
	st := p.st
	counted := now >= st.winStart && now < st.winEnd
	if counted && !p.watch {
		st.frames.Add(1)
	}
	for {
		i := bytes.Index(b, typeKey)
		if i < 0 {
			return
		}
		b = b[i+len(typeKey):]
		switch {
		case bytes.HasPrefix(b, receiptTag):
			p.receipt(b, now)
		case bytes.HasPrefix(b, updateTag):
			to, ok := rawscan.Uint(b, `"to":`)
			if ok {
				p.rev.Store(to)
			}
			if p.watch {
				if ok && counted {
					st.specUpdates.Add(1)
					p.times.delivered(st, to, now)
				}
				continue
			}
			if by, ok := rawscan.Uint(b, `"by":`); ok && int(by) == p.seat {
				p.ownUpdate(now)
			}
		}
	}
}

func (p *player) receipt(b []byte, now time.Duration) {
	id := rawscan.String(b, `"id":"`)
	if len(id) < 2 || id[0] != 'm' {
		return
	}
	seq, err := strconv.Atoi(string(id[1:]))
	if err != nil {
		return
	}
	i := bytes.Index(b, okKey)
	ok := i >= 0 && bytes.HasPrefix(b[i+len(okKey):], []byte("true"))
	var rev uint64
	if ok {
		rev, _ = rawscan.Uint(b, `"rev":`)
		p.rev.Store(rev)
	}
	p.mu.Lock()
	if seq >= len(p.moves) || p.moves[seq].state&receipted != 0 {
		p.mu.Unlock()
		return
	}
	m := &p.moves[seq]
	m.state |= receipted
	if !ok {
		m.state |= refused
	}
	state, sent := m.state, m.sent
	p.mu.Unlock()
	if ok && p.times != nil {
		p.times.moved(p.st, rev, sent)
	}
	if state&inWindow == 0 {
		return
	}
	p.st.receipts.Add(1)
	if ok {
		p.st.record(&p.st.receiptLat, now-sent)
	} else {
		p.st.refusal(string(rawscan.String(b, `"code":"`)))
	}
	if !ok || state&updated != 0 {
		p.st.done.Add(1)
	}
}

// ownUpdate matches an update this seat caused with its oldest move still
// without one: a seat's moves are answered in the order it sent them.
func (p *player) ownUpdate(now time.Duration) {
	p.mu.Lock()
	for p.nextUpd < len(p.moves) && p.moves[p.nextUpd].state&refused != 0 {
		p.nextUpd++
	}
	if p.nextUpd >= len(p.moves) {
		p.mu.Unlock()
		return
	}
	m := &p.moves[p.nextUpd]
	p.nextUpd++
	m.state |= updated
	state, sent := m.state, m.sent
	p.mu.Unlock()
	if state&inWindow == 0 {
		return
	}
	p.st.updates.Add(1)
	p.st.record(&p.st.updateLat, now-sent)
	if state&receipted != 0 {
		p.st.done.Add(1)
	}
}
