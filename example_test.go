package roomd_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"

	"github.com/roomd/roomd"
)

// A server with roomd's own games, in memory, on a free port: create a room
// over the HTTP API, then stop.
func Example() {
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	s, err := roomd.New(roomd.Options{Listener: ln, Store: roomd.StoreOptions{Memory: true}, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()

	resp, err := http.Post(s.URL()+"/api/rooms", "application/json",
		strings.NewReader(`{"game":"tictactoe","name":"Ann","settings":{"mode":"classic"}}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	var room struct {
		Room string `json:"room"`
		Seat int    `json:"seat"`
	}
	json.NewDecoder(resp.Body).Decode(&room)
	resp.Body.Close()
	fmt.Println(resp.StatusCode, len(room.Room), room.Seat)

	stop()
	fmt.Println(<-done)
	// Output:
	// 201 6 0
	// <nil>
}

// A server's games: roomd's own, and any of a program's own (Game: its
// rules and browser files; GAMES.md walks through one).
func ExampleBuiltinGames() {
	for _, g := range roomd.BuiltinGames() {
		fmt.Print(g.Rules.Info().ID, " ")
	}
	fmt.Println()
	// Output: baba cards minesweeper nim snake spellgrid tictactoe
}

// A program's command line is roomd's, flags and ROOMD_* variables alike.
func ExampleParseFlags() {
	o, err := roomd.ParseFlags([]string{"--addr", "127.0.0.1:9000", "--memory", "--quota-rooms", "3"}, nil)
	fmt.Println(o.Addr, o.Store.Memory, o.Quotas.Rooms.PerMinute, err)
	// Output: 127.0.0.1:9000 true 3 <nil>
}
