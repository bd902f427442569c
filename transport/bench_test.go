package transport

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/roomd/roomd/core/cardgame"
	"github.com/roomd/roomd/core/minesweeper"
	"github.com/roomd/roomd/core/session"
	"github.com/roomd/roomd/protocol"
	"github.com/roomd/roomd/room"
	"github.com/roomd/roomd/store/memstore"
	"github.com/roomd/roomd/transport/client"
)

// BenchmarkCommandRoundTrip measures one command through a real socket on
// loopback: the client sends a flag toggle and waits for both its receipt
// and its update. It reports p50 and p99 in µs besides ns/op: with the
// socket held by a poller after its hello (the default on Linux), and
// with a reader and a writer goroutine of its own (SocketGoroutines).
func BenchmarkCommandRoundTrip(b *testing.B) {
	for _, goroutines := range []bool{false, true} {
		name := "poller"
		if goroutines || !pollSupported {
			name = "goroutines"
		}
		b.Run(name, func(b *testing.B) {
			s := startServer(b, func(_ *room.Config, c *Config) {
				c.RateLimit, c.RateBurst = 1e9, 1e9
				c.SocketGoroutines = goroutines
			})
			created := s.create("minesweeper", `{"mode":"solo","level":"expert"}`, "bench")
			benchRoundTrip(b, s.URL, created)
		})
	}
}

// BenchmarkClusterRoundTrip is BenchmarkCommandRoundTrip on a room of node
// A of a two-node cluster (one memory store): through A itself, and
// through B, which relays the socket to A — the cost of routing.
func BenchmarkClusterRoundTrip(b *testing.B) {
	st := memstore.New()
	a, c := startNode(b, st, "node-a", 10*time.Second), startNode(b, st, "node-b", 10*time.Second)
	for _, via := range []struct {
		name string
		url  string
	}{{"owner", a.URL}, {"relayed", c.URL}} {
		b.Run(via.name, func(b *testing.B) {
			created := a.create("minesweeper", `{"mode":"solo","level":"expert"}`, "bench")
			benchRoundTrip(b, via.url, created)
		})
	}
}

// benchRoundTrip plays flag toggles in created's room through url.
func benchRoundTrip(b *testing.B, url string, created room.JoinResult) {
	tr, err := client.Dial(context.Background(), client.Config{URL: url, Room: created.Room, Token: created.Token, Game: msPin, EventBuffer: 64})
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
			if ev.Kind == client.EventReceipt && !ev.Receipt.OK {
				// No update follows: say why rather than wait for it.
				b.Fatalf("move %d refused: %+v (a match takes at most 10,000 moves: use -benchtime Nx with N below that)", i, ev.Receipt.Notice)
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

// BenchmarkTwoPlayerRoundTrip measures one command of a two-player room
// through real sockets on loopback, for a Minesweeper co-op board and for
// the card duel in the same run: the seat to move sends a command and
// waits for its receipt and update, and the other seat for its update. The
// card duel's seats choose with the game's AI from the views they follow
// beat by beat (core/cardgame's View.Apply, as a client does); a finished
// duel is followed by a rematch, off the clock. Memory store; clients and
// server in one process.
func BenchmarkTwoPlayerRoundTrip(b *testing.B) {
	msMove := func(i int, _ []*rtPlayer) (int, json.RawMessage) {
		return i % 2, json.RawMessage(fmt.Sprintf(`{"type":"flag","r":%d,"c":%d}`, i%16, (i/16)%30))
	}
	cardsMove := func(_ int, ps []*rtPlayer) (int, json.RawMessage) {
		v := ps[0].f.(*cardsFollower).v
		if v.Phase != cardgame.PhaseActive {
			return -1, nil
		}
		seat := v.Active
		m, ok := cardgame.Rules{}.Choose(ps[seat].f.(*cardsFollower).v, seat, session.IntSeed(7).Source())
		if !ok {
			b.Fatalf("seat %d has nothing to do on its turn", seat)
		}
		cmd, _ := json.Marshal(m)
		return seat, cmd
	}
	for _, tc := range []struct {
		game, settings string
		pin            protocol.GamePin
		follower       func() rtFollower
		move           func(i int, ps []*rtPlayer) (int, json.RawMessage)
	}{
		{"minesweeper", `{"mode":"coop","level":"expert"}`, msPin, func() rtFollower { return nil }, msMove},
		{"cards", `{}`, protocol.GamePin{ID: "cards", RulesVersion: cardgame.RulesVersion}, func() rtFollower { return &cardsFollower{} }, cardsMove},
	} {
		b.Run(tc.game, func(b *testing.B) {
			s := startServer(b, func(rc *room.Config, c *Config) {
				rc.Games = session.NewRegistry(minesweeper.Game, cardgame.Game)
				c.RateLimit, c.RateBurst = 1e9, 1e9
			})
			created := s.create(tc.game, tc.settings, "A")
			var joined room.JoinResult
			if code := s.post("/api/rooms/"+created.Room+"/join", map[string]any{"name": "B"}, &joined); code != http.StatusOK {
				b.Fatalf("join: %d", code)
			}
			ps := []*rtPlayer{dialRT(b, s, created.Room, created.Token, tc.pin, tc.follower()), dialRT(b, s, created.Room, joined.Token, tc.pin, tc.follower())}
			ps[1].act(protocol.Action{Type: protocol.TypeControl, Control: &protocol.Control{Op: protocol.ControlReady, Ready: true}}, ps)
			ps[0].act(protocol.Action{Type: protocol.TypeControl, Control: &protocol.Control{Op: protocol.ControlStart}}, ps)
			var lat []time.Duration
			for i := 0; b.Loop(); i++ {
				seat, cmd := tc.move(i, ps)
				if seat < 0 { // the duel is over: a rematch, off the clock
					b.StopTimer()
					ps[0].act(protocol.Action{Type: protocol.TypeControl, Control: &protocol.Control{Op: protocol.ControlRematch}}, ps)
					b.StartTimer()
					seat, cmd = tc.move(i, ps)
				}
				t0 := time.Now()
				ps[seat].act(protocol.Action{Type: protocol.TypeCommand, Command: cmd}, ps)
				lat = append(lat, time.Since(t0))
			}
			b.StopTimer()
			slices.Sort(lat)
			if len(lat) > 0 {
				b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
				b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
			}
		})
	}
}

// rtFollower follows a seat's view of a match: a new view replaces it, an
// update's beats move it on.
type rtFollower interface {
	setView(view json.RawMessage) error
	applyBeats(beats json.RawMessage) error
}

// cardsFollower follows a card-duel view.
type cardsFollower struct{ v cardgame.View }

func (f *cardsFollower) setView(view json.RawMessage) error {
	f.v = cardgame.View{}
	return json.Unmarshal(view, &f.v)
}

func (f *cardsFollower) applyBeats(beats json.RawMessage) error {
	var evs []cardgame.Event
	if err := json.Unmarshal(beats, &evs); err != nil {
		return err
	}
	f.v = f.v.Apply(evs)
	return nil
}

// rtPlayer is one seat of BenchmarkTwoPlayerRoundTrip: its connection and
// its follower (nil: it only reads).
type rtPlayer struct {
	b  *testing.B
	tr *client.Remote
	f  rtFollower
}

func dialRT(b *testing.B, s *testServer, code, token string, pin protocol.GamePin, f rtFollower) *rtPlayer {
	tr, err := client.Dial(context.Background(), client.Config{URL: s.URL, Room: code, Token: token, Game: pin, EventBuffer: 64})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { tr.Close() })
	for ev := range tr.Events() {
		if ev.Kind == client.EventSnapshot {
			return &rtPlayer{b: b, tr: tr, f: f}
		}
	}
	b.Fatal("no snapshot")
	return nil
}

// act sends a and waits for its receipt and for the update it makes at
// every player.
func (p *rtPlayer) act(a protocol.Action, ps []*rtPlayer) {
	if _, err := p.tr.Send(context.Background(), a); err != nil {
		p.b.Fatal(err)
	}
	for _, q := range ps {
		gotReceipt := q != p
		for gotUpdate := false; !gotReceipt || !gotUpdate; {
			ev, ok := <-q.tr.Events()
			if !ok {
				p.b.Fatal("transport stopped")
			}
			switch ev.Kind {
			case client.EventReceipt:
				if !ev.Receipt.OK {
					p.b.Fatalf("refused: %+v", ev.Receipt.Notice)
				}
				gotReceipt = true
			case client.EventUpdate:
				gotUpdate = true
				q.follow(ev.Update)
			}
		}
	}
}

// follow moves the player's view on by an update.
func (p *rtPlayer) follow(u *protocol.Update) {
	if p.f == nil {
		return
	}
	var err error
	if v, ok := u.View.(json.RawMessage); ok && v != nil {
		err = p.f.setView(v)
	} else if beats, ok := u.Beats.(json.RawMessage); ok && beats != nil {
		err = p.f.applyBeats(beats)
	}
	if err != nil {
		p.b.Fatal(err)
	}
}
