package room

import (
	"encoding/json"
	"slices"
	"time"

	"github.com/roomd/roomd/protocol"
)

// wire.go is the one place where room state becomes protocol messages: the
// room's own types (state, matchResult, clock) are mapped to the wire's here
// and nowhere else.

func (r *Room) roomInfo() protocol.Room {
	st := r.st
	connected, spectators := r.connected()
	info := protocol.Room{Code: st.Code, Phase: st.Phase, Settings: st.Settings, Mode: st.setup.Mode.ID,
		MinSeats: st.setup.Mode.MinSeats, MaxSeats: st.setup.Mode.MaxSeats, AI: st.setup.Mode.AI,
		Game: protocol.GamePin{ID: st.Game, RulesVersion: st.game.Info().RulesVersion}, Connected: connected,
		Spectators: spectators, Frozen: r.frozen, Match: st.Match, Clocks: clocksWire(st.clock(r.now().UnixMilli())),
		Seats: make([]protocol.SeatInfo, len(st.Players)), Access: st.access(), WatchLocked: st.WatchLocked, SpectatorChat: st.SpectatorChat}
	if st.Closed {
		info.Phase = "closed"
	}
	if st.sess != nil {
		info.Commitment = st.sess.Seed().Commitment()
	}
	if st.Daily != nil {
		info.Daily = st.Daily.Day
	}
	info.Rated, info.Quick = st.Rated != nil, st.Quick
	info.StartsAt = r.startsAt()
	if rate := st.game.Info().Tick; rate != nil {
		info.Hz, info.Paused = rate.Hz, r.paused()
	}
	if h := st.seatOf(st.Host); h >= 0 {
		info.Host = &h
	}
	info.TurnClock = st.turnClockWire(info.Clocks.Now)
	for i, p := range st.Players {
		info.Seats[i] = protocol.SeatInfo{Seat: i, Name: p.Name, Ready: p.Ready, AI: p.AI, Muted: p.Muted, Player: p.Player}
	}
	for _, s := range connected {
		info.Seats[s].Connected = true
	}
	return info
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

func clocksWire(c clock) protocol.Clocks {
	return protocol.Clocks{Now: c.now, ElapsedMs: c.elapsed, Running: c.running, StartedAt: c.startedAt}
}

// resultWire is the last match's result as clients get it at host time now
// (ms); withLog adds the match's moves (the update that ends the match
// does, snapshots do not: a finished match's log is fetched once, not
// resent with every snapshot). A daily match's secret stays out until its
// day ends.
func (st *state) resultWire(withLog bool, now int64) *protocol.Result {
	res := st.Result
	if res == nil {
		return nil
	}
	out := &protocol.Result{Match: res.Match, Status: res.Status, TimeMs: res.TimeMs, Winners: res.Winners, Config: res.Config,
		Commitment: res.Seed.Commitment(), Ticks: res.Ticks, Detail: res.Detail, TimedOut: res.TimedOut, RemainingMs: res.RemainingMs}
	if until, sealed := st.sealed(now); sealed {
		out.SealedUntil = until
	} else {
		out.Seed, _ = res.Seed.MarshalJSON()
	}
	if withLog {
		out.Log = st.logWire()
	}
	return out
}

// logWire is the match's moves as JSON.
func (st *state) logWire() json.RawMessage {
	if st.sess == nil {
		return json.RawMessage("[]")
	}
	log, err := json.Marshal(st.sess.Played())
	if err != nil {
		return json.RawMessage("[]")
	}
	return log
}

// replay is the last finished match at host time now (ms), or false when
// there is none.
func (st *state) replay(now int64) (protocol.Replay, bool) {
	res := st.resultWire(false, now)
	if res == nil || st.sess == nil {
		return protocol.Replay{}, false
	}
	info := st.game.Info()
	return protocol.Replay{Game: info.ID, RulesVersion: info.RulesVersion, Seed: res.Seed, Config: res.Config,
		Seats: st.sess.Seats(), Log: st.logWire(), Ticks: res.Ticks, Result: *res}, true
}

func (r *Room) snapshotFrame(seat int) []byte {
	s := protocol.Snapshot{Type: protocol.TypeSnapshot, Epoch: r.st.Epoch, Rev: r.st.Rev, Seat: seatPtr(seat),
		Room: r.roomInfo(), Result: r.st.resultWire(false, r.now().UnixMilli())}
	if r.st.sess != nil {
		s.View = r.st.sess.Match().View(seat)
		if r.st.stepped() {
			s.Tick = r.st.sess.Tick()
		}
	}
	if seat >= 0 {
		s.Invite = r.st.Invite
	}
	return encodeMsg(s)
}

func (r *Room) presenceFrame() []byte {
	connected, spectators := r.connected()
	return encodeMsg(protocol.Presence{Type: protocol.TypePresence, Connected: connected, Spectators: spectators,
		Clocks: clocksWire(r.st.clock(r.now().UnixMilli())), Paused: r.paused(), StartsAt: r.startsAt()})
}

func (r *Room) welcome(c Client, seat int, token string) []byte {
	return encodeMsg(protocol.Welcome{Type: protocol.TypeWelcome, Conn: c.ID(), Seat: seatPtr(seat), Token: token,
		HeartbeatMs: int(r.m.cfg.Heartbeat / time.Millisecond)})
}

func seatPtr(seat int) *int {
	if seat < 0 {
		return nil
	}
	return &seat
}

func receiptOK(id string, rev uint64) []byte {
	return encodeReceipt(&protocol.Receipt{Type: protocol.TypeReceipt, ID: id, OK: true, Rev: rev})
}

// receiptInput accepts an input of a real-time match: at rev, taking
// effect at tick.
func receiptInput(id string, rev, tick uint64) []byte {
	return encodeReceipt(&protocol.Receipt{Type: protocol.TypeReceipt, ID: id, OK: true, Rev: rev, Tick: tick})
}

// receiptRefused answers an action with a refusal.
func receiptRefused(id string, n *protocol.Notice) []byte {
	return encodeReceipt(&protocol.Receipt{Type: protocol.TypeReceipt, ID: id, Notice: n})
}

// receiptAgain is the receipt a resent action gets: the first one again.
func receiptAgain(id string, prev dedupEntry) []byte {
	rc := protocol.Receipt{Type: protocol.TypeReceipt, ID: id, OK: prev.Code == "", Rev: prev.Rev, Tick: prev.Tick}
	if prev.Code != "" {
		rc.Notice = &protocol.Notice{Code: prev.Code, Message: prev.Msg}
	}
	return encodeReceipt(&rc)
}

func notice(code, msg string) []byte {
	return encodeMsg(protocol.NoticeMessage{Type: protocol.TypeNotice, Code: code, Message: msg})
}

func temporaryNotice(code, msg string) []byte {
	return encodeMsg(protocol.NoticeMessage{Type: protocol.TypeNotice, Code: code, Message: msg, Temporary: true})
}

func noticeFrom(err error) []byte {
	if rf, ok := asRefusal(err); ok {
		return notice(rf.code, rf.msg)
	}
	return notice(protocol.CodeInvalidMessage, err.Error())
}

// encodeUpdate and encodeReceipt are the hand-written encoders of the hot
// messages; a failure (a game's view that does not encode) becomes a notice
// like encodeMsg's.
func encodeUpdate(u *protocol.Update, beats []byte) []byte {
	b, err := protocol.AppendUpdate(nil, u, beats)
	if err != nil {
		return encodeMsg(protocol.NoticeMessage{Type: protocol.TypeNotice, Code: protocol.CodeInternal, Message: "roomd could not encode an update: " + err.Error()})
	}
	return b
}

func encodeReceipt(rc *protocol.Receipt) []byte {
	return protocol.AppendReceipt(nil, rc)
}

// encodeMsg encodes a message built from plain data. Failing here is a bug
// in a game's view or events: it is reported loudly (as a notice frame
// naming the problem) instead of crashing the server.
func encodeMsg(v any) []byte {
	b, err := protocol.Encode(v)
	if err != nil {
		b, _ = protocol.Encode(protocol.NoticeMessage{Type: protocol.TypeNotice, Code: protocol.CodeInternal, Message: "roomd could not encode a message: " + err.Error()})
	}
	return b
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

// publishInfo stores the room's public information and operator view for
// readers outside the actor (HTTP, metrics, the admin page).
func (r *Room) publishInfo() {
	r.infoStale = false
	r.rev.Store(r.st.Rev)
	info := r.roomInfo()
	r.info.Store(&info)
	r.stat.Store(&Stats{Code: r.code, ID: r.id, Game: r.st.Game, Mode: info.Mode, Phase: info.Phase, Seats: info.Seats,
		Rev: r.st.Rev, Epoch: r.st.Epoch, Created: time.UnixMilli(r.st.Created), Spectators: info.Spectators, Frozen: r.frozen})
}

// Stats returns the room's operator view as of its last batch.
func (r *Room) Stats() Stats {
	s := *r.stat.Load()
	s.Rev = r.rev.Load()
	return s
}
