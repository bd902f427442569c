package transport

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/roomd/roomd/core/session"
	"github.com/roomd/roomd/protocol"
	"github.com/roomd/roomd/room"
	"github.com/roomd/roomd/transport/client"
)

func TestSchemaAndGamesEndpoints(t *testing.T) {
	s := startServer(t)
	code, body := get(t, s.URL+"/api/protocol.schema.json", "")
	var schema struct {
		Schema string         `json:"$schema"`
		Defs   map[string]any `json:"$defs"`
	}
	if err := json.Unmarshal(body, &schema); err != nil || code != http.StatusOK {
		t.Fatalf("schema: %d %v", code, err)
	}
	for _, def := range []string{"Hello", "Action", "Snapshot", "Update", "Receipt", "Bye", "ClientMessage", "ServerMessage"} {
		if schema.Defs[def] == nil {
			t.Errorf("schema lacks $defs/%s", def)
		}
	}
	code, body = get(t, s.URL+"/api/games", "")
	var games struct {
		Protocol int
		Games    []session.Info
	}
	if err := json.Unmarshal(body, &games); err != nil || code != http.StatusOK || len(games.Games) != 2 {
		t.Fatalf("games: %d %s", code, body)
	}
	for _, g := range games.Games {
		if len(g.ConfigSchema) == 0 || len(g.CommandSchema) == 0 || g.RulesVersion == "" || len(g.Modes) == 0 {
			t.Errorf("game %s is missing schemas, version or modes: %+v", g.ID, g)
		}
	}
	if st := s.post("/api/rooms", map[string]any{"game": "chess"}, &struct{}{}); st != http.StatusBadRequest {
		t.Errorf("unknown game: %d", st)
	}
	if st := s.post("/api/rooms", map[string]any{"game": "minesweeper", "settings": map[string]any{"level": "impossible"}}, &struct{}{}); st != http.StatusBadRequest {
		t.Errorf("bad settings: %d", st)
	}
}

func TestOriginAllowList(t *testing.T) {
	dial := func(s *testServer, origin string) error {
		u, _ := client.SocketURL(s.URL)
		h := http.Header{}
		h.Set("Origin", origin)
		ws, _, err := websocket.Dial(context.Background(), u, &websocket.DialOptions{HTTPHeader: h})
		if err == nil {
			ws.CloseNow()
		}
		return err
	}
	s := startServer(t)
	if err := dial(s, "http://evil.example"); err == nil {
		t.Error("a foreign Origin was accepted by default")
	}
	if err := dial(s, s.URL); err != nil {
		t.Errorf("same origin refused: %v", err)
	}
	allowed := startServer(t, func(_ *room.Config, c *Config) { c.Origins = []string{"games.example"} })
	if err := dial(allowed, "https://games.example"); err != nil {
		t.Errorf("allowed origin refused: %v", err)
	}
}

// TestDeadPeerDetected: a peer that never reads answers no ping; the server
// closes it and the room forgets it.
func TestDeadPeerDetected(t *testing.T) {
	s := startServer(t, func(rc *room.Config, _ *Config) { rc.Heartbeat = 100 * time.Millisecond })
	created := s.create("minesweeper", `{"mode":"solo","level":"beginner"}`, "Ann")
	watcher := s.dial("host", client.Config{Room: created.Room, Token: created.Token, Game: msPin})
	watcher.waitOnline()
	u, _ := client.SocketURL(s.URL)
	ws, _, err := websocket.Dial(context.Background(), u, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.CloseNow()
	b, _ := json.Marshal(protocol.Hello{Type: protocol.TypeHello, Room: created.Room, Watch: true, Game: msPin})
	ws.Write(context.Background(), websocket.MessageText, b)
	waitSpec := func(n int) {
		watcher.waitFor("spectators", func(evs []client.Event) bool {
			for i := len(evs) - 1; i >= 0; i-- {
				if evs[i].Presence != nil {
					return evs[i].Presence.Spectators == n
				}
			}
			return false
		})
	}
	waitSpec(1)
	// The raw socket never reads, so it never answers a ping.
	waitSpec(0)
}

// TestOneEncodingPerView: one command in a solo room watched by five
// spectators is encoded once and delivered six times.
func TestOneEncodingPerView(t *testing.T) {
	reg := prometheus.NewRegistry()
	s := startServer(t, func(rc *room.Config, _ *Config) { rc.Metrics = room.NewMetrics(reg) })
	created := s.create("minesweeper", `{"mode":"solo","level":"beginner"}`, "Ann")
	p := s.dial("ann", client.Config{Room: created.Room, Token: created.Token, Game: msPin})
	p.waitOnline()
	p.control(protocol.Control{Op: protocol.ControlStart})
	var specs []*tclient
	for range 5 {
		c := s.dial("spec", client.Config{Room: created.Room, Watch: true, Game: msPin})
		c.waitOnline()
		specs = append(specs, c)
	}
	counts := func() (float64, float64) {
		mfs, _ := reg.Gather()
		var enc, del float64
		for _, mf := range mfs {
			switch mf.GetName() {
			case "roomd_update_encodings_total":
				enc = mf.GetMetric()[0].GetCounter().GetValue()
			case "roomd_update_deliveries_total":
				del = mf.GetMetric()[0].GetCounter().GetValue()
			}
		}
		return enc, del
	}
	enc0, del0 := counts()
	if rc := p.command(`{"type":"flag","r":1,"c":1}`); !rc.OK {
		t.Fatal(rc.Notice)
	}
	for _, c := range specs {
		c.waitFor("the update", func([]client.Event) bool { return c.recordedRev() == 2 })
	}
	enc, del := counts()
	if enc-enc0 != 1 || del-del0 != 6 {
		t.Fatalf("encodings %v, deliveries %v for one command to 6 viewers; want 1 and 6", enc-enc0, del-del0)
	}
}

func TestIdleRoomClosed(t *testing.T) {
	s := startServer(t, func(rc *room.Config, _ *Config) { rc.IdleTimeout = 300 * time.Millisecond })
	created := s.create("nim", `{}`, "Ann")
	p := s.dial("ann", client.Config{Room: created.Room, Token: created.Token, Game: nimPin})
	p.waitOnline()
	p.closedWith(protocol.CloseRoomClosed)
	if code, _ := get(t, s.URL+"/api/rooms/"+created.Room, ""); code != http.StatusNotFound {
		t.Fatalf("idle room still answers %d", code)
	}
}

func mustJSON(v any) []byte { b, _ := json.Marshal(v); return b }
