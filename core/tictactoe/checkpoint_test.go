package tictactoe

import (
	"strings"
	"testing"

	"github.com/roomd/roomd/core/session"
)

func TestResume(t *testing.T) {
	tests := []struct {
		data string
		want string // the view, or part of the error
	}{
		{`{"board":["...","...","..."]}`, `{"board":["...","...","..."],"turn":0,"phase":"active"}`},
		{`{"board":["X..",".O.","..X"]}`, `{"board":["X..",".O.","..X"],"turn":1,"phase":"active"}`},
		{`{"board":["XXX","OO.","..."]}`, `{"board":["XXX","OO.","..."],"turn":1,"phase":"won","winner":0,"line":[{"r":0,"c":0},{"r":0,"c":1},{"r":0,"c":2}]}`},
		{`{"board":["XX.","OOO","X.."]}`, `{"board":["XX.","OOO","X.."],"turn":0,"phase":"won","winner":1,"line":[{"r":1,"c":0},{"r":1,"c":1},{"r":1,"c":2}]}`},
		{`{"board":["XOX","XOO","OXX"]}`, `{"board":["XOX","XOO","OXX"],"turn":1,"phase":"draw"}`},
		{`{"board":["O..","...","..."]}`, "0 X's and 1 O's"},
		{`{"board":["XX.","...","..."]}`, "2 X's and 0 O's"},
		{`{"board":["XXX","OOO","X.."]}`, "a line for the seat that did not mark last"},
		{`{"board":["XX.","OOO","XX."]}`, "a line for the seat that did not mark last"},
		{`{"board":["x..","...","..."]}`, `square (0, 0) is 'x'`},
		{`{"board":["....","...","..."]}`, "row 0"},
		{`{"board":["...","..."]}`, "row 2"},
		{`{}`, `no "board"`},
		{`{"board":["...","...","..."],"turn":1}`, "unknown field"},
		{`[]`, "tictactoe checkpoint"},
	}
	for _, tt := range tests {
		t.Run(tt.data, func(t *testing.T) {
			m, err := Game.Resume(session.IntSeed(1), nil, Seats, []byte(tt.data))
			if !strings.HasPrefix(tt.want, "{") {
				if err == nil || !strings.Contains(err.Error(), tt.want) {
					t.Fatalf("Resume: %v, want an error naming %q", err, tt.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := encode(t, m.View(0)); got != tt.want {
				t.Errorf("view %s, want %s", got, tt.want)
			}
			if cp, err := m.Checkpoint(); err != nil || string(cp) != tt.data {
				t.Errorf("checkpoint again: %s, %v", cp, err)
			}
		})
	}
	if _, err := Game.Resume(session.IntSeed(1), nil, 3, []byte(`{"board":["...","...","..."]}`)); err == nil {
		t.Error("Resume with 3 seats")
	}
}
