package room

import (
	"errors"
	"fmt"
	"time"

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
		r.send(out{to: c, frame: notice(protocol.CodeUpdateRequired,
			fmt.Sprintf("this room runs %s rules %s, the client has %s %s; reload to update", info.ID, info.RulesVersion, h.Game.ID, h.Game.RulesVersion)),
			close: protocol.CloseUpdateRequired, reason: "update required"})
		return
	}
	signedIn := st.byPlayer(h.Player) // a signed-in player gets its seat back by identity too
	switch {
	case h.Token != "" || (signedIn != nil && !h.Watch):
		p := signedIn
		if h.Token != "" {
			p = st.byToken(h.Token)
		}
		if p == nil {
			r.send(out{to: c, frame: notice(protocol.CodeBadToken, "this seat token is not one of this room's seats (it may have been removed)"),
				close: protocol.CloseBadToken, reason: "bad token"})
			return
		}
		r.arrived()
		for oc, mem := range r.members {
			if mem.player == p.ID {
				oc.Close(protocol.CloseReplaced, "replaced by a newer connection", 0)
				delete(r.members, oc)
			}
		}
		// A seated player who saw more than the room has means the store
		// lost data: move to a new epoch so it takes the snapshot instead of
		// waiting for revisions that will never come back. Only a verified
		// seat can ask, and once after the room was loaded: a lying client
		// cannot make the room move epochs at will.
		// If storing the move fails, the client is told so and closed with
		// 4000 (pending.join): it comes back later and asks again, rather
		// than sitting on a snapshot older than what it saw, which it must
		// ignore.
		moved := false
		if h.Epoch == st.Epoch && h.Rev != nil && *h.Rev > st.Rev && r.movedTo != st.Epoch {
			e := &entry{Kind: kindEpoch, Epoch: ids.New()}
			if err := r.accept(e, pending{c: c, join: true}); err == nil {
				r.log.Warn("client saw a newer revision than the store has; new epoch", "client_rev", *h.Rev, "room_rev", st.Rev)
				r.movedTo, moved = e.Epoch, true
			}
		}
		r.members[c] = &member{c: c, player: p.ID}
		delete(r.absent, p.ID)
		r.m.cfg.Metrics.observeReconnect()
		r.sendWelcome(c, st.seatOf(p.ID), "")
		r.sendSnapshot(c)
		if moved {
			r.send(out{to: c, frame: notice(protocol.CodeEpochChanged,
				fmt.Sprintf("the room came back at revision %d, before the %d you saw; showing it as it is now", r.st.Rev-1, *h.Rev)), durable: true})
		}
	case st.Access == protocol.AccessLocked && !st.admits(h.Invite) && (!h.Watch || st.WatchLocked):
		// A locked room: a seat needs the invite; watching needs it when
		// the host says so, else the client watches.
		if st.WatchLocked {
			r.send(out{to: c, frame: notice(protocol.CodeInviteRequired, "this room is locked: its invite is needed to join or watch"),
				close: protocol.CloseLocked, reason: "invite required"})
			return
		}
		if !r.watch(c) {
			return
		}
		r.send(out{to: c, frame: notice(protocol.CodeInviteRequired, "this room is locked: its invite is needed for a seat; you are watching")})
	case !h.Watch && st.Phase == phaseLobby && len(st.Players) < st.setup.Mode.MaxSeats:
		r.arrived()
		token := ids.Token()
		p := &player{ID: ids.New(), Name: cleanName(firstName(h.PlayerName, h.Name)), TokenHash: ids.HashToken(token), Player: h.Player}
		// The member joins after its join is applied: its first messages are
		// the welcome and a snapshot that includes the join, not an update.
		err := r.accept(&entry{Kind: kindJoin, By: p.ID, Players: []*player{p}}, pending{c: c, join: true})
		if err != nil {
			r.members[c] = &member{c: c}
			r.sendWelcome(c, -1, "")
			r.sendSnapshot(c)
			r.send(out{to: c, frame: noticeFrom(err)})
			return
		}
		r.members[c] = &member{c: c, player: p.ID}
		r.sendWelcome(c, r.st.seatOf(p.ID), token)
		r.sendSnapshot(c)
		if asked, ok := r.lastNameReplaced(p.ID); ok {
			r.send(out{to: c, frame: notice(protocol.CodeNameReplaced, fmt.Sprintf("%q is taken in this room; you are %q", asked, r.st.player(p.ID).Name)), durable: true})
		}
	default:
		if !r.watch(c) {
			return
		}
		if !h.Watch {
			why := "the match has started"
			if st.Phase == phaseLobby {
				why = "every seat is taken"
			}
			r.send(out{to: c, frame: notice(protocol.CodeRoomFull, why+"; you are watching")})
		}
	}
}

// watch takes c in as a spectator, unless the room has as many as it may.
func (r *Room) watch(c Client) bool {
	if spectators := r.spectators(); spectators >= r.m.cfg.MaxSpectators {
		r.send(out{to: c, frame: temporaryNotice(protocol.CodeTooMany, fmt.Sprintf("this room has its %d spectators; try again later", spectators)),
			close: protocol.CloseTryLater, reason: "spectators full"})
		return false
	}
	r.arrived()
	r.members[c] = &member{c: c}
	r.sendWelcome(c, -1, "")
	r.sendSnapshot(c)
	return true
}

// arrived notes a connection that the room takes in.
func (r *Room) arrived() {
	r.lastConn = r.now()
	r.presence = true
}

// spectators counts the connections without a seat.
func (r *Room) spectators() int {
	n := 0
	for _, mem := range r.members {
		if mem.player == "" {
			n++
		}
	}
	return n
}

// lastNameReplaced returns (and forgets) the name a join asked for, when
// the room gave the player another.
func (r *Room) lastNameReplaced(id string) (string, bool) {
	asked, ok := r.b.replaced[id]
	delete(r.b.replaced, id)
	return asked, ok
}

// httpJoin gives a seat to a client that asked over HTTP (signed in as
// player, when not "").
func (r *Room) httpJoin(name, invite, playerID string, reply chan JoinResult) {
	if !r.st.admits(invite) {
		reply <- JoinResult{Err: ErrLocked}
		return
	}
	if p := r.st.byPlayer(playerID); p != nil {
		reply <- JoinResult{Err: fmt.Errorf("%w: you hold seat %d here already; connect with your sign-in to take it back", ErrRoomFull, r.st.seatOf(p.ID))}
		return
	}
	token := ids.Token()
	p := &player{ID: ids.New(), Name: cleanName(name), TokenHash: ids.HashToken(token), Player: playerID}
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
	delete(r.b.replaced, p.ID)
	r.b.joins = append(r.b.joins, joinReply{reply: reply, res: JoinResult{Room: r.code, Token: token, Seat: r.st.seatOf(p.ID)}})
}

// batchHolds reports whether rev is one of the batch's entries, not stored
// yet.
func (r *Room) batchHolds(rev uint64) bool {
	return len(r.b.entries) > 0 && rev >= r.b.entries[0].Rev
}

// action handles one client action.
func (r *Room) action(mem *member, a *protocol.Action, at time.Time) {
	c := mem.c
	if mem.player != "" {
		if d := r.st.Dedup[mem.player]; d != nil {
			if prev, ok := d.find(a.ID); ok {
				// A resend of an action of this very batch repeats a receipt
				// that stands only once the batch is stored: it is dropped
				// with the batch's other messages if storing fails.
				r.send(out{to: c, frame: receiptAgain(a.ID, prev), durable: prev.Code == "" && r.batchHolds(prev.Rev)})
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
		if !r.resyncAllowed(mem) {
			r.send(out{to: c, frame: receiptRefused(a.ID, &protocol.Notice{Code: protocol.CodeRateLimited,
				Message: "a snapshot was sent less than half a second ago; ask again later", Temporary: true})})
			return
		}
		r.m.cfg.Metrics.observeResync()
		// The receipt first, then the snapshot it promises (PROTOCOL.md).
		r.send(out{to: c, frame: receiptOK(a.ID, r.st.Rev)})
		r.sendSnapshot(c)
		return
	case protocol.TypeReconnect:
		// The hello that opened this connection already moved the seat here;
		// the action confirms the take-back.
		if mem.player == "" {
			err = refuse(protocol.CodeWrongSeat, "a spectator has no seat to take back")
			break
		}
		r.send(out{to: c, frame: receiptOK(a.ID, r.st.Rev)})
		return
	case protocol.TypeCommand:
		if mem.player == "" {
			err = refuse(protocol.CodeWrongSeat, "spectators cannot play")
			break
		}
		if r.st.Phase == phaseRunning && a.Rev < r.st.MatchRev {
			r.stale(mem, a, fmt.Sprintf("revision %d is from before this match started at %d", a.Rev, r.st.MatchRev))
			return
		}
		if limit := r.movesCap(); r.st.sess != nil && len(r.st.sess.Log()) >= limit {
			err = refuse(protocol.CodeMatchFull, fmt.Sprintf("this match has logged its limit of %d moves; resign or start a new one", limit))
			break
		}
		e := &entry{Kind: kindCommand, By: mem.player, Aid: a.ID, Move: a.Command}
		if r.st.stepped() && r.st.Phase == phaseRunning {
			err = r.input(e, pending{c: c, at: at})
			break
		}
		err = r.accept(e, pending{c: c, at: at})
	case protocol.TypeResign:
		err = r.accept(&entry{Kind: kindResign, By: mem.player, Aid: a.ID}, pending{c: c})
	case protocol.TypeLeave:
		if mem.player == "" {
			r.send(out{to: c, frame: receiptOK(a.ID, r.st.Rev), close: protocol.CloseLeft, reason: "left"})
			delete(r.members, c)
			r.presence = true
			return
		}
		if err = r.accept(&entry{Kind: kindLeave, By: mem.player, Aid: a.ID}, pending{c: c}); err == nil {
			r.send(out{to: c, close: protocol.CloseLeft, reason: "left", durable: true, forget: true})
		}
	case protocol.TypeControl:
		err = r.control(mem, a)
	case protocol.TypeChat:
		err = r.chat(mem, a)
	case protocol.TypeReport:
		err = r.report(mem, a)
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
	if err := r.dailyControl(ctl.Op); err != nil {
		return err
	}
	switch ctl.Op {
	case protocol.ControlReady:
		e.Kind, e.Ready = kindReady, ctl.Ready
	case protocol.ControlSettings:
		if r.st.Quick {
			return refuse(protocol.CodeInvalidControl, "a quick-play room keeps the settings its players asked for")
		}
		if a.Rev < r.st.MetaRev {
			r.stale(mem, a, "the seats or settings changed since this was sent")
			return nil
		}
		setup, err := configure(r.st.game, ctl.Settings)
		if err != nil {
			return refuse(protocol.CodeInvalidSettings, err.Error())
		}
		e.Kind, e.Settings = kindSettings, setup.Settings // stored and echoed in canonical form
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
		if r.st.Quick {
			return refuse(protocol.CodeInvalidControl, "a quick-play room starts by itself once its seats are taken and connected")
		}
		if a.Rev < r.st.MetaRev {
			r.stale(mem, a, "the seats or settings changed since this was sent")
			return nil
		}
		e.Kind, e.Seed, e.RV = kindStart, r.m.cfg.Seeds(), r.st.game.Info().RulesVersion
		if r.st.Daily != nil {
			e.Seed = r.st.Daily.Seed
		}
	case protocol.ControlRematch:
		e.Kind, e.Seed, e.RV = kindRematch, r.m.cfg.Seeds(), r.st.game.Info().RulesVersion
		if len(ctl.Settings) > 0 { // the next match's settings (a puzzle's next level)
			setup, err := configure(r.st.game, ctl.Settings)
			if err != nil {
				return refuse(protocol.CodeInvalidSettings, err.Error())
			}
			e.Settings = setup.Settings
		}
	case protocol.ControlMute:
		if ctl.Seat == nil || *ctl.Seat < 0 || *ctl.Seat >= len(r.st.Players) {
			return refuse(protocol.CodeInvalidControl, "mute needs the number of an existing seat")
		}
		e.Kind, e.Target, e.Muted = kindMute, r.st.Players[*ctl.Seat].ID, ctl.Muted
	case protocol.ControlChat:
		e.Kind, e.SpectatorChat = kindChat, ctl.SpectatorChat
	case protocol.ControlAccess:
		e.Kind, e.Access, e.WatchLocked = kindAccess, ctl.Access, ctl.WatchLocked
		if ctl.Access == protocol.AccessLocked {
			e.Invite = r.st.Invite // a room locked again keeps its invite
			if e.Invite == "" {
				e.Invite = ids.Token()
			}
		}
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
		r.send(out{to: oc, frame: notice(protocol.CodeSeatRemoved, "the host removed your seat"), close: protocol.CloseLeft, reason: "seat removed", durable: true, forget: true})
	}
	return nil
}

// movesCap is how many moves a match of this room may log.
func (r *Room) movesCap() int {
	if n := r.m.cfg.MaxMatchMoves; n > 0 {
		return n
	}
	return r.st.game.Info().MovesCap()
}

// stale refuses an action seen at a revision the room cannot honour and
// sends a snapshot so the client catches up: the refusal first, then the
// snapshot that "follows" it (PROTOCOL.md §2.2).
func (r *Room) stale(mem *member, a *protocol.Action, why string) {
	r.m.cfg.Metrics.observeResync()
	msg := why + "; a snapshot follows"
	snap := r.resyncAllowed(mem)
	if !snap {
		msg = why + "; the snapshot sent moments ago is the room as it is"
	}
	if mem.player != "" {
		r.st.window(mem.player).add(dedupEntry{H: actionHash(a.ID), Code: protocol.CodeStale, Msg: msg})
	}
	r.send(out{to: mem.c, frame: receiptRefused(a.ID, &protocol.Notice{Code: protocol.CodeStale, Message: msg})})
	if snap {
		r.sendSnapshot(mem.c)
	}
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
	r.send(out{to: mem.c, frame: receiptRefused(id, rf.notice())})
}
