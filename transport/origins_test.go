package transport

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/coder/websocket"

	"github.com/roomd/roomd/room"
	"github.com/roomd/roomd/transport/client"
)

// TestOrigins: --origins entries are whole origins; scheme, host and port
// must match, a bare host means https, and "*." is any name under a domain.
// The same origin is allowed whatever the list.
func TestOrigins(t *testing.T) {
	s := startServer(t, func(_ *room.Config, c *Config) {
		c.Origins = []string{"https://games.example", "*.cdn.example", "http://localhost:3000", "https://*.play.example:8443", "HTTP://Upper.Example"}
	})
	u, _ := client.SocketURL(s.URL)
	dial := func(origin string) (int, error) {
		h := http.Header{}
		h.Set("Origin", origin)
		ws, resp, err := websocket.Dial(context.Background(), u, &websocket.DialOptions{HTTPHeader: h})
		if err == nil {
			ws.CloseNow()
			return http.StatusSwitchingProtocols, nil
		}
		if resp == nil {
			return 0, err
		}
		b, _ := io.ReadAll(resp.Body)
		if !strings.Contains(string(b), "origin") {
			t.Errorf("refusal of %s does not name the origin: %s", origin, b)
		}
		return resp.StatusCode, err
	}
	for _, tc := range []struct {
		origin string
		ok     bool
	}{
		{s.URL, true}, // same origin
		{strings.Replace(s.URL, "http", "https", 1), true}, // same host and port behind a TLS proxy
		{"", true}, // not a browser
		{"https://games.example", true},
		{"https://games.example:443", true},   // default port
		{"http://games.example", false},       // scheme mismatch
		{"https://games.example:8443", false}, // port mismatch
		{"https://www.games.example", false},  // no wildcard
		{"https://a.cdn.example", true},       // bare wildcard: https
		{"https://a.b.cdn.example", true},
		{"http://a.cdn.example", false}, // bare means https only
		{"https://cdn.example", false},  // the wildcard is not the domain itself
		{"https://evilcdn.example", false},
		{"http://localhost:3000", true},
		{"http://localhost:3001", false},
		{"https://localhost:3000", false},
		{"http://localhost", false},
		{"https://x.play.example:8443", true},
		{"https://x.play.example", false},
		{"http://upper.example", true}, // case-insensitive
		{"http://evil.example", false},
		{"null", false},
		{"file://", false},
	} {
		code, err := dial(tc.origin)
		switch {
		case tc.ok && code != http.StatusSwitchingProtocols:
			t.Errorf("Origin %q refused: %d %v", tc.origin, code, err)
		case !tc.ok && code != http.StatusForbidden:
			t.Errorf("Origin %q: %d, want 403", tc.origin, code)
		}
	}
}

func TestOriginsValidated(t *testing.T) {
	s := startServer(t)
	for _, bad := range []string{"ftp://example.com", "https://example.com/path", "https://ex*ample.com", "https://*", "https://a.*.example.com", "https://user@example.com"} {
		if _, err := NewServer(Config{Rooms: s.rooms, Origins: []string{bad}}); err == nil {
			t.Errorf("origin %q accepted", bad)
		}
	}
}
