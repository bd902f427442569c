package room

import (
	"github.com/roomd/roomd/protocol"
)

// audienceKey names the viewers that share one encoding of an update: the
// same audience of the game, and the same invite (only seated players get
// a locked room's invite).
type audienceKey struct {
	audience int
	invited  bool
	from     uint64 // the revision the member was last shown
}

type audienceFrame struct {
	key   audienceKey
	frame []byte
}

// fanout queues one update per member, encoded once per audience; a member
// whose seat number the change moved gets its own, with its new seat
// (PROTOCOL.md: `seat` only when the recipient's seat number changed). A
// member whose seat is gone gets the shared one: its 4002 close follows.
func (r *Room) fanout(e *entry, eff effect) {
	if e.Kind != kindCommand || eff.meta || eff.clock || eff.started || eff.ended {
		r.infoStale = true
	}
	var info *protocol.Room
	if eff.meta || eff.clock {
		ri := r.roomInfo()
		info = &ri
	}
	var result *protocol.Result
	if eff.ended {
		result = r.st.resultWire(true, r.now().UnixMilli())
	}
	var clock *protocol.TurnClock
	if r.st.TurnClock != nil && (r.st.Phase == phaseRunning || eff.ended) {
		clock = r.st.turnClockWire(r.now().UnixMilli())
	}
	frames := r.scratch[:0]
	encodings, deliveries := 0, 0
	for c, mem := range r.members {
		seat := r.st.seatOf(mem.player)
		key := audienceKey{audience: r.audience(seat), invited: eff.invite && seat >= 0, from: mem.shown}
		moved := eff.seatMoved(mem.player, seat)
		var frame []byte
		if !moved {
			for _, af := range frames {
				if af.key == key {
					frame = af.frame
					break
				}
			}
		}
		if frame == nil {
			u := protocol.Update{Type: protocol.TypeUpdate, Epoch: r.st.Epoch, From: mem.shown, To: e.Rev,
				By: eff.bySeat, Room: info, Result: result, TurnClock: clock}
			var beats []byte
			if eff.step != nil {
				var err error
				if beats, err = eff.step.AppendBeats(nil, seat); err != nil {
					r.log.Error("encode beats", "err", err)
				}
			}
			if moved {
				u.Seat = seatPtr(seat)
			}
			if eff.started || (eff.ended && r.st.sess != nil) {
				// A match that starts needs everyone's view; one that ends
				// discloses what it hid (a race's boards, the mines): the
				// update that ends it carries each audience's whole view.
				u.View = r.st.sess.Match().View(seat)
			}
			if key.invited {
				u.Invite = r.st.Invite
			}
			frame = encodeUpdate(&u, beats)
			if moved {
				encodings++
			} else {
				frames = append(frames, audienceFrame{key: key, frame: frame})
			}
		}
		r.send(out{to: c, frame: frame, durable: true, soon: seat < 0 && len(r.members) > crowd})
		mem.shown = e.Rev
		deliveries++
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

// flushee is a client the flush queued frames for, and how they go.
type flushee struct {
	Flusher
	soon bool
}

// flush sends everything the batch queued, in order, then empties the
// batch.
func (r *Room) flush() {
	for _, reply := range r.b.replays {
		rp, _ := r.st.replay(r.now().UnixMilli())
		reply <- rp
	}
	if len(r.b.outs) == 0 && !r.presence && len(r.b.published) == 0 {
		r.b.replays = r.b.replays[:0]
		r.answerJoins()
		return
	}
	for i := range r.b.outs {
		o := &r.b.outs[i]
		if o.frame != nil {
			if f, ok := o.to.(Flusher); ok {
				if f.Queue(o.frame) {
					r.flushers = append(r.flushers, flushee{f, o.soon})
				}
			} else {
				o.to.Send(o.frame)
			}
		}
		if o.close != 0 {
			o.to.Close(o.close, o.reason, r.m.cfg.RetryAfter)
		}
		if o.forget {
			delete(r.members, o.to)
			r.presence = true
		}
	}
	for _, f := range r.flushers {
		if f.soon {
			f.FlushSoon()
		} else {
			f.Flush()
		}
	}
	clear(r.flushers)
	r.flushers = r.flushers[:0]
	if mt := r.m.cfg.Metrics; mt != nil && len(r.b.published) > 0 {
		now := r.now()
		for _, p := range r.b.published {
			mt.observeAccepted(p.kind)
			if p.kind == kindCommand {
				mt.observeCommand(r.st.Game, p.at, now)
			}
		}
	}
	r.b.reset()
	if r.infoStale || r.presence {
		r.publishInfo()
	} else {
		r.rev.Store(r.st.Rev) // a move changes no public information but the revision
	}
	r.answerJoins()
}

// answerJoins answers the HTTP joins the batch stored, once the room's
// info (GET /api/rooms/{code}) shows their seats: a client that has joined
// and then asks for the room finds its seat there.
func (r *Room) answerJoins() {
	for _, j := range r.b.joined {
		j.reply <- j.res
	}
	clear(r.b.joined)
	r.b.joined = r.b.joined[:0]
}
