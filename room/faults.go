package room

import (
	"fmt"
	"runtime/debug"
	"slices"

	"github.com/roomd/roomd/protocol"
	"github.com/roomd/roomd/store"
)

// A game's code — its rules, projections, AI — runs inside the room's
// actor. A panic there must cost one step, not the process: the room
// recovers it, undoes what the step queued, rebuilds its state from what is
// stored plus the batch's earlier entries (the game may have left its state
// half changed), answers the step's sender engine-threw, logs the panic
// with its stack and counts it. Seed 001 calls this EngineThrew.

// batchMark is where the batch stood before a step.
type batchMark struct{ entries, outs, accepted, finished, joins, events int }

func (b *batch) mark() batchMark {
	return batchMark{len(b.entries), len(b.outs), len(b.accepted), len(b.finished), len(b.joins), len(b.events)}
}

// undo drops what the batch gained since m.
func (b *batch) undo(m batchMark) {
	clear(b.outs[m.outs:])
	b.entries, b.outs, b.accepted = b.entries[:m.entries], b.outs[:m.outs], b.accepted[:m.accepted]
	b.finished, b.joins, b.events = b.finished[:m.finished], b.joins[:m.joins], b.events[:m.events]
}

// engineThrew handles a panic v of a step (what names it): the step is
// undone and the state rebuilt without it. It reports whether the room can
// go on (false: it closes, its stored state does not rebuild).
func (r *Room) engineThrew(what string, v any, m batchMark) bool {
	r.log.Error("a game's code panicked; the step is undone", "step", what, "game", r.st.Game,
		"panic", fmt.Sprint(v), "stack", string(debug.Stack()))
	r.m.cfg.Metrics.observePanic(r.st.Game)
	r.b.undo(m)
	entries := append(slices.Clone(r.disk.entries), r.b.entries...)
	st, err := safeRebuild(r, entries)
	if err != nil {
		r.log.Error("after a panic the room does not rebuild; closing it", "err", err)
		r.closing = true
		return false
	}
	r.adopt(st)
	return true
}

// safeRebuild rebuilds the room from its last snapshot and entries,
// turning a panic of the game's code into an error.
func safeRebuild(r *Room, entries []store.Entry) (st *state, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("the game's code panicked while rebuilding: %v", v)
		}
	}()
	return rebuild(r.m.cfg.Games, r.disk.base, entries)
}

// engineThrewNotice is the refusal of a step the game's code failed on.
func engineThrewNotice() *refusal {
	return refuse(protocol.CodeEngineThrew, "the game's code failed on this action; nothing changed, and the failure is logged")
}

// maxAIFailures is how many times in a row an AI seat may fail — its code
// panics, or the rules refuse the move it proposes — before the room stops
// asking it for moves (until the next match).
const maxAIFailures = 3

// aiThrew counts a panic of seat's AI (aiFailed).
func (r *Room) aiThrew(seat int) { r.aiFailed(seat, "its code failed") }

// aiFailed counts a failure of seat's AI, why it failed in words; at
// maxAIFailures in a row it stops the seat's AI for the match and tells
// everyone. A command-driven match whose seats are all the AI's, waiting on
// a stopped one, cannot go on: it ends "stalled" (stallIfStuck).
func (r *Room) aiFailed(seat int, why string) {
	if r.aiFailures == nil {
		r.aiFailures = map[int]int{}
	}
	r.aiFailures[seat]++
	if r.aiFailures[seat] != maxAIFailures {
		return
	}
	r.log.Error("an AI seat keeps failing; it will not move again this match", "seat", seat, "why", why)
	r.m.cfg.Metrics.observeAIStopped(r.st.Game)
	frame := notice(protocol.CodeEngineThrew, fmt.Sprintf("the AI of seat %d failed %d times in a row (%s) and will not move again this match; resign or start a new one", seat, maxAIFailures, why))
	for c := range r.members {
		r.send(out{to: c, frame: frame})
	}
	r.stallIfStuck()
}

// stallIfStuck ends a match that no one can move on (stuck) "stalled",
// with no winner.
func (r *Room) stallIfStuck() {
	if !r.stuck() {
		return
	}
	if err := r.accept(&entry{Kind: kindStall}, pending{}); err != nil {
		r.log.Warn("end a stalled match", "err", err)
	}
}

// stuck reports whether the running command-driven match can go on no
// more: every seat is the AI's, and a seat it waits on has a stopped AI.
func (r *Room) stuck() bool {
	st := r.st
	if len(r.aiFailures) == 0 || st.Phase != phaseRunning || st.sess == nil || st.stepped() {
		return false
	}
	for _, p := range st.Players {
		if !p.AI && !p.Gone {
			return false // a human may still resign, or the host start anew
		}
	}
	for _, seat := range st.sess.Match().Pending() {
		if r.aiBroken(seat) {
			return true
		}
	}
	return false
}

// aiBroken reports whether seat's AI has failed too often this match.
func (r *Room) aiBroken(seat int) bool { return r.aiFailures[seat] >= maxAIFailures }
