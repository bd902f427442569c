package floor

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func startFloor(t *testing.T, batch bool) string {
	t.Helper()
	f := New(Config{SeparateReceipt: !batch})
	hs := httptest.NewServer(f.Handler())
	t.Cleanup(func() {
		f.Close()
		hs.Close()
	})
	return hs.URL
}

// post sends body to url and decodes the seat answer.
func post(t *testing.T, url, body string, want int) (code, token string, seat int) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var a struct {
		Room, Token string
		Seat        int
	}
	if resp.StatusCode != want {
		t.Fatalf("POST %s: status %d, want %d", url, resp.StatusCode, want)
	}
	if err := json.NewDecoder(resp.Body).Decode(&a); err != nil {
		t.Fatal(err)
	}
	return a.Room, a.Token, a.Seat
}

// dial opens a socket, says hello and reads the welcome and the snapshot.
func dial(t *testing.T, ctx context.Context, url, code, token string) *websocket.Conn {
	t.Helper()
	ws, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(url, "http")+"/ws", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.CloseNow() })
	hello := `{"type":"hello","room":"` + code + `","token":"` + token + `","game":{"id":"minesweeper","rulesVersion":"minesweeper/1"}}`
	if err := ws.Write(ctx, websocket.MessageText, []byte(hello)); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"welcome", "snapshot"} {
		if msgs := read(t, ctx, ws); len(msgs) != 1 || msgs[0]["type"] != want {
			t.Fatalf("got %v, want a %s", msgs, want)
		}
	}
	return ws
}

// read reads one frame: one message, or an array of them.
func read(t *testing.T, ctx context.Context, ws *websocket.Conn) []map[string]any {
	t.Helper()
	_, data, err := ws.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var msgs []map[string]any
	if data[0] != '[' {
		data = append(append([]byte{'['}, data...), ']')
	}
	if err := json.Unmarshal(data, &msgs); err != nil {
		t.Fatalf("%s: %v", data, err)
	}
	return msgs
}

func TestRelay(t *testing.T) {
	for _, tc := range []struct {
		name         string
		batch        bool
		senderFrames int
	}{{"batched", true, 1}, {"separate", false, 2}} {
		t.Run(tc.name, func(t *testing.T) {
			url := startFloor(t, tc.batch)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			code, tok0, seat0 := post(t, url+"/api/rooms", `{"game":"minesweeper","settings":{"mode":"coop","level":"expert"},"name":"P0"}`, http.StatusCreated)
			code1, tok1, seat1 := post(t, url+"/api/rooms/"+code+"/join", `{"name":"P1"}`, http.StatusOK)
			if len(code) != 6 || strings.Trim(code, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") != "" || code1 != code || seat0 != 0 || seat1 != 1 {
				t.Fatalf("create %q seat %d, join %q seat %d", code, seat0, code1, seat1)
			}
			post(t, url+"/api/rooms/NOROOM/join", `{}`, http.StatusNotFound)
			a, b := dial(t, ctx, url, code, tok0), dial(t, ctx, url, code, tok1)

			action := `{"type":"command","id":"a1b2","rev":12,"command":{"type":"flag","r":7,"c":29}}`
			if err := b.Write(ctx, websocket.MessageText, []byte(action)); err != nil {
				t.Fatal(err)
			}
			var got []map[string]any
			for range tc.senderFrames {
				got = append(got, read(t, ctx, b)...)
			}
			if len(got) != 2 {
				t.Fatalf("the sender got %v", got)
			}
			var receipt, update map[string]any
			for _, m := range got {
				switch m["type"] {
				case "receipt":
					receipt = m
				case "update":
					update = m
				}
			}
			if receipt["id"] != "a1b2" || receipt["ok"] != true || receipt["rev"] != 13.0 {
				t.Errorf("receipt %v", receipt)
			}
			other := read(t, ctx, a)
			for _, u := range []map[string]any{update, other[0]} {
				beats, _ := u["beats"].([]any)
				if u["type"] != "update" || u["from"] != 12.0 || u["to"] != 13.0 || u["by"] != 1.0 || len(beats) != 1 {
					t.Fatalf("update %v", u)
				}
				if beat := beats[0].(map[string]any); beat["r"] != 7.0 || beat["c"] != 29.0 || beat["flagged"] != true {
					t.Errorf("beat %v", beat)
				}
			}
		})
	}
}

func TestMetrics(t *testing.T) {
	url := startFloor(t, true)
	resp, err := http.Get(url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	for _, want := range []string{"\nprocess_cpu_seconds_total ", "\ngo_goroutines "} {
		if !strings.Contains(string(body), want) {
			t.Errorf("/metrics has no %q", strings.TrimSpace(want))
		}
	}
}
