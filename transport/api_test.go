package transport

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
)

// TestJSONContentTypeRequired: the JSON endpoints take only bodies sent as
// application/json, so a cross-site HTML form (text/plain, urlencoded,
// multipart) cannot create or join rooms or submit replays.
func TestJSONContentTypeRequired(t *testing.T) {
	s := startServer(t)
	created := s.create("nim", `{}`, "Ann")
	replay, err := os.ReadFile("../testdata/replay/g01.json")
	if err != nil {
		t.Fatal(err)
	}
	var rec map[string]any
	json.Unmarshal(replay, &rec)
	rec["game"], rec["name"] = "minesweeper", "Ann"
	replay, _ = json.Marshal(rec)
	bodies := map[string]string{
		"/api/rooms":                           `{"game":"nim","name":"Eve","settings":{}}`,
		"/api/rooms/" + created.Room + "/join": `{"name":"Eve"}`,
		"/api/replays":                         string(replay),
	}
	post := func(path, ctype string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, s.URL+path, strings.NewReader(bodies[path]))
		if ctype != "" {
			req.Header.Set("Content-Type", ctype)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	for path := range bodies {
		for _, ctype := range []string{"text/plain", "text/plain;charset=UTF-8", "application/x-www-form-urlencoded",
			"multipart/form-data; boundary=x", "", "application/json; charset=latin1", "application/jsonx", "json"} {
			code, body := post(path, ctype)
			var e struct{ Error string }
			if code != http.StatusUnsupportedMediaType || json.Unmarshal([]byte(body), &e) != nil || !strings.Contains(e.Error, "application/json") {
				t.Errorf("POST %s as %q: %d %s; want 415 naming application/json", path, ctype, code, body)
			}
		}
	}
	if n := len(s.rooms.Rooms()); n != 1 {
		t.Fatalf("%d rooms after refused posts, want the first one only", n)
	}
	if info := s.rooms.Rooms()[0].Stats(); len(info.Seats) != 1 {
		t.Fatalf("seats after refused joins: %+v", info.Seats)
	}
	want := map[string]int{"/api/rooms": http.StatusCreated, "/api/rooms/" + created.Room + "/join": http.StatusOK, "/api/replays": http.StatusOK}
	for path, status := range want {
		for _, ctype := range []string{"application/json", "application/json; charset=utf-8", "Application/JSON;charset=UTF-8"} {
			if code, body := post(path, ctype); code != status {
				t.Errorf("POST %s as %q: %d %s, want %d", path, ctype, code, body, status)
			}
		}
	}
}
