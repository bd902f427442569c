package transport

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/roomd/roomd/core/minesweeper"
	"github.com/roomd/roomd/core/nim"
	"github.com/roomd/roomd/core/session"
	"github.com/roomd/roomd/internal/testredis"
	"github.com/roomd/roomd/protocol"
	"github.com/roomd/roomd/room"
	"github.com/roomd/roomd/store"
	"github.com/roomd/roomd/store/boltstore"
	"github.com/roomd/roomd/store/memstore"
	"github.com/roomd/roomd/store/redisstore"
	"github.com/roomd/roomd/transport/client"
)

// benchPlayer is one closed-loop client: it sends a flag toggle and waits
// for both its receipt and its update before the next.
type benchPlayer struct {
	tr   *client.Remote
	cmds []json.RawMessage
	i    int
}

func newBenchPlayer(b *testing.B, url string, st store.Store) *benchPlayer {
	b.Helper()
	ctx := context.Background()
	var created room.JoinResult
	_ = st
	res, err := postJSON(url+"/api/rooms", map[string]any{"game": "minesweeper", "settings": map[string]string{"mode": "solo", "level": "expert"}, "name": "b"}, &created)
	if err != nil || res != 201 {
		b.Fatalf("create: %d %v", res, err)
	}
	tr, err := client.Dial(ctx, client.Config{URL: url, Room: created.Room, Token: created.Token, Game: msPin, EventBuffer: 16})
	if err != nil {
		b.Fatal(err)
	}
	p := &benchPlayer{tr: tr}
	for i := range 64 {
		p.cmds = append(p.cmds, json.RawMessage(fmt.Sprintf(`{"type":"flag","r":%d,"c":%d}`, i%16, i/16)))
	}
	p.waitFor(b, client.EventSnapshot)
	if _, err := tr.Send(ctx, protocol.Action{Type: protocol.TypeControl, Control: &protocol.Control{Op: protocol.ControlStart}}); err != nil {
		b.Fatal(err)
	}
	p.waitFor(b, client.EventUpdate)
	p.waitFor(b, client.EventReceipt)
	return p
}

func (p *benchPlayer) waitFor(b *testing.B, kind client.EventKind) {
	for ev := range p.tr.Events() {
		if ev.Kind == kind {
			return
		}
	}
	b.Fatal("transport stopped")
}

// move does one round trip and returns its latency.
func (p *benchPlayer) move(b *testing.B) time.Duration {
	start := time.Now()
	if _, err := p.tr.Send(context.Background(), protocol.Action{Type: protocol.TypeCommand, Command: p.cmds[p.i%len(p.cmds)]}); err != nil {
		b.Fatal(err)
	}
	p.i++
	gotReceipt, gotUpdate := false, false
	for !gotReceipt || !gotUpdate {
		ev, ok := <-p.tr.Events()
		if !ok {
			b.Fatal("transport stopped")
		}
		if ev.Receipt != nil && !ev.Receipt.OK {
			b.Fatalf("refused: %+v", ev.Receipt.Notice)
		}
		gotReceipt = gotReceipt || ev.Kind == client.EventReceipt
		gotUpdate = gotUpdate || ev.Kind == client.EventUpdate
	}
	return time.Since(start)
}

// BenchmarkStoreRoundTrip measures one command's round trip (send →
// receipt and update back) through a real socket with each store, with 1
// busy room and with 1,000 rooms all playing closed-loop at once. With
// Redis it also reports store round trips per accepted command.
//
//	go test -run '^$' -bench StoreRoundTrip -benchtime 20000x ./transport
func BenchmarkStoreRoundTrip(b *testing.B) {
	stores := []struct {
		name string
		open func(b *testing.B) store.Store
	}{
		{"memory", func(b *testing.B) store.Store { return memstore.New() }},
		{"bolt-fsync", func(b *testing.B) store.Store { return openBolt(b, false) }},
		{"bolt-nosync", func(b *testing.B) store.Store { return openBolt(b, true) }},
		{"redis", func(b *testing.B) store.Store {
			rs := testredis.Start(b)
			r, err := redisstore.Open(context.Background(), rs.URL(), redisstore.RedisOptions{})
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { r.Close() })
			return r
		}},
	}
	for _, sc := range stores {
		for _, rooms := range []int{1, 1000} {
			b.Run(fmt.Sprintf("%s/rooms=%d", sc.name, rooms), func(b *testing.B) {
				st := sc.open(b)
				s := startServer(b, func(rc *room.Config, c *Config) {
					rc.Store = st
					rc.Games = session.NewRegistry(minesweeper.Game, nim.Game)
					c.RateLimit, c.RateBurst = 1e9, 1e9
				})
				players := make([]*benchPlayer, rooms)
				var wg sync.WaitGroup
				sem := make(chan struct{}, 32)
				for i := range players {
					wg.Add(1)
					sem <- struct{}{}
					go func() {
						defer wg.Done()
						defer func() { <-sem }()
						players[i] = newBenchPlayer(b, s.URL, st)
					}()
				}
				wg.Wait()
				defer func() {
					for _, p := range players {
						p.tr.Close()
					}
				}()
				var before redisstore.RedisStats
				if r, ok := st.(*redisstore.Redis); ok {
					before = r.Stats()
				}
				var next atomic.Int64
				lats := make([][]time.Duration, rooms)
				b.ResetTimer()
				for i, p := range players {
					wg.Add(1)
					go func() {
						defer wg.Done()
						for next.Add(1) <= int64(b.N) {
							lats[i] = append(lats[i], p.move(b))
						}
					}()
				}
				wg.Wait()
				b.StopTimer()
				all := slices.Concat(lats...)
				slices.Sort(all)
				if len(all) > 0 {
					b.ReportMetric(float64(all[len(all)/2].Microseconds()), "p50-µs")
					b.ReportMetric(float64(all[len(all)*99/100].Microseconds()), "p99-µs")
				}
				if r, ok := st.(*redisstore.Redis); ok {
					after := r.Stats()
					if n := after.Accepted - before.Accepted; n > 0 {
						b.ReportMetric(float64(after.RoundTrips-before.RoundTrips)/float64(n), "redis-trips/append")
					}
				}
			})
		}
	}
}

func openBolt(b *testing.B, nosync bool) store.Store {
	b.Helper()
	st, err := boltstore.Open(b.TempDir(), boltstore.BoltOptions{NoSync: nosync})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	return st
}
