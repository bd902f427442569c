package transport

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/roomd/roomd/core/minesweeper"
	"github.com/roomd/roomd/core/session"
	"github.com/roomd/roomd/room"
	"github.com/roomd/roomd/store"
	"github.com/roomd/roomd/store/memstore"
	"github.com/roomd/roomd/transport/client"
)

// TestFinishedMatchVerifies plays a solo match over real sockets with the
// server's own secret, then checks it as a player would: nothing received
// before the end holds the secret (in hex, base64 or as bytes) or a seed or
// secret field; the disclosed secret hashes to the commitment published at
// the start; the board re-derived from it is the one the player saw; the
// log replays to the result; POST /api/verify agrees, and refuses a
// tampered secret or result.
func TestFinishedMatchVerifies(t *testing.T) {
	s := startServer(t, func(rc *room.Config, _ *Config) { rc.Seeds = nil }) // the server's own secrets
	players, code := joinPlayers(t, s, `{"level":"beginner"}`, 1)
	p := players[0]
	spec := &msPlayer{tclient: s.dial("spectator", client.Config{Room: code, Watch: true, Game: msPin}), seat: -1}
	spec.waitOnline()
	var commitment string
	for i := 0; ; i++ {
		if i > 300 {
			t.Fatal("the game did not end")
		}
		p.follow()
		if p.ended {
			break
		}
		if commitment == "" {
			if snap := p.lastSnapshot(); snap != nil {
				commitment = snap.Room.Commitment
			}
			for _, ev := range p.snapshotEvents() {
				if ev.Update != nil && ev.Update.Room != nil && ev.Update.Room.Commitment != "" {
					commitment = ev.Update.Room.Commitment
				}
			}
		}
		rc := p.play()
		if !rc.OK {
			t.Fatalf("move refused: %+v", rc.Notice)
		}
		p.waitFor("the move", func([]client.Event) bool { return p.recordedRev() >= rc.Rev })
	}
	res := waitResult(t, []*msPlayer{p, spec})
	if len(commitment) != 64 {
		t.Fatalf("no commitment published at the start (got %q)", commitment)
	}
	var hexSeed string
	if err := json.Unmarshal(res.Seed, &hexSeed); err != nil || len(hexSeed) != 64 {
		t.Fatalf("result.seed = %s: want 64 hex digits", res.Seed)
	}
	secret, _ := hex.DecodeString(hexSeed)
	sum := sha256.Sum256(secret)
	if hex.EncodeToString(sum[:]) != commitment || res.Commitment != commitment {
		t.Fatalf("sha256(secret) = %x; commitment at the start %s, in the result %s", sum, commitment, res.Commitment)
	}

	// Nothing before the end holds the secret, in any encoding.
	forms := [][]byte{[]byte(hexSeed), []byte(strings.ToUpper(hexSeed)), []byte(base64.StdEncoding.EncodeToString(secret)),
		[]byte(base64.RawURLEncoding.EncodeToString(secret)), secret, []byte(strings.Trim(fmt.Sprint(secret), "[]"))}
	for _, c := range []*tclient{p.tclient, spec.tclient} {
		checked := 0
		for _, ev := range c.snapshotEvents() {
			if ev.Update != nil && ev.Update.Result != nil {
				break
			}
			if ev.Raw == nil {
				continue
			}
			checked++
			for _, f := range forms {
				if bytes.Contains(ev.Raw, f) {
					t.Fatalf("%s got the secret before the end: %s", c.name, ev.Raw)
				}
			}
			for _, key := range []string{`"seed"`, `"secret"`, `"secrets"`} {
				if bytes.Contains(ev.Raw, []byte(key)) {
					t.Fatalf("%s got a %s field before the end: %s", c.name, key, ev.Raw)
				}
			}
		}
		if checked < 3 {
			t.Fatalf("%s: only %d frames before the end", c.name, checked)
		}
		checkHiddenBoard(t, c, res)
	}

	// The board the secret gives is the one the player saw.
	seed := decodeSeed(t, res.Seed)
	var cfg minesweeper.Config
	json.Unmarshal(res.Config, &cfg)
	var log []session.Entry
	json.Unmarshal(res.Log, &log)
	var first minesweeper.Move
	json.Unmarshal(log[0].Move, &first)
	layout, err := minesweeper.Generate(seed, cfg, first.R, first.C)
	if err != nil {
		t.Fatal(err)
	}
	p.follow()
	shown := 0
	for _, c := range p.view.Cells {
		k := c.R*cfg.Cols + c.C
		if c.Status == minesweeper.Revealed && (c.Mine != layout.Mine[k] || (!c.Mine && c.Adjacent != layout.Adjacent[k])) {
			t.Fatalf("cell (%d,%d) shown %+v; the secret's board has mine %v adjacent %d", c.R, c.C, c, layout.Mine[k], layout.Adjacent[k])
		}
		if c.Mine && !layout.Mine[k] {
			t.Fatalf("cell (%d,%d) shown as a mine; the secret's board has none", c.R, c.C)
		}
		shown++
	}
	if shown == 0 {
		t.Fatal("the final view shows no cell")
	}
	v := session.Replay(minesweeper.Game, session.Record{Seed: seed, Config: res.Config, Log: log})
	if v.Status != res.Status || v.Time != res.TimeMs {
		t.Fatalf("replayed: %+v; the result says %s in %v ms", v, res.Status, res.TimeMs)
	}

	// POST /api/verify, with the room's replay and the commitment seen.
	status, raw := get(t, s.URL+"/api/rooms/"+code+"/replay", "")
	if status != http.StatusOK {
		t.Fatalf("replay: %d %s", status, raw)
	}
	var rec map[string]any
	json.Unmarshal(raw, &rec)
	rec["commitment"] = commitment
	var ver room.Verification
	if st := s.post("/api/verify", rec, &ver); st != http.StatusOK || !ver.Fair || !ver.Commitment.OK || !ver.Outcome.OK {
		t.Fatalf("verify: %d %+v", st, ver)
	}
	tampered := []byte(hexSeed)
	const digits = "0123456789abcdef"
	tampered[0] = digits[(strings.IndexByte(digits, tampered[0])+1)%len(digits)] // another hex digit (an 'f' became a 'g' before)
	rec["seed"] = string(tampered)
	if st := s.post("/api/verify", rec, &ver); st != http.StatusOK || ver.Fair || ver.Commitment.OK {
		t.Fatalf("verify of another secret: %d %+v", st, ver)
	}
	rec["seed"] = hexSeed
	result := rec["result"].(map[string]any)
	result["status"] = map[string]string{"won": "lost", "lost": "won"}[res.Status]
	if st := s.post("/api/verify", rec, &ver); st != http.StatusOK || ver.Fair || ver.Outcome.OK || !ver.Commitment.OK {
		t.Fatalf("verify of another outcome: %d %+v", st, ver)
	}
}

// TestReplaysAreNeverRanked: a replay is checked, never listed — not with
// its own seed, not at 0 ms (refused as implausible), not a thousand times
// under a thousand names; the entries already listed stay.
func TestReplaysAreNeverRanked(t *testing.T) {
	st := memstore.New()
	s := startServer(t, func(rc *room.Config, _ *Config) { rc.Store, rc.Leaderboards = st, st })
	// Two genuine results already on the beginner solo list.
	solo := store.Board{Game: "minesweeper", Board: "beginner", Kind: "solo"}
	for i, name := range []string{"Ann", "Bob"} {
		if err := st.Record(t.Context(), solo, store.Score{Name: name, Value: float64(30000 + i), Room: "ROOMXX", Match: 1, At: 1}); err != nil {
			t.Fatal(err)
		}
	}
	raw, err := os.ReadFile("../testdata/replay/g01.json")
	if err != nil {
		t.Fatal(err)
	}
	var body map[string]any
	json.Unmarshal(raw, &body)
	var verdict room.ReplayVerdict
	if code := s.post("/api/replays", body, &verdict); code != http.StatusBadRequest {
		t.Fatalf("a replay without its game: %d, want 400", code)
	}
	body["game"] = "minesweeper"
	if code := s.post("/api/replays", body, &verdict); code != http.StatusOK || !verdict.Valid || verdict.Ranked || verdict.Time != 34991 || verdict.Note == "" {
		t.Fatalf("a replay with its own seed: %d %+v", code, verdict)
	}
	// The same moves at 0 ms: valid rules, no human hand.
	var zero map[string]any
	json.Unmarshal(raw, &zero)
	zero["game"] = "minesweeper"
	for _, e := range zero["log"].([]any) {
		e.(map[string]any)["t"] = 0
	}
	if code := s.post("/api/replays", zero, &verdict); code != http.StatusOK || verdict.Valid || verdict.Reason == nil || !strings.Contains(*verdict.Reason, "implausible") {
		t.Fatalf("a 0 ms replay: %d %+v", code, verdict)
	}
	if code := s.post("/api/replays", map[string]any{"game": "minesweeper", "seed": 1, "config": map[string]any{}, "log": make([]int, 600_000)}, nil); code != http.StatusRequestEntityTooLarge {
		t.Fatalf("a replay over the size bound: %d", code)
	}
	// A thousand submissions from one client, under a thousand names.
	var wg sync.WaitGroup
	errs := make(chan string, 1000)
	for w := range 4 {
		wg.Go(func() {
			for i := w; i < 1000; i += 4 {
				b := bytes.Replace(raw, []byte(`{`), []byte(fmt.Sprintf(`{"game":"minesweeper","name":"Fake %d",`, i)), 1)
				var v room.ReplayVerdict
				code, err := postJSON(s.URL+"/api/replays", json.RawMessage(b), &v)
				if err != nil || code != http.StatusOK || !v.Valid || v.Ranked {
					errs <- fmt.Sprintf("submission %d: %d %v %+v", i, code, err, v)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
	for _, mode := range []string{"solo", "coop", "race"} {
		for _, period := range room.Periods {
			status, raw := get(t, s.URL+"/api/leaderboards/minesweeper/beginner?limit=100&mode="+mode+"&period="+period, "")
			var b room.Board
			if err := json.Unmarshal(raw, &b); err != nil || status != http.StatusOK {
				t.Fatalf("%s %s list: %d %s", mode, period, status, raw)
			}
			want := ""
			if mode == "solo" && period == room.PeriodAll {
				want = "Ann Bob"
			}
			var names []string
			for _, sc := range b.Scores {
				names = append(names, sc.Name)
			}
			if got := strings.Join(names, " "); got != want {
				t.Fatalf("%s %s list after 1,000 replays: %q, want %q", mode, period, got, want)
			}
		}
	}
	for _, bad := range []string{"/api/leaderboards/chess/x", "/api/leaderboards/minesweeper/custom-3x3x1", "/api/leaderboards/minesweeper/beginner?mode=duel"} {
		if code, _ := get(t, s.URL+bad, ""); code != http.StatusNotFound {
			t.Fatalf("%s: %d, want 404", bad, code)
		}
	}
	if code, _ := get(t, s.URL+"/api/leaderboards/minesweeper/beginner?limit=0", ""); code != http.StatusBadRequest {
		t.Fatalf("limit 0: %d", code)
	}
}
