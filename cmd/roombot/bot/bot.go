package bot

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/roomd/roomd/internal/finetimer"
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
	stall         stallState  // the stall chaos of the running match (stall.go)
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

func (b *bot) String() string { return fmt.Sprintf("%s(%s)", b.name, b.role) }
