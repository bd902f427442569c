package store

import (
	"encoding/json"
	"testing"
)

func TestScoreJSON(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     Score
	}{
		{"current", `{"name":"Ann","value":12.5,"room":"K7QXMP","match":2,"at":3}`, Score{Name: "Ann", Value: 12.5, Room: "K7QXMP", Match: 2, At: 3}},
		{"legacy time", `{"name":"Ann","time":4,"room":"K7QXMP","match":1,"at":3}`, Score{Name: "Ann", Value: 4, Room: "K7QXMP", Match: 1, At: 3}},
		{"value wins over time", `{"name":"Ann","value":1,"time":2,"at":3}`, Score{Name: "Ann", Value: 1, At: 3}},
		{"value zero wins over time", `{"name":"Ann","time":2,"value":0}`, Score{Name: "Ann"}},
		{"neither", `{"name":"Ann","at":3}`, Score{Name: "Ann", At: 3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var s Score
			if err := json.Unmarshal([]byte(tc.in), &s); err != nil {
				t.Fatal(err)
			}
			if s != tc.want {
				t.Fatalf("decoded %+v, want %+v", s, tc.want)
			}
		})
	}
	var s Score
	if err := json.Unmarshal([]byte(`{"name":"Ann","value":"fast"}`), &s); err == nil {
		t.Fatal("a string value decoded")
	}
	b, err := json.Marshal(Score{Name: "Ann", Value: 7, At: 1})
	if err != nil || string(b) != `{"name":"Ann","value":7,"at":1}` {
		t.Fatalf("encoded %s, %v", b, err)
	}
}

func TestBoardBefore(t *testing.T) {
	lo := Board{Game: "g", Board: "b", Kind: KindHost}
	hi := lo
	hi.Higher = true
	a, b, c := Score{Value: 1, At: 5}, Score{Value: 2, At: 1}, Score{Value: 1, At: 6}
	for _, tc := range []struct {
		board Board
		x, y  Score
		want  bool
	}{
		{lo, a, b, true}, {lo, b, a, false}, {hi, b, a, true}, {hi, a, b, false},
		{lo, a, c, true}, {lo, c, a, false}, {hi, a, c, true}, {hi, c, a, false},
		{lo, a, a, false}, {hi, a, a, false},
	} {
		if got := tc.board.Before(tc.x, tc.y); got != tc.want {
			t.Errorf("higher=%v: Before(%+v, %+v) = %v, want %v", tc.board.Higher, tc.x, tc.y, got, tc.want)
		}
	}
}

func TestSnapshotFirstKept(t *testing.T) {
	for _, tc := range []struct{ rev, keep, want uint64 }{
		{10, 0, 11}, {10, 1, 1}, {10, 10, 10}, {10, 11, 11}, {10, 12, 11}, {0, 0, 1}, {0, 5, 1},
	} {
		if got := (Snapshot{Rev: tc.rev, Keep: tc.keep}).FirstKept(); got != tc.want {
			t.Errorf("rev %d keep %d: FirstKept = %d, want %d", tc.rev, tc.keep, got, tc.want)
		}
	}
}
