package transport

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/roomd/roomd/protocol"
	"github.com/roomd/roomd/room"
	"github.com/roomd/roomd/store"
	"github.com/roomd/roomd/transport/auth"
	"github.com/roomd/roomd/transport/client"
)

// The public rooms (GET /api/rooms) and quick play (POST /api/quickplay),
// over real HTTP and WebSockets on loopback.

// listPage is GET /api/rooms's answer.
type listPage struct {
	Rooms []room.Listed `json:"rooms"`
	Next  string        `json:"next"`
}

// listRooms GETs /api/rooms?query and returns the page and its raw bytes.
func (s *testServer) listRooms(t *testing.T, query string) (listPage, string) {
	t.Helper()
	status, raw := get(t, s.URL+"/api/rooms?"+query, "")
	if status != http.StatusOK {
		t.Fatalf("GET /api/rooms?%s: %d %s", query, status, raw)
	}
	var p listPage
	if err := json.Unmarshal(raw, &p); err != nil {
		t.Fatalf("GET /api/rooms?%s: %v", query, err)
	}
	return p, string(raw)
}

// listUntil polls the list (rebuilt at most once a second) until cond holds.
func (s *testServer) listUntil(t *testing.T, query, what string, cond func(listPage) bool) listPage {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		p, _ := s.listRooms(t, query)
		if cond(p) {
			return p
		}
		if time.Now().After(deadline) {
			t.Fatalf("GET /api/rooms?%s: timed out waiting for %s; last: %+v", query, what, p)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func codes(rooms []room.Listed) []string {
	out := make([]string, len(rooms))
	for i, r := range rooms {
		out[i] = r.Code
	}
	return out
}

// createAs POSTs /api/rooms with body and returns the result.
func (s *testServer) createWith(t *testing.T, body map[string]any) room.JoinResult {
	t.Helper()
	var res room.JoinResult
	if code := s.post("/api/rooms", body, &res); code != http.StatusCreated {
		t.Fatalf("create %v: status %d", body, code)
	}
	return res
}

// TestListRoomsOnlyPublic: the list holds the public rooms and never an
// unlisted or locked one, nor a token or invite; a room locked by its host
// leaves it, one made public joins it.
func TestListRoomsOnlyPublic(t *testing.T) {
	s := startServer(t)
	coop := json.RawMessage(`{"mode":"coop","level":"beginner"}`)
	var public, hidden []room.JoinResult
	for _, body := range []map[string]any{
		{"game": "minesweeper", "settings": coop, "name": "Pub1", "public": true},
		{"game": "minesweeper", "settings": coop, "name": "Pub2", "access": "public"},
		{"game": "nim", "name": "Pub3", "public": true, "access": "public"},
	} {
		public = append(public, s.createWith(t, body))
	}
	for _, body := range []map[string]any{
		{"game": "minesweeper", "settings": coop, "name": "Unl1"},
		{"game": "nim", "name": "Unl2", "access": "unlisted"},
		{"game": "minesweeper", "settings": coop, "name": "Lock1", "access": "locked"},
		{"game": "nim", "name": "Lock2", "access": "locked", "watchLocked": true},
		{"game": "minesweeper", "settings": coop, "name": "Unl3", "public": false},
	} {
		hidden = append(hidden, s.createWith(t, body))
	}
	p, raw := s.listRooms(t, "")
	want := []string{public[2].Room, public[1].Room, public[0].Room} // newest first
	if got := codes(p.Rooms); !sameSet(got, want) {
		t.Fatalf("listed %v, want the public rooms %v", got, want)
	}
	if p.Next != "" {
		t.Errorf("one page, yet next = %q", p.Next)
	}
	for _, res := range append(public, hidden...) {
		for _, secret := range []string{res.Token, res.Invite} {
			if secret != "" && strings.Contains(raw, secret) {
				t.Errorf("the list shows a token or invite: %s", raw)
			}
		}
	}
	for _, res := range hidden {
		if strings.Contains(raw, res.Room) {
			t.Errorf("the list shows unlisted or locked room %s: %s", res.Room, raw)
		}
	}

	// "public": true conflicts with another access.
	for _, access := range []string{"locked", "unlisted"} {
		var e struct{ Error string }
		if code := s.post("/api/rooms", map[string]any{"game": "nim", "name": "X", "public": true, "access": access}, &e); code != http.StatusBadRequest || !strings.Contains(e.Error, "public") {
			t.Errorf("public with access %s: %d %q, want 400", access, code, e.Error)
		}
	}

	// The host locks a public room: it leaves the list.
	host := s.dial("pub1", client.Config{Room: public[0].Room, Token: public[0].Token, Game: msPin})
	host.waitOnline()
	if rc := host.control(protocol.Control{Op: protocol.ControlAccess, Access: protocol.AccessLocked}); !rc.OK {
		t.Fatalf("lock: %+v", rc.Notice)
	}
	s.listUntil(t, "", "the locked room to leave", func(p listPage) bool {
		return !slices.Contains(codes(p.Rooms), public[0].Room) && len(p.Rooms) == 2
	})
	// And an unlisted room made public joins it.
	unl := s.dial("unl1", client.Config{Room: hidden[0].Room, Token: hidden[0].Token, Game: msPin})
	unl.waitOnline()
	if rc := unl.control(protocol.Control{Op: protocol.ControlAccess, Access: protocol.AccessPublic}); !rc.OK {
		t.Fatalf("publish: %+v", rc.Notice)
	}
	p = s.listUntil(t, "", "the room made public to join", func(p listPage) bool {
		return slices.Contains(codes(p.Rooms), hidden[0].Room)
	})
	if got := codes(p.Rooms); len(got) != 3 || slices.Contains(got, public[0].Room) {
		t.Errorf("listed %v after the changes", got)
	}
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// TestListRoomsFieldsOrderFilters: each room's fields; lobby rooms with a
// free seat first (newest first), then running rooms (most spectators
// first), then the rest; the filters; bad queries.
func TestListRoomsFieldsOrderFilters(t *testing.T) {
	s := startServer(t)
	coop := json.RawMessage(`{"level":"beginner","mode":"coop","extra":1}`)
	before := time.Now().UnixMilli()
	open := s.createWith(t, map[string]any{"game": "minesweeper", "settings": coop, "name": "Ann", "public": true})
	after := time.Now().UnixMilli()
	var bob room.JoinResult
	if code := s.post("/api/rooms/"+open.Room+"/join", map[string]any{"name": "Bob"}, &bob); code != http.StatusOK {
		t.Fatalf("join: %d", code)
	}
	// A full lobby: nim's four seats taken.
	full := s.createWith(t, map[string]any{"game": "nim", "name": "N0", "public": true})
	for i := 1; i < 4; i++ {
		if code := s.post("/api/rooms/"+full.Room+"/join", map[string]any{"name": fmt.Sprintf("N%d", i)}, nil); code != http.StatusOK {
			t.Fatalf("join nim: %d", code)
		}
	}
	// Two running rooms, one watched by two spectators, one by one.
	running := func(name string, spectators int) room.JoinResult {
		res := s.createWith(t, map[string]any{"game": "minesweeper", "settings": coop, "name": name, "public": true})
		p := s.dial(name, client.Config{Room: res.Room, Token: res.Token, Game: msPin})
		p.waitOnline()
		if rc := p.control(protocol.Control{Op: protocol.ControlStart}); !rc.OK {
			t.Fatalf("start: %+v", rc.Notice)
		}
		for range spectators {
			s.dial("spec", client.Config{Room: res.Room, Watch: true, Game: msPin}).waitOnline()
		}
		return res
	}
	run1 := running("Run1", 1)
	run2 := running("Run2", 2)
	newer := s.createWith(t, map[string]any{"game": "nim", "name": "Newer", "public": true})

	p := s.listUntil(t, "", "the spectators", func(p listPage) bool {
		n := map[string]int{}
		for _, r := range p.Rooms {
			n[r.Code] = r.Spectators
		}
		return n[run1.Room] == 1 && n[run2.Room] == 2
	})
	want := []string{newer.Room, open.Room, run2.Room, run1.Room, full.Room}
	if got := codes(p.Rooms); !slices.Equal(got, want) {
		t.Fatalf("order %v, want %v (open lobbies newest first, running by spectators, the rest)", got, want)
	}
	got := p.Rooms[1]
	wantOpen := room.Listed{Code: open.Room, Game: "minesweeper", Mode: "coop", Settings: got.Settings, Phase: "lobby",
		Seats: 2, MinSeats: 1, MaxSeats: 4, Free: 2, Spectators: 0, Players: []string{"Ann", "Bob"}, Host: "Ann", Created: got.Created}
	if !equalJSON(got, wantOpen) {
		t.Errorf("open room listed as %+v, want %+v", got, wantOpen)
	}
	if string(got.Settings) != `{"mode":"coop","level":"beginner"}` {
		t.Errorf("settings %s, want the canonical ones", got.Settings)
	}
	if got.Created < before || got.Created > after {
		t.Errorf("created %d, not within [%d, %d]", got.Created, before, after)
	}
	if r := p.Rooms[2]; r.Phase != "running" || r.Free != 0 || r.Seats != 1 || r.Host != "Run2" {
		t.Errorf("running room listed as %+v", r)
	}
	if r := p.Rooms[4]; r.Phase != "lobby" || r.Free != 0 || r.Seats != 4 || r.MaxSeats != 4 || len(r.Players) != 4 {
		t.Errorf("full room listed as %+v", r)
	}

	for _, c := range []struct {
		query string
		want  []string
	}{
		{"game=nim", []string{newer.Room, full.Room}},
		{"game=minesweeper&mode=coop", []string{open.Room, run2.Room, run1.Room}},
		{"phase=running", []string{run2.Room, run1.Room}},
		{"phase=lobby", []string{newer.Room, open.Room, full.Room}},
		{"game=nim&phase=running", []string{}},
		{"game=chess", []string{}},
		{"mode=race", []string{}},
	} {
		if p, _ := s.listRooms(t, c.query); !slices.Equal(codes(p.Rooms), c.want) || p.Next != "" {
			t.Errorf("%s: %v next %q, want %v", c.query, codes(p.Rooms), p.Next, c.want)
		}
	}
	for _, q := range []string{"limit=0", "limit=51", "limit=x", "limit=-1", "phase=ended", "phase=closed", "cursor=%21%21", "cursor=" + url.QueryEscape("YWJj")} {
		if status, body := get(t, s.URL+"/api/rooms?"+q, ""); status != http.StatusBadRequest {
			t.Errorf("%s: %d %s, want 400", q, status, body)
		}
	}
}

// TestListRoomsPaging: pages of limit rooms follow one another by their
// cursor, each room once, in the list's order, with filters kept.
func TestListRoomsPaging(t *testing.T) {
	s := startServer(t)
	var made []string
	for i := range 7 {
		made = append(made, s.createWith(t, map[string]any{"game": "nim", "name": fmt.Sprintf("P%d", i), "public": true}).Room)
		s.createWith(t, map[string]any{"game": "nim", "name": "hidden"}) // unlisted, between them
	}
	s.createWith(t, map[string]any{"game": "minesweeper", "settings": json.RawMessage(`{"mode":"race","level":"beginner"}`), "name": "Other", "public": true})
	all, _ := s.listRooms(t, "game=nim&limit=50")
	if !sameSet(codes(all.Rooms), made) {
		t.Fatalf("all: %v, want %v", codes(all.Rooms), made)
	}
	// Newest first; rooms made within the same millisecond by code.
	if !slices.IsSortedFunc(all.Rooms, func(x, y room.Listed) int {
		return cmp.Or(cmp.Compare(y.Created, x.Created), strings.Compare(x.Code, y.Code))
	}) {
		t.Fatalf("not newest first: %+v", all.Rooms)
	}
	made = codes(all.Rooms)
	if def, _ := s.listRooms(t, ""); len(def.Rooms) != 8 || def.Next != "" {
		t.Errorf("default page: %d rooms, next %q", len(def.Rooms), def.Next)
	}
	var paged []string
	var sizes []int
	cursor := ""
	for range 10 {
		q := "game=nim&limit=3"
		if cursor != "" {
			q += "&cursor=" + url.QueryEscape(cursor)
		}
		p, _ := s.listRooms(t, q)
		paged = append(paged, codes(p.Rooms)...)
		sizes = append(sizes, len(p.Rooms))
		if cursor = p.Next; cursor == "" {
			break
		}
	}
	if !slices.Equal(paged, made) || !slices.Equal(sizes, []int{3, 3, 1}) {
		t.Errorf("paged %v in pages of %v, want %v in 3, 3, 1", paged, sizes, made)
	}
	// A page of exactly the rest has no next.
	p, _ := s.listRooms(t, "game=nim&limit=7")
	if len(p.Rooms) != 7 || p.Next != "" {
		t.Errorf("limit 7 of 7: %d rooms, next %q", len(p.Rooms), p.Next)
	}
}

// quickPlay POSTs /api/quickplay and returns the status and answer.
func (s *testServer) quickPlay(t *testing.T, game, settings, name string) (int, room.QuickPlayResult) {
	t.Helper()
	body := map[string]any{"game": game, "name": name}
	if settings != "" {
		body["settings"] = json.RawMessage(settings)
	}
	var res room.QuickPlayResult
	return s.post("/api/quickplay", body, &res), res
}

// TestQuickPlay: players asking for the same settings (in any spelling)
// share a quick-play room until it is full; other settings, a host's
// public room, a full, running, unlisted or locked room get a new one; a
// one-seat mode is refused.
func TestQuickPlay(t *testing.T) {
	s := startServer(t)
	race := `{"mode":"race","level":"beginner"}`
	code, ann := s.quickPlay(t, "minesweeper", race, "Ann")
	if code != http.StatusCreated || !ann.Created || ann.Seat != 0 || ann.Token == "" || ann.Invite != "" {
		t.Fatalf("first quick play: %d %+v, want 201 created on seat 0", code, ann)
	}
	code, bob := s.quickPlay(t, "minesweeper", `{"level":"beginner","mode":"race","junk":true}`, "Bob")
	if code != http.StatusOK || bob.Created || bob.Room != ann.Room || bob.Seat != 1 {
		t.Fatalf("second quick play: %d %+v, want 200 in %s on seat 1", code, bob, ann.Room)
	}
	info := s.rooms.Rooms()
	if len(info) != 1 {
		t.Fatalf("%d rooms after two quick plays", len(info))
	}
	in := info[0].Info() // published after the batch the join's answer leaves from
	for deadline := time.Now().Add(5 * time.Second); len(in.Seats) < 2 && time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		in = info[0].Info()
	}
	if in.Access != protocol.AccessPublic || len(in.Seats) != 2 || in.Seats[1].Name != "Bob" {
		t.Errorf("the quick-play room: %+v", in)
	}
	// The seat works: Bob's token opens his seat.
	b := s.dial("bob", client.Config{Room: bob.Room, Token: bob.Token, Game: msPin})
	b.waitOnline()

	code, carl := s.quickPlay(t, "minesweeper", `{"mode":"race","level":"expert"}`, "Carl")
	if code != http.StatusCreated || carl.Room == ann.Room {
		t.Fatalf("other settings: %d %+v, want a new room", code, carl)
	}
	// Ann's room fills up (race: four seats); the fifth gets a new room.
	for _, name := range []string{"Dan", "Eve"} {
		if code, r := s.quickPlay(t, "minesweeper", race, name); code != http.StatusOK || r.Room != ann.Room {
			t.Fatalf("%s: %d %+v, want %s", name, code, r, ann.Room)
		}
	}
	code, fay := s.quickPlay(t, "minesweeper", race, "Fay")
	if code != http.StatusCreated || fay.Room == ann.Room || fay.Room == carl.Room {
		t.Fatalf("past a full room: %d %+v, want a new room", code, fay)
	}

	// A public room made with POST /api/rooms is its host's to start:
	// quick play makes its own (which starts by itself)...
	pile := `{"pile":15}`
	made := s.createWith(t, map[string]any{"game": "nim", "settings": json.RawMessage(pile), "name": "Host", "public": true})
	if code, r := s.quickPlay(t, "nim", pile, "Gus"); code != http.StatusCreated || r.Room == made.Room {
		t.Fatalf("a host's public room: %d %+v, want a new room, not %s", code, r, made.Room)
	}
	// ...and never fills one full, running, unlisted or locked.
	nim := func(body map[string]any) room.JoinResult {
		body["game"], body["settings"] = "nim", json.RawMessage(`{"pile":17}`)
		return s.createWith(t, body)
	}
	fullNim := nim(map[string]any{"name": "F0", "public": true})
	for i := 1; i < 4; i++ {
		if code := s.post("/api/rooms/"+fullNim.Room+"/join", map[string]any{"name": fmt.Sprintf("F%d", i)}, nil); code != http.StatusOK {
			t.Fatalf("fill: %d", code)
		}
	}
	runNim := nim(map[string]any{"name": "R0", "public": true})
	p := s.dial("r0", client.Config{Room: runNim.Room, Token: runNim.Token, Game: nimPin})
	p.waitOnline()
	if rc := p.control(protocol.Control{Op: protocol.ControlFillWithAI}); !rc.OK {
		t.Fatalf("fill with ai: %+v", rc.Notice)
	}
	if rc := p.control(protocol.Control{Op: protocol.ControlStart}); !rc.OK {
		t.Fatalf("start: %+v", rc.Notice)
	}
	unlisted := nim(map[string]any{"name": "U0"})
	locked := nim(map[string]any{"name": "L0", "access": "locked"})
	code, hal := s.quickPlay(t, "nim", `{"pile":17}`, "Hal")
	if code != http.StatusCreated || slices.Contains([]string{fullNim.Room, runNim.Room, unlisted.Room, locked.Room}, hal.Room) {
		t.Fatalf("past full, running, unlisted and locked rooms: %d %+v, want a new room", code, hal)
	}

	// A mode of one seat, an unknown game, bad settings, no game.
	for _, c := range []struct{ game, settings, why string }{
		{"minesweeper", `{"mode":"solo","level":"beginner"}`, "quick play is for modes with several seats"},
		{"chess", "", "unknown game"},
		{"minesweeper", `{"mode":"race","level":"huge"}`, "invalid settings"},
		{"", "", "game is required"},
	} {
		var e struct{ Error string }
		if code := s.post("/api/quickplay", map[string]any{"game": c.game, "settings": json.RawMessage(cmpOr(c.settings, "{}")), "name": "Z"}, &e); code != http.StatusBadRequest || !strings.Contains(e.Error, c.why) {
			t.Errorf("%s %s: %d %q, want 400 %q", c.game, c.settings, code, e.Error, c.why)
		}
	}
	// The quick-play rooms are listed.
	s.listUntil(t, "game=minesweeper&mode=race", "the quick-play rooms", func(p listPage) bool {
		return sameSet(codes(p.Rooms), []string{ann.Room, carl.Room, fay.Room})
	})
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// slowCreate is a store that takes a while to make a room: the window in
// which two quick plays could both find no room and both make one.
type slowCreate struct{ store.Store }

func (s slowCreate) Create(ctx context.Context, code string, snap store.Snapshot) (store.Lease, error) {
	time.Sleep(20 * time.Millisecond)
	return s.Store.Create(ctx, code, snap)
}

// TestQuickPlayRace: quick plays sent at once for the same two-seat
// settings fill rooms in turn: never two rooms with a free seat each.
func TestQuickPlayRace(t *testing.T) {
	s := startServer(t, func(rc *room.Config, _ *Config) { rc.Store = slowCreate{rc.Store} })
	const n = 8 // two rooms of four
	var wg sync.WaitGroup
	results := make([]room.QuickPlayResult, n)
	statuses := make([]int, n)
	for i := range n {
		wg.Go(func() {
			b, _ := json.Marshal(map[string]any{"game": "minesweeper", "settings": json.RawMessage(`{"mode":"race","level":"intermediate"}`), "name": fmt.Sprintf("P%d", i)})
			var res room.QuickPlayResult
			status, err := postJSON(s.URL+"/api/quickplay", json.RawMessage(b), &res)
			if err != nil {
				t.Error(err)
			}
			results[i], statuses[i] = res, status
		})
	}
	wg.Wait()
	perRoom, created := map[string]int{}, 0
	for i, r := range results {
		perRoom[r.Room]++
		if r.Created {
			created++
			if statuses[i] != http.StatusCreated {
				t.Errorf("created with status %d", statuses[i])
			}
		} else if statuses[i] != http.StatusOK {
			t.Errorf("joined with status %d", statuses[i])
		}
	}
	if len(perRoom) != 2 || created != 2 {
		t.Errorf("%d quick plays at once made %d rooms: %v", n, created, perRoom)
	}
	for code, k := range perRoom {
		if k != 4 {
			t.Errorf("room %s holds %d of the %d", code, k, n)
		}
	}
}

// TestQuickPlayQuotas: quick play spends a seat when it joins and a room
// when it makes one, from the same buckets as POST /api/rooms and join.
func TestQuickPlayQuotas(t *testing.T) {
	s := quotaServer(t, Quotas{Rooms: Limit{PerMinute: 2}, Joins: Limit{PerMinute: 2}}) // bursts of 1
	body := func(level string) string {
		return `{"game":"minesweeper","settings":{"mode":"coop","level":"` + level + `"},"name":"Q"}`
	}
	from := "203.0.113.9"
	if code, _ := do(t, http.MethodPost, s.URL+"/api/quickplay", from, body("beginner")); code != http.StatusCreated {
		t.Fatalf("first: %d", code)
	}
	if code, ra := do(t, http.MethodPost, s.URL+"/api/quickplay", from, body("expert")); code != http.StatusTooManyRequests || ra == "" {
		t.Fatalf("a second room: %d (Retry-After %q), want 429", code, ra)
	}
	if code, _ := do(t, http.MethodPost, s.URL+"/api/rooms", from, `{"game":"nim","name":"Q"}`); code != http.StatusTooManyRequests {
		t.Fatalf("create after quick play made a room: %d, want 429", code)
	}
	if code, _ := do(t, http.MethodPost, s.URL+"/api/quickplay", from, body("beginner")); code != http.StatusOK {
		t.Fatalf("a join: %d", code)
	}
	if code, _ := do(t, http.MethodPost, s.URL+"/api/quickplay", from, body("beginner")); code != http.StatusTooManyRequests {
		t.Fatalf("a second join: %d, want 429", code)
	}
	if code, _ := do(t, http.MethodPost, s.URL+"/api/quickplay", "203.0.113.10", body("beginner")); code != http.StatusOK {
		t.Fatalf("another address: %d", code)
	}
}

// TestQuickPlaySignIn: quick play takes the sign-in as create and join do:
// refused without it where it is required, the seat named by the site and
// holding the player id.
func TestQuickPlaySignIn(t *testing.T) {
	v, err := auth.New(auth.Config{Secret: siteSecret, Audience: "roomd"})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	s := startServer(t, func(_ *room.Config, tc *Config) { tc.Auth, tc.RequireAuth = v, true })
	body := map[string]any{"game": "nim", "name": "typed"}
	if code, out, _ := apiAs(t, s, "/api/quickplay", "", body); code != http.StatusUnauthorized {
		t.Fatalf("anonymous: %d %s, want 401", code, out)
	}
	soon := time.Now().Add(time.Hour)
	for i, who := range []struct{ sub, name string }{{"user-1", "Ann from the site"}, {"user-2", "Bob from the site"}} {
		tok := siteToken(t, siteSecret, jwt.SigningMethodHS256, "", claimsFor(who.sub, who.name, soon, "roomd"))
		code, out, _ := apiAs(t, s, "/api/quickplay", tok, body)
		if want := []int{http.StatusCreated, http.StatusOK}[i]; code != want {
			t.Fatalf("%s: %d %s, want %d", who.sub, code, out, want)
		}
	}
	rooms := s.rooms.Rooms()
	if len(rooms) != 1 {
		t.Fatalf("%d rooms", len(rooms))
	}
	// The room publishes its info after the batch that the join's answer
	// leaves from: wait for it.
	seats := rooms[0].Info().Seats
	for deadline := time.Now().Add(5 * time.Second); len(seats) < 2 && time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		seats = rooms[0].Info().Seats
	}
	if len(seats) != 2 || seats[0].Player != "user-1" || seats[0].Name != "Ann from the site" || seats[1].Player != "user-2" || seats[1].Name != "Bob from the site" {
		t.Errorf("seats %+v", seats)
	}
}
