package transport

import (
	"bytes"
	"encoding/json"
	"io"
	"maps"
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
		routes := admin.Routes(admin.Config{Rooms: rooms, Token: "s3cret"})
		maps.Copy(routes, admin.MetricsRoutes(reg))
		return routes
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
	// The runtime's execution trace is the operator's too.
	if code, _ := get(t, s.URL+"/debug/pprof/trace?seconds=0.05", ""); code != http.StatusUnauthorized {
		t.Fatalf("trace without a token: %d", code)
	}
	if code, tr := get(t, s.URL+"/debug/pprof/trace?seconds=0.05", "s3cret"); code != http.StatusOK || !bytes.HasPrefix(tr, []byte("go 1.")) {
		t.Fatalf("trace: %d, %d bytes starting %.10q", code, len(tr), tr)
	}
	code, body := get(t, s.URL+"/api/admin/rooms", "s3cret")
	var list struct{ Rooms []room.Stats }
	if err := json.Unmarshal(body, &list); err != nil || code != http.StatusOK {
		t.Fatalf("admin list: %d %s", code, body)
	}
	if len(list.Rooms) != 1 || list.Rooms[0].Code != created.Room || list.Rooms[0].Rev != 3 || list.Rooms[0].Phase != "running" {
		t.Fatalf("admin list %+v", list.Rooms)
	}
	if code, page := get(t, s.URL+"/admin", ""); code != http.StatusOK || !strings.Contains(string(page), "/admin/admin.js") {
		t.Fatalf("admin page: %d", code)
	}
	if code, js := get(t, s.URL+"/admin/admin.js", ""); code != http.StatusOK || !strings.Contains(string(js), "/api/admin/rooms") {
		t.Fatalf("admin script: %d", code)
	}
	// A reported chat message is listed for the operator.
	if rc := p.send(chatAction("buy gold at example.com")); !rc.OK {
		t.Fatal(rc.Notice)
	}
	p.waitFor("the message", func([]client.Event) bool { m, _ := chats(p); return len(m) == 1 })
	msgs, _ := chats(p)
	if rc := p.send(protocol.Action{Type: protocol.TypeReport, Message: msgs[0].ID, Reason: "spam"}); !rc.OK {
		t.Fatal(rc.Notice)
	}
	if code, _ := get(t, s.URL+"/api/admin/reports", ""); code != http.StatusUnauthorized {
		t.Fatalf("reports without a token: %d", code)
	}
	code, body = get(t, s.URL+"/api/admin/reports", "s3cret")
	var reps struct{ Reports []room.Report }
	if err := json.Unmarshal(body, &reps); err != nil || code != http.StatusOK || len(reps.Reports) != 1 ||
		reps.Reports[0].Message.Text != "buy gold at example.com" || reps.Reports[0].Reason != "spam" || reps.Reports[0].Room != created.Room {
		t.Fatalf("reports: %d %s", code, body)
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

// TestAdminPageHardened: the admin page and its files carry a strict
// Content-Security-Policy and the other security headers, and the page
// has no inline script or style for the policy to refuse.
func TestAdminPageHardened(t *testing.T) {
	s := startServerRoutes(t, func(rooms *room.Manager) map[string]http.Handler {
		return admin.Routes(admin.Config{Rooms: rooms, Token: "s3cret"})
	})
	want := map[string]string{
		"Content-Security-Policy": admin.ContentSecurityPolicy,
		"X-Frame-Options":         "DENY",
		"X-Content-Type-Options":  "nosniff",
		"Referrer-Policy":         "no-referrer",
		"Cache-Control":           "no-store",
	}
	for path, ctype := range map[string]string{"/admin": "text/html", "/admin/admin.js": "text/javascript", "/admin/admin.css": "text/css"} {
		resp, err := http.Get(s.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), ctype) || len(body) == 0 {
			t.Fatalf("%s: %d %s", path, resp.StatusCode, resp.Header.Get("Content-Type"))
		}
		for h, v := range want {
			if got := resp.Header.Get(h); got != v {
				t.Errorf("%s: %s = %q, want %q", path, h, got, v)
			}
		}
	}
	for _, directive := range []string{"default-src 'none'", "script-src 'self'", "style-src 'self'", "frame-ancestors 'none'"} {
		if !strings.Contains(admin.ContentSecurityPolicy, directive) {
			t.Errorf("the policy lacks %s", directive)
		}
	}
	if strings.Contains(admin.ContentSecurityPolicy, "unsafe-inline") {
		t.Error("the policy allows inline code")
	}
	_, page := get(t, s.URL+"/admin", "")
	html := strings.ToLower(string(page))
	for _, re := range []*regexp.Regexp{
		regexp.MustCompile(`<script(?:\s[^>]*)?>`), // every script tag...
		regexp.MustCompile(`<style`),
		regexp.MustCompile(`\sstyle\s*=`),
		regexp.MustCompile(`\son[a-z]+\s*=`),
		regexp.MustCompile(`javascript:`),
	} {
		for _, m := range re.FindAllString(html, -1) {
			if strings.HasPrefix(m, "<script") && strings.Contains(m, ` src="/admin/admin.js"`) {
				continue // ...but the page's own file
			}
			t.Errorf("the admin page has inline code: %s", m)
		}
	}
	disabled := startServerRoutes(t, func(rooms *room.Manager) map[string]http.Handler {
		return admin.Routes(admin.Config{Rooms: rooms})
	})
	for _, path := range []string{"/admin/admin.js", "/admin/admin.css"} {
		if code, _ := get(t, disabled.URL+path, ""); code != http.StatusNotFound {
			t.Errorf("%s without an admin token configured: %d, want 404", path, code)
		}
	}
}
