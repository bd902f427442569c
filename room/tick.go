package room

import (
	"fmt"
	"math"
	"time"

	"github.com/roomd/roomd/core/session"
	"github.com/roomd/roomd/protocol"
)

// tick.go runs real-time matches: a game that declares a tick rate
// (session.Info.Tick) advances on the room's own timer, one goroutine per
// room as always. Ticks are not stored: the world after tick N follows from
// the seed, the settings and the inputs with the ticks they took effect at,
// and inputs are entries like any command (group commit, append before
// receipt). What is stored besides is the end of a match (kindTick) and,
// now and then, a snapshot with the game's checkpoint.
//
// The pause rule: a running match ticks while a human player of it is
// connected — or, in a match of AI seats only, while anyone watches. With
// nobody there it pauses: no tick runs and no time passes for the match
// (the game's clock is its ticks), and it resumes when one comes back.

// maxInputsPerTick bounds the inputs of one seat that take effect at one
// tick: a player pressing two keys within a tick is a person, more is a
// flood that would fill the match's log.
const maxInputsPerTick = 2

// ticker is a running real-time match's pace: the fixed-step runner fed with
// the host's clock, and what the room needs between two ticks.
type ticker struct {
	run *session.FixedStep
	// due is when the next tick is due (meaningful while running).
	due time.Time
	// inputs counts each seat's inputs for the next tick.
	inputs []uint8
	// broken is set when the game's Step panicked: the match stops
	// ticking (its players may still resign) until the next one.
	broken bool
	beats  []byte
}

// step is the length of one tick.
func (t *ticker) step() time.Duration {
	return time.Duration(t.run.Rate().StepMs() * float64(time.Millisecond))
}

// hostMs is t in ms, for the runner.
func hostMs(t time.Time) float64 { return float64(t.UnixMicro()) / 1000 }

// pace starts, pauses or resumes the ticks of a real-time match after each
// turn of the loop: the match ticks while it runs, the room can store, and
// someone is there to play or watch (the pause rule).
func (r *Room) pace() {
	st := r.st
	if !st.stepped() || st.Phase != phaseRunning {
		r.ticks = nil
		return
	}
	if r.ticks == nil {
		r.ticks = &ticker{run: session.NewFixedStep(*st.sess.Game().Info().Tick), inputs: make([]uint8, len(st.Players))}
	}
	t := r.ticks
	want := !r.frozen && !t.broken && r.attended()
	if want == t.run.Running() {
		return
	}
	now := r.now()
	if want {
		t.run.Resume(hostMs(now))
		t.due = now.Add(t.step())
		r.log.Debug("real-time match resumed", "tick", st.sess.Tick())
	} else {
		t.run.Pause()
		r.log.Debug("real-time match paused", "tick", st.sess.Tick())
	}
	r.presence, r.infoStale = true, true
}

// attended reports whether someone is there for the match to tick: a
// connected human player, or any connection when no seat is a human's.
func (r *Room) attended() bool {
	humans := false
	for _, p := range r.st.Players {
		if !p.AI {
			humans = true
			break
		}
	}
	for _, mem := range r.members {
		if mem.player == "" {
			if !humans {
				return true
			}
			continue
		}
		if p := r.st.player(mem.player); p != nil && !p.AI {
			return true
		}
	}
	return false
}

// paused reports whether a running real-time match does not tick: as pace
// decides at the end of this turn of the loop, so that a snapshot sent to a
// player coming back does not say paused.
func (r *Room) paused() bool {
	return r.st.stepped() && r.st.Phase == phaseRunning && (r.frozen || (r.ticks != nil && r.ticks.broken) || !r.attended())
}

// tickDue is when the next tick is due, or zero when none is.
func (r *Room) tickDue() time.Time {
	if t := r.ticks; t != nil && t.run.Running() {
		return t.due
	}
	return time.Time{}
}

// runTicks runs the ticks due at now (at most the rate's catch-up bound;
// the rest of a backlog is skipped and counted), then lets the AI seats
// give their inputs for the next tick.
func (r *Room) runTicks(now time.Time) {
	t := r.ticks
	if t == nil || !t.run.Running() || r.st.Phase != phaseRunning {
		return
	}
	if r.st.sess.Status().Over {
		r.endTicks() // a world that a rebuild ran to its end (adopt)
		return
	}
	steps, skipped := t.run.Advance(hostMs(now))
	if until := t.run.Until(); !math.IsInf(until, 0) {
		t.due = now.Add(time.Duration(until * float64(time.Millisecond)))
	}
	if steps == 0 && skipped == 0 {
		return
	}
	mt := r.m.cfg.Metrics
	// The lateness of the first of the ticks due, the latest of them.
	firstDue := t.due.Add(-time.Duration(steps+skipped) * t.step())
	mt.observeTickLateness(r.st.Game, now.Sub(firstDue), skipped)
	for range steps {
		start := time.Now()
		more := r.tick()
		mt.observeTickDuration(r.st.Game, time.Since(start))
		if !more {
			break
		}
	}
	if len(r.b.entries) == 0 && !r.frozen {
		r.maybeSnapshot(false) // the match's checkpoint, now and then
	}
	r.aiInputs()
}

// tick runs one tick and shows it to every member. It reports whether the
// match goes on.
func (r *Room) tick() (more bool) {
	mark := r.b.mark()
	defer func() {
		if v := recover(); v != nil {
			t := r.ticks
			t.broken = true // before the rebuild: it must not run the tick again
			if r.engineThrew("tick", v, mark) {
				r.ticks = t
				for c := range r.members {
					r.send(out{to: c, frame: notice(protocol.CodeEngineThrew,
						"the game's code failed on a tick; the match is stopped (resign to end it), and the failure is logged")})
				}
			}
			more = false
		}
	}()
	st := r.st
	step, err := st.sess.Advance()
	if err != nil {
		r.log.Error("tick", "tick", st.sess.Tick(), "err", err)
		r.ticks.broken = true
		return false
	}
	clear(r.ticks.inputs)
	r.fanoutTick(step)
	if st.sess.Status().Over {
		r.endTicks()
		return false
	}
	return true
}

// endTicks stores the end of a real-time match that its world ended.
func (r *Room) endTicks() {
	if err := r.accept(&entry{Kind: kindTick, Tick: r.st.sess.Tick()}, pending{}); err != nil {
		r.log.Error("end a real-time match", "tick", r.st.sess.Tick(), "err", err)
	}
}

// fanoutTick queues one tick message per member, encoded once per
// audience. Its from..to covers the inputs accepted since the last update
// or tick.
func (r *Room) fanoutTick(step session.Step) {
	t := r.ticks
	frames := r.scratch[:0]
	mt := r.m.cfg.Metrics
	for c, mem := range r.members {
		tk := protocol.Tick{From: mem.shown, To: r.st.Rev, Tick: r.st.sess.Tick()}
		key := audienceKey{audience: r.audience(r.st.seatOf(mem.player)), from: mem.shown}
		var frame []byte
		for _, af := range frames {
			if af.key == key {
				frame = af.frame
				break
			}
		}
		if frame == nil {
			beats, err := step.AppendBeats(t.beats[:0], r.st.seatOf(mem.player))
			if err != nil {
				r.log.Error("encode a tick's beats", "tick", tk.Tick, "err", err)
				beats = nil
			}
			t.beats = beats
			frame = protocol.AppendTick(make([]byte, 0, len(beats)+64), &tk, beats)
			frames = append(frames, audienceFrame{key: key, frame: frame})
			mt.observeTickBytes(r.st.Game, len(frame))
		}
		r.send(out{to: c, frame: frame})
		mem.shown = r.st.Rev
	}
	mt.observeFanout(len(frames), len(r.members))
	r.scratch = frames[:0]
}

// input takes a real-time match's input (a player's or an AI seat's) for
// the next tick, within the per-tick bound of its seat.
func (r *Room) input(e *entry, p pending) error {
	seat := r.st.seatOf(e.By)
	t := r.ticks
	if t != nil && seat >= 0 {
		if seat >= len(t.inputs) {
			t.inputs = append(t.inputs, make([]uint8, seat+1-len(t.inputs))...)
		}
		if t.inputs[seat] >= maxInputsPerTick {
			return refuse(protocol.CodeRateLimited, fmt.Sprintf("at most %d inputs of a seat take effect at one tick; this one was not taken", maxInputsPerTick))
		}
	}
	e.Tick = r.st.sess.Tick() + 1
	if err := r.accept(e, p); err != nil {
		return err
	}
	if t != nil && seat >= 0 {
		t.inputs[seat]++
	}
	return nil
}

// aiInputs asks each AI seat of a real-time match for its input for the
// next tick, from its own view.
func (r *Room) aiInputs() {
	st := r.st
	if st.Phase != phaseRunning || !st.stepped() || r.frozen || len(st.sess.Log()) >= r.movesCap() {
		return
	}
	for _, seat := range st.sess.Match().Pending() {
		if seat >= len(st.Players) || !st.Players[seat].AI || r.aiBroken(seat) {
			continue
		}
		move, ok, threw := r.aiMove(seat)
		if threw {
			r.aiThrew(seat)
			continue
		}
		if !ok {
			continue
		}
		if err := r.input(&entry{Kind: kindCommand, By: st.Players[seat].ID, Move: move}, pending{}); err != nil {
			r.log.Warn("AI input refused", "seat", seat, "move", string(move), "err", err)
			if rf, ok := asRefusal(err); ok && rulesRefusal(rf.code) {
				r.aiFailed(seat, fmt.Sprintf("the rules refused its input %s: %s", clipMove(move), rf.msg))
			}
			continue
		}
		delete(r.aiFailures, seat)
	}
}

// adopt replaces the room's state with st, rebuilt from the store (a
// rollback, a reload, a panic undone). A real-time match rebuilt from its
// inputs stands at the tick of its last one: it runs again to the tick the
// room had reached (the same world, the inputs being the same), and every
// member gets a snapshot when the ticks it was shown may differ.
func (r *Room) adopt(st *state) {
	old := r.st
	r.st = st
	for _, mem := range r.members {
		// What the batch showed beyond the stored state was not sent.
		mem.shown = min(mem.shown, st.Rev)
	}
	if !st.stepped() || st.Phase != phaseRunning {
		return
	}
	if old.stepped() && old.Match == st.Match && (r.ticks == nil || !r.ticks.broken) {
		r.catchUp(st, old.sess.Tick())
	}
	if old.sess == nil || st.sess.Tick() != old.sess.Tick() {
		r.resyncAll()
	}
	// A world that ended on the way is ended by the next turn of the tick
	// loop (runTicks), with an entry stored like any other.
}

// catchUp runs st's match to tick n, or to its end. A panic of the game's
// code stops the match's ticks.
func (r *Room) catchUp(st *state, n uint64) {
	defer func() {
		if v := recover(); v != nil {
			r.log.Error("a game's code panicked running a match's ticks again", "game", st.Game, "panic", fmt.Sprint(v))
			r.m.cfg.Metrics.observePanic(st.Game)
			if r.ticks != nil {
				r.ticks.broken = true
			}
		}
	}()
	for st.sess.Tick() < n && !st.sess.Status().Over {
		if _, err := st.sess.Advance(); err != nil {
			return
		}
	}
}
