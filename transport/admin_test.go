package transport

import (
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/roomd/roomd/protocol"
	"github.com/roomd/roomd/room"
	"github.com/roomd/roomd/transport/admin"
	"github.com/roomd/roomd/transport/client"
)

func get(t *testing.T, url, token string) (int, []byte) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// metric returns the value of the first sample line matching name{labels}.
func metric(t *testing.T, body []byte, pattern string) float64 {
	t.Helper()
	re := regexp.MustCompile(`(?m)^` + pattern + ` ([0-9.e+-]+)$`)
	m := re.FindSubmatch(body)
	if m == nil {
		t.Fatalf("no sample %s in:\n%s", pattern, body)
	}
	v, _ := strconv.ParseFloat(string(m[1]), 64)
	return v
}

func TestMetricsAndAdmin(t *testing.T) {
	reg := prometheus.NewRegistry()
	routes := func(rooms *room.Manager) map[string]http.Handler {
		return admin.Routes(admin.Config{Rooms: rooms, Token: "s3cret", Metrics: reg})
	}
	s := startServerRoutes(t, routes, func(rc *room.Config, c *Config) {
		rc.Metrics = room.NewMetrics(reg)
		c.Metrics = NewMetrics(reg)
	})
	reg.MustRegister(s.rooms.Collector())
	created := s.create("minesweeper", `{"mode":"solo","level":"beginner"}`, "Ann")
	p := s.dial("ann", client.Config{Room: created.Room, Token: created.Token, Game: msPin})
	p.waitOnline()
	p.control(protocol.Control{Op: protocol.ControlStart})
	for _, cmd := range []string{`{"type":"flag","r":0,"c":0}`, `{"type":"flag","r":0,"c":0}`, `{"type":"flag","r":99,"c":0}`} {
		p.command(cmd)
	}
	_, body := get(t, s.URL+"/metrics", "")
	if v := metric(t, body, `roomd_connections`); v != 1 {
		t.Errorf("roomd_connections = %v", v)
	}
	if v := metric(t, body, `roomd_actions_accepted_total\{kind="command"\}`); v != 2 {
		t.Errorf("accepted commands = %v, want 2", v)
	}
	if v := metric(t, body, `roomd_actions_rejected_total\{reason="game:OutOfBounds"\}`); v != 1 {
		t.Errorf("rejected out of bounds = %v, want 1", v)
	}
	if v := metric(t, body, `roomd_command_latency_seconds_count\{game="minesweeper"\}`); v != 2 {
		t.Errorf("latency samples = %v, want 2", v)
	}
	if v := metric(t, body, `roomd_rooms\{game="minesweeper",phase="running"\}`); v != 1 {
		t.Errorf("running rooms = %v", v)
	}
	if v := metric(t, body, `roomd_store_append_entries_count`); v < 3 {
		t.Errorf("append batches = %v", v)
	}

	if code, _ := get(t, s.URL+"/api/admin/rooms", ""); code != http.StatusUnauthorized {
		t.Fatalf("admin without a token: %d", code)
	}
	if code, _ := get(t, s.URL+"/api/admin/rooms", "wrong"); code != http.StatusUnauthorized {
		t.Fatalf("admin with a wrong token: %d", code)
	}
	code, body := get(t, s.URL+"/api/admin/rooms", "s3cret")
	var list struct{ Rooms []room.Stats }
	if err := json.Unmarshal(body, &list); err != nil || code != http.StatusOK {
		t.Fatalf("admin list: %d %s", code, body)
	}
	if len(list.Rooms) != 1 || list.Rooms[0].Code != created.Room || list.Rooms[0].Rev != 3 || list.Rooms[0].Phase != "running" {
		t.Fatalf("admin list %+v", list.Rooms)
	}
	if code, page := get(t, s.URL+"/admin", ""); code != http.StatusOK || !strings.Contains(string(page), "/api/admin/rooms") {
		t.Fatalf("admin page: %d", code)
	}
	req, _ := http.NewRequest(http.MethodPost, s.URL+"/api/admin/rooms/"+created.Room+"/close", nil)
	req.Header.Set("Authorization", "Bearer s3cret")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("close: %d", resp.StatusCode)
	}
	p.closedWith(protocol.CloseRoomClosed)
}

func TestAdminDisabledWithoutToken(t *testing.T) {
	s := startServer(t)
	for _, path := range []string{"/admin", "/api/admin/rooms"} {
		if code, _ := get(t, s.URL+path, "anything"); code != http.StatusNotFound {
			t.Errorf("%s without an admin token configured: %d, want 404", path, code)
		}
	}
}
