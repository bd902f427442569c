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
