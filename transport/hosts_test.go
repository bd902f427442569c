package transport

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/coder/websocket"

	"github.com/roomd/roomd/room"
	"github.com/roomd/roomd/transport/client"
)

// TestPublicHosts: a request whose Host is neither an IP literal, nor
// localhost, nor a --public-host name is refused with 421, whatever its
// path, even with an Origin that matches it (DNS rebinding); the others are
// served, WebSocket upgrades included.
func TestPublicHosts(t *testing.T) {
	s := startServer(t, func(_ *room.Config, c *Config) { c.PublicHosts = []string{"games.example.com", "roomd"} })
	_, port, _ := strings.Cut(strings.TrimPrefix(s.URL, "http://"), ":")
	request := func(t *testing.T, method, host, path, body string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest(method, s.URL+path, strings.NewReader(body))
		req.Host = host
		req.Header.Set("Origin", "http://"+host)
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	upgrade := func(t *testing.T, host string) error {
		t.Helper()
		u, _ := client.SocketURL(s.URL)
		h := http.Header{}
		h.Set("Origin", "http://"+host)
		ws, _, err := websocket.Dial(context.Background(), u, &websocket.DialOptions{Host: host, HTTPHeader: h})
		if err == nil {
			ws.CloseNow()
		}
		return err
	}
	create := `{"game":"nim","name":"Ann","settings":{}}`

	for _, host := range []string{"evil.example", "evil.example:" + port, "games.example.com.evil.example", "localhost.evil.example", "roomd2"} {
		t.Run("refused "+host, func(t *testing.T) {
			for _, path := range []string{"/api/games", "/healthz", "/", "/api/rooms/ABCDEF"} {
				code, body := request(t, http.MethodGet, host, path, "")
				var e struct{ Error string }
				if code != http.StatusMisdirectedRequest || json.Unmarshal([]byte(body), &e) != nil || !strings.Contains(e.Error, "--public-host") {
					t.Errorf("GET %s with Host %s: %d %s; want 421 naming --public-host", path, host, code, body)
				}
			}
			if code, _ := request(t, http.MethodPost, host, "/api/rooms", create); code != http.StatusMisdirectedRequest {
				t.Errorf("POST /api/rooms with Host %s: %d, want 421", host, code)
			}
			if err := upgrade(t, host); err == nil || !strings.Contains(err.Error(), "421") {
				t.Errorf("upgrade with Host %s: %v, want 421", host, err)
			}
		})
	}
	if n := len(s.rooms.Rooms()); n != 0 {
		t.Fatalf("%d rooms created through refused hosts", n)
	}
	for _, host := range []string{"127.0.0.1:" + port, "127.0.0.1", "localhost:" + port, "LOCALHOST", "[::1]:" + port,
		"games.example.com", "Games.Example.COM:443", "games.example.com.", "roomd:" + port} {
		t.Run("served "+host, func(t *testing.T) {
			if code, body := request(t, http.MethodGet, host, "/api/games", ""); code != http.StatusOK {
				t.Errorf("GET /api/games with Host %s: %d %s", host, code, body)
			}
			if code, body := request(t, http.MethodPost, host, "/api/rooms", create); code != http.StatusCreated {
				t.Errorf("POST /api/rooms with Host %s: %d %s", host, code, body)
			}
			if err := upgrade(t, host); err != nil {
				t.Errorf("upgrade with Host %s: %v", host, err)
			}
		})
	}
}

func TestPublicHostsDefault(t *testing.T) {
	s := startServer(t)
	req, _ := http.NewRequest(http.MethodGet, s.URL+"/api/games", nil)
	req.Host = "roomd"
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMisdirectedRequest {
		t.Fatalf("a host name without --public-host: %d, want 421", resp.StatusCode)
	}
}

func TestPublicHostsValidated(t *testing.T) {
	s := startServer(t)
	for _, bad := range []string{"https://games.example.com", "games.example.com:8080", "*.example.com", "a/b"} {
		if _, err := NewServer(Config{Rooms: s.rooms, PublicHosts: []string{bad}}); err == nil {
			t.Errorf("public host %q accepted", bad)
		}
	}
}
