package bot

import (
	"time"

	"github.com/roomd/roomd/internal/ids"
	"github.com/roomd/roomd/protocol"
	"github.com/roomd/roomd/transport/client"
)

// A bot's actions: what it sends, and the receipts that answer them.

func (b *bot) onReceipt(rc *protocol.Receipt, now time.Time) {
	sc := b.sc
	known, first := b.led.receipt(rc, sc.viol)
	if !known || !first {
		if known && !first {
			sc.st.count("receipts/duplicate-expected", 1)
		}
		return
	}
	if rc.ID == b.resyncID {
		b.resyncID = ""
		b.onResyncReceipt(rc, now)
		return
	}
	if rc.ID == b.resignID {
		b.resignID = ""
		if rc.OK {
			b.room.led.claim(rc.Rev, rc.ID, b.name, sc.viol)
		}
		if b.resignReply != nil {
			b.resignReply <- b.resignMatch
			b.resignReply = nil
		}
		return
	}
	if c, ok := b.ctl[rc.ID]; ok {
		delete(b.ctl, rc.ID)
		if rc.OK {
			b.room.led.claim(rc.Rev, rc.ID, b.name, sc.viol)
		} else {
			sc.st.count("control-refused/"+c.op+"/"+rc.Notice.Code, 1)
			b.ctlRetry = now.Add(200 * time.Millisecond)
		}
		return
	}
	m := b.inflight[rc.ID]
	if m == nil {
		return // answered after its timeout
	}
	if m.resend {
		b.resend(m)
	}
	if rc.OK {
		m.accepted, m.rev, m.effTick = true, rc.Rev, rc.Tick
		if sc.play.game.realtime {
			b.inputReceipt(m, rc)
		}
		b.room.led.claim(rc.Rev, rc.ID, b.name, sc.viol)
		b.room.sent(rc.Rev, m.sentAt, sc.st)
		if b.effectShown(m) {
			b.complete(m, now)
		}
		return
	}
	code := "?"
	if rc.Notice != nil {
		code = rc.Notice.Code
	}
	b.complete(m, now)
	switch refusalClass(sc.play.game, code) {
	case "expected":
		sc.st.refusals.Add(1)
		sc.st.count("refused/"+code, 1)
	case "temporary":
		sc.st.count("temporary/"+code, 1)
		b.nextAt = now.Add(100 * time.Millisecond) // back off a little
	default:
		sc.st.errors.Add(1)
		sc.st.count("error/"+code, 1)
		if rc.Notice != nil {
			sc.log.Debug("move refused", "bot", b.name, "code", code, "message", rc.Notice.Message, "command", string(m.action.Command))
		}
	}
}

// onResyncReceipt answers a final check's resync: the snapshot that
// follows an accepted one is compared (onSnapshot); a refused one is tried
// again.
func (b *bot) onResyncReceipt(rc *protocol.Receipt, now time.Time) {
	if b.verifyReply == nil {
		return
	}
	if rc.OK {
		b.verifyAwait = true
		return
	}
	b.verifyAgain(now)
	if rc.Notice != nil && rc.Notice.Code == protocol.CodeRateLimited {
		// A room sends at most one asked-for snapshot per 500 ms: a
		// periodic check just before this one is what refused it.
		b.verifyRetry = now.Add(550 * time.Millisecond)
	}
}

// verifyAgain retries a final check, up to five times.
func (b *bot) verifyAgain(now time.Time) {
	b.verifyTries++
	if b.verifyTries >= 5 {
		b.verifyReply <- 0
		b.verifyReply = nil
		return
	}
	b.verifyRetry = now.Add(50 * time.Millisecond)
}

// command carries out an order of the runner.
func (b *bot) command(c botCmd, now time.Time) {
	switch c.kind {
	case "verify":
		b.verifyReply, b.verifyTries, b.verifyRetry, b.verifyAwait = c.reply, 0, now, false
	case "resign":
		b.resignWait = c.reply
		b.tryResign()
	}
}

// tryResign resigns the running match the runner asked it to: at once when
// the socket is online, else once it is back (act calls it again; a socket
// the chaos dropped just before is back within a couple of seconds). The
// reply is 0 when there is no running match to resign.
func (b *bot) tryResign() {
	if b.stopped || b.info == nil || b.info.Phase != protocol.PhaseRunning || b.role != roleHost {
		b.resignWait <- 0
		b.resignWait = nil
		return
	}
	if !b.online {
		return
	}
	id, ok := b.send(protocol.Action{Type: protocol.TypeResign}, kindResign)
	if !ok {
		return
	}
	b.resignID, b.resignReply, b.resignMatch = id, b.resignWait, b.info.Match
	b.resignWait = nil
}

// send sends an action and records it in the ledger. It fails when the
// socket is not online (the action was not sent).
func (b *bot) send(a protocol.Action, kind string) (string, bool) {
	if a.ID == "" {
		a.ID = ids.Action()
	}
	_, err := b.tr.Send(b.ctx, a)
	switch err {
	case nil:
	case client.ErrOffline, client.ErrStopped:
		b.sc.st.count("skipped/offline", 1)
		return "", false
	default:
		// The write failed: the transport keeps the action and resends it
		// with its id once it is back.
		b.sc.st.count("send/write-failed", 1)
	}
	b.led.sent(a.ID, kind)
	return a.ID, true
}

func (b *bot) resync(now time.Time) {
	if b.resyncID != "" {
		return
	}
	if id, ok := b.send(protocol.Action{Type: protocol.TypeResync}, kindResync); ok {
		b.resyncID = id
	}
}

// act does whatever is due and returns when it next needs waking (zero:
// only for an event).
func (b *bot) act(now time.Time) time.Time {
	var wake time.Time
	at := func(t time.Time) {
		if !t.IsZero() && (wake.IsZero() || t.Before(wake)) {
			wake = t
		}
	}
	if b.resignWait != nil {
		b.tryResign()
	}
	if b.stopped || !b.online {
		if b.verifyReply != nil && b.stopped {
			b.verifyReply <- 0
			b.verifyReply = nil
		}
		return wake
	}
	cfg := &b.sc.cfg
	if b.verifyReply != nil && b.resyncID == "" && !b.verifyAwait {
		if !now.Before(b.verifyRetry) {
			b.resync(now)
			b.verifyRetry = now.Add(100 * time.Millisecond)
		}
		at(b.verifyRetry)
	}
	if b.playing && cfg.CheckEvery > 0 {
		if b.checkAt.IsZero() {
			b.checkAt = now.Add(cfg.CheckEvery/2 + time.Duration(b.rng.Int64N(int64(cfg.CheckEvery))))
		}
		if !now.Before(b.checkAt) {
			b.resync(now)
			b.checkAt = now.Add(cfg.CheckEvery)
		}
		at(b.checkAt)
	}
	for id, c := range b.ctl {
		if now.Sub(c.at) > cfg.MoveTimeout {
			delete(b.ctl, id)
			b.sc.st.count("timeouts/control", 1)
		} else {
			at(c.at.Add(cfg.MoveTimeout))
		}
	}
	if b.role == roleSpectator {
		return wake
	}
	at(b.duties(now))
	at(b.moves(now))
	return wake
}
