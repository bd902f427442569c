package bot

import (
	"encoding/json"
	"strconv"
	"time"

	"github.com/roomd/roomd/protocol"
	"github.com/roomd/roomd/transport/client"
)

// A bot's reading of what the server sends: state changes, snapshots,
// updates, each checked against what the bot follows.

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
	b.watchStall(ev, now)
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
