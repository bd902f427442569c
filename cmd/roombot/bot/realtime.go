package bot

import (
	"bytes"
	"encoding/json"
	"time"

	"github.com/roomd/roomd/protocol"
)

// A bot's part in a real-time game's match (PROTOCOL.md §2.7): it follows
// the ticks, steers on them, and checks what the protocol promises about
// them. The transport (client.Tracker) already drops a tick that does not
// follow and asks for a snapshot; the bot checks the ticks it is handed
// again, and reports the transport's own resyncs at a gap (see bot.handle).

// onTick follows one tick: its beats are applied to the followed view once,
// in order (the events channel keeps the server's order), after they are
// checked for what a client may not see. Tick frames are too many to keep
// for the match's seed check: a "seed" key is looked for at once, and only
// the frame's runs of hex digits are kept (see bot.record).
func (b *bot) onTick(tk *protocol.Tick, raw []byte, now time.Time) {
	sc := b.sc
	sc.st.ticks.Add(1)
	if b.role == roleHost {
		b.room.hostFrames.Add(1)
	}
	if p := b.revs.tickMsg(tk); p != "" {
		sc.viol.add(vTickGap, "%s: %s", b.name, p)
	}
	var evs any
	if beats := viewOf(tk.Beats); !isNull(beats) {
		var err error
		if evs, err = b.fol.decodeBeats(beats); err != nil {
			sc.viol.add(vBadFrame, "%s: tick %d beats %s: %v", b.name, tk.Tick, clipBytes(beats, 200), err)
		}
	}
	g := sc.play.game
	seat := b.seat
	if b.role == roleSpectator {
		seat = -1
	}
	if g.checkTick != nil {
		for _, f := range g.checkTick(evs, seat) {
			sc.viol.add(f.kind, "%s (%s, room %s) at tick %d: %s", b.name, b.role, b.room.code, tk.Tick, f.detail)
		}
	}
	sc.st.rtLeakFrames.Add(1)
	if bytes.Contains(raw, []byte(`"seed"`)) {
		sc.viol.add(vLeakSeed, "%s: a \"seed\" key in tick %d: %s", b.name, tk.Tick, clipBytes(raw, 300))
	}
	if b.cur != nil {
		b.cur.addRuns(raw)
	}
	if g.inputsShown != nil && seat >= 0 {
		b.checkApplied(tk.Tick, g.inputsShown(evs, seat))
	}
	if evs != nil {
		if err := b.fol.applyDecoded(evs); err != nil {
			sc.viol.add(vBadFrame, "%s: tick %d beats: %v", b.name, tk.Tick, err)
		}
		b.rtDirty = true
	}
	if b.role == roleSpectator && tk.To > tk.From && (!b.slowHeld || b.slowBack) {
		// The inputs this tick covers show to the spectator now: their
		// delivery latency is from their senders' sends.
		sc.st.deliveries.Add(1)
		for rev := tk.From + 1; rev <= tk.To; rev++ {
			b.room.arrival(rev, now, sc.st)
		}
	}
	b.completeUpTo(tk.To, now)
}

// checkApplied checks that a tick shows no more of the bot's inputs than
// took effect at it, as their receipts said (the receipt of an input
// always comes before the tick it names): one more is an input applied
// twice.
func (b *bot) checkApplied(tick uint64, shown int) {
	if took := b.rtAccepted[tick]; shown > took {
		b.sc.viol.add(vAppliedTwice, "%s: tick %d shows %d inputs of seat %d; %d of its inputs took effect at it", b.name, tick, shown, b.seat, took)
	}
	for t := range b.rtAccepted {
		if t <= tick {
			delete(b.rtAccepted, t)
		}
	}
}

// inputReceipt checks an accepted input's receipt: it names the tick it
// takes effect at, later than any the bot had seen when it sent it.
func (b *bot) inputReceipt(m *move, rc *protocol.Receipt) {
	switch {
	case rc.Tick == 0:
		b.sc.viol.add(vInputTick, "%s: input %s accepted at revision %d without a tick", b.name, rc.ID, rc.Rev)
	case rc.Tick <= m.tick:
		b.sc.viol.add(vInputTick, "%s: input %s takes effect at tick %d, but tick %d had come when it was sent", b.name, rc.ID, rc.Tick, m.tick)
	}
	b.rtAccepted[rc.Tick]++
}

// finalView checks the update that ends a real-time match: the view the
// bot followed (with the update's own beats, if any) must equal the end
// view the server sends, byte for byte in the game's encoding, and the one
// every other member of the room followed. Members compare their public
// views (see publicEncoder): a match the game ended shows every member the
// same view, but one its room ended (a resignation) leaves each player its
// own snake's queued turns.
//
// raw is the end view's bytes, view as decodeView gave it and viewErr its
// error.
func (b *bot) finalView(u *protocol.Update, raw json.RawMessage, view any, viewErr error, beats any) {
	sc := b.sc
	if !b.fol.have() {
		sc.st.count("checks/final-view-not-following", 1)
		return
	}
	if beats != nil {
		if err := b.fol.applyDecoded(beats); err != nil {
			sc.viol.add(vBadFrame, "%s: end beats: %v", b.name, err)
		}
	}
	eq, _, detail, err := b.fol.compareDecoded(raw, view)
	if viewErr != nil {
		err = viewErr
	}
	switch {
	case err != nil:
		sc.viol.add(vBadFrame, "%s: end view: %v", b.name, err)
		return
	case !eq:
		sc.viol.add(vFinalView, "%s (%s, room %s): match %d ended on another view than the one it followed:\n%s", b.name, b.role, b.room.code, u.Result.Match, detail)
	}
	sc.st.count("checks/final-view", 1)
	mine := b.fol.encodePublic()
	if first, ok := b.room.led.final(u.Result.Match, b.name, mine); !ok {
		sc.viol.add(vFinalView, "room %s: match %d ended on different views for %s and %s:\n%s\n%s", b.room.code, u.Result.Match,
			first.who, b.name, clipBytes(first.view, 600), clipBytes(mine, 600))
	}
}

// realtimeMove steers a player of a real-time match: once its followed
// view changed (a tick's beats, a snapshot) or its last input was answered,
// it asks the game's AI for an input and sends it, unless one is still in
// flight — sent, and the tick it takes effect at not yet come (at most one
// input a tick, within the server's two). With --think given, two inputs
// are at least a draw of it apart; without, the tick is the pace.
func (b *bot) realtimeMove(now time.Time) time.Time {
	cfg := &b.sc.cfg
	if len(b.inflight) > 0 || !b.rtDirty {
		return time.Time{}
	}
	if cfg.ThinkSet && now.Before(b.rtNext) {
		return b.rtNext
	}
	b.rtDirty = false
	if b.role == roleHost && cfg.CrashHost {
		return time.Time{}
	}
	b.tryMove(now)
	if len(b.inflight) > 0 && cfg.ThinkSet {
		b.rtNext = now.Add(cfg.Think.draw(b.rng, -1))
	}
	return time.Time{}
}
