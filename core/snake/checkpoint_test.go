package snake

import (
	"strings"
	"testing"

	"github.com/roomd/roomd/core/session"
)

func TestResume(t *testing.T) {
	key := strings.Repeat("ab", 32)
	valid := `{"tick":100,"phase":"running","snakes":[` +
		`{"body":[[5,5],[5,4],[5,3]],"dir":"right","queue":["up","left"],"alive":true,"score":2},` +
		`{"body":[[9,9],[10,9],[11,9],[11,10]],"dir":"up","alive":true,"score":0},` +
		`{"body":[],"dir":"left","alive":false,"score":4}],` +
		`"food":[[0,0],[3,3]],"key":"` + key + `","draws":9}`
	over := `{"tick":660,"phase":"over","snakes":[` +
		`{"body":[[5,5],[5,4],[5,3]],"dir":"right","alive":true,"score":2},` +
		`{"body":[],"dir":"up","alive":false,"score":2},` +
		`{"body":[],"dir":"left","alive":false,"score":4}],` +
		`"food":[[0,0],[3,3]],"key":"` + key + `","draws":9,"winners":[0],"why":"time"}`
	tests := []struct {
		name string
		data string
		err  string // part of the error; "" when valid
	}{
		{name: "running", data: valid},
		{name: "over", data: over},
		{name: "in the countdown", data: strings.Replace(strings.Replace(valid, `"tick":100,"phase":"running"`, `"tick":0,"phase":"countdown"`, 1), `,"queue":["up","left"]`, ``, 1)},
		{name: "a draw with nobody alive", data: strings.Replace(strings.Replace(over, `[[5,5],[5,4],[5,3]],"dir":"right","alive":true`, `[],"dir":"right","alive":false`, 1), `"winners":[0],"why":"time"`, `"winners":[0,1],"why":"draw"`, 1)},
		{name: "a phase that does not fit the tick", data: strings.Replace(valid, `"tick":100`, `"tick":30`, 1), err: `phase "running" at tick 30`},
		{name: "running at the last tick", data: strings.Replace(valid, `"tick":100`, `"tick":660`, 1), err: `phase "running" at tick 660`},
		{name: "an unknown phase", data: strings.Replace(valid, `"running"`, `"paused"`, 1), err: `phase "paused"`},
		{name: "a short key", data: strings.Replace(valid, key, "abab", 1), err: "64 hex digits"},
		{name: "a key that is not hex", data: strings.Replace(valid, key, strings.Repeat("zz", 32), 1), err: "64 hex digits"},
		{name: "a snake too many", data: strings.Replace(valid, `"snakes":[`, `"snakes":[{"body":[],"dir":"up","alive":false,"score":0},`, 1), err: "4 snakes for 3 seats"},
		{name: "a body of two", data: strings.Replace(valid, `[[5,5],[5,4],[5,3]]`, `[[5,5],[5,4]]`, 1), err: "a body of 2 cells"},
		{name: "a body off the board", data: strings.Replace(valid, `[[5,5],[5,4],[5,3]]`, `[[0,1],[0,0],[0,-1]]`, 1), err: "body cell [0 -1]"},
		{name: "a body in pieces", data: strings.Replace(valid, `[[5,5],[5,4],[5,3]]`, `[[5,5],[5,4],[6,3]]`, 1), err: "not neighbours"},
		{name: "bodies that cross", data: strings.Replace(valid, `[11,10]`, `[5,5]`, 1), err: "body cell [5 5]"},
		{name: "a head that does not follow its direction", data: strings.Replace(valid, `"dir":"up"`, `"dir":"left"`, 1), err: "head [9 9] is not left of [10 9]"},
		{name: "a dead snake with a body", data: strings.Replace(valid, `"body":[],"dir":"left"`, `"body":[[14,3],[14,4],[14,5]],"dir":"left"`, 1), err: "dead with a body"},
		{name: "no direction", data: strings.Replace(valid, `"dir":"left"`, `"dir":""`, 1), err: "snake checkpoint"},
		{name: "a queue of three", data: strings.Replace(valid, `["up","left"]`, `["up","left","up"]`, 1), err: "a queue of 3 turns"},
		{name: "a queued reverse", data: strings.Replace(valid, `["up","left"]`, `["up","down"]`, 1), err: "queue"},
		{name: "a queued turn to the way it goes", data: strings.Replace(valid, `["up","left"]`, `["right"]`, 1), err: "queue"},
		{name: "a queue once over", data: strings.Replace(over, `"dir":"right","alive"`, `"dir":"right","queue":["up"],"alive"`, 1), err: "a queue of 1 turns"},
		{name: "food on a body", data: strings.Replace(valid, `[[0,0],[3,3]]`, `[[0,0],[5,4]]`, 1), err: "food on [5 4]"},
		{name: "food off the board", data: strings.Replace(valid, `[[0,0],[3,3]]`, `[[0,0],[16,3]]`, 1), err: "food on [16 3]"},
		{name: "food twice", data: strings.Replace(valid, `[[0,0],[3,3]]`, `[[3,3],[3,3]]`, 1), err: "food on [3 3]"},
		{name: "too much food", data: strings.Replace(valid, `[[0,0],[3,3]]`, `[[0,0],[3,3],[4,4],[6,6]]`, 1), err: "4 food, more than 3"},
		{name: "a negative score", data: strings.Replace(valid, `"score":4`, `"score":-4`, 1), err: "score -4"},
		{name: "one alive and not over", data: strings.Replace(valid, `[[9,9],[10,9],[11,9],[11,10]],"dir":"up","alive":true`, `[],"dir":"up","alive":false`, 1), err: "1 snakes alive of 3"},
		{name: "winners before the end", data: strings.Replace(valid, `"draws":9`, `"draws":9,"winners":[0]`, 1), err: "winners before the end"},
		{name: "an end for no reason", data: strings.Replace(over, `"why":"time"`, `"why":"boom"`, 1), err: `over for "boom"`},
		{name: "winners out of order", data: strings.Replace(over, `"winners":[0]`, `"winners":[2,0]`, 1), err: "winners [2 0]"},
		{name: "a winner not in the match", data: strings.Replace(over, `"winners":[0]`, `"winners":[3]`, 1), err: "winners [3]"},
		{name: "an unknown field", data: strings.Replace(valid, `"draws":9`, `"draws":9,"seed":1`, 1), err: "unknown field"},
		{name: "not an object", data: `[]`, err: "snake checkpoint"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Rules{}.Resume(session.IntSeed(1), Config{Board: BoardSmall, TimeLimit: 30}, 3, []byte(tt.data))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("Resume: %v, want an error naming %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if cp, err := (Rules{}).Checkpoint(s); err != nil || string(cp) != tt.data {
				t.Errorf("checkpoint again:\n%s\nwas\n%s (%v)", cp, tt.data, err)
			}
			checkBoard(t, s)
		})
	}
	if _, err := (Rules{}).Resume(session.IntSeed(1), Config{Board: BoardSmall, TimeLimit: 30}, 5, []byte(valid)); err == nil {
		t.Error("Resume with 5 seats on the small board")
	}
}
