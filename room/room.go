package room

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"slices"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"

	"github.com/roomd/roomd/internal/ids"
	"github.com/roomd/roomd/protocol"
	"github.com/roomd/roomd/store"
)

// Client is one connection as a room sees it. The transport implements it.
// Neither method may block: Send enqueues into the connection's bounded
// outbox (a connection whose outbox overflows closes itself as slow), and
// Close sends a bye and closes from the connection's own goroutines.
type Client interface {
	ID() string
	Send(frame []byte)
	Close(code int, reason string, retryAfter time.Duration)
}

// A Flusher is a Client whose frames a room's flush queues, then flushes
// once per client: Queue queues as Send does but without waking the
// client's writer, and reports whether the frame is the first since the
// last Flush; Flush sends what was queued. Neither may block: Flush writes
// only what the socket takes at once and leaves the rest to the writer.
// FlushSoon leaves what was queued to the client's writer, woken now: a
// crowded room's spectators, so that one move is not thousands of writes
// in the room's actor — the writers (the transport's pollers) send them,
// on other cores where there are, while the actor goes on, and a
// spectator's frames that wait together leave in one write.
type Flusher interface {
	Queue(frame []byte) bool
	Flush()
	FlushSoon()
}

// crowd is the member count past which a room's spectators are flushed by
// their writers (FlushSoon) rather than by the room's actor.
const crowd = 32

// A Mover is a Client that can be told where its room went: 4009 with the
// base URL of the room's new node (empty when unknown).
type Mover interface {
	Moved(url string, retryAfter time.Duration)
}

type inputKind uint8

const (
	inHello inputKind = iota
	inAction
	inDrop
	inJoin   // a seat asked for over HTTP
	inReplay // the last finished match, asked for over HTTP
	inClose
	inShutdown
	inHandoff // drain or an operator's move: to input.next (cluster.go)
	inLost    // the lease is another node's now (cluster.go)
)

type input struct {
	kind   inputKind
	c      Client
	hello  *protocol.Hello
	act    *protocol.Action
	name   string
	invite string
	player string // the site's player id of an HTTP join (inJoin)
	reply  chan JoinResult
	match  chan protocol.Replay
	at     time.Time
	next   *store.Node // inHandoff: where the room goes
}

// JoinResult is a seat given to an HTTP join (or to a room's creator).
type JoinResult struct {
	Room  string `json:"room"`
	Token string `json:"token"`
	Seat  int    `json:"seat"`
	// Invite is a locked room's invite, for its creator to share.
	Invite string `json:"invite,omitempty"`
	Err    error  `json:"-"`
}

// member is a connection in the room: a seated player or a spectator.
type member struct {
	c      Client
	player string // "" for a spectator
	// resynced is when the member last got a snapshot it asked for (a
	// resync or a stale action): they are at most one per resyncGap.
	resynced time.Time
	// chat is the member's chat name (a spectator's) and rate (chat.go).
	chat chatter
	// shown is the last revision the member was shown, by a snapshot, an
	// update or a tick: the next update's or tick's from. It is the room's
	// revision but in a real-time match, whose inputs move the revision
	// without an update of their own (the next tick covers them).
	shown uint64
}

// resyncGap is the least time between two snapshots a member asks for: a
// snapshot is the largest frame a room makes, so a client asking for them
// in a loop would otherwise make the server hold and write them at will.
const resyncGap = 500 * time.Millisecond

// resyncAllowed reports whether mem may have a snapshot now, and notes it.
func (r *Room) resyncAllowed(mem *member) bool {
	now := r.now()
	if now.Sub(mem.resynced) < resyncGap {
		return false
	}
	mem.resynced = now
	return true
}

// out is one message waiting for the end of the batch, encoded when queued
// so that every client sees messages in the order of the changes.
type out struct {
	to       Client
	frame    []byte
	snapshot bool // frame is a snapshot: if the batch fails, a fresh one replaces it
	close    int  // a close code to send after the frame
	reason   string
	forget   bool // remove the member once this is sent
	durable  bool // shows an uncommitted change: dropped if the batch fails
	soon     bool // a crowded room's spectator: its writer sends it (FlushSoon)
}

// pending is an accepted action of the batch: if storing fails, its sender
// is told so.
type pending struct {
	c     Client
	aid   string
	join  bool
	reply chan JoinResult
	kind  string
	at    time.Time // when a command arrived, for the latency metric
}

type joinReply struct {
	reply chan JoinResult
	res   JoinResult
}

// batch is what one turn of the actor's loop gathers: the entries to store,
// the messages to send once they are stored, and what to do then. One
// reset empties it after the flush.
type batch struct {
	entries   []store.Entry          // accepted changes, appended at the end of the batch
	outs      []out                  // messages, sent in order after the append
	accepted  []pending              // the actions behind entries: told if the append fails
	published []pending              // stored actions, measured when flushed
	finished  []finished             // results for the leaderboards, recorded once stored
	joins     []joinReply            // HTTP joins, stored with the batch's entries
	joined    []joinReply            // stored joins, answered once the room's info shows them (flush)
	replays   []chan protocol.Replay // replay requests, answered from the stored state
	replaced  map[string]string
	events    []store.Event      // webhook events, stored with the entries (hooks.go)
	rated     []store.RatedMatch // rated results for the rating writer, once stored (rated.go)
}

// reset empties the batch, keeping its buffers (the large ones are let go).
func (b *batch) reset() {
	clear(b.outs)
	b.entries, b.outs, b.accepted, b.published = b.entries[:0], b.outs[:0], b.accepted[:0], b.published[:0]
	b.finished, b.joins, b.events, b.rated = b.finished[:0], b.joins[:0], b.events[:0], b.rated[:0]
	clear(b.replays)
	b.replays = b.replays[:0]
	clear(b.replaced)
	if cap(b.outs) > 1024 {
		b.outs = nil
	}
}

// durable is what the room knows of its stored form.
type durable struct {
	lease store.Lease
	base  []byte // the last stored snapshot
	// entries are the entries the store keeps (those after base, and the
	// current match's): a rollback rebuilds from base and entries.
	entries   []store.Entry
	sinceSnap int // entries stored since base
	lastSnap  time.Time
	snapTick  uint64 // a real-time match's tick at the last snapshot
}

// restored sets d to what the store holds after Create or Open.
func (d *durable) restored(lease store.Lease, rec store.Record, now time.Time) {
	d.lease, d.base, d.entries, d.lastSnap, d.sinceSnap, d.snapTick = lease, rec.Snapshot.Data, rec.Entries, now, 0, 0
	for _, e := range rec.Entries {
		if e.Rev > rec.Snapshot.Rev {
			d.sinceSnap++
		}
	}
}

// Room is one room's actor. Its exported methods only push to the mailbox.
type Room struct {
	m    *Manager
	code string
	id   string
	log  *slog.Logger
	mb   *mailbox
	done chan struct{}
	info atomic.Pointer[protocol.Room]
	stat atomic.Pointer[Stats]
	// rev is the revision of the last batch; infoStale says info and stat
	// need publishing (publishInfo): a change to anything but the game's
	// state, or a connection that came or went. A plain move only moves rev.
	rev       atomic.Uint64
	infoStale bool

	// Everything below is owned by the actor goroutine.
	st       *state
	members  map[Client]*member
	disk     durable
	b        batch
	frozen   bool // storing failed: changes are refused until it works again
	unsure   bool // an append failed without saying whether it landed
	closing  bool // closing for good (4004)
	stopping bool // server shutdown (4000)
	// handTo is the node the room is handed to when it stops (drain, a
	// move); lost says its lease was lost: it stops without writing.
	// Either way its clients hear 4009.
	handTo   *store.Node
	lost     bool
	lastConn time.Time
	presence bool // presence changed since last sent
	presAt   time.Time
	aiAt     time.Time
	aiNext   int
	// absent notes, for each human seat of the lobby with no connection,
	// since when: past Config.SeatGrace the room gives the seat up.
	absent map[string]time.Time
	// gone notes, for each seat of a rated room's running match with no
	// connection, since when (rated.go).
	gone map[string]time.Time
	// quickAt is when a quick-play room's countdown ends (zero: none
	// runs); quickHere the seats it counted as there (quick.go).
	quickAt   time.Time
	quickHere map[string]bool
	// movedTo is the epoch a client moved this room to since it was loaded:
	// while the room is still in it, no client may ask again (once is the
	// most a client may ask for). A move the store refused leaves the room
	// in its old epoch, and the client may ask again when it comes back.
	movedTo string
	// aiFailures counts, per seat, the AI's failures in a row this match.
	aiFailures map[int]int
	timer      *time.Timer
	scratch    []audienceFrame
	flushers   []flushee // the clients the flush queued frames for
	// ticks runs a real-time match (tick.go); nil for other games.
	ticks *ticker
	// chatLog is the room's recent chat, oldest first; chatRate bounds the
	// room's chat as a whole (chat.go).
	chatLog  []protocol.ChatMessage
	chatRate *rate.Limiter
}

func newRoom(m *Manager, st *state, lease store.Lease, rec store.Record) *Room {
	now := m.cfg.Now()
	r := &Room{m: m, code: st.Code, id: ids.New(), mb: newMailbox(m.cfg.MailboxSize), done: make(chan struct{}),
		st: st, members: map[Client]*member{}, lastConn: now}
	r.disk.restored(lease, rec, now)
	r.absent = map[string]time.Time{}
	r.noteAbsent(now)
	r.log = m.cfg.Logger.With("room", r.code, "room_id", r.id)
	r.publishInfo()
	return r
}

// Code returns the room code.
func (r *Room) Code() string { return r.code }

// Info returns the room's public information as of its last batch. It never
// waits on the actor.
func (r *Room) Info() protocol.Room { return *r.info.Load() }

// Done is closed when the actor has stopped.
func (r *Room) Done() <-chan struct{} { return r.done }

// Hello hands a new connection to the room.
func (r *Room) Hello(c Client, h *protocol.Hello) error {
	return r.mb.push(input{kind: inHello, c: c, hello: h, at: r.m.cfg.Now()})
}

// Act hands one action of a connection to the room.
func (r *Room) Act(c Client, a *protocol.Action) error {
	return r.mb.push(input{kind: inAction, c: c, act: a, at: r.m.cfg.Now()})
}

// Drop tells the room that a connection has gone.
func (r *Room) Drop(c Client) { _ = r.mb.push(input{kind: inDrop, c: c}) }

// Join asks for a seat for name, as POST /api/rooms/{code}/join does; a
// locked room needs its invite.
// player is the site's player id when the client signed in, else "".
func (r *Room) Join(ctx context.Context, name, invite, player string) (JoinResult, error) {
	reply := make(chan JoinResult, 1)
	if err := r.mb.push(input{kind: inJoin, name: name, invite: invite, player: player, reply: reply}); err != nil {
		return JoinResult{}, err
	}
	select {
	case res := <-reply:
		return res, res.Err
	case <-r.done:
		return JoinResult{}, ErrClosed
	case <-ctx.Done():
		return JoinResult{}, ctx.Err()
	}
}

// ErrNoReplay is returned when the room has no finished match to replay.
var ErrNoReplay = errors.New("room: no finished match")

// Replay returns the room's last finished match (until the next one
// starts), with its moves: GET /api/rooms/{code}/replay.
func (r *Room) Replay(ctx context.Context) (protocol.Replay, error) {
	reply := make(chan protocol.Replay, 1)
	if err := r.mb.push(input{kind: inReplay, match: reply}); err != nil {
		return protocol.Replay{}, err
	}
	select {
	case rp := <-reply:
		if rp.Game == "" {
			return rp, ErrNoReplay
		}
		return rp, nil
	case <-r.done:
		return protocol.Replay{}, ErrClosed
	case <-ctx.Done():
		return protocol.Replay{}, ctx.Err()
	}
}

// Close closes the room for good: clients get 4004 and the store marks it
// ended.
func (r *Room) Close() error { return r.mb.push(input{kind: inClose}) }

func (r *Room) shutdown() { _ = r.mb.push(input{kind: inShutdown}) }

func (r *Room) run() {
	defer close(r.done)
	defer r.m.forget(r)
	r.timer = time.NewTimer(time.Hour)
	defer r.timer.Stop()
	r.resumeAfterStop()
	r.pace()
	r.schedule()
	for {
		select {
		case <-r.mb.signal():
		case <-r.timer.C:
			r.onTimer()
		}
		for _, in := range r.mb.drain() {
			r.handle(in)
		}
		r.ratedTurn()
		r.quickTurn()
		r.commit()
		r.pace()
		r.flush()
		if r.closing || r.stopping {
			r.stop()
			return
		}
		r.schedule()
	}
}

func (r *Room) now() time.Time { return r.m.cfg.Now() }

func (r *Room) handle(in input) {
	mark := r.b.mark()
	defer func() {
		// A panic outside an entry (a projection for a snapshot, say):
		// the input's messages are undone and the room goes on.
		if v := recover(); v != nil && r.engineThrew("input", v, mark) && in.c != nil {
			r.send(out{to: in.c, frame: temporaryNotice(protocol.CodeEngineThrew, "the room failed to answer this; try again")})
		}
	}()
	switch in.kind {
	case inHello:
		_, was := r.members[in.c]
		r.hello(in.c, in.hello)
		if mem := r.members[in.c]; mem != nil && !was {
			if mem.player == "" {
				mem.chat.name = spectatorName(firstName(in.hello.PlayerName, in.hello.Name))
			}
			r.sendChatHistory(in.c)
		}
	case inAction:
		if mem := r.members[in.c]; mem != nil {
			r.action(mem, in.act, in.at)
		}
	case inDrop:
		if _, ok := r.members[in.c]; ok {
			delete(r.members, in.c)
			r.presence = true
			r.lastConn = r.now()
			r.noteAbsent(r.lastConn)
		}
	case inJoin:
		r.httpJoin(in.name, in.invite, in.player, in.reply)
	case inReplay:
		r.b.replays = append(r.b.replays, in.match) // answered after the batch is stored
	case inClose:
		if !r.st.Closed {
			_ = r.accept(&entry{Kind: kindClose}, pending{})
		}
		r.closing = true
	case inShutdown:
		r.stopping = true
	case inHandoff:
		r.stopping, r.handTo = true, in.next
	case inLost:
		r.stopping, r.lost = true, true
	}
}

// accept applies e as the next revision and queues its fan-out. It returns
// the refusal when the state does not allow e.
func (r *Room) accept(e *entry, p pending) (err error) {
	mark := r.b.mark()
	defer func() {
		if v := recover(); v != nil {
			r.engineThrew("entry "+e.Kind, v, mark)
			err = engineThrewNotice()
		}
	}()
	e.Rev = r.st.Rev + 1
	e.T = r.now().UnixMilli()
	var left *protocol.HookSeat
	if r.m.hooks() {
		if seat, ok := r.leaving(e); ok {
			left = &seat
		}
	}
	eff, err := r.st.apply(e)
	if err != nil {
		return err
	}
	data, err := e.encode()
	if err != nil {
		r.log.Error("encode entry", "rev", e.Rev, "err", err)
		return refuse(protocol.CodeInvalidCommand, "could not encode")
	}
	r.b.entries = append(r.b.entries, store.Entry{Rev: e.Rev, Data: data})
	for id, asked := range eff.nameReplaced {
		if r.b.replaced == nil {
			r.b.replaced = map[string]string{}
		}
		r.b.replaced[id] = asked
	}
	p.aid, p.kind = e.Aid, e.Kind
	r.b.accepted = append(r.b.accepted, p)
	if eff.input {
		// An input of a real-time match shows at its tick: the tick message
		// covers its revision. Its sender hears when it takes effect.
		if p.c != nil && e.Aid != "" {
			r.send(out{to: p.c, frame: receiptInput(e.Aid, e.Rev, e.Tick), durable: true})
		}
		return nil
	}
	r.fanout(e, eff)
	if eff.started {
		clear(r.aiFailures) // a new match: its AI seats start afresh
	}
	ranked := false
	if eff.ended {
		n := len(r.b.finished)
		r.finish()
		ranked = len(r.b.finished) > n
	}
	r.hooksFor(e, eff, left, ranked)
	if p.c != nil && e.Aid != "" {
		r.send(out{to: p.c, frame: receiptOK(e.Aid, e.Rev), durable: true})
	}
	return nil
}

// send queues a message for the end of the batch.
func (r *Room) send(o out) { r.b.outs = append(r.b.outs, o) }

// sendWelcome and sendSnapshot queue a welcome and a snapshot for c,
// encoded now from the state as it is at this point of the batch; if the
// batch holds changes not yet stored, they count as durable (dropped, and
// the snapshot redone, if storing fails).
func (r *Room) sendWelcome(c Client, seat int, token string) {
	r.send(out{to: c, frame: r.welcome(c, seat, token), durable: len(r.b.entries) > 0})
}

func (r *Room) sendSnapshot(c Client) {
	seat := -1
	if mem := r.members[c]; mem != nil {
		seat = r.st.seatOf(mem.player)
		mem.shown = r.st.Rev
	}
	r.send(out{to: c, frame: r.snapshotFrame(seat), snapshot: true, durable: len(r.b.entries) > 0})
}

// schedule arms the timer for the nearest of: an AI move, a presence
// message, the idle deadline.
func (r *Room) schedule() {
	now := r.now()
	r.noteAbsent(now)
	if r.aiAt.IsZero() && !r.frozen && (r.aiSeat() >= 0 || r.stuck()) {
		r.aiAt = now.Add(r.m.cfg.AIDelay)
	}
	next := r.idleAt()
	if at := r.tickDue(); !at.IsZero() && at.Before(next) {
		next = at
	}
	if !r.aiAt.IsZero() && r.aiAt.Before(next) {
		next = r.aiAt
	}
	if _, at, ok := r.st.clockDue(); ok && !r.frozen && time.UnixMilli(at).Before(next) {
		next = time.UnixMilli(at)
	}
	if at := r.nextRelease(); !at.IsZero() && at.Before(next) && !r.frozen {
		next = at
	}
	if at := r.ratedDue(); !at.IsZero() && at.Before(next) && !r.frozen {
		next = at
	}
	if at := r.quickDue(now); !at.IsZero() && at.Before(next) && !r.frozen {
		next = at
	}
	if r.presence {
		at := r.presAt.Add(r.m.cfg.PresenceInterval)
		if at.Before(next) {
			next = at
		}
	}
	if r.frozen {
		// Retry storage soon even if nobody acts: AI seats resume then.
		if at := now.Add(time.Second); at.Before(next) {
			next = at
		}
	}
	r.timer.Reset(max(next.Sub(now), 0))
}

// idleAt is when the room closes for want of use: IdleTimeout after the
// last change or connection, or LobbyTimeout in a lobby nobody is in.
func (r *Room) idleAt() time.Time {
	last := time.UnixMilli(r.st.Activity)
	if r.lastConn.After(last) {
		last = r.lastConn
	}
	if r.st.Phase == phaseLobby && len(r.members) == 0 {
		return last.Add(min(r.m.cfg.LobbyTimeout, r.m.cfg.IdleTimeout))
	}
	return last.Add(r.m.cfg.IdleTimeout)
}

// noteAbsent records, from now, every human seat of the lobby that has no
// connection and is not noted yet; seats that are connected or gone are
// forgotten.
func (r *Room) noteAbsent(now time.Time) {
	if r.st.Phase != phaseLobby {
		if len(r.absent) > 0 {
			clear(r.absent)
		}
		return
	}
	here := map[string]bool{}
	for _, mem := range r.members {
		here[mem.player] = true
	}
	seated := map[string]bool{}
	for _, p := range r.st.Players {
		seated[p.ID] = true
		if !p.AI && !here[p.ID] {
			if _, ok := r.absent[p.ID]; !ok {
				r.absent[p.ID] = now
			}
		}
	}
	for id := range r.absent {
		if here[id] || !seated[id] {
			delete(r.absent, id)
		}
	}
}

// nextRelease is when the first absent seat is given up (zero: none).
func (r *Room) nextRelease() time.Time {
	var next time.Time
	for _, since := range r.absent {
		if at := since.Add(r.m.cfg.SeatGrace); next.IsZero() || at.Before(next) {
			next = at
		}
	}
	return next
}

// releaseAbsent gives up the lobby seats that have had no connection for
// SeatGrace, so that nobody can hold seats they do not use.
func (r *Room) releaseAbsent(now time.Time) {
	for id, since := range r.absent {
		if now.Sub(since) < r.m.cfg.SeatGrace {
			continue
		}
		delete(r.absent, id)
		if err := r.accept(&entry{Kind: kindLeave, By: id}, pending{}); err != nil {
			r.log.Warn("give up an absent seat", "player", id, "err", err)
			continue
		}
		r.log.Info("gave up a seat with no connection", "player", id, "after", r.m.cfg.SeatGrace)
	}
}

func (r *Room) onTimer() {
	now := r.now()
	if !now.Before(r.idleAt()) {
		r.log.Info("closing idle room")
		r.handle(input{kind: inClose})
		return
	}
	r.runTicks(now)
	if !r.frozen {
		r.runClock(now)
	}
	if r.presence && !now.Before(r.presAt.Add(r.m.cfg.PresenceInterval)) {
		r.sendPresence()
	}
	if !r.aiAt.IsZero() && !now.Before(r.aiAt) {
		r.aiAt = time.Time{}
		r.playAI()
	}
	if !r.frozen {
		r.releaseAbsent(now)
	}
	if r.frozen && len(r.b.entries) == 0 {
		r.retryStore()
	}
}

// aiSeat returns a pending seat played by the AI, or -1. The AI waits for
// a human's first move of the match (state.awaitsHuman) while a human may
// move; when only AI seats may (a card duel the AI opens), it goes first.
func (r *Room) aiSeat() int {
	if r.st.Phase != phaseRunning || r.st.sess == nil || r.st.stepped() {
		return -1 // a real-time match's AI seats give inputs at its ticks (aiInputs)
	}
	pending := r.st.sess.Match().Pending()
	byAI := func(seat int) bool {
		return seat < len(r.st.Players) && (r.st.Players[seat].AI || r.st.byAI(seat))
	}
	if r.st.awaitsHuman() && slices.ContainsFunc(pending, func(seat int) bool { return !byAI(seat) }) {
		return -1
	}
	n := len(pending)
	for i := range n {
		seat := pending[(r.aiNext+i)%n]
		if byAI(seat) && !r.aiBroken(seat) {
			return seat
		}
	}
	return -1
}

func (r *Room) playAI() {
	seat := r.aiSeat()
	if seat < 0 {
		r.stallIfStuck() // the AI seats left have stopped: no one can move
		return
	}
	r.aiNext++
	move, ok, threw := r.aiMove(seat)
	if threw {
		r.aiThrew(seat)
		return
	}
	if !ok {
		return
	}
	p := r.st.Players[seat]
	if err := r.accept(&entry{Kind: kindCommand, By: p.ID, Move: move}, pending{}); err != nil {
		r.log.Warn("AI move refused", "seat", seat, "move", string(move), "err", err)
		rf, ok := asRefusal(err)
		switch {
		case ok && rf.code == protocol.CodeEngineThrew:
			r.aiThrew(seat)
		case ok && rulesRefusal(rf.code):
			r.aiFailed(seat, fmt.Sprintf("the rules refused its move %s: %s", clipMove(move), rf.msg))
		}
		return
	}
	delete(r.aiFailures, seat)
}

// aiMove asks the game's AI for seat's move; threw is true when it
// panicked (logged and counted).
func (r *Room) aiMove(seat int) (move []byte, ok, threw bool) {
	defer func() {
		if v := recover(); v != nil {
			r.log.Error("a game's AI panicked", "seat", seat, "game", r.st.Game, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
			r.m.cfg.Metrics.observePanic(r.st.Game)
			move, ok, threw = nil, false, true
		}
	}()
	move, ok = r.st.sess.AIMove(seat)
	return move, ok, false
}

func (r *Room) sendPresence() {
	r.presence = false
	r.presAt = r.now()
	frame := r.presenceFrame()
	crowded := len(r.members) > crowd
	for c, mem := range r.members {
		f, ok := c.(Flusher)
		switch {
		case !ok:
			c.Send(frame)
		case !f.Queue(frame):
		case crowded && r.st.seatOf(mem.player) < 0:
			f.FlushSoon() // as the fan-out's: the writers send it
		default:
			f.Flush()
		}
	}
}

// stop ends the actor: on shutdown it writes a final snapshot and asks every
// client to come back; on close it marks the room ended in the store and
// tells every client the room is closed.
func (r *Room) stop() {
	for _, in := range r.mb.close() {
		if in.reply != nil {
			in.reply <- JoinResult{Err: ErrClosed}
		}
		if in.match != nil {
			in.match <- protocol.Replay{}
		}
		if in.kind == inHello && in.c != nil {
			// A connection whose hello came too late is told as the
			// members are (its actions now find the mailbox closed, and
			// wait for this).
			if _, ok := r.members[in.c]; !ok {
				r.members[in.c] = &member{c: in.c}
			}
		}
	}
	code, reason := protocol.CloseRestarting, "server restarting"
	moved := r.lost || r.handTo != nil
	if r.closing {
		code, reason = protocol.CloseRoomClosed, "room closed"
		ctx, cancel := r.storeCtx()
		if err := r.m.cfg.Store.End(ctx, r.disk.lease, r.m.cfg.EndedTTL); err != nil && !errors.Is(err, store.ErrFenced) {
			r.log.Warn("mark room ended", "err", err)
		}
		cancel()
	} else if !r.frozen && !r.lost {
		r.noteStop()
		r.maybeSnapshot(true)
	}
	url := ""
	switch {
	case r.closing || r.lost:
	case r.handTo != nil:
		// After the final write: the next node loads all of it.
		r.m.release(r.code, r.handTo.ID)
		url = r.handTo.URL
	case r.m.clustered():
		r.m.release(r.code, "") // a node stopping alone: whoever comes next
	}
	// Out of the manager before anyone hears of the close: a client told
	// 4004 that asks for the room finds it gone.
	r.m.forget(r)
	for c := range r.members {
		if mv, ok := c.(Mover); ok && moved && !r.closing {
			mv.Moved(url, MovedRetry)
			continue
		}
		if moved && !r.closing {
			c.Close(protocol.CloseMoved, "room moved", MovedRetry)
			continue
		}
		c.Close(code, reason, r.m.cfg.RetryAfter)
	}
	clear(r.members)
	r.publishInfo()
}
