package transport

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/roomd/roomd/core/minesweeper"
	"github.com/roomd/roomd/core/session"
	"github.com/roomd/roomd/protocol"
	"github.com/roomd/roomd/room"
	"github.com/roomd/roomd/store/memstore"
	"github.com/roomd/roomd/transport/client"
)

// TestRankedDaily plays the ranked daily as PROTOCOL.md §2.8 says it goes:
// everyone who plays it on a day gets the board of one secret, committed
// to all day (two players' same first click opens the same cells); the
// player's own result and the room's replay keep the secret sealed until
// the day ends; a name or an address plays once a day; the room plays one
// match, stays locked to watchers and keeps its settings; a win within
// the day goes on the day's list (and on no other); at the day's end the
// secret is disclosed, hashes to the commitment, derives as documented
// (HMAC-SHA256 under the server's daily key), and the match verifies; a
// match that ends after the day, or a daily room started after it, ranks
// nothing.
func TestRankedDaily(t *testing.T) {
	st := memstore.New()
	var now atomic.Int64
	now.Store(time.Date(2026, 12, 1, 23, 57, 0, 0, time.UTC).UnixMilli())
	tick := func(d time.Duration) { now.Add(d.Milliseconds()) }
	s := startServer(t, func(rc *room.Config, tc *Config) {
		rc.Store, rc.Leaderboards, rc.Claims = st, st, st
		rc.Now = func() time.Time { return time.UnixMilli(now.Load()) }
		tc.Quotas.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}
	})
	const settings = `{"mode":"solo","level":"beginner"}`
	dayEnd := time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC).UnixMilli()

	var daily room.DailyInfo
	getJSON(t, s.URL+"/api/daily/minesweeper/beginner", http.StatusOK, &daily)
	if daily.Day != "2026-12-01" || daily.Mode != "solo" || len(daily.Commitment) != 64 || daily.Seed != "" || daily.EndsAt != dayEnd || len(daily.Scores) != 0 {
		t.Fatalf("today's daily: %+v", daily)
	}
	for _, bad := range []string{"/api/daily/minesweeper/custom", "/api/daily/nim/beginner", "/api/daily/minesweeper/beginner?mode=race",
		"/api/daily/minesweeper/beginner?day=2026-12-02", "/api/daily/minesweeper/beginner?day=yesterday", "/api/daily/chess/beginner"} {
		getJSON(t, s.URL+bad, http.StatusNotFound, nil)
	}

	create := func(name, addr string) (int, room.JoinResult, string) {
		body, _ := json.Marshal(map[string]any{"game": "minesweeper", "settings": json.RawMessage(settings), "name": name, "daily": true})
		req, _ := http.NewRequest(http.MethodPost, s.URL+"/api/rooms", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Forwarded-For", addr)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var buf bytes.Buffer
		buf.ReadFrom(resp.Body)
		var res room.JoinResult
		json.Unmarshal(buf.Bytes(), &res)
		return resp.StatusCode, res, buf.String()
	}
	code, ann, _ := create("Ann", "10.0.0.1")
	if code != http.StatusCreated || ann.Invite == "" {
		t.Fatalf("Ann's daily: %d %+v", code, ann)
	}
	for _, again := range []struct{ name, addr, why string }{{"Zed", "10.0.0.1", "This address"}, {" ANN ", "10.0.0.9", `The name`}} {
		if code, _, body := create(again.name, again.addr); code != http.StatusConflict || !strings.Contains(body, again.why) {
			t.Fatalf("a second daily by %q from %s: %d %s", again.name, again.addr, code, body)
		}
	}
	if code, _, body := create("", "10.0.0.3"); code != http.StatusBadRequest || !strings.Contains(body, "name") {
		t.Fatalf("a daily without a name: %d %s", code, body)
	}
	code, bob, _ := create("Bob", "10.0.0.2")
	if code != http.StatusCreated {
		t.Fatalf("Bob's daily: %d", code)
	}
	code, cid, _ := create("Cid", "10.0.0.4") // started only after the day
	if code != http.StatusCreated {
		t.Fatalf("Cid's daily: %d", code)
	}

	// The room: locked to watchers, one match, the daily's settings.
	open := func(name string, jr room.JoinResult) *msPlayer {
		p := &msPlayer{tclient: s.dial(name, client.Config{Room: jr.Room, Token: jr.Token, Game: msPin})}
		p.waitOnline()
		return p
	}
	a, b, c := open("ann", ann), open("bob", bob), open("cid", cid)
	watcher := s.dial("watcher", client.Config{Room: ann.Room, Watch: true, Game: msPin})
	watcher.closedWith(protocol.CloseLocked)
	for _, ctl := range []protocol.Control{{Op: protocol.ControlAccess, Access: protocol.AccessPublic},
		{Op: protocol.ControlSettings, Settings: json.RawMessage(`{"mode":"solo","level":"expert"}`)}} {
		if rc := a.control(ctl); rc.OK {
			t.Fatalf("%s in a daily room was accepted", ctl.Op)
		}
	}
	for _, p := range []*msPlayer{a, b} {
		if rc := p.control(protocol.Control{Op: protocol.ControlStart}); !rc.OK {
			t.Fatalf("%s: start: %+v", p.name, rc.Notice)
		}
		p.waitFor("the match", func([]client.Event) bool { p.follow(); return p.have })
		if info := p.lastRoom(); info.Daily != "2026-12-01" || info.Commitment != daily.Commitment {
			t.Fatalf("%s's room: daily %q commitment %q; the day's is %q", p.name, info.Daily, info.Commitment, daily.Commitment)
		}
	}

	// The same first click opens the same cells on both boards.
	first := minesweeper.Move{Type: minesweeper.Reveal, R: 4, C: 4}
	for _, p := range []*msPlayer{a, b} {
		tick(time.Second)
		p.move(first)
	}
	if !equalJSON(a.view, b.view) {
		t.Fatalf("one daily, two boards:\n%+v\n%+v", a.view, b.view)
	}

	// The day's board, derived as documented from the server's daily key.
	key, _, err := st.Claim(t.Context(), "daily/key", nil, 0)
	if err != nil || len(key) != 32 {
		t.Fatalf("daily key: %x %v", key, err)
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte("roomd daily/1\x00minesweeper\x00solo\x00beginner\x002026-12-01"))
	var secret [session.SeedBytes]byte
	copy(secret[:], mac.Sum(nil))
	if got := session.SecretSeed(secret).Commitment(); got != daily.Commitment {
		t.Fatalf("HMAC-derived secret commits to %s, the server published %s", got, daily.Commitment)
	}
	cfg, err := minesweeper.DecodeConfig([]byte(settings))
	if err != nil {
		t.Fatal(err)
	}
	layout, err := minesweeper.Generate(session.SecretSeed(secret), cfg, first.R, first.C)
	if err != nil {
		t.Fatal(err)
	}
	// clearBoard reveals every safe cell of p's board, a second apart.
	clearBoard := func(p *msPlayer) {
		for k, mine := range layout.Mine {
			if p.ended {
				return
			}
			if !mine && !p.revealed(k/cfg.Cols, k%cfg.Cols) {
				tick(time.Second)
				p.move(minesweeper.Move{Type: minesweeper.Reveal, R: k / cfg.Cols, C: k % cfg.Cols})
			}
		}
	}
	clearBoard(a) // Ann wins within the day
	res := waitResult(t, []*msPlayer{a})
	if res.Status != "won" || len(res.Seed) != 0 || res.SealedUntil != dayEnd || res.Commitment != daily.Commitment {
		t.Fatalf("Ann's result: status %s seed %s sealedUntil %d commitment %s", res.Status, res.Seed, res.SealedUntil, res.Commitment)
	}
	hexSecret := hex.EncodeToString(secret[:])
	for _, ev := range a.snapshotEvents() {
		if bytes.Contains(ev.Raw, []byte(hexSecret)) || bytes.Contains(ev.Raw, []byte(`"seed"`)) {
			t.Fatalf("Ann got the day's secret before the day's end: %s", ev.Raw)
		}
	}
	status, raw := get(t, s.URL+"/api/rooms/"+ann.Room+"/replay", "")
	if status != http.StatusOK || bytes.Contains(raw, []byte(hexSecret)) || bytes.Contains(raw, []byte(`"seed"`)) {
		t.Fatalf("replay before the day's end: %d %s", status, raw)
	}
	if rc := a.control(protocol.Control{Op: protocol.ControlRematch}); rc.OK {
		t.Fatal("a rematch in a daily room was accepted")
	}
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) { // the leaderboard writer is asynchronous
		if getJSON(t, s.URL+"/api/daily/minesweeper/beginner", http.StatusOK, &daily); len(daily.Scores) == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("Ann is not on the day's list: %+v", daily)
		}
	}
	if sc := daily.Scores[0]; sc.Name != "Ann" || sc.Room != ann.Room || sc.Value != res.TimeMs {
		t.Fatalf("the day's list: %+v", daily.Scores)
	}
	var solo struct{ Scores []any }
	getJSON(t, s.URL+"/api/leaderboards/minesweeper/beginner?mode=solo&period=day", http.StatusOK, &solo)
	if len(solo.Scores) != 0 {
		t.Fatalf("a daily went on the solo list: %+v", solo.Scores)
	}

	// The day ends. Its secret is out; Ann's match verifies.
	now.Store(dayEnd + 5000)
	getJSON(t, s.URL+"/api/daily/minesweeper/beginner?day=2026-12-01", http.StatusOK, &daily)
	if daily.Seed != hexSecret {
		t.Fatalf("the day's secret after its end: %q, want %s", daily.Seed, hexSecret)
	}
	status, raw = get(t, s.URL+"/api/rooms/"+ann.Room+"/replay", "")
	var rec map[string]any
	if json.Unmarshal(raw, &rec); status != http.StatusOK || rec["seed"] != hexSecret {
		t.Fatalf("replay after the day's end: %d %s", status, raw)
	}
	rec["commitment"] = daily.Commitment
	var ver room.Verification
	if code := s.post("/api/verify", rec, &ver); code != http.StatusOK || !ver.Fair {
		t.Fatalf("verify Ann's daily: %d %+v", code, ver)
	}
	if snap := a.resync(); snap.Result == nil || string(snap.Result.Seed) != `"`+hexSecret+`"` || snap.Result.SealedUntil != 0 {
		t.Fatalf("Ann's snapshot after the day: %+v", snap.Result)
	}

	// Bob wins after the day's end: not ranked. Cid cannot start at all.
	clearBoard(b)
	if res := waitResult(t, []*msPlayer{b}); res.Status != "won" || res.SealedUntil != 0 {
		t.Fatalf("Bob's result: %+v", res)
	}
	if rc := c.control(protocol.Control{Op: protocol.ControlStart}); rc.OK || rc.Notice == nil || !strings.Contains(rc.Notice.Message, "over") {
		t.Fatalf("Cid started yesterday's daily: %+v", rc)
	}
	time.Sleep(100 * time.Millisecond) // the leaderboard writer is asynchronous
	getJSON(t, s.URL+"/api/daily/minesweeper/beginner?day=2026-12-01", http.StatusOK, &daily)
	if len(daily.Scores) != 1 {
		t.Fatalf("the day's list after its end: %+v", daily.Scores)
	}
	// Today's daily is another board.
	var today room.DailyInfo
	getJSON(t, s.URL+"/api/daily/minesweeper/beginner", http.StatusOK, &today)
	if today.Day != "2026-12-02" || today.Commitment == daily.Commitment || today.Seed != "" {
		t.Fatalf("the next day's daily: %+v", today)
	}
}

// move sends one Minesweeper move and waits until its update is in.
func (p *msPlayer) move(m minesweeper.Move) {
	p.t.Helper()
	b, _ := json.Marshal(m)
	rc := p.command(string(b))
	if !rc.OK {
		p.t.Fatalf("%s: %s refused: %+v", p.name, b, rc.Notice)
	}
	p.waitFor("the move", func([]client.Event) bool { return p.recordedRev() >= rc.Rev })
	p.follow()
}

// revealed reports whether the player's view shows (r, c) open.
func (p *msPlayer) revealed(r, c int) bool {
	for _, cell := range p.view.Cells {
		if cell.R == r && cell.C == c {
			return cell.Status == minesweeper.Revealed
		}
	}
	return false
}

// lastRoom is the room as the player last heard of it.
func (p *msPlayer) lastRoom() protocol.Room {
	var info protocol.Room
	for _, ev := range p.snapshotEvents() {
		switch {
		case ev.Snapshot != nil:
			info = ev.Snapshot.Room
		case ev.Update != nil && ev.Update.Room != nil:
			info = *ev.Update.Room
		}
	}
	return info
}

func equalJSON(x, y any) bool {
	a, _ := json.Marshal(x)
	b, _ := json.Marshal(y)
	return bytes.Equal(a, b)
}

// getJSON GETs url, checks the status and decodes the answer into out.
func getJSON(t *testing.T, url string, want int, out any) {
	t.Helper()
	status, raw := get(t, url, "")
	if status != want {
		t.Fatalf("GET %s: %d %s, want %d", url, status, raw, want)
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			t.Fatalf("GET %s: %v", url, err)
		}
	}
}
