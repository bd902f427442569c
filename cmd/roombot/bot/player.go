package bot

import (
	"time"

	"github.com/roomd/roomd/core/session"
	"github.com/roomd/roomd/internal/ids"
	"github.com/roomd/roomd/protocol"
)

// A player's part: its moves, in the scenario's loop, and the room's chores
// (ready, fill, start, rematch).

// refusalClass sorts refusal codes: "expected" when a view that was stale
// by a few milliseconds explains it (co-op players racing for one cell, a
// move landing after the match ended or out of turn, and the game's own
// codes of moves that would change nothing), "temporary" when the server
// asks to retry, "error" otherwise.
func refusalClass(g *game, code string) string {
	switch code {
	case session.CodeGameOver, session.CodeNotYourTurn, protocol.CodeStale, protocol.CodeWrongPhase:
		return "expected"
	case protocol.CodeRateLimited, protocol.CodeStorageUnavailable:
		return "temporary"
	}
	if g.ineffective(code) {
		return "expected"
	}
	return "error"
}

// complete ends a move: its receipt, and its update when accepted, are in.
func (b *bot) complete(m *move, now time.Time) {
	delete(b.inflight, m.action.ID)
	b.rtDirty = true
	if b.waiting == m {
		b.waiting = nil
		b.nextAt = time.Time{}
	}
	st := b.sc.st
	if m.accepted {
		st.moves.Add(1)
	}
	if m.gen != b.gen {
		st.count("moves/answered-after-reconnect", 1)
		return
	}
	if m.accepted {
		st.latency(latMove, now.Sub(m.sentAt))
	} else {
		st.latency(latRefused, now.Sub(m.sentAt))
	}
}

func (b *bot) completeUpTo(rev uint64, now time.Time) {
	for _, m := range b.inflight {
		if m.accepted && m.rev <= rev && b.effectShown(m) {
			b.complete(m, now)
		}
	}
}

// effectShown reports whether an accepted move's effect has reached the
// bot: for an input of a real-time match, the tick it takes effect at (a
// snapshot between its receipt and that tick has its revision, not its
// effect), or the end of the match; for any other move, its revision.
func (b *bot) effectShown(m *move) bool {
	running := b.info != nil && b.info.Phase == protocol.PhaseRunning
	return m.rev <= b.revs.rev && (m.effTick <= b.revs.tick || !running)
}

// ctlBusy reports whether a control op is in flight.
func (b *bot) ctlBusy(op string) bool {
	for _, c := range b.ctl {
		if c.op == op {
			return true
		}
	}
	return false
}

func (b *bot) control(ctl protocol.Control, now time.Time) {
	if id, ok := b.send(protocol.Action{Type: protocol.TypeControl, Control: &ctl}, kindControl); ok {
		b.ctl[id] = ctlInFlight{op: ctl.Op, at: now}
	}
}

// duties are the room's chores: guests say they are ready; the host fills
// AI seats, starts the match when everyone is, and asks for a rematch after
// each end.
func (b *bot) duties(now time.Time) time.Time {
	if b.info == nil || now.Before(b.ctlRetry) {
		return b.ctlRetry
	}
	cfg := &b.sc.cfg
	info := b.info
	if info.Phase != protocol.PhaseEnded {
		b.endedAt = time.Time{}
	}
	switch info.Phase {
	case protocol.PhaseLobby:
		if b.role == roleGuest {
			if b.seat >= 0 && b.seat < len(info.Seats) && !info.Seats[b.seat].Ready && !b.ctlBusy(protocol.ControlReady) {
				b.control(protocol.Control{Op: protocol.ControlReady, Ready: true}, now)
			}
			return time.Time{}
		}
		humans, ai, ready := 0, 0, true
		for _, s := range info.Seats {
			if s.AI {
				ai++
				continue
			}
			humans++
			if !s.Ready && (info.Host == nil || s.Seat != *info.Host) {
				ready = false
			}
		}
		switch {
		case ai < cfg.AI && !b.ctlBusy(protocol.ControlFillWithAI):
			b.control(protocol.Control{Op: protocol.ControlFillWithAI, Count: cfg.AI - ai}, now)
		case humans >= cfg.Players && ai >= cfg.AI && ready && b.playing && !b.ctlBusy(protocol.ControlStart):
			b.control(protocol.Control{Op: protocol.ControlStart}, now)
		}
	case protocol.PhaseEnded:
		if b.role != roleHost || !b.playing {
			return time.Time{}
		}
		if b.endedAt.IsZero() {
			b.endedAt = now
		}
		due := b.endedAt.Add(cfg.RematchDelay)
		if now.Before(due) {
			return due
		}
		if !b.ctlBusy(protocol.ControlRematch) {
			b.control(protocol.Control{Op: protocol.ControlRematch}, now)
		}
	}
	return time.Time{}
}

func (b *bot) canPlay() bool {
	return b.playing && b.info != nil && b.info.Phase == protocol.PhaseRunning && b.fol.have() && b.seat >= 0
}

// moves makes the player's moves, in the scenario's loop.
func (b *bot) moves(now time.Time) time.Time {
	cfg := &b.sc.cfg
	var wake time.Time
	for id, m := range b.inflight {
		if now.Sub(m.sentAt) > cfg.MoveTimeout {
			delete(b.inflight, id)
			b.sc.st.count("timeouts/move", 1)
			b.sc.st.errors.Add(1)
			if b.waiting == m {
				b.waiting, b.nextAt = nil, time.Time{}
			}
		} else if t := m.sentAt.Add(cfg.MoveTimeout); wake.IsZero() || t.Before(wake) {
			wake = t
		}
	}
	if !b.canPlay() || b.stalling() {
		if cfg.Loop == "open" {
			b.nextAt = time.Time{}
		}
		return wake
	}
	if b.sc.play.game.realtime {
		if t := b.realtimeMove(now); !t.IsZero() && (wake.IsZero() || t.Before(wake)) {
			wake = t
		}
		return wake
	}
	if cfg.Loop == "closed" {
		if b.waiting != nil {
			return wake
		}
		if b.nextAt.IsZero() {
			if b.noMove && b.noMoveRev == b.revs.rev {
				return wake
			}
			b.nextAt = now.Add(cfg.Think.draw(b.rng, -1))
		}
		if now.Before(b.nextAt) {
			return b.nextAt
		}
		b.nextAt = time.Time{}
		b.tryMove(now)
		return wake
	}
	mean := time.Duration(float64(time.Second) / cfg.Rate)
	if b.nextAt.IsZero() {
		b.nextAt = now.Add(cfg.Think.draw(b.rng, mean))
	}
	if now.Before(b.nextAt) {
		return b.nextAt
	}
	b.nextAt = b.nextAt.Add(cfg.Think.draw(b.rng, mean))
	if b.nextAt.Before(now.Add(-time.Second)) {
		b.sc.st.count("open-loop/behind-schedule", 1)
		b.nextAt = now.Add(cfg.Think.draw(b.rng, mean))
	}
	b.tryMove(now)
	return b.nextAt
}

// tryMove chooses a move from the followed view and sends it.
func (b *bot) tryMove(now time.Time) {
	cmd, ok := b.fol.choose(b.seat)
	b.applyFailures()
	if !ok {
		b.noMove, b.noMoveRev = true, b.revs.rev
		return
	}
	for _, m := range b.inflight {
		if string(m.action.Command) == string(cmd) {
			// Open loop: the same move is still on its way; a person would
			// not click twice.
			b.sc.st.count("open-loop/skipped-own-move-in-flight", 1)
			return
		}
	}
	// The revision the move was chosen at: the bot's, which may be behind
	// the transport's (its events wait in a channel). The transport's would
	// let a move chosen on the last match's view into the next one.
	a := protocol.Action{Type: protocol.TypeCommand, ID: ids.Action(), Command: cmd, Rev: b.revs.rev}
	if _, ok := b.send(a, kindCommand); !ok {
		return
	}
	b.sc.st.sent.Add(1)
	m := &move{action: a, sentAt: now, gen: b.gen, tick: b.revs.tick}
	b.inflight[a.ID] = m
	if b.sc.cfg.Loop == "closed" {
		b.waiting = m
	}
	if r := b.sc.cfg.Chaos.Resend; r > 0 && b.chaos != nil && b.rng.Float64() < r {
		if b.rng.IntN(2) == 0 {
			b.resend(m) // right behind the original
		} else {
			m.resend = true // once the original's receipt is in
		}
	}
}

// resend sends a move again with the same id, on purpose.
func (b *bot) resend(m *move) {
	m.resend = false
	if b.chaos == nil {
		return
	}
	if err := b.chaos.Resend(b.ctx, m.action); err != nil {
		return
	}
	b.led.resent(m.action.ID)
	b.sc.st.count("chaos/resends", 1)
}
