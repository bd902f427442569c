package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/roomd/roomd"
	connectfour "github.com/roomd/roomd/examples/connectfour/game"
	"github.com/roomd/roomd/protocol"
	"github.com/roomd/roomd/transport/client"
	"github.com/roomd/roomd/web/webtest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	webtest.Stop()
	os.Exit(code)
}

// serve runs this program's server (roomd's games and Connect Four) in
// memory on a loopback port, with the game's browser files web, until the
// test ends.
func serve(t *testing.T, web roomd.Game) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s, err := roomd.New(roomd.Options{Games: append(roomd.BuiltinGames(), web), Listener: ln,
		Store: roomd.StoreOptions{Memory: true}, Rooms: roomd.RoomOptions{AIDelay: 50 * time.Millisecond},
		Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	t.Cleanup(func() {
		stop()
		if err := <-done; err != nil {
			t.Error(err)
		}
	})
	return s.URL()
}

// post sends body to path and decodes the answer.
func post(t *testing.T, base, path, body string, out any) {
	t.Helper()
	resp, err := http.Post(base+path, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode/100 != 2 {
		t.Fatalf("POST %s: %d %s", path, resp.StatusCode, raw)
	}
	if err := json.Unmarshal(raw, out); err != nil {
		t.Fatalf("POST %s: %s: %v", path, raw, err)
	}
}

// player is one client of the room, with what it was sent.
type player struct {
	t      *testing.T
	r      *client.Remote
	result chan protocol.Result
	got    chan protocol.Receipt
}

func dial(t *testing.T, base, code, token string, watch bool) *player {
	t.Helper()
	r, err := client.Dial(context.Background(), client.Config{URL: base, Room: code, Token: token, Watch: watch,
		Game: protocol.GamePin{ID: "connectfour", RulesVersion: connectfour.Game.Info().RulesVersion}})
	if err != nil {
		t.Fatal(err)
	}
	p := &player{t: t, r: r, result: make(chan protocol.Result, 4), got: make(chan protocol.Receipt, 64)}
	online := make(chan struct{})
	go func() {
		once := false
		for ev := range r.Events() {
			switch {
			case ev.Kind == client.EventState && ev.State == client.StateOnline && !once:
				once = true
				close(online)
			case ev.Kind == client.EventReceipt:
				p.got <- *ev.Receipt
			case ev.Kind == client.EventUpdate && ev.Update.Result != nil:
				p.result <- *ev.Update.Result
			}
		}
	}()
	t.Cleanup(func() { r.Close() })
	select {
	case <-online:
	case <-time.After(10 * time.Second):
		t.Fatal("not online")
	}
	return p
}

// act sends an action and waits for its receipt, which must be ok. An
// action sent from a view a change behind is refused "stale" with a
// snapshot following: as a player does, it is sent again from that.
func (p *player) act(a protocol.Action) {
	p.t.Helper()
	for try := 0; ; try++ {
		id, err := p.r.Send(context.Background(), a)
		if err != nil {
			p.t.Fatal(err)
		}
		rc := p.receipt(id)
		switch {
		case rc.OK:
			return
		case rc.Notice != nil && rc.Notice.Code == protocol.CodeStale && try < 5:
			time.Sleep(20 * time.Millisecond)
		default:
			p.t.Fatalf("%s %s refused: %+v", a.Type, a.Command, rc.Notice)
		}
	}
}

func (p *player) receipt(id string) protocol.Receipt {
	p.t.Helper()
	for {
		select {
		case rc := <-p.got:
			if rc.ID == id {
				return rc
			}
		case <-time.After(10 * time.Second):
			p.t.Fatalf("no receipt for %s", id)
		}
	}
}

func drop(col int) protocol.Action {
	return protocol.Action{Type: protocol.TypeCommand, Command: json.RawMessage(fmt.Sprintf(`{"type":"drop","col":%d}`, col))}
}

// TestMatchOverSockets: this program's server lists Connect Four beside
// roomd's games, and two players play it to a win over real WebSockets
// while a spectator watches: four in column 0 win for seat 0, and the
// spectator sees the result.
func TestMatchOverSockets(t *testing.T) {
	t.Parallel()
	base := serve(t, roomd.Game{Rules: connectfour.Game, Web: connectfour.Web()})
	resp, err := http.Get(base + "/api/games")
	if err != nil {
		t.Fatal(err)
	}
	var list struct{ Games []struct{ ID string } }
	json.NewDecoder(resp.Body).Decode(&list)
	resp.Body.Close()
	ids := map[string]bool{}
	for _, g := range list.Games {
		ids[g.ID] = true
	}
	if !ids["connectfour"] || len(ids) != len(roomd.BuiltinGames())+1 {
		t.Fatalf("GET /api/games lists %v", ids)
	}

	var created, joined struct{ Room, Token string }
	post(t, base, "/api/rooms", `{"game":"connectfour","name":"Ann","settings":{"mode":"classic"}}`, &created)
	post(t, base, "/api/rooms/"+created.Room+"/join", `{"name":"Bob"}`, &joined)
	ann := dial(t, base, created.Room, created.Token, false)
	bob := dial(t, base, created.Room, joined.Token, false)
	spectator := dial(t, base, created.Room, "", true)
	bob.act(protocol.Action{Type: protocol.TypeControl, Control: &protocol.Control{Op: protocol.ControlReady, Ready: true}})
	ann.act(protocol.Action{Type: protocol.TypeControl, Control: &protocol.Control{Op: protocol.ControlStart}})
	for range 3 {
		ann.act(drop(0))
		bob.act(drop(1))
	}
	ann.act(drop(0))
	for name, p := range map[string]*player{"the spectator": spectator, "Bob": bob} {
		select {
		case res := <-p.result:
			if res.Status != connectfour.PhaseWon || len(res.Winners) != 1 || res.Winners[0] != 0 {
				t.Fatalf("%s saw the match end %s, winners %v; want won by seat 0", name, res.Status, res.Winners)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s never saw the match end", name)
		}
	}
}

// TestRoombotPlays: roombot, as this program's `bot` subcommand, plays
// Connect Four against its server with the default follower (the game's
// reducer and AI): players and a spectator in several rooms, every view
// it followed equal to the server's, no invariant violated.
func TestRoombotPlays(t *testing.T) {
	base := serve(t, roomd.Game{Rules: connectfour.Game, Web: connectfour.Web()})
	path := t.TempDir() + "/result.json"
	var out strings.Builder
	code := roomd.Command{Games: games(), Stdout: &out, Stderr: &out}.Run([]string{"bot", "--url", base,
		"--game", "connectfour", "--players", "2", "--rooms", "2", "--spectators", "1", "--duration", "2s", "--drain", "5s",
		"--loop", "open", "--rate", "20", "--progress", "0", "--log-level", "warn", "--json", path})
	t.Log(out.String())
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("exit %d: %v", code, err)
	}
	var res struct {
		Window     struct{ Moves int64 }
		Violations struct{ Total int64 }
		Checks     struct {
			ViewChecks int64 `json:"viewChecks"`
			FinalViews int64 `json:"finalViewsVerified"`
		}
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatal(err)
	}
	if code != 0 || res.Violations.Total != 0 || res.Window.Moves < 20 || res.Checks.FinalViews == 0 {
		t.Errorf("exit %d: %s", code, raw)
	}
}
