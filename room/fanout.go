package room

import (
	"slices"
	"time"

	"github.com/roomd/roomd/protocol"
)

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
	return encodeMsg(s)
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
	frame := encodeMsg(protocol.Presence{Type: protocol.TypePresence, Connected: connected, Spectators: spectators,
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

// encodeUpdate and encodeReceipt are the hand-written encoders of the hot
// messages; a failure (a game's view that does not encode) becomes a notice
// like encodeMsg's.
func encodeUpdate(u *protocol.Update, beats []byte) []byte {
	b, err := protocol.AppendUpdate(nil, u, beats)
	if err != nil {
		return encodeMsg(protocol.NoticeMessage{Type: protocol.TypeNotice, Code: "internal", Message: "roomd could not encode an update: " + err.Error()})
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
		b, _ = protocol.Encode(protocol.NoticeMessage{Type: protocol.TypeNotice, Code: "internal", Message: "roomd could not encode a message: " + err.Error()})
	}
	return b
}
