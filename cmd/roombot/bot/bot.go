package bot

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/roomd/roomd/internal/finetimer"
	"github.com/roomd/roomd/internal/ids"
	"github.com/roomd/roomd/protocol"
	"github.com/roomd/roomd/transport/client"
)

type role int

const (
	roleHost role = iota
	roleGuest
	roleSpectator
)

func (r role) String() string {
	return [...]string{"host", "guest", "spectator"}[r]
}

// Action kinds in a bot's ledger.
const (
	kindCommand = "command"
	kindControl = "control"
	kindResync  = "resync"
	kindResign  = "resign"
)

// move is a command in flight.
type move struct {
	action   protocol.Action // as sent, with the revision read before sending
	sentAt   time.Time
	gen      int    // connection generation it was sent on
	tick     uint64 // a real-time match's last tick the bot had seen when it sent it
	effTick  uint64 // the tick an accepted input takes effect at (its receipt's)
	rev      uint64 // the revision it produced, once accepted
	accepted bool
	resend   bool // resend on purpose when the receipt arrives
}

type ctlInFlight struct {
	op string
	at time.Time
}

// botCmd is an order from the runner, carried out in the bot's goroutine.
type botCmd struct {
	kind  string // "verify" or "resign"
	reply chan int
}

// bot is one socket in a room: a player (host or guest) or a spectator.
// Everything below is owned by the bot's goroutine, except what the runner
// reads after the goroutine has ended.
type bot struct {
	sc   *scenario
	room *roomRun
	name string
	role role
	tr   client.Transport
	// chaos is tr's fault injection, nil when tr offers none: the bot
	// then makes no faults on purpose.
	chaos client.Chaos
	rng   *rand.Rand
	ctx   context.Context
	// node is the base URL of the node the bot's socket starts at (and
	// its API calls go to).
	node string

	fol  follower
	led  *ledger
	revs revTrack
	seat int
	info *protocol.Room

	joined     chan struct{}
	joinedOnce bool
	online     bool
	everOnline bool
	gen        int
	offlineAt  time.Time
	stopped    bool
	playing    bool
	// onlineAtStop is set by the runner just before the bots stop.
	onlineAtStop bool

	cur    *matchFrames
	parked []*matchFrames

	inflight  map[string]*move
	waiting   *move
	nextAt    time.Time
	noMoveRev uint64
	noMove    bool
	ctl       map[string]ctlInFlight
	ctlRetry  time.Time
	endedAt   time.Time
	lastSnap  struct {
		rev      uint64
		compared bool
	}
	// A real-time match's inputs: rtDirty is set when the followed view
	// changed or an input was answered (the player decides again), rtNext
	// is the least time of the next input (--think), and rtAccepted counts
	// the bot's accepted inputs by the tick they take effect at, until
	// that tick has come (see checkApplied).
	rtDirty       bool
	rtNext        time.Time
	rtAccepted    map[uint64]int
	resyncID      string
	checkAt       time.Time
	verifyReply   chan int
	verifyTries   int
	verifyRetry   time.Time
	verifyAwait   bool // a resync was answered: its snapshot follows
	resignReply   chan int
	resignWait    chan int // a resignation asked for, not sent yet
	resignID      string
	resignMatch   int
	cmds          chan botCmd
	holdCh        chan time.Duration
	slowHeld      bool
	slowUndropped bool // the server did not drop it during its hold
	slowArmed     bool // the hold's own socket came online (events are read in order)
	slowClosed    bool
	slowBack      bool
	tinyBuf       atomic.Bool // sockets dialed now get tiny receive buffers
	slowWindow    time.Time   // a close before this is the hold's
	done          chan struct{}

	// mu is held by the goroutine in the bot's state (see run).
	mu       sync.Mutex
	finished bool            // run has returned
	timer    *finetimer.Func // the next wake-up (onTimer), at armed (zero: stopped)
	armed    time.Time
}

func newBot(sc *scenario, rm *roomRun, name string, r role, seed uint64) *bot {
	b := &bot{sc: sc, room: rm, name: name, role: r, rng: rand.New(rand.NewPCG(seed, uint64(len(name)))),
		fol: sc.play.game.newFollower(), led: newLedger(name), revs: revTrack{realtime: sc.play.game.realtime},
		seat: -1, joined: make(chan struct{}), rtAccepted: map[uint64]int{},
		inflight: map[string]*move{}, ctl: map[string]ctlInFlight{}, cmds: make(chan botCmd, 1),
		holdCh: make(chan time.Duration, 1), done: make(chan struct{}), playing: true}
	b.timer = sc.clock.AfterFunc(time.Hour, b.onTimer)
	b.timer.Stop()
	return b
}

// onTimer is the wake-up's: the bot acts (its next move, most often) on
// the timer's own goroutine, as onEvent does on the transport's.
func (b *bot) onTimer() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.finished {
		return
	}
	b.armed = time.Time{}
	b.actNow(time.Now())
}

// attach gives the bot its transport.
func (b *bot) attach(tr client.Transport) {
	b.tr = tr
	b.chaos, _ = tr.(client.Chaos)
}

// run plays until b.ctx ends (set before the transport starts); it stops
// making moves when play ends. The bot's events reach handle on the
// transport's goroutine (onEvent, the transport's Handler) or, for a bot
// that holds its reads (a slow spectator), through the events channel
// read here; its wake-ups (the next move) run on the timer's goroutine
// (onTimer). Either way mu keeps one goroutine at a time in the bot's
// state: this one for the runner's orders and the channel, the
// transport's for its events, the timer's for its wake-ups. A hold keeps
// mu while it waits: only a slow spectator holds, and its events come
// through the channel.
func (b *bot) run(play context.Context) {
	ctx := b.ctx
	defer close(b.done)
	defer func() {
		b.mu.Lock()
		b.finished = true // no event is handled after this
		b.timer.Stop()
		b.mu.Unlock()
	}()
	playDone := play.Done()
	events := b.tr.Events()
	b.mu.Lock()
	for {
		b.actNow(time.Now())
		b.mu.Unlock()
		select {
		case ev, ok := <-events:
			b.mu.Lock()
			if !ok {
				b.stopped, events = true, nil
				continue
			}
			b.handle(ev, time.Now())
		case <-playDone:
			b.mu.Lock()
			b.playing, playDone = false, nil
		case c := <-b.cmds:
			b.mu.Lock()
			b.command(c, time.Now())
		case d := <-b.holdCh:
			b.mu.Lock()
			b.hold(ctx, play, d)
		case <-ctx.Done():
			return
		}
	}
}

// onEvent is the transport's Handler: it handles one event on the
// transport's goroutine and acts on it, as run does with one from the
// channel.
func (b *bot) onEvent(ev client.Event) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.finished {
		return
	}
	now := time.Now()
	b.handle(ev, now)
	b.actNow(now)
}

// actNow acts and moves the timer to the next wake-up. Most events leave
// it where it was (the next move's time): the timer is moved only when it
// changes. A wake-up that fired while mu was held runs once it is free
// and finds nothing due (act does what is due, no more).
func (b *bot) actNow(now time.Time) {
	if wake := b.act(now); !wake.Equal(b.armed) {
		b.timer.Stop()
		if !wake.IsZero() {
			b.timer.Reset(max(wake.Sub(time.Now()), 0))
		}
		b.armed = wake
	}
}

// hold stops reading events: a slow consumer. It reads again after d, when
// play ends, or as soon as the room's presence (as the host sees it) shows
// fewer spectators than the room has: the server dropped it (or another
// spectator is reconnecting, which ends the hold a little early).
func (b *bot) hold(ctx, play context.Context, d time.Duration) {
	if b.chaos == nil {
		return
	}
	// Redial with a tiny receive buffer, so that the server's outbox
	// overflows after a few dozen frames (an ordinary socket would buffer
	// megabytes in the kernel first), then stop reading.
	b.tinyBuf.Store(true)
	b.chaos.Drop()
	b.sc.st.count("chaos/slow-redials", 1)
	if !b.awaitState(ctx, play, false, time.Second) || !b.awaitState(ctx, play, true, 5*time.Second) {
		b.tinyBuf.Store(false)
		return
	}
	// The room's presence shows the redialed socket back before the hold.
	base := int64(b.room.spectators) // as configured; the host's count follows presence
	for wait := time.Now().Add(time.Second); b.room.specSeen.Load() < base && time.Now().Before(wait); {
		time.Sleep(10 * time.Millisecond)
	}
	b.slowHeld = true
	b.sc.st.count("chaos/slow-holds", 1)
	b.sc.log.Debug("holding reads", "bot", b.name, "for", d, "spectators", base)
	start, roomFrames := time.Now(), b.room.hostFrames.Load()
	t := time.NewTimer(d)
	defer t.Stop()
	poll := time.NewTicker(20 * time.Millisecond)
	defer poll.Stop()
	dropped := false
wait:
	for {
		select {
		case <-t.C:
			break wait
		case <-ctx.Done():
			break wait
		case <-play.Done():
			break wait
		case <-poll.C:
			if base > 0 && b.room.specSeen.Load() < base {
				dropped = true
				b.sc.st.count("chaos/slow-dropped-by-server", 1)
				break wait
			}
		}
	}
	b.tinyBuf.Store(false)
	held := time.Since(start)
	b.sc.st.latency(latHold, held)
	// How busy the room was meanwhile: frames its host received.
	b.sc.st.count("chaos/slow-hold-room-frames", b.room.hostFrames.Load()-roomFrames)
	b.slowWindow = time.Now().Add(max(2*held, 5*time.Second))
	if !dropped && ctx.Err() == nil {
		// The server kept it: come back on an ordinary socket (the
		// backlog is dropped with the old one) rather than crawl through
		// it on the tiny one.
		b.slowUndropped = true
		b.sc.st.count("chaos/slow-not-dropped", 1)
		b.chaos.Drop()
	}
}

// awaitState handles the bot's events until its transport is online (or
// not), for at most d. It must read them meanwhile: a transport whose
// events channel is full waits for its reader before it goes on with the
// next connection (the slow spectator's channel holds only a few).
func (b *bot) awaitState(ctx, play context.Context, online bool, d time.Duration) bool {
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	poll := time.NewTicker(10 * time.Millisecond)
	defer poll.Stop()
	events := b.tr.Events()
	for (b.tr.State() == client.StateOnline) != online {
		select {
		case ev, ok := <-events:
			if !ok {
				return false // run sees the channel closed
			}
			b.handle(ev, time.Now())
			if ev.Kind == client.EventState && (ev.State == client.StateOnline) == online {
				// Reached, if only for a moment: a socket redialed for a
				// hold may be closed as slow (4008) before the next poll.
				return true
			}
		case <-poll.C:
		case <-deadline.C:
			return false
		case <-ctx.Done():
			return false
		case <-play.Done():
			return false
		}
	}
	return true
}

func (b *bot) handle(ev client.Event, now time.Time) {
	if b.role == roleHost && (ev.Kind == client.EventUpdate || ev.Kind == client.EventPresence) {
		b.room.hostFrames.Add(1)
	}
	b.sc.st.msgBytes.Add(int64(len(ev.Raw)))
	switch ev.Kind {
	case client.EventState:
		b.onState(ev, now)
	case client.EventWelcome:
		if ev.Welcome.Seat != nil {
			b.seat = *ev.Welcome.Seat
		}
	case client.EventSnapshot:
		if ev.Resync {
			// The transport met a tick or an update that did not follow
			// its position on a live socket, dropped it and asked for
			// this snapshot: the server sent a gap.
			b.sc.viol.add(vGapResync, "%s: a gap at revision %d (tick %d); resynced to revision %d (tick %d)",
				b.name, b.revs.rev, b.revs.tick, ev.Snapshot.Rev, ev.Snapshot.Tick)
		}
		b.onSnapshot(ev.Snapshot, ev.Raw, now)
	case client.EventUpdate:
		b.onUpdate(ev.Update, ev.Raw, now)
	case client.EventTick:
		b.onTick(ev.Tick, ev.Raw, now)
	case client.EventReceipt:
		b.onReceipt(ev.Receipt, now)
	case client.EventPresence:
		if b.role == roleHost {
			b.room.specSeen.Store(int64(ev.Presence.Spectators))
		}
	case client.EventNotice:
		b.sc.st.count("notice/"+ev.Notice.Code, 1)
	case client.EventBye:
		b.sc.st.count("bye/"+strconv.Itoa(ev.Bye.Code), 1)
		if ev.Bye.Code == protocol.CloseMoved {
			// The transport comes back at once, to the node named when
			// there is one (transport/client follows 4009).
			b.sc.nodes.moved(ev.URL)
		}
	}
	b.applyFailures()
}

// applyFailures reports the updates whose beats did not play on the
// followed view: the follower plays queued beats when the view is next
// read, so a failure shows after whatever read it.
func (b *bot) applyFailures() {
	for _, f := range b.fol.failures() {
		b.sc.viol.add(vBadFrame, "%s: beats %s: %v", b.name, clipBytes(f.raw, 200), f.err)
	}
}

func (b *bot) onState(ev client.Event, now time.Time) {
	st := b.sc.st
	if ev.State == client.StateOnline {
		b.sc.nodes.online(ev.URL)
		if b.slowHeld {
			b.slowArmed = true // the socket redialed for the hold is up
		}
		if !b.online {
			b.online = true
			st.online.Add(1)
			b.gen++
			if !b.offlineAt.IsZero() {
				st.latency(latResume, now.Sub(b.offlineAt))
				st.count("reconnects", 1)
			}
		}
		return
	}
	if b.online {
		b.online = false
		st.online.Add(-1)
		b.offlineAt = now
	}
	if ev.Close != 0 {
		st.count("close/"+strconv.Itoa(ev.Close), 1)
	}
	if b.slowArmed && !b.slowClosed && now.Before(b.slowWindow) {
		b.slowClosed = true
		switch {
		case ev.Close == protocol.CloseSlow:
			st.count("chaos/slow-closed-4008", 1)
		case b.slowUndropped:
			st.count("chaos/slow-closed-by-bot", 1)
		default:
			st.count("chaos/slow-closed-other", 1)
		}
	}
	if ev.State == client.StateClosed && b.ctx.Err() == nil {
		st.errors.Add(1)
		st.count("error/closed-"+strconv.Itoa(ev.Close), 1)
		b.sc.log.Warn("socket closed for good", "bot", b.name, "code", ev.Close)
	}
}

func viewOf(v any) json.RawMessage {
	raw, _ := v.(json.RawMessage)
	return raw
}

func (b *bot) onSnapshot(s *protocol.Snapshot, raw []byte, now time.Time) {
	sc := b.sc
	view := viewOf(s.View)
	// At the revision it follows, the bot's view must equal the server's.
	b.lastSnap.rev, b.lastSnap.compared = s.Rev, false
	inSync := b.revs.inSync(s)
	decoded, decodeErr := b.fol.decodeView(view) // once, for the check and to follow
	if inSync {
		b.lastSnap.compared = true
		eq, quirk, detail, err := b.fol.compareDecoded(view, decoded)
		if decodeErr != nil {
			eq, err = false, decodeErr
		}
		sc.st.count("checks/view", 1)
		switch {
		case err != nil:
			sc.viol.add(vBadFrame, "%s: snapshot view: %v", b.name, err)
		case eq:
		case quirk:
			sc.st.count("checks/view-chord-quirk", 1)
		default:
			sc.viol.add(vViewDiverged, "%s at revision %d:\n%s", b.name, s.Rev, detail)
		}
	}
	if !inSync && b.revs.seen && s.Epoch == b.revs.epoch && s.Rev > b.revs.rev {
		sc.st.count("checks/recovered-by-snapshot", 1) // a gap or an outage, caught up
	}
	if p := b.revs.snapshot(s); p != "" {
		sc.viol.add(vRevBack, "%s: %s", b.name, p)
	}
	b.seat = -1
	if s.Seat != nil {
		b.seat = *s.Seat
	}
	room := s.Room
	b.info = &room
	if b.role == roleHost {
		b.room.specSeen.Store(int64(room.Spectators))
	}
	if decodeErr != nil {
		sc.viol.add(vBadFrame, "%s: snapshot view: %v", b.name, decodeErr)
	}
	switch room.Phase {
	case protocol.PhaseRunning:
		if b.cur == nil || b.cur.match != room.Match {
			b.parkMatch()
			b.cur = &matchFrames{match: room.Match}
		}
		b.record(matchFrame{raw: raw, views: []any{decoded}})
	case protocol.PhaseEnded:
		if s.Result != nil {
			b.addResult(*s.Result)
			b.endMatch(*s.Result)
		}
		b.parkMatch()
	default:
		b.parkMatch()
	}
	b.fol.setDecoded(decoded)
	b.noMove, b.rtDirty = false, true
	for t := range b.rtAccepted {
		if t <= s.Tick {
			delete(b.rtAccepted, t) // shown by the snapshot
		}
	}
	b.completeUpTo(s.Rev, now)
	if !b.joinedOnce {
		b.joinedOnce = true
		close(b.joined)
	}
	b.everOnline = true
	if b.slowClosed && !b.slowBack {
		b.slowBack = true
		sc.st.count("chaos/slow-recovered", 1)
	}
	if b.verifyAwait {
		// The snapshot that follows a final check's resync receipt.
		b.verifyAwait = false
		if b.verifyReply != nil && b.lastSnap.compared {
			b.verifyReply <- 1
			b.verifyReply = nil
		} else if b.verifyReply != nil {
			b.verifyAgain(now)
		}
	}
}

func (b *bot) onUpdate(u *protocol.Update, raw []byte, now time.Time) {
	sc := b.sc
	if p := b.revs.update(u); p != "" {
		sc.viol.add(vRevGap, "%s: %s", b.name, p)
	}
	if u.Seat != nil {
		b.seat = *u.Seat
	}
	if u.Room != nil {
		b.info = u.Room
		if b.role == roleHost {
			b.room.specSeen.Store(int64(u.Room.Spectators))
		}
	}
	frame := matchFrame{raw: raw}
	view, beats := viewOf(u.View), viewOf(u.Beats)
	var viewErr error
	if !isNull(view) {
		var v any
		if v, viewErr = b.fol.decodeView(view); viewErr != nil {
			sc.viol.add(vBadFrame, "%s: update view: %v", b.name, viewErr)
		}
		frame.views = []any{v}
	}
	if !isNull(beats) {
		evs, err := b.fol.decodeBeats(beats)
		if err != nil {
			sc.viol.add(vBadFrame, "%s: beats %s: %v", b.name, clipBytes(beats, 200), err)
		}
		frame.beats = evs
	}
	switch {
	case u.Result != nil: // the end: the board is public from here on
		b.addResult(*u.Result)
		b.endMatch(*u.Result)
	case frame.views != nil:
		b.parkMatch()
		match := 0
		if b.info != nil {
			match = b.info.Match
		}
		b.cur = &matchFrames{match: match}
		b.record(frame)
	case b.cur != nil:
		b.record(frame)
	}
	if u.Result != nil && frame.views != nil && sc.play.game.realtime {
		b.finalView(u, view, frame.views[0], viewErr, frame.beats)
	}
	switch {
	case frame.views != nil:
		// An update's view (a match that starts, or ends) is the view
		// after it: its beats are in it already.
		b.fol.setDecoded(frame.views[0])
		clear(b.rtAccepted)
		b.rtDirty = true
	case !isNull(beats):
		b.fol.queue(frame.beats, beats) // played when the view is next read
	}
	if !isNull(beats) && u.By != nil {
		if b.role != roleSpectator && *u.By == b.seat {
			b.led.ownChange(u.To)
		}
		if b.role == roleSpectator {
			sc.st.deliveries.Add(1)
			// A slow spectator is not measured from its hold until it
			// has reconnected.
			if !b.slowHeld || b.slowBack {
				b.room.arrival(u.To, now, sc.st)
			}
		}
	}
	b.noMove = false
	b.completeUpTo(u.To, now)
}

func (b *bot) onReceipt(rc *protocol.Receipt, now time.Time) {
	sc := b.sc
	known, first := b.led.receipt(rc, sc.viol)
	if !known || !first {
		if known && !first {
			sc.st.count("receipts/duplicate-expected", 1)
		}
		return
	}
	if rc.ID == b.resyncID {
		b.resyncID = ""
		b.onResyncReceipt(rc, now)
		return
	}
	if rc.ID == b.resignID {
		b.resignID = ""
		if rc.OK {
			b.room.led.claim(rc.Rev, rc.ID, b.name, sc.viol)
		}
		if b.resignReply != nil {
			b.resignReply <- b.resignMatch
			b.resignReply = nil
		}
		return
	}
	if c, ok := b.ctl[rc.ID]; ok {
		delete(b.ctl, rc.ID)
		if rc.OK {
			b.room.led.claim(rc.Rev, rc.ID, b.name, sc.viol)
		} else {
			sc.st.count("control-refused/"+c.op+"/"+rc.Notice.Code, 1)
			b.ctlRetry = now.Add(200 * time.Millisecond)
		}
		return
	}
	m := b.inflight[rc.ID]
	if m == nil {
		return // answered after its timeout
	}
	if m.resend {
		b.resend(m)
	}
	if rc.OK {
		m.accepted, m.rev, m.effTick = true, rc.Rev, rc.Tick
		if sc.play.game.realtime {
			b.inputReceipt(m, rc)
		}
		b.room.led.claim(rc.Rev, rc.ID, b.name, sc.viol)
		b.room.sent(rc.Rev, m.sentAt, sc.st)
		if b.effectShown(m) {
			b.complete(m, now)
		}
		return
	}
	code := "?"
	if rc.Notice != nil {
		code = rc.Notice.Code
	}
	b.complete(m, now)
	switch refusalClass(sc.play.game, code) {
	case "expected":
		sc.st.refusals.Add(1)
		sc.st.count("refused/"+code, 1)
	case "temporary":
		sc.st.count("temporary/"+code, 1)
		b.nextAt = now.Add(100 * time.Millisecond) // back off a little
	default:
		sc.st.errors.Add(1)
		sc.st.count("error/"+code, 1)
		if rc.Notice != nil {
			sc.log.Debug("move refused", "bot", b.name, "code", code, "message", rc.Notice.Message, "command", string(m.action.Command))
		}
	}
}

// onResyncReceipt answers a final check's resync: the snapshot that
// follows an accepted one is compared (onSnapshot); a refused one is tried
// again.
func (b *bot) onResyncReceipt(rc *protocol.Receipt, now time.Time) {
	if b.verifyReply == nil {
		return
	}
	if rc.OK {
		b.verifyAwait = true
		return
	}
	b.verifyAgain(now)
	if rc.Notice != nil && rc.Notice.Code == protocol.CodeRateLimited {
		// A room sends at most one asked-for snapshot per 500 ms: a
		// periodic check just before this one is what refused it.
		b.verifyRetry = now.Add(550 * time.Millisecond)
	}
}

// verifyAgain retries a final check, up to five times.
func (b *bot) verifyAgain(now time.Time) {
	b.verifyTries++
	if b.verifyTries >= 5 {
		b.verifyReply <- 0
		b.verifyReply = nil
		return
	}
	b.verifyRetry = now.Add(50 * time.Millisecond)
}

// command carries out an order of the runner.
func (b *bot) command(c botCmd, now time.Time) {
	switch c.kind {
	case "verify":
		b.verifyReply, b.verifyTries, b.verifyRetry, b.verifyAwait = c.reply, 0, now, false
	case "resign":
		b.resignWait = c.reply
		b.tryResign()
	}
}

// tryResign resigns the running match the runner asked it to: at once when
// the socket is online, else once it is back (act calls it again; a socket
// the chaos dropped just before is back within a couple of seconds). The
// reply is 0 when there is no running match to resign.
func (b *bot) tryResign() {
	if b.stopped || b.info == nil || b.info.Phase != protocol.PhaseRunning || b.role != roleHost {
		b.resignWait <- 0
		b.resignWait = nil
		return
	}
	if !b.online {
		return
	}
	id, ok := b.send(protocol.Action{Type: protocol.TypeResign}, kindResign)
	if !ok {
		return
	}
	b.resignID, b.resignReply, b.resignMatch = id, b.resignWait, b.info.Match
	b.resignWait = nil
}

// send sends an action and records it in the ledger. It fails when the
// socket is not online (the action was not sent).
func (b *bot) send(a protocol.Action, kind string) (string, bool) {
	if a.ID == "" {
		a.ID = ids.Action()
	}
	_, err := b.tr.Send(b.ctx, a)
	switch err {
	case nil:
	case client.ErrOffline, client.ErrStopped:
		b.sc.st.count("skipped/offline", 1)
		return "", false
	default:
		// The write failed: the transport keeps the action and resends it
		// with its id once it is back.
		b.sc.st.count("send/write-failed", 1)
	}
	b.led.sent(a.ID, kind)
	return a.ID, true
}

func (b *bot) resync(now time.Time) {
	if b.resyncID != "" {
		return
	}
	if id, ok := b.send(protocol.Action{Type: protocol.TypeResync}, kindResync); ok {
		b.resyncID = id
	}
}

// act does whatever is due and returns when it next needs waking (zero:
// only for an event).
func (b *bot) act(now time.Time) time.Time {
	var wake time.Time
	at := func(t time.Time) {
		if !t.IsZero() && (wake.IsZero() || t.Before(wake)) {
			wake = t
		}
	}
	if b.resignWait != nil {
		b.tryResign()
	}
	if b.stopped || !b.online {
		if b.verifyReply != nil && b.stopped {
			b.verifyReply <- 0
			b.verifyReply = nil
		}
		return wake
	}
	cfg := &b.sc.cfg
	if b.verifyReply != nil && b.resyncID == "" && !b.verifyAwait {
		if !now.Before(b.verifyRetry) {
			b.resync(now)
			b.verifyRetry = now.Add(100 * time.Millisecond)
		}
		at(b.verifyRetry)
	}
	if b.playing && cfg.CheckEvery > 0 {
		if b.checkAt.IsZero() {
			b.checkAt = now.Add(cfg.CheckEvery/2 + time.Duration(b.rng.Int64N(int64(cfg.CheckEvery))))
		}
		if !now.Before(b.checkAt) {
			b.resync(now)
			b.checkAt = now.Add(cfg.CheckEvery)
		}
		at(b.checkAt)
	}
	for id, c := range b.ctl {
		if now.Sub(c.at) > cfg.MoveTimeout {
			delete(b.ctl, id)
			b.sc.st.count("timeouts/control", 1)
		} else {
			at(c.at.Add(cfg.MoveTimeout))
		}
	}
	if b.role == roleSpectator {
		return wake
	}
	at(b.duties(now))
	at(b.moves(now))
	return wake
}

func (b *bot) String() string { return fmt.Sprintf("%s(%s)", b.name, b.role) }
