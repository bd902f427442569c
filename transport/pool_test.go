package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/roomd/roomd/core/nim"
	"github.com/roomd/roomd/core/session"
	"github.com/roomd/roomd/core/tictactoe"
	"github.com/roomd/roomd/internal/testredis"
	"github.com/roomd/roomd/room"
	"github.com/roomd/roomd/store"
	"github.com/roomd/roomd/store/memstore"
	"github.com/roomd/roomd/store/redisstore"
	"github.com/roomd/roomd/transport/auth"
)

// ratings rates the players it knows, and 1500 the others.
type ratings map[string]float64

func (r ratings) PoolRating(_ context.Context, game, mode, player string) (float64, error) {
	if v, ok := r[player]; ok {
		return v, nil
	}
	return room.DefaultRating().Rating, nil
}

func siteVerifier(t testing.TB) *auth.Verifier {
	t.Helper()
	v, err := auth.New(auth.Config{Secret: siteSecret})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(v.Close)
	return v
}

// playerToken is a site token for player.
func playerToken(t *testing.T, player string) string {
	return siteToken(t, siteSecret, jwt.SigningMethodHS256, "", claimsFor(player, "Name "+player, time.Now().Add(time.Hour), ""))
}

// withPool gives a test server an in-process pool, a rater and sign-in.
func withPool(t testing.TB, r ratings) serverOpt {
	return func(rc *room.Config, c *Config) {
		rc.Games = session.NewRegistry(nim.Game, tictactoe.Game)
		rc.Pool, rc.Ratings = memstore.NewPool(), rc.Store.(*memstore.Memory)
		if r != nil {
			rc.Rater = r
		}
		c.Auth = siteVerifier(t)
	}
}

// ratedCall sends a rated quick-play request: method on path with body (nil
// for none) as token's player; it returns the status and the body.
func ratedCall(ctx context.Context, t *testing.T, base, method, path, token string, body any) (int, []byte) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequestWithContext(ctx, method, base+path, rd)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return 0, nil
		}
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, data
}

type ticketWire struct {
	room.PoolStatus
	Poll string `json:"poll"`
}

func enterRated(t *testing.T, base, token string, settings string) ticketWire {
	t.Helper()
	code, body := ratedCall(t.Context(), t, base, http.MethodPost, "/api/quickplay", token,
		map[string]any{"game": "tictactoe", "rated": true, "settings": json.RawMessage(settings)})
	var tk ticketWire
	if code != http.StatusAccepted || json.Unmarshal(body, &tk) != nil || tk.Ticket == "" || tk.Poll != "/api/quickplay/"+tk.Ticket {
		t.Fatalf("rated quick play: %d %s", code, body)
	}
	return tk
}

// waitSeat long-polls a ticket until it is settled.
func waitSeat(t *testing.T, base, token string, tk ticketWire) room.PoolSeat {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		code, body := ratedCall(t.Context(), t, base, http.MethodGet, tk.Poll+"?waitMs=2000", token, nil)
		var st ticketWire
		if code != http.StatusOK || json.Unmarshal(body, &st) != nil {
			t.Fatalf("poll: %d %s", code, body)
		}
		if st.State == store.TicketSettled {
			if st.Outcome == nil || st.Outcome.Error != "" || st.Outcome.Room == "" || st.Outcome.Token == "" {
				t.Fatalf("settled without a seat: %s", body)
			}
			return *st.Outcome
		}
	}
	t.Fatalf("ticket %s not settled in 20 s", tk.Ticket)
	return room.PoolSeat{}
}

// TestRatedQuickPlayRefusals: anonymous players and servers without
// sign-in are refused 401 with the reason; one ticket a player; bad
// settings and waits; a ticket is its player's only; one poll at a time.
func TestRatedQuickPlayRefusals(t *testing.T) {
	t.Parallel()
	s := startServer(t, withPool(t, nil))
	body := map[string]any{"game": "tictactoe", "rated": true}
	code, raw := ratedCall(t.Context(), t, s.URL, http.MethodPost, "/api/quickplay", "", body)
	if code != http.StatusUnauthorized || !strings.Contains(string(raw), "signed-in players") {
		t.Fatalf("anonymous: %d %s", code, raw)
	}
	plain := startServer(t)
	code, raw = ratedCall(t.Context(), t, plain.URL, http.MethodPost, "/api/quickplay", playerToken(t, "ann"), body)
	if code != http.StatusUnauthorized || !strings.Contains(string(raw), "does not take sign-in tokens") {
		t.Fatalf("a server without sign-in: %d %s", code, raw)
	}
	ann, bob := playerToken(t, "ann"), playerToken(t, "bob")
	for _, tc := range []struct {
		settings string
		want     int
		words    string
	}{
		{`{"clock":{"moveMs":10}}`, http.StatusBadRequest, "moveMs must be 1000 to"},
		{`{"mode":"nope"}`, http.StatusBadRequest, "mode"},
	} {
		code, raw := ratedCall(t.Context(), t, s.URL, http.MethodPost, "/api/quickplay", ann,
			map[string]any{"game": "tictactoe", "rated": true, "settings": json.RawMessage(tc.settings)})
		if code != tc.want || !strings.Contains(string(raw), tc.words) {
			t.Errorf("%s: %d %s; want %d with %q", tc.settings, code, raw, tc.want, tc.words)
		}
	}
	tk := enterRated(t, s.URL, ann, `{"clock":{"moveMs":5000}}`)
	if tk.Pool != "tictactoe/classic/move5000" || tk.State != store.TicketWaiting || tk.Window != 100 {
		t.Fatalf("ticket %+v", tk)
	}
	if code, raw := ratedCall(t.Context(), t, s.URL, http.MethodPost, "/api/quickplay", ann, body); code != http.StatusConflict {
		t.Fatalf("a second ticket: %d %s", code, raw)
	}
	if code, raw := ratedCall(t.Context(), t, s.URL, http.MethodGet, tk.Poll, bob, nil); code != http.StatusNotFound {
		t.Fatalf("another player's poll: %d %s", code, raw)
	}
	if code, raw := ratedCall(t.Context(), t, s.URL, http.MethodDelete, tk.Poll, bob, nil); code != http.StatusNotFound {
		t.Fatalf("another player's cancel: %d %s", code, raw)
	}
	if code, raw := ratedCall(t.Context(), t, s.URL, http.MethodGet, tk.Poll, "", nil); code != http.StatusUnauthorized {
		t.Fatalf("an anonymous poll: %d %s", code, raw)
	}
	if code, raw := ratedCall(t.Context(), t, s.URL, http.MethodGet, tk.Poll+"?waitMs=99999", ann, nil); code != http.StatusBadRequest {
		t.Fatalf("waitMs out of bounds: %d %s", code, raw)
	}
	// One poll at a time: a second poll while one is held is refused.
	time.Sleep(150 * time.Millisecond) // past the least gap between polls
	held := make(chan struct{})
	go func() {
		defer close(held)
		ratedCall(t.Context(), t, s.URL, http.MethodGet, tk.Poll+"?waitMs=1500", ann, nil)
	}()
	time.Sleep(150 * time.Millisecond)
	deadline := time.Now().Add(5 * time.Second)
	for {
		code, raw := ratedCall(t.Context(), t, s.URL, http.MethodGet, tk.Poll+"?waitMs=0", ann, nil)
		if code == http.StatusTooManyRequests && strings.Contains(string(raw), "one poll at a time") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("a second poll was never refused while the first was held")
		}
		time.Sleep(150 * time.Millisecond) // past the least gap between polls
	}
	<-held
	// Polls in a loop are slowed: one start every 100 ms.
	ratedCall(t.Context(), t, s.URL, http.MethodGet, tk.Poll+"?waitMs=0", ann, nil)
	if code, raw := ratedCall(t.Context(), t, s.URL, http.MethodGet, tk.Poll+"?waitMs=0", ann, nil); code != http.StatusTooManyRequests || !strings.Contains(string(raw), "less than 100ms ago") {
		t.Fatalf("a poll right after another: %d %s", code, raw)
	}
	// Cancel: 204, then the ticket is gone and the player may queue again.
	if code, raw := ratedCall(t.Context(), t, s.URL, http.MethodDelete, tk.Poll, ann, nil); code != http.StatusNoContent {
		t.Fatalf("cancel: %d %s", code, raw)
	}
	time.Sleep(150 * time.Millisecond) // past the least gap between polls
	if code, raw := ratedCall(t.Context(), t, s.URL, http.MethodGet, tk.Poll, ann, nil); code != http.StatusNotFound {
		t.Fatalf("a cancelled ticket: %d %s", code, raw)
	}
	if n, err := s.rooms.PoolTickets(t.Context(), "tictactoe/classic/move5000"); err != nil || n != 0 {
		t.Fatalf("%d tickets wait after cancel, %v", n, err)
	}
	enterRated(t, s.URL, ann, `{}`)
}

// TestRatedQuickPlayDisconnect: a player whose poll's connection goes away
// leaves the pool within PoolGone (plus a round of the loop), and is never
// paired afterwards.
func TestRatedQuickPlayDisconnect(t *testing.T) {
	t.Parallel()
	s := startServer(t, withPool(t, ratings{"ann": 1500, "bob": 2500}))
	ann := playerToken(t, "ann")
	tk := enterRated(t, s.URL, ann, `{}`)
	enterRated(t, s.URL, playerToken(t, "bob"), `{}`) // too far to pair before a minute
	ctx, cancel := context.WithCancel(t.Context())
	polled := make(chan struct{})
	go func() {
		defer close(polled)
		ratedCall(ctx, t, s.URL, http.MethodGet, tk.Poll, ann, nil)
	}()
	time.Sleep(300 * time.Millisecond) // the poll is held
	left := time.Now()
	cancel()
	<-polled
	for {
		n, err := s.rooms.PoolTickets(t.Context(), "tictactoe/classic/none")
		if err != nil {
			t.Fatal(err)
		}
		if n == 1 {
			break
		}
		if time.Since(left) > room.PoolGone+time.Second {
			t.Fatalf("%d tickets still wait %v after ann's poll went away", n, time.Since(left))
		}
		time.Sleep(50 * time.Millisecond)
	}
	if code, raw := ratedCall(t.Context(), t, s.URL, http.MethodGet, tk.Poll+"?waitMs=0", ann, nil); code != http.StatusNotFound {
		t.Fatalf("ann's lapsed ticket: %d %s", code, raw)
	}
}

// rater is r as a room.PoolRater, or nil (the store's ratings) for none.
func rater(r ratings) room.PoolRater {
	if r == nil {
		return nil
	}
	return r
}

// startRedisNode starts one node of a cluster on the Redis at url: its own
// store client, manager and server, as a separate roomd process has.
func startRedisNode(t *testing.T, url, prefix, id string, r ratings) *testServer {
	t.Helper()
	st, err := redisstore.Open(t.Context(), url, redisstore.RedisOptions{Prefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	rooms, err := room.NewManager(room.Config{Games: session.NewRegistry(nim.Game, tictactoe.Game), Store: st, AIDelay: -1,
		Cluster: st, Node: id, LeaseTTL: 3 * time.Second, Claims: st, Pool: st, Ratings: st, Rater: rater(r)})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewUnstartedServer(nil)
	u := "http://" + hs.Listener.Addr().String()
	front, err := NewServer(Config{Rooms: rooms, Quotas: Quotas{Off: true}, RateLimit: 1e9, RateBurst: 1e9, Auth: siteVerifier(t),
		Cluster: &ClusterConfig{Store: st, Claims: st, TTL: 3 * time.Second, Self: store.Node{ID: id, URL: u, PeerURL: u}}})
	if err != nil {
		t.Fatal(err)
	}
	hs.Config = NewHTTPServer(front.Handler(), HTTPConfig{})
	hs.Start()
	s := &testServer{t: t, rooms: rooms, front: front, http: hs, URL: hs.URL}
	t.Cleanup(func() {
		s.stop()
		st.Close()
	})
	return s
}

// TestRatedQuickPlayTwoNodesRedis: two nodes on one Redis share the pool.
// Players rated so that each can only meet one who queued on the other
// node are paired across the nodes, each once; both players of a pair get
// seats in the same room, which either node serves; a poll may go to the
// other node.
func TestRatedQuickPlayTwoNodesRedis(t *testing.T) {
	t.Parallel()
	srv := testredis.Start(t)
	prefix := fmt.Sprintf("pool%d", time.Now().UnixNano())
	r := ratings{}
	const pairs = 4
	for i := range pairs {
		r[fmt.Sprint("a", i)] = 1000 + 300*float64(i)
		r[fmt.Sprint("b", i)] = 1000 + 300*float64(i) + 50
	}
	a := startRedisNode(t, srv.URL(), prefix, "node-a", r)
	b := startRedisNode(t, srv.URL(), prefix, "node-b", r)
	waitNodes(t, a, 2)
	waitNodes(t, b, 2)
	type waiter struct {
		player, token string
		node          *testServer
		tk            ticketWire
	}
	var ws []*waiter
	for i := range pairs {
		for _, side := range []struct {
			p string
			n *testServer
		}{{"a", a}, {"b", b}} {
			w := &waiter{player: fmt.Sprint(side.p, i), node: side.n}
			w.token = playerToken(t, w.player)
			w.tk = enterRated(t, side.n.URL, w.token, `{}`)
			ws = append(ws, w)
		}
	}
	seats := make([]room.PoolSeat, len(ws))
	var wg sync.WaitGroup
	for i, w := range ws {
		wg.Go(func() {
			poll := w.node
			if i%4 == 0 { // some poll the other node
				poll = map[*testServer]*testServer{a: b, b: a}[w.node]
			}
			seats[i] = waitSeat(t, poll.URL, w.token, w.tk)
		})
	}
	wg.Wait()
	byRoom := map[string][]string{}
	for i, s := range seats {
		byRoom[s.Room] = append(byRoom[s.Room], ws[i].player)
		if s.Node != "node-a" && s.Node != "node-b" || s.URL == "" {
			t.Errorf("%s's seat names no node: %+v", ws[i].player, s)
		}
	}
	if len(byRoom) != pairs {
		t.Fatalf("rooms %v, want %d", byRoom, pairs)
	}
	for code, players := range byRoom {
		if len(players) != 2 || players[0][1:] != players[1][1:] || players[0][0] == players[1][0] {
			t.Fatalf("room %s seats %v: want a%[3]s with b%[3]s", code, players, players[0][1:])
		}
		// Either node serves the room, with both players seated.
		var info struct {
			Seats []struct{ Player string } `json:"seats"`
		}
		for _, n := range []*testServer{a, b} {
			code2, raw := ratedCall(t.Context(), t, n.URL, http.MethodGet, "/api/rooms/"+code, "", nil)
			if code2 != http.StatusOK || json.Unmarshal(raw, &info) != nil || len(info.Seats) != 2 {
				t.Fatalf("room %s on %s: %d %s", code, n.front.NodeID(), code2, raw)
			}
		}
	}
	for _, n := range []*testServer{a, b} {
		if k, err := n.rooms.PoolTickets(t.Context(), "tictactoe/classic/none"); err != nil || k != 0 {
			t.Fatalf("%d tickets still wait, %v", k, err)
		}
	}
}

// TestRatedQuickPlayPlacement: a pair made on a node that holds more rooms
// than another by more than the slack gets its room on the other node,
// and both players are told that node.
func TestRatedQuickPlayPlacement(t *testing.T) {
	t.Parallel()
	srv := testredis.Start(t)
	prefix := fmt.Sprintf("place%d", time.Now().UnixNano())
	a := startRedisNode(t, srv.URL(), prefix, "node-a", nil)
	b := startRedisNode(t, srv.URL(), prefix, "node-b", nil)
	waitNodes(t, a, 2)
	for range 12 { // past the slack of 8
		if _, err := a.rooms.Create(t.Context(), room.CreateRequest{Game: "nim", Name: "filler"}); err != nil {
			t.Fatal(err)
		}
	}
	ann, bob := playerToken(t, "ann"), playerToken(t, "bob")
	ta, tb := enterRated(t, a.URL, ann, `{}`), enterRated(t, a.URL, bob, `{}`)
	sa, sb := waitSeat(t, a.URL, ann, ta), waitSeat(t, a.URL, bob, tb)
	if sa.Room != sb.Room || sa.Node != "node-b" || sb.Node != "node-b" || sa.URL != b.URL {
		t.Fatalf("seats %+v and %+v: want one room on node-b (%s)", sa, sb, b.URL)
	}
	if _, ok := b.rooms.Lookup(sa.Room); !ok {
		t.Fatalf("room %s does not run on node-b", sa.Room)
	}
	if _, ok := a.rooms.Lookup(sa.Room); ok {
		t.Fatalf("room %s runs on node-a too", sa.Room)
	}
}

// TestRatedQuickPlayCrowd: 48 players (the load of 200 is roombot's,
// BENCHMARKS.md), ratings spread over 200 points (so that the last two, however far apart, meet within 10 s of the window),
// half queued on each of two nodes on one Redis, each polling its own
// node: every one is paired within 30 s, into exactly one room with one
// other player, and every pair's ratings were within both tickets'
// windows when they were paired (room.Window).
func TestRatedQuickPlayCrowd(t *testing.T) {
	t.Parallel()
	srv := testredis.Start(t)
	prefix := fmt.Sprintf("crowd%d", time.Now().UnixNano())
	const n = 48
	r := ratings{}
	for i := range n {
		r[fmt.Sprint("p", i)] = 1400 + float64((i*7919)%200) // a fixed shuffle of 0..199
	}
	nodes := []*testServer{startRedisNode(t, srv.URL(), prefix, "node-a", r), startRedisNode(t, srv.URL(), prefix, "node-b", r)}
	waitNodes(t, nodes[0], 2)
	waitNodes(t, nodes[1], 2)
	start := time.Now()
	seats := make([]room.PoolSeat, n)
	tickets := make([]ticketWire, n)
	entered, seated := make([]time.Duration, n), make([]time.Duration, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			player := fmt.Sprint("p", i)
			node := nodes[i%2]
			tok := playerToken(t, player)
			tickets[i] = enterRated(t, node.URL, tok, `{}`)
			entered[i] = time.Since(start)
			seats[i] = waitSeat(t, node.URL, tok, tickets[i])
			seated[i] = time.Since(start)
		})
	}
	wg.Wait()
	if d := time.Since(start); d > 30*time.Second {
		t.Fatalf("all paired in %v, want within 30 s", d)
	}
	byRoom := map[string][]int{}
	for i, s := range seats {
		byRoom[s.Room] = append(byRoom[s.Room], i)
	}
	if len(byRoom) != n/2 {
		t.Fatalf("%d rooms for %d players", len(byRoom), n)
	}
	cross := 0
	for code, ps := range byRoom {
		if len(ps) != 2 || ps[0] == ps[1] {
			t.Fatalf("room %s seats players %v", code, ps)
		}
		a, b := seats[ps[0]], seats[ps[1]]
		ra, rb := tickets[ps[0]].Rating, tickets[ps[1]].Rating
		if a.Rating != rb || b.Rating != ra || a.Seat == b.Seat {
			t.Fatalf("room %s: seats %+v and %+v of ratings %v and %v", code, a, b, ra, rb)
		}
		window := min(room.Window(time.Duration(a.WaitedMs)*time.Millisecond), room.Window(time.Duration(b.WaitedMs)*time.Millisecond))
		if diff := max(ra-rb, rb-ra); diff > window || a.WaitedMs != b.OpponentWaitedMs {
			t.Fatalf("room %s paired %v and %v (%v apart) after %d and %d ms: the window was ±%v", code, ra, rb, diff, a.WaitedMs, b.WaitedMs, window)
		}
		if ps[0]%2 != ps[1]%2 {
			cross++
		}
	}
	t.Logf("%d pairs, %d across the nodes, in %v (the last entered at %v, the last seated at %v)", n/2, cross, time.Since(start),
		slices.Max(entered), slices.Max(seated))
	if cross == 0 {
		t.Fatal("no pair across the nodes")
	}
}
