package room

import (
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/roomd/roomd/internal/ids"
	"github.com/roomd/roomd/protocol"
)

// hello seats, reseats or seats-as-spectator a new connection.
func (r *Room) hello(c Client, h *protocol.Hello) {
	st := r.st
	if st.Closed {
		c.Close(protocol.CloseRoomClosed, "room closed", 0)
		return
	}
	info := st.game.Info()
	if (h.Game.ID != "" && h.Game.ID != info.ID) || (h.Game.RulesVersion != "" && h.Game.RulesVersion != info.RulesVersion) {
		r.queue(out{to: c, frame: notice(protocol.CodeUpdateRequired,
			fmt.Sprintf("this room runs %s rules %s, the client has %s %s; reload to update", info.ID, info.RulesVersion, h.Game.ID, h.Game.RulesVersion)),
			close: protocol.CloseUpdateRequired, reason: "update required"})
		return
	}
	r.lastConn = r.now()
	r.presence = true
	// A client that saw more than the room has means the store lost data:
	// move to a new epoch so it takes the snapshot instead of waiting for
	// revisions that will never come back.
	if h.Epoch == st.Epoch && h.Rev != nil && *h.Rev > st.Rev {
		seen := *h.Rev
		if err := r.accept(&entry{Kind: kindEpoch, Epoch: ids.New()}, pending{}); err == nil {
			r.log.Warn("client saw a newer revision than the store has; new epoch", "client_rev", seen, "room_rev", st.Rev)
			r.queue(out{to: c, frame: notice(protocol.CodeEpochChanged,
				fmt.Sprintf("the room came back at revision %d, before the %d you saw; showing it as it is now", r.st.Rev, seen)), durable: true})
		}
	}
	switch {
	case h.Token != "":
		p := st.byToken(h.Token)
		if p == nil {
			r.queue(out{to: c, frame: notice(protocol.CodeBadToken, "this seat token is not one of this room's seats (it may have been removed)"),
				close: protocol.CloseLeft, reason: "bad token"})
			return
		}
		for oc, mem := range r.members {
			if mem.player == p.ID {
				oc.Close(protocol.CloseReplaced, "replaced by a newer connection", 0)
				delete(r.members, oc)
			}
		}
		r.members[c] = &member{c: c, player: p.ID}
		r.m.cfg.Metrics.observeReconnect()
		r.queue(out{to: c, welcome: r.welcome(c, st.seatOf(p.ID), ""), snapshot: true})
	case !h.Watch && st.Phase == protocol.PhaseLobby && len(st.Players) < st.setup.Mode.MaxSeats:
		token := ids.Token()
		p := &player{ID: ids.New(), Name: cleanName(h.Name), TokenHash: ids.HashToken(token)}
		// The member joins after its join is applied: its first messages are
		// the welcome and a snapshot that includes the join, not an update.
		err := r.accept(&entry{Kind: kindJoin, By: p.ID, Players: []*player{p}}, pending{c: c, join: true})
		if err != nil {
			r.members[c] = &member{c: c}
			r.queue(out{to: c, welcome: r.welcome(c, -1, ""), snapshot: true, frame: noticeFrom(err)})
			return
		}
		r.members[c] = &member{c: c, player: p.ID}
		o := out{to: c, welcome: r.welcome(c, r.st.seatOf(p.ID), token), snapshot: true, durable: true}
		if asked, ok := r.lastNameReplaced(p.ID); ok {
			o.frame = notice(protocol.CodeNameReplaced, fmt.Sprintf("%q is taken in this room; you are %q", asked, r.st.player(p.ID).Name))
		}
		r.queue(o)
	default:
		r.members[c] = &member{c: c}
		o := out{to: c, welcome: r.welcome(c, -1, ""), snapshot: true}
		if !h.Watch {
			why := "the match has started"
			if st.Phase == protocol.PhaseLobby {
				why = "every seat is taken"
			}
			o.frame = notice(protocol.CodeRoomFull, why+"; you are watching")
		}
		r.queue(o)
	}
}

func (r *Room) welcome(c Client, seat int, token string) *protocol.Welcome {
	return &protocol.Welcome{Type: protocol.TypeWelcome, Conn: c.ID(), Seat: seatPtr(seat), Token: token,
		HeartbeatMs: int(r.m.cfg.Heartbeat / time.Millisecond)}
}

// lastNameReplaced returns (and forgets) the name a join asked for, when
// the room gave the player another.
func (r *Room) lastNameReplaced(id string) (string, bool) {
	asked, ok := r.replaced[id]
	delete(r.replaced, id)
	return asked, ok
}

// httpJoin gives a seat to a client that asked over HTTP.
func (r *Room) httpJoin(name string, reply chan JoinResult) {
	token := ids.Token()
	p := &player{ID: ids.New(), Name: cleanName(name), TokenHash: ids.HashToken(token)}
	err := r.accept(&entry{Kind: kindJoin, By: p.ID, Players: []*player{p}}, pending{reply: reply})
	if err != nil {
		var rf *refusal
		if errors.As(err, &rf) && rf.code == protocol.CodeRoomFull {
			err = fmt.Errorf("%w: %s", ErrRoomFull, rf.msg)
		} else if errors.As(err, &rf) && rf.code == protocol.CodeWrongPhase {
			err = fmt.Errorf("%w: %s", ErrNotLobby, rf.msg)
		}
		reply <- JoinResult{Err: err}
		return
	}
	delete(r.replaced, p.ID)
	r.joins = append(r.joins, joinReply{reply: reply, res: JoinResult{Room: r.code, Token: token, Seat: r.st.seatOf(p.ID)}})
}

func cleanName(name string) string {
	name = strings.TrimSpace(strings.Map(func(c rune) rune {
		if c < ' ' || c == 0x7f {
			return -1
		}
		return c
	}, name))
	if !utf8.ValidString(name) {
		name = strings.ToValidUTF8(name, "")
	}
	if len(name) > 32 {
		name = name[:32]
		for !utf8.ValidString(name) {
			name = name[:len(name)-1]
		}
	}
	if name == "" {
		name = "Player"
	}
	return name
}

// action handles one client action.
func (r *Room) action(mem *member, a *protocol.Action, at time.Time) {
	c := mem.c
	if mem.player != "" {
		if d := r.st.Dedup[mem.player]; d != nil {
			if prev, ok := d.find(a.ID); ok {
				rc := protocol.Receipt{Type: protocol.TypeReceipt, ID: a.ID, OK: prev.Code == "", Rev: prev.Rev}
				if prev.Code != "" {
					rc.Notice = &protocol.Notice{Code: prev.Code, Message: prev.Msg}
				}
				r.queue(out{to: c, frame: encodeMsg(rc)})
				return
			}
		}
	}
	if a.Rev > r.st.Rev {
		r.stale(mem, a, fmt.Sprintf("revision %d is ahead of the room's %d", a.Rev, r.st.Rev))
		return
	}
	var err error
	switch a.Type {
	case protocol.TypeResync:
		r.m.cfg.Metrics.observeResync()
		r.queue(out{to: c, frame: receiptOK(a.ID, r.st.Rev), snapshot: true})
		return
	case protocol.TypeReconnect:
		// The hello that opened this connection already moved the seat here;
		// the action confirms the take-back.
		if mem.player == "" {
			err = refuse(protocol.CodeWrongSeat, "a spectator has no seat to take back")
			break
		}
		r.queue(out{to: c, frame: receiptOK(a.ID, r.st.Rev)})
		return
	case protocol.TypeCommand:
		if mem.player == "" {
			err = refuse(protocol.CodeWrongSeat, "spectators cannot play")
			break
		}
		if r.st.Phase == protocol.PhaseRunning && a.Rev < r.st.MatchRev {
			r.stale(mem, a, fmt.Sprintf("revision %d is from before this match started at %d", a.Rev, r.st.MatchRev))
			return
		}
		err = r.accept(&entry{Kind: kindCommand, By: mem.player, Aid: a.ID, Move: a.Command}, pending{c: c, at: at})
	case protocol.TypeResign:
		err = r.accept(&entry{Kind: kindResign, By: mem.player, Aid: a.ID}, pending{c: c})
	case protocol.TypeLeave:
		if mem.player == "" {
			r.queue(out{to: c, frame: receiptOK(a.ID, r.st.Rev), close: protocol.CloseLeft, reason: "left"})
			delete(r.members, c)
			r.presence = true
			return
		}
		if err = r.accept(&entry{Kind: kindLeave, By: mem.player, Aid: a.ID}, pending{c: c}); err == nil {
			r.queue(out{to: c, close: protocol.CloseLeft, reason: "left", durable: true, forget: true})
		}
	case protocol.TypeControl:
		err = r.control(mem, a)
	default:
		err = refuse(protocol.CodeInvalidMessage, "unknown action "+a.Type)
	}
	if err != nil {
		r.refused(mem, a.ID, err)
	}
}

func (r *Room) control(mem *member, a *protocol.Action) error {
	ctl := a.Control
	e := &entry{By: mem.player, Aid: a.ID}
	if mem.player == "" {
		return refuse(protocol.CodeWrongSeat, "spectators cannot control the room")
	}
	switch ctl.Op {
	case protocol.ControlReady:
		e.Kind, e.Ready = kindReady, ctl.Ready
	case protocol.ControlSettings:
		if a.Rev < r.st.MetaRev {
			r.stale(mem, a, "the seats or settings changed since this was sent")
			return nil
		}
		e.Kind, e.Settings = kindSettings, ctl.Settings
	case protocol.ControlFillWithAI:
		e.Kind = kindFill
		free := r.st.setup.Mode.MaxSeats - len(r.st.Players)
		n := ctl.Count
		if n <= 0 {
			n = max(r.st.setup.Mode.MinSeats-len(r.st.Players), 1)
		}
		n = min(n, free)
		for i := range n {
			e.Players = append(e.Players, &player{ID: ids.New(), Name: fmt.Sprintf("AI %d", len(r.st.Players)+i+1), AI: true, Ready: true})
		}
	case protocol.ControlRemoveSeat:
		if ctl.Seat == nil || *ctl.Seat < 0 || *ctl.Seat >= len(r.st.Players) {
			return refuse(protocol.CodeInvalidControl, "remove-seat needs the number of an existing seat")
		}
		e.Kind, e.Target = kindRemove, r.st.Players[*ctl.Seat].ID
	case protocol.ControlStart:
		if a.Rev < r.st.MetaRev {
			r.stale(mem, a, "the seats or settings changed since this was sent")
			return nil
		}
		e.Kind, e.Seed = kindStart, newSeed()
	case protocol.ControlRematch:
		e.Kind, e.Seed = kindRematch, newSeed()
	default:
		return refuse(protocol.CodeInvalidControl, fmt.Sprintf("unknown control %q", ctl.Op))
	}
	target := e.Target
	var removed []Client
	if e.Kind == kindRemove {
		for oc, om := range r.members {
			if om.player == target {
				removed = append(removed, oc)
			}
		}
	}
	if err := r.accept(e, pending{c: mem.c}); err != nil {
		return err
	}
	for _, oc := range removed {
		r.queue(out{to: oc, frame: notice(protocol.CodeSeatRemoved, "the host removed your seat"), close: protocol.CloseLeft, reason: "seat removed", durable: true, forget: true})
	}
	return nil
}

// stale refuses an action seen at a revision the room cannot honour and
// sends a snapshot so the client catches up.
func (r *Room) stale(mem *member, a *protocol.Action, why string) {
	r.m.cfg.Metrics.observeResync()
	msg := why + "; a snapshot follows"
	if mem.player != "" {
		r.st.window(mem.player).add(dedupEntry{H: actionHash(a.ID), Code: protocol.CodeStale, Msg: msg})
	}
	rc := protocol.Receipt{Type: protocol.TypeReceipt, ID: a.ID, Notice: &protocol.Notice{Code: protocol.CodeStale, Message: msg}}
	r.queue(out{to: mem.c, frame: encodeMsg(rc), snapshot: true})
}

// refused answers a refused action and remembers the refusal, so a resend
// gets the same receipt.
func (r *Room) refused(mem *member, id string, err error) {
	var rf *refusal
	if !errors.As(err, &rf) {
		rf = refuse(protocol.CodeInvalidCommand, err.Error())
	}
	r.m.cfg.Metrics.observeRejected(rf.code)
	if mem.player != "" {
		r.st.window(mem.player).add(dedupEntry{H: actionHash(id), Code: rf.code, Msg: rf.msg})
	}
	r.queue(out{to: mem.c, frame: encodeReceipt(&protocol.Receipt{Type: protocol.TypeReceipt, ID: id, Notice: rf.notice()})})
}

func receiptOK(id string, rev uint64) []byte {
	return encodeReceipt(&protocol.Receipt{Type: protocol.TypeReceipt, ID: id, OK: true, Rev: rev})
}

func notice(code, msg string) []byte {
	return encodeMsg(protocol.NoticeMessage{Type: protocol.TypeNotice, Code: code, Message: msg})
}

func noticeFrom(err error) []byte {
	var rf *refusal
	if errors.As(err, &rf) {
		return notice(rf.code, rf.msg)
	}
	return notice(protocol.CodeInvalidMessage, err.Error())
}

func (s *state) byToken(token string) *player {
	var found *player
	for _, p := range s.Players {
		if ids.TokenMatches(token, p.TokenHash) && found == nil {
			found = p
		}
	}
	return found
}
