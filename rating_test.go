package roomd

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/roomd/roomd/protocol"
	"github.com/roomd/roomd/room"
	"github.com/roomd/roomd/store"
)

// TestRatingWiring: the server wires its store's ratings into the rooms
// and hands a rating job in the outbox (what a rated room writes with its
// match's end) to the rooms, once: the API then shows the new ratings.
func TestRatingWiring(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(Options{Listener: ln, Store: StoreOptions{Memory: true}, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	t.Cleanup(func() {
		stop()
		if err := <-done; err != nil {
			t.Error(err)
		}
	})
	if _, err := s.rooms.CreateRated(ctx, room.RatedRequest{Game: "tictactoe", Players: []room.RatedPlayer{{Player: "a", Name: "A"}, {Player: "b", Name: "B"}}}); err != nil {
		t.Fatalf("the server's rooms make no rated room: %v", err)
	}
	job, _ := json.Marshal(map[string]any{"id": "ROOM01/1/c0ffee", "game": "tictactoe", "mode": "classic",
		"players": []string{"a", "b"}, "names": []string{"A", "B"}, "score": 1, "at": 1})
	for i := range 2 { // the same match twice: applied once
		body, _ := json.Marshal(protocol.WebhookEvent{ID: fmt.Sprint("ev", i), Type: room.RatingEvent, At: 1, Room: "ROOM01", Game: "tictactoe", Data: job})
		if _, err := s.st.Enqueue(ctx, []store.Event{{ID: fmt.Sprint("ev", i), Data: body, Due: 1}}); err != nil {
			t.Fatal(err)
		}
	}
	s.hooks.Wake()
	var got struct {
		Rating  float64 `json:"rating"`
		Matches int     `json:"matches"`
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		resp, err := http.Get(s.URL() + "/api/players/a/ratings/tictactoe/classic")
		if err != nil {
			t.Fatal(err)
		}
		err = json.NewDecoder(resp.Body).Decode(&got)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("GET the rating: %d, %v", resp.StatusCode, err)
		}
		if due, _ := s.st.Due(ctx, time.Now().UnixMilli(), 0); got.Matches > 0 && len(due) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the rating job was not applied: %+v", got)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if got.Matches != 1 || got.Rating < 1662 || got.Rating > 1663 {
		t.Fatalf("a's rating = %+v, want one match, about 1662.3", got)
	}
}
