package transport

import (
	"context"
	"encoding/json"
	"math"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/roomd/roomd/core/tictactoe"
	"github.com/roomd/roomd/protocol"
	"github.com/roomd/roomd/room"
	"github.com/roomd/roomd/store/memstore"
	"github.com/roomd/roomd/transport/client"
)

// TestRatingsAPI: a rated tic-tac-toe match over real WebSockets on
// loopback, its rating job applied, then the three routes: the player's
// ratings, his rating and history in one mode, and the leaderboard
// (where no provisional player is listed); bad requests are 400 or 404
// with a message that says why.
func TestRatingsAPI(t *testing.T) {
	t.Parallel()
	s := startServer(t, withTicTacToe, func(rc *room.Config, _ *Config) { rc.Ratings = rc.Store.(*memstore.Memory) })
	ann, bob := "auth0|ann", "site/bob" // a subject with a slash is escaped in the path
	rr, err := s.rooms.CreateRated(context.Background(), room.RatedRequest{Game: "tictactoe", Mode: "classic",
		Players: []room.RatedPlayer{{Player: ann, Name: "Ann"}, {Player: bob, Name: "Bob"}}})
	if err != nil {
		t.Fatal(err)
	}
	var info protocol.Room
	getJSON(t, s.URL+"/api/rooms/"+rr.Code, http.StatusOK, &info)
	if !info.Rated || info.Phase != protocol.PhaseLobby {
		t.Fatalf("the rated room's info = %+v", info)
	}
	var joined map[string]any
	if code := s.post("/api/rooms/"+rr.Code+"/join", map[string]string{"name": "Eve"}, &joined); code != http.StatusConflict {
		t.Fatalf("a join to a rated room: %d %v, want 409", code, joined)
	}
	x := &tttFollower{tclient: s.dial("ann", client.Config{Room: rr.Code, Token: rr.Seats[0].Token, Game: tttPin})}
	o := &tttFollower{tclient: s.dial("bob", client.Config{Room: rr.Code, Token: rr.Seats[1].Token, Game: tttPin})}
	players := []*tttFollower{x, o}
	for i, m := range []tictactoe.Move{{R: 0, C: 0}, {R: 1, C: 0}, {R: 0, C: 1}, {R: 1, C: 1}, {R: 0, C: 2}} {
		p := players[i%2]
		p.waitFor("my turn in the match the room starts", func([]client.Event) bool {
			p.follow()
			return p.have && p.view.Phase == tictactoe.PhaseActive && p.view.Turn == i%2
		})
		cmd, _ := json.Marshal(m)
		if rc := p.command(string(cmd)); !rc.OK {
			t.Fatalf("%s: %s refused: %+v", p.name, cmd, rc.Notice)
		}
	}
	x.waitFor("the end", func([]client.Event) bool { x.follow(); return x.ended })
	// Without an outbox the manager's rating writer applies the result.
	var all struct {
		Player  string            `json:"player"`
		Ratings []room.PoolRating `json:"ratings"`
	}
	deadline := time.Now().Add(10 * time.Second)
	for getJSON(t, s.URL+"/api/players/"+url.PathEscape(bob)+"/ratings", http.StatusOK, &all); len(all.Ratings) == 0 || !all.Ratings[0].Rated; {
		if time.Now().After(deadline) {
			t.Fatalf("Bob's rating was not applied: %+v", all)
		}
		time.Sleep(10 * time.Millisecond)
		getJSON(t, s.URL+"/api/players/"+url.PathEscape(bob)+"/ratings", http.StatusOK, &all)
	}
	if all.Player != bob || len(all.Ratings) != 3 || all.Ratings[2].Game != "minesweeper" || all.Ratings[2].Rated || all.Ratings[0].Game != "tictactoe" || !all.Ratings[0].Rated ||
		math.Abs(all.Ratings[0].Rating.Rating-1337.69) > 0.01 || !all.Ratings[0].Provisional {
		t.Fatalf("Bob's ratings = %+v", all)
	}
	var one room.PlayerRating
	getJSON(t, s.URL+"/api/players/"+url.PathEscape(ann)+"/ratings/tictactoe/classic?limit=5", http.StatusOK, &one)
	if one.Player != ann || math.Abs(one.Rating.Rating-1662.31) > 0.01 || len(one.History) != 1 || one.History[0].Opponent != bob ||
		one.History[0].Score != 1 || one.History[0].Before.Rating != 0 || one.History[0].After.Name != "Ann" {
		t.Fatalf("Ann's tic-tac-toe rating = %+v", one)
	}
	var none room.PlayerRating
	getJSON(t, s.URL+"/api/players/nobody/ratings/tictactoe/classic", http.StatusOK, &none)
	if none.Rated || none.Rating.Rating != 1500 || none.RD != 350 || len(none.History) != 0 {
		t.Fatalf("a player never rated = %+v, want the default and no history", none)
	}
	var board room.RatingBoard
	getJSON(t, s.URL+"/api/ratings/tictactoe/classic?limit=10", http.StatusOK, &board)
	if board.Game != "tictactoe" || board.Mode != "classic" || len(board.Players) != 0 || board.ProvisionalRD != 110 {
		t.Fatalf("the board after one match = %+v, want nobody (both provisional)", board)
	}

	for _, c := range []struct {
		path string
		code int
		says string
	}{
		{"/api/ratings/tictactoe/classic?limit=0", http.StatusBadRequest, "limit"},
		{"/api/ratings/tictactoe/classic?limit=101", http.StatusBadRequest, "limit"},
		{"/api/ratings/minesweeper/solo", http.StatusNotFound, "not rated"},
		{"/api/ratings/chess/classic", http.StatusNotFound, "not rated"},
		{"/api/players/" + strings.Repeat("p", 257) + "/ratings", http.StatusBadRequest, "player id"},
		{"/api/players/ann/ratings/tictactoe/blitz", http.StatusNotFound, "not rated"},
		{"/api/players/ann/ratings/tictactoe/classic?limit=x", http.StatusBadRequest, "limit"},
	} {
		code, body := get(t, s.URL+c.path, "")
		if code != c.code || !strings.Contains(string(body), c.says) {
			t.Errorf("GET %s: %d %s; want %d saying %q", c.path, code, body, c.code, c.says)
		}
	}

	noRatings := startServer(t)
	if code, body := get(t, noRatings.URL+"/api/ratings/tictactoe/classic", ""); code != http.StatusNotFound || !strings.Contains(string(body), "no ratings") {
		t.Errorf("a server without ratings: %d %s", code, body)
	}
}
