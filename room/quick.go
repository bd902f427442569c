package room

import "time"

// quick.go: a room made by quick play (POST /api/quickplay, listing.go)
// starts its match by itself. The room's state marks it (state.Quick,
// stored); the countdown is the actor's and is not stored: a restarted
// room counts again once its players are back.
//
// The countdown starts once the mode's minimum seats are taken, every seat
// is connected (an AI seat always is) and a human is among them; it ends
// Config.QuickStart later with an ordinary start entry (By "", the seed
// from Config.Seeds), which the reducer accepts from the room itself in a
// quick-play room without the host's start or anyone's ready. More
// players may join up to the mode's maximum meanwhile: a seat taken during
// the countdown does not stop it, and the start waits for the seat's
// connection. A seat counted as there that leaves or loses its connection
// cancels the countdown; it starts again, from the whole delay, when the
// condition holds again. Clients see it as room.startsAt (host ms) in
// room information and presence messages.

// DefaultQuickStart is the countdown of a quick-play room when
// Config.QuickStart is zero.
const DefaultQuickStart = 5 * time.Second

// quickTurn runs a quick-play room's countdown after the actor's inputs:
// it starts it, cancels it, or starts the match when it is over.
func (r *Room) quickTurn() {
	st := r.st
	if !st.Quick {
		return
	}
	if st.Phase != phaseLobby || st.Closed || r.closing || r.stopping || r.frozen {
		r.setQuickAt(time.Time{})
		clear(r.quickHere)
		return
	}
	here := r.seatsHere()
	for id := range r.quickHere {
		if !here[id] && !r.quickAt.IsZero() {
			r.log.Info("quick-play countdown cancelled: a seat left or lost its connection", "player", id)
			r.setQuickAt(time.Time{})
		}
	}
	r.quickHere = here
	if !r.quickFull(here) {
		return
	}
	now := r.now()
	if r.quickAt.IsZero() {
		r.setQuickAt(now.Add(r.m.cfg.QuickStart))
		return
	}
	if now.Before(r.quickAt) {
		return
	}
	r.setQuickAt(time.Time{}) // before the entry: its update shows no countdown
	e := &entry{Kind: kindStart, Seed: r.m.cfg.Seeds(), RV: st.game.Info().RulesVersion}
	if err := r.accept(e, pending{}); err != nil {
		r.log.Warn("start the quick-play match", "err", err)
		return
	}
	r.log.Info("quick-play match started", "match", st.Match, "seats", len(st.Players))
}

// quickFull reports whether a quick-play room may start: the mode's
// minimum seats are taken, every seat is there (here) and a human is.
func (r *Room) quickFull(here map[string]bool) bool {
	st := r.st
	if len(st.Players) < st.setup.Mode.MinSeats || len(st.Players) > st.setup.Mode.MaxSeats {
		return false
	}
	human := false
	for _, p := range st.Players {
		if !here[p.ID] {
			return false
		}
		human = human || !p.AI
	}
	return human
}

// seatsHere are the seats that are there: connected, or the AI's.
func (r *Room) seatsHere() map[string]bool {
	here := make(map[string]bool, len(r.st.Players))
	for _, mem := range r.members {
		if mem.player != "" {
			here[mem.player] = true
		}
	}
	for id := range here {
		if r.st.seatOf(id) < 0 {
			delete(here, id)
		}
	}
	for _, p := range r.st.Players {
		if p.AI {
			here[p.ID] = true
		}
	}
	return here
}

// setQuickAt sets the countdown's end; a change is published (the room's
// info) and sent (a presence message).
func (r *Room) setQuickAt(at time.Time) {
	if at.Equal(r.quickAt) {
		return
	}
	r.quickAt = at
	r.presence, r.infoStale = true, true
}

// quickDue is when quickTurn has something to do by the clock (zero:
// nothing): the countdown's end, unless it is over and waits for a seat's
// connection (which wakes the actor by itself).
func (r *Room) quickDue(now time.Time) time.Time {
	if r.quickAt.IsZero() || (!now.Before(r.quickAt) && !r.quickFull(r.seatsHere())) {
		return time.Time{}
	}
	return r.quickAt
}

// startsAt is room.startsAt: the countdown's end in host ms, 0 when none
// runs.
func (r *Room) startsAt() int64 {
	if r.quickAt.IsZero() || r.st.Phase != phaseLobby || r.st.Closed {
		return 0
	}
	return r.quickAt.UnixMilli()
}
