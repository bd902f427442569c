package bot

import (
	"context"
	"math/rand/v2"
	"time"

	"github.com/roomd/roomd/transport/client"
)

// malformedFrames are frames no client should send: each must get a notice
// (invalid-message or unknown-type) and leave the connection up.
var malformedFrames = [][]byte{
	[]byte(`this is not JSON`),
	[]byte(`[1,2,3]`),
	[]byte(`{"type":"launch-missiles"}`),
	[]byte(`{"type":"command","id":"","rev":0,"command":{"type":"reveal","r":0,"c":0}}`),
	[]byte(`{"type":"command","id":"x","rev":"seven","command":{}}`),
	[]byte(`{"type":"control","id":"m1","rev":0}`),
	[]byte(`{"type":"command","id":"m2","rev":0}`),
	[]byte(`{}`),
}

// maxMalformedPerSocket stays well below the server's 20 invalid frames
// that close a connection with 1002.
const maxMalformedPerSocket = 5

// chaos injects faults until ctx ends: socket drops at --chaos-drop per
// second, malformed frames spread over the first 80% of the run, and the
// slow spectators' holds at a fifth of it. Resends on purpose are the
// players' own (see bot.tryMove).
func (sc *scenario) chaos(ctx context.Context, duration time.Duration) {
	cfg := sc.cfg.Chaos
	rng := rand.New(rand.NewPCG(sc.cfg.Seed, 0xc4a05))
	const step = 100 * time.Millisecond
	tick := time.NewTicker(step)
	defer tick.Stop()
	start := time.Now()
	malformed := 0
	perSocket := map[*bot]int{}
	held := false
	slow := map[*bot]bool{}
	sc.mu.Lock()
	for _, b := range sc.slow {
		slow[b] = true
	}
	sc.mu.Unlock()
	for {
		var now time.Time
		select {
		case <-ctx.Done():
			return
		case now = <-tick.C:
		}
		elapsed := now.Sub(start)
		bots := sc.allBots()
		if cfg.Drop > 0 {
			p := cfg.Drop * step.Seconds()
			for _, b := range bots {
				if slow[b] || b.chaos == nil || rng.Float64() >= p || b.tr.State() != client.StateOnline {
					continue
				}
				b.chaos.Drop()
				sc.st.count("chaos/drops", 1)
			}
		}
		if cfg.Malformed > 0 && malformed < cfg.Malformed && len(bots) > 0 {
			due := int(float64(cfg.Malformed) * min(1, elapsed.Seconds()/(0.8*duration.Seconds())))
			for tries := 0; malformed < due && tries < 4*len(bots); tries++ {
				b := bots[rng.IntN(len(bots))]
				if b.role == roleSpectator || b.chaos == nil || perSocket[b] >= maxMalformedPerSocket || b.tr.State() != client.StateOnline {
					continue
				}
				if err := b.chaos.SendRaw(ctx, malformedFrames[rng.IntN(len(malformedFrames))]); err != nil {
					continue
				}
				perSocket[b]++
				malformed++
				sc.st.count("chaos/malformed", 1)
			}
		}
		if cfg.Slow > 0 && !held && elapsed >= duration/5 {
			held = true
			for b := range slow {
				select {
				case b.holdCh <- cfg.Hold:
				default:
				}
			}
		}
	}
}

// hold stops reading events: a slow consumer. It reads again after d, when
// play ends, or as soon as the room's presence (as the host sees it) shows
// fewer spectators than the room has: the server dropped it (or another
// spectator is reconnecting, which ends the hold a little early).
func (b *bot) hold(ctx, play context.Context, d time.Duration) {
	if b.chaos == nil {
		return
	}
	// Redial with a tiny receive buffer, so that the server's outbox
	// overflows after a few dozen frames (an ordinary socket would buffer
	// megabytes in the kernel first), then stop reading.
	b.tinyBuf.Store(true)
	b.chaos.Drop()
	b.sc.st.count("chaos/slow-redials", 1)
	if !b.awaitState(ctx, play, false, time.Second) || !b.awaitState(ctx, play, true, 5*time.Second) {
		b.tinyBuf.Store(false)
		return
	}
	// The room's presence shows the redialed socket back before the hold.
	base := int64(b.room.spectators) // as configured; the host's count follows presence
	for wait := time.Now().Add(time.Second); b.room.specSeen.Load() < base && time.Now().Before(wait); {
		time.Sleep(10 * time.Millisecond)
	}
	b.slowHeld = true
	b.sc.st.count("chaos/slow-holds", 1)
	b.sc.log.Debug("holding reads", "bot", b.name, "for", d, "spectators", base)
	start, roomFrames := time.Now(), b.room.hostFrames.Load()
	t := time.NewTimer(d)
	defer t.Stop()
	poll := time.NewTicker(20 * time.Millisecond)
	defer poll.Stop()
	dropped := false
wait:
	for {
		select {
		case <-t.C:
			break wait
		case <-ctx.Done():
			break wait
		case <-play.Done():
			break wait
		case <-poll.C:
			if base > 0 && b.room.specSeen.Load() < base {
				dropped = true
				b.sc.st.count("chaos/slow-dropped-by-server", 1)
				break wait
			}
		}
	}
	b.tinyBuf.Store(false)
	held := time.Since(start)
	b.sc.st.latency(latHold, held)
	// How busy the room was meanwhile: frames its host received.
	b.sc.st.count("chaos/slow-hold-room-frames", b.room.hostFrames.Load()-roomFrames)
	b.slowWindow = time.Now().Add(max(2*held, 5*time.Second))
	if !dropped && ctx.Err() == nil {
		// The server kept it: come back on an ordinary socket (the
		// backlog is dropped with the old one) rather than crawl through
		// it on the tiny one.
		b.slowUndropped = true
		b.sc.st.count("chaos/slow-not-dropped", 1)
		b.chaos.Drop()
	}
}

// awaitState handles the bot's events until its transport is online (or
// not), for at most d. It must read them meanwhile: a transport whose
// events channel is full waits for its reader before it goes on with the
// next connection (the slow spectator's channel holds only a few).
func (b *bot) awaitState(ctx, play context.Context, online bool, d time.Duration) bool {
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	poll := time.NewTicker(10 * time.Millisecond)
	defer poll.Stop()
	events := b.tr.Events()
	for (b.tr.State() == client.StateOnline) != online {
		select {
		case ev, ok := <-events:
			if !ok {
				return false // run sees the channel closed
			}
			b.handle(ev, time.Now())
			if ev.Kind == client.EventState && (ev.State == client.StateOnline) == online {
				// Reached, if only for a moment: a socket redialed for a
				// hold may be closed as slow (4008) before the next poll.
				return true
			}
		case <-poll.C:
		case <-deadline.C:
			return false
		case <-ctx.Done():
			return false
		case <-play.Done():
			return false
		}
	}
	return true
}
