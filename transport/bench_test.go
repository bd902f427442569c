package transport

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/roomd/roomd/protocol"
	"github.com/roomd/roomd/room"
	"github.com/roomd/roomd/transport/client"
)

// BenchmarkCommandRoundTrip measures one command through a real socket on
// loopback: the client sends a flag toggle and waits for both its receipt
// and its update. It reports p50 and p99 in µs besides ns/op.
func BenchmarkCommandRoundTrip(b *testing.B) {
	s := startServer(b, func(_ *room.Config, c *Config) { c.RateLimit, c.RateBurst = 1e9, 1e9 })
	created := s.create("minesweeper", `{"mode":"solo","level":"expert"}`, "bench")
	tr, err := client.Dial(context.Background(), client.Config{URL: s.URL, Room: created.Room, Token: created.Token, Game: msPin, EventBuffer: 64})
	if err != nil {
		b.Fatal(err)
	}
	defer tr.Close()
	ctx := context.Background()
	next := func(kind client.EventKind) client.Event {
		for ev := range tr.Events() {
			if ev.Kind == kind {
				return ev
			}
		}
		b.Fatal("transport stopped")
		return client.Event{}
	}
	next(client.EventSnapshot)
	if _, err := tr.Send(ctx, protocol.Action{Type: protocol.TypeControl, Control: &protocol.Control{Op: protocol.ControlStart}}); err != nil {
		b.Fatal(err)
	}
	next(client.EventUpdate)
	cmds := make([]json.RawMessage, 64)
	for i := range cmds {
		cmds[i] = json.RawMessage(fmt.Sprintf(`{"type":"flag","r":%d,"c":%d}`, i%16, i/16))
	}
	var lat []time.Duration
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		start := time.Now()
		if _, err := tr.Send(ctx, protocol.Action{Type: protocol.TypeCommand, Command: cmds[i%len(cmds)]}); err != nil {
			b.Fatal(err)
		}
		gotReceipt, gotUpdate := false, false
		for !gotReceipt || !gotUpdate {
			ev, ok := <-tr.Events()
			if !ok {
				b.Fatal("transport stopped")
			}
			gotReceipt = gotReceipt || ev.Kind == client.EventReceipt
			gotUpdate = gotUpdate || ev.Kind == client.EventUpdate
		}
		lat = append(lat, time.Since(start))
	}
	b.StopTimer()
	slices.Sort(lat)
	if len(lat) > 0 {
		b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
		b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
	}
}
