package room

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"sync/atomic"
	"time"

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

type inputKind uint8

const (
	inHello inputKind = iota
	inAction
	inDrop
	inJoin // a seat asked for over HTTP
	inClose
	inShutdown
)

type input struct {
	kind  inputKind
	c     Client
	hello *protocol.Hello
	act   *protocol.Action
	name  string
	reply chan JoinResult
	at    time.Time
}

// JoinResult is a seat given to an HTTP join.
type JoinResult struct {
	Room  string `json:"room"`
	Token string `json:"token"`
	Seat  int    `json:"seat"`
	Err   error  `json:"-"`
}

// member is a connection in the room: a seated player or a spectator.
type member struct {
	c      Client
	player string // "" for a spectator
}

// out is one message waiting for the end of the batch, encoded when queued
// so that every client sees messages in the order of the changes.
type out struct {
	to       Client
	frame    []byte
	snapshot bool // frame is a snapshot: if the batch fails, a fresh one replaces it
	welcome  *protocol.Welcome
	close    int // a close code to send after the frame
	reason   string
	forget   bool // remove the member once this is sent
	durable  bool // shows an uncommitted change: dropped if the batch fails
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

	// Everything below is owned by the actor goroutine.
	st       *state
	lease    store.Lease
	base     []byte        // the last stored snapshot
	tail     []store.Entry // stored entries after base
	lastSnap time.Time
	members  map[Client]*member
	batch    []store.Entry
	outs     []out
	accepted []pending
	frozen   bool
	unsure   bool // an append failed without saying whether it landed
	closing  bool // closing for good (4004)
	stopping bool // server shutdown (4000)
	lastConn time.Time
	presence bool // presence changed since last sent
	presAt   time.Time
	aiAt     time.Time
	aiNext   int
	timer    *time.Timer
	scratch  []audienceFrame
	replaced map[string]string // player id → the name asked for, when a join changed it
	joins    []joinReply       // HTTP joins answered once stored
	// published are the batch's stored actions, measured once flushed.
	published []pending
	// finished are matches the batch ended, recorded once stored.
	finished []finished
}

type joinReply struct {
	reply chan JoinResult
	res   JoinResult
}

type audienceFrame struct {
	key   int
	frame []byte
}

func newRoom(m *Manager, st *state, lease store.Lease, base []byte, tail []store.Entry) *Room {
	r := &Room{m: m, code: st.Code, id: NewID(), mb: newMailbox(m.cfg.MailboxSize), done: make(chan struct{}),
		st: st, lease: lease, base: base, tail: tail, members: map[Client]*member{},
		lastSnap: m.cfg.Now(), lastConn: m.cfg.Now()}
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

// Join asks for a seat for name, as POST /api/rooms/{code}/join does.
func (r *Room) Join(ctx context.Context, name string) (JoinResult, error) {
	reply := make(chan JoinResult, 1)
	if err := r.mb.push(input{kind: inJoin, name: name, reply: reply}); err != nil {
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

// Close closes the room for good: clients get 4004 and the store marks it
// ended.
func (r *Room) Close() error { return r.mb.push(input{kind: inClose}) }

func (r *Room) shutdown() { _ = r.mb.push(input{kind: inShutdown}) }

func (r *Room) run() {
	defer close(r.done)
	defer r.m.forget(r)
	r.timer = time.NewTimer(time.Hour)
	defer r.timer.Stop()
	r.schedule()
	for {
		select {
		case <-r.mb.signal:
		case <-r.timer.C:
			r.onTimer()
		}
		for _, in := range r.mb.drain() {
			r.handle(in)
		}
		r.commit()
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
	switch in.kind {
	case inHello:
		r.hello(in.c, in.hello)
	case inAction:
		if mem := r.members[in.c]; mem != nil {
			r.action(mem, in.act, in.at)
		}
	case inDrop:
		if _, ok := r.members[in.c]; ok {
			delete(r.members, in.c)
			r.presence = true
			r.lastConn = r.now()
		}
	case inJoin:
		r.httpJoin(in.name, in.reply)
	case inClose:
		if !r.st.Closed {
			_ = r.accept(&entry{Kind: kindClose}, pending{})
		}
		r.closing = true
	case inShutdown:
		r.stopping = true
	}
}

// accept applies e as the next revision and queues its fan-out. It returns
// the refusal when the state does not allow e.
func (r *Room) accept(e *entry, p pending) error {
	e.Rev = r.st.Rev + 1
	e.T = r.now().UnixMilli()
	eff, err := r.st.apply(e)
	if err != nil {
		return err
	}
	data, err := e.encode()
	if err != nil {
		r.log.Error("encode entry", "rev", e.Rev, "err", err)
		return refuse(protocol.CodeInvalidCommand, "could not encode")
	}
	r.batch = append(r.batch, store.Entry{Rev: e.Rev, Data: data})
	for id, asked := range eff.nameReplaced {
		if r.replaced == nil {
			r.replaced = map[string]string{}
		}
		r.replaced[id] = asked
	}
	p.aid, p.kind = e.Aid, e.Kind
	r.accepted = append(r.accepted, p)
	r.fanout(e, eff)
	if eff.ended {
		r.finish()
	}
	if p.c != nil && e.Aid != "" {
		r.queue(out{to: p.c, frame: receiptOK(e.Aid, e.Rev), durable: true})
	}
	return nil
}

// fanout queues one update per member, encoded once per audience.
func (r *Room) fanout(e *entry, eff effect) {
	var info *protocol.Room
	if eff.meta || eff.clock {
		ri := r.roomInfo()
		info = &ri
	}
	var result *protocol.Result
	if eff.ended {
		result = r.st.Result
	}
	frames := r.scratch[:0]
	encodings, deliveries := 0, 0
	for c, mem := range r.members {
		seat := r.st.seatOf(mem.player)
		key := r.audience(seat)
		perMember := eff.seats || eff.started
		var frame []byte
		if !perMember {
			for _, af := range frames {
				if af.key == key {
					frame = af.frame
					break
				}
			}
		}
		if frame == nil {
			u := protocol.Update{Type: protocol.TypeUpdate, Epoch: r.st.Epoch, From: e.Rev - 1, To: e.Rev,
				By: eff.bySeat, Room: info, Result: result}
			var beats []byte
			if eff.step != nil {
				var err error
				if beats, err = eff.step.AppendBeats(nil, seat); err != nil {
					r.log.Error("encode beats", "err", err)
				}
			}
			if eff.seats {
				u.Seat = seatPtr(seat)
			}
			if eff.started {
				u.View = r.st.sess.Match().View(seat)
			}
			frame = encodeUpdate(&u, beats)
			if !perMember {
				frames = append(frames, audienceFrame{key: key, frame: frame})
			}
		}
		r.queue(out{to: c, frame: frame, durable: true})
		deliveries++
		if perMember {
			encodings++
		}
	}
	r.m.cfg.Metrics.observeFanout(encodings+len(frames), deliveries)
	r.scratch = frames[:0]
}

// audience is the key under which viewers share one encoding.
func (r *Room) audience(seat int) int {
	if r.st.sess == nil {
		return 0
	}
	return r.st.sess.Match().Audience(seat)
}

// queue adds a message. A snapshot or welcome is encoded now, from the state
// as it is at this point of the batch; if the batch holds changes not yet
// stored, it counts as durable (dropped, and the snapshot redone, if storing
// fails).
func (r *Room) queue(o out) {
	if o.snapshot || o.welcome != nil {
		if len(r.batch) > 0 {
			o.durable = true
		}
		var pre []byte
		if o.welcome != nil {
			pre = mustEncode(*o.welcome)
			o.welcome = nil
		}
		if o.snapshot {
			mem := r.members[o.to]
			seat := -1
			if mem != nil {
				seat = r.st.seatOf(mem.player)
			}
			snap := r.snapshotFrame(seat)
			if pre != nil {
				r.outs = append(r.outs, out{to: o.to, frame: pre, durable: o.durable})
				pre = nil
			}
			r.outs = append(r.outs, out{to: o.to, frame: snap, snapshot: true, durable: o.durable})
			o.snapshot = false
		}
		if pre != nil {
			r.outs = append(r.outs, out{to: o.to, frame: pre, durable: o.durable})
		}
		if o.frame == nil && o.close == 0 && !o.forget {
			return
		}
	}
	r.outs = append(r.outs, o)
}

// commit stores the batch's entries. On success the queued messages stand;
// on failure the room goes back to its stored state, the messages showing
// the lost changes are dropped and each sender learns storage is
// unavailable, so it may resend the same action later.
func (r *Room) commit() {
	if len(r.batch) == 0 {
		return
	}
	ctx, cancel := r.storeCtx()
	start := time.Now()
	err := r.m.cfg.Store.Append(ctx, r.lease, r.batch)
	cancel()
	r.m.cfg.Metrics.observeAppend(time.Since(start), len(r.batch), err)
	if err == nil {
		r.tail = append(r.tail, r.batch...)
		r.batch = r.batch[:0]
		r.published = append(r.published, r.accepted...)
		r.accepted = r.accepted[:0]
		r.unsure = false
		for _, f := range r.finished {
			r.m.record(f)
		}
		r.finished = r.finished[:0]
		for _, j := range r.joins {
			j.reply <- j.res
		}
		r.joins = r.joins[:0]
		if r.frozen {
			r.frozen = false
			r.log.Info("storage is back")
			r.publishInfo()
		}
		r.maybeSnapshot(false)
		return
	}
	switch {
	case errors.Is(err, store.ErrFenced):
		r.log.Error("lost the room's lease to another process; stopping", "err", err)
		r.stopping = true
		r.rollback()
	case errors.Is(err, store.ErrNotFound):
		// The store lost the room (a Redis restarted empty): the state in
		// memory is whole, so store it again under a new epoch.
		r.log.Warn("the store no longer has this room; storing it again under a new epoch", "err", err)
		r.rollback()
		r.recreate()
	case errors.Is(err, store.ErrGap):
		// The store holds entries this room does not: an earlier append
		// whose answer was lost did land. Load what the store has.
		r.log.Warn("the store is ahead of the room; reloading", "err", err)
		r.rollback()
		r.reload()
	default:
		r.log.Warn("append failed; rolling back", "entries", len(r.batch), "err", err)
		r.unsure = true
		r.rollback()
	}
}

// recreate stores the room's current state as a new room in the store, under
// a new epoch, and sends every member a snapshot of it.
func (r *Room) recreate() {
	r.st.Epoch = NewID()
	data, ok := r.encodeState()
	if !ok {
		return
	}
	ctx, cancel := r.storeCtx()
	defer cancel()
	lease, err := r.m.cfg.Store.Create(ctx, r.code, store.Snapshot{Rev: r.st.Rev, Data: data})
	if err != nil {
		r.log.Warn("store the room again", "err", err)
		return // still frozen; the next write tries again
	}
	r.lease, r.base, r.tail, r.frozen, r.unsure = lease, data, nil, false, false
	r.resyncAll()
}

// reload replaces the room's state with what the store holds.
func (r *Room) reload() {
	ctx, cancel := r.storeCtx()
	defer cancel()
	lease, rec, err := r.m.cfg.Store.Open(ctx, r.code)
	if err != nil {
		r.log.Warn("reload from the store", "err", err)
		return
	}
	entries := make([][]byte, len(rec.Entries))
	for i, e := range rec.Entries {
		entries[i] = e.Data
	}
	st, err := rebuild(r.m.cfg.Games, rec.Snapshot.Data, entries)
	if err != nil {
		r.log.Error("the stored room does not rebuild; closing it", "err", err)
		r.closing = true
		return
	}
	r.st, r.lease, r.base, r.tail, r.frozen, r.unsure = st, lease, rec.Snapshot.Data, rec.Entries, false, false
	r.resyncAll()
}

// resyncAll sends every member a snapshot of the current state, dropping any
// member whose seat no longer exists.
func (r *Room) resyncAll() {
	for c, mem := range r.members {
		if mem.player != "" && r.st.seatOf(mem.player) < 0 {
			r.queue(out{to: c, close: protocol.CloseRestarting, reason: "seat not stored", forget: true})
			continue
		}
		r.queue(out{to: c, snapshot: true})
	}
	r.publishInfo()
}

func (r *Room) rollback() {
	entries := make([][]byte, len(r.tail))
	for i, e := range r.tail {
		entries[i] = e.Data
	}
	st, err := rebuild(r.m.cfg.Games, r.base, entries)
	if err != nil {
		// The stored state itself does not rebuild: a bug, not an outage.
		r.log.Error("rollback failed; closing the room", "err", err)
		r.closing = true
		return
	}
	r.st = st
	r.frozen = true
	kept := r.outs[:0]
	var resnap []Client
	for _, o := range r.outs {
		if !o.durable {
			kept = append(kept, o)
		} else if o.snapshot {
			resnap = append(resnap, o.to)
		}
	}
	r.outs = kept
	r.batch = r.batch[:0]
	for _, c := range resnap {
		if mem := r.members[c]; mem != nil && (mem.player == "" || r.st.seatOf(mem.player) >= 0) {
			r.queue(out{to: c, snapshot: true})
		}
	}
	notice := &protocol.Notice{Code: protocol.CodeStorageUnavailable, Message: "the change could not be stored; try again shortly", Temporary: true}
	for _, p := range r.accepted {
		switch {
		case p.reply != nil:
			p.reply <- JoinResult{Err: ErrStorage}
		case p.join:
			if p.c != nil {
				delete(r.members, p.c)
				r.queue(out{to: p.c, frame: mustEncode(protocol.NoticeMessage{Type: protocol.TypeNotice, Code: notice.Code, Message: notice.Message, Temporary: true}),
					close: protocol.CloseRestarting, reason: "storage unavailable"})
			}
		case p.c != nil && p.aid != "":
			r.queue(out{to: p.c, frame: encodeReceipt(&protocol.Receipt{Type: protocol.TypeReceipt, ID: p.aid, Notice: notice})})
		}
	}
	r.batch = r.batch[:0]
	r.accepted = r.accepted[:0]
	r.joins = r.joins[:0]
	r.finished = r.finished[:0]
	clear(r.replaced)
	r.publishInfo()
}

// maybeSnapshot writes a snapshot when enough entries or time have piled up,
// or always when force is set, and drops the entries it covers.
func (r *Room) maybeSnapshot(force bool) {
	if len(r.tail) == 0 {
		return
	}
	if !force && len(r.tail) < r.m.cfg.SnapshotEvery && r.now().Sub(r.lastSnap) < r.m.cfg.SnapshotInterval {
		return
	}
	data, ok := r.encodeState()
	if !ok {
		return
	}
	ctx, cancel := r.storeCtx()
	defer cancel()
	if err := r.m.cfg.Store.WriteSnapshot(ctx, r.lease, store.Snapshot{Rev: r.st.Rev, Data: data}); err != nil {
		r.log.Warn("write snapshot", "rev", r.st.Rev, "err", err)
		return
	}
	r.base, r.tail, r.lastSnap = data, r.tail[:0:0], r.now()
}

// flush sends everything queued by the batch, in order.
func (r *Room) flush() {
	if len(r.outs) == 0 && !r.presence {
		return
	}
	for i := range r.outs {
		o := &r.outs[i]
		if o.frame != nil {
			o.to.Send(o.frame)
		}
		if o.close != 0 {
			o.to.Close(o.close, o.reason, r.m.cfg.RetryAfter)
		}
		if o.forget {
			delete(r.members, o.to)
			r.presence = true
		}
	}
	clear(r.outs)
	r.outs = r.outs[:0]
	if mt := r.m.cfg.Metrics; mt != nil && len(r.published) > 0 {
		now := r.now()
		for _, p := range r.published {
			mt.observeAccepted(p.kind)
			if p.kind == kindCommand {
				mt.observeCommand(r.st.Game, p.at, now)
			}
		}
	}
	r.published = r.published[:0]
	r.publishInfo()
}

func (r *Room) snapshotFrame(seat int) []byte {
	s := protocol.Snapshot{Type: protocol.TypeSnapshot, Epoch: r.st.Epoch, Rev: r.st.Rev, Seat: seatPtr(seat),
		Room: r.roomInfo(), Result: r.st.Result}
	if r.st.sess != nil {
		s.View = r.st.sess.Match().View(seat)
	}
	return mustEncode(s)
}

func seatPtr(seat int) *int {
	if seat < 0 {
		return nil
	}
	return &seat
}

func (r *Room) sendPresence() {
	r.presence = false
	r.presAt = r.now()
	connected, spectators := r.connected()
	frame := mustEncode(protocol.Presence{Type: protocol.TypePresence, Connected: connected, Spectators: spectators,
		Clocks: r.st.clocks(r.now().UnixMilli())})
	for c := range r.members {
		c.Send(frame)
	}
}

func (r *Room) connected() (seats []int, spectators int) {
	seats = []int{}
	for _, mem := range r.members {
		if mem.player == "" {
			spectators++
		} else if i := r.st.seatOf(mem.player); i >= 0 {
			seats = append(seats, i)
		}
	}
	slices.Sort(seats)
	return seats, spectators
}

func (r *Room) roomInfo() protocol.Room {
	st := r.st
	connected, spectators := r.connected()
	info := protocol.Room{Code: st.Code, Phase: st.Phase, Settings: st.Settings, Mode: st.setup.Mode.ID,
		MinSeats: st.setup.Mode.MinSeats, MaxSeats: st.setup.Mode.MaxSeats, AI: st.setup.Mode.AI,
		Game: protocol.GamePin{ID: st.Game, RulesVersion: st.game.Info().RulesVersion}, Connected: connected,
		Spectators: spectators, Frozen: r.frozen, Match: st.Match, Clocks: st.clocks(r.now().UnixMilli()),
		Seats: make([]protocol.SeatInfo, len(st.Players))}
	if st.Closed {
		info.Phase = "closed"
	}
	if h := st.seatOf(st.Host); h >= 0 {
		info.Host = &h
	}
	for i, p := range st.Players {
		info.Seats[i] = protocol.SeatInfo{Seat: i, Name: p.Name, Ready: p.Ready, AI: p.AI}
	}
	for _, s := range connected {
		info.Seats[s].Connected = true
	}
	return info
}

func (r *Room) publishInfo() {
	info := r.roomInfo()
	r.info.Store(&info)
	r.stat.Store(&Stats{Code: r.code, ID: r.id, Game: r.st.Game, Mode: info.Mode, Phase: info.Phase, Seats: info.Seats,
		Rev: r.st.Rev, Epoch: r.st.Epoch, Created: time.UnixMilli(r.st.Created), Spectators: info.Spectators, Frozen: r.frozen})
}

// Stats is what an operator sees of a room.
type Stats struct {
	Code       string              `json:"code"`
	ID         string              `json:"id"`
	Game       string              `json:"game"`
	Mode       string              `json:"mode"`
	Phase      string              `json:"phase"`
	Seats      []protocol.SeatInfo `json:"seats"`
	Rev        uint64              `json:"rev"`
	Epoch      string              `json:"epoch"`
	Created    time.Time           `json:"created"`
	Spectators int                 `json:"spectators"`
	Frozen     bool                `json:"frozen"`
}

// Stats returns the room's operator view as of its last batch.
func (r *Room) Stats() Stats { return *r.stat.Load() }

// schedule arms the timer for the nearest of: an AI move, a presence
// message, the idle deadline.
func (r *Room) schedule() {
	now := r.now()
	if r.aiAt.IsZero() && r.aiSeat() >= 0 && !r.frozen {
		r.aiAt = now.Add(r.m.cfg.AIDelay)
	}
	next := r.idleAt()
	if !r.aiAt.IsZero() && r.aiAt.Before(next) {
		next = r.aiAt
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

func (r *Room) idleAt() time.Time {
	last := time.UnixMilli(r.st.Activity)
	if r.lastConn.After(last) {
		last = r.lastConn
	}
	return last.Add(r.m.cfg.IdleTimeout)
}

func (r *Room) onTimer() {
	now := r.now()
	if !now.Before(r.idleAt()) {
		r.log.Info("closing idle room")
		r.handle(input{kind: inClose})
		return
	}
	if r.presence && !now.Before(r.presAt.Add(r.m.cfg.PresenceInterval)) {
		r.sendPresence()
	}
	if !r.aiAt.IsZero() && !now.Before(r.aiAt) {
		r.aiAt = time.Time{}
		r.playAI()
	}
	if r.frozen && len(r.batch) == 0 {
		ctx, cancel := r.storeCtx()
		ok := r.m.cfg.Store.Ping(ctx) == nil
		cancel()
		switch {
		case ok && r.unsure:
			r.reload() // whatever landed during the outage becomes the state
		case ok:
			r.frozen = false
			r.publishInfo()
		}
	}
}

// aiSeat returns a pending seat played by the AI, or -1.
func (r *Room) aiSeat() int {
	if r.st.Phase != protocol.PhaseRunning || r.st.sess == nil {
		return -1
	}
	pending := r.st.sess.Match().Pending()
	n := len(pending)
	for i := range n {
		seat := pending[(r.aiNext+i)%n]
		if seat < len(r.st.Players) && r.st.Players[seat].AI {
			return seat
		}
	}
	return -1
}

func (r *Room) playAI() {
	seat := r.aiSeat()
	if seat < 0 {
		return
	}
	r.aiNext++
	move, ok := r.st.sess.Match().AIMove(seat)
	if !ok {
		return
	}
	p := r.st.Players[seat]
	if err := r.accept(&entry{Kind: kindCommand, By: p.ID, Move: move}, pending{}); err != nil {
		r.log.Warn("AI move refused", "seat", seat, "move", string(move), "err", err)
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
	}
	code, reason := protocol.CloseRestarting, "server restarting"
	if r.closing {
		code, reason = protocol.CloseRoomClosed, "room closed"
		ctx, cancel := r.storeCtx()
		if err := r.m.cfg.Store.End(ctx, r.lease, r.m.cfg.EndedTTL); err != nil && !errors.Is(err, store.ErrFenced) {
			r.log.Warn("mark room ended", "err", err)
		}
		cancel()
	} else if !r.frozen {
		r.maybeSnapshot(true)
	}
	for c := range r.members {
		c.Close(code, reason, r.m.cfg.RetryAfter)
	}
	clear(r.members)
	r.publishInfo()
}

// encodeUpdate and encodeReceipt are the hand-written encoders of the hot
// messages; a failure (a game's view that does not encode) becomes a notice
// like mustEncode's.
func encodeUpdate(u *protocol.Update, beats []byte) []byte {
	b, err := protocol.AppendUpdate(nil, u, beats)
	if err != nil {
		return mustEncode(protocol.NoticeMessage{Type: protocol.TypeNotice, Code: "internal", Message: "roomd could not encode an update: " + err.Error()})
	}
	return b
}

func encodeReceipt(rc *protocol.Receipt) []byte {
	b, _ := protocol.AppendReceipt(nil, rc) // cannot fail: plain strings and numbers
	return b
}

// mustEncode encodes a message built from plain data. Failing here is a bug
// in a game's view or events: it is reported loudly (as a notice frame
// naming the problem) instead of crashing the server.
// storeCtx bounds one store call of the actor.
func (r *Room) storeCtx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), r.m.cfg.StoreTimeout)
}

// encodeState encodes the room's snapshot, logging a failure (a bug).
func (r *Room) encodeState() ([]byte, bool) {
	data, err := r.st.encode()
	if err != nil {
		r.log.Error("encode snapshot", "rev", r.st.Rev, "err", err)
		return nil, false
	}
	return data, true
}

func mustEncode(v any) []byte {
	b, err := protocol.Encode(v)
	if err != nil {
		b, _ = protocol.Encode(protocol.NoticeMessage{Type: protocol.TypeNotice, Code: "internal", Message: "roomd could not encode a message: " + err.Error()})
	}
	return b
}
