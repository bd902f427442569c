package babagame

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/roomd/roomd/core/session"
)

func TestResume(t *testing.T) {
	tests := []struct {
		config string
		data   string
		want   string // part of the view, or part of the error
	}{
		{`{}`, `{"level":"baba-is-you","steps":"","played":0}`, `"won":false,"lost":false,"moves":0}`},
		{`{}`, `{"level":"baba-is-you","steps":"rrr","played":5}`, `{"id":10,"kind":"baba","x":4,"y":2},{"id":11,"kind":"rock","x":5,"y":2}`},
		{`{}`, `{"level":"baba-is-you","steps":"rrrrrr","played":6}`, `"won":true,"lost":false,"moves":6}`},
		{`{"level":"lava-is-hot"}`, `{"level":"lava-is-hot","steps":"ddrrrr","played":6}`, `"won":false,"lost":true,"moves":6}`},
		{`{"level":"rock-is-you","control":"turns"}`, `{"level":"rock-is-you","steps":"uu","played":3}`, `"moves":2,"turn":1}`},
		{`{}`, `{"level":"rock-is-you","steps":"","played":0}`, `level "rock-is-you" in a match of "baba-is-you"`},
		{`{}`, `{"level":"baba-is-you","steps":"rrx","played":3}`, `step 2 is 'x'`},
		{`{}`, `{"level":"baba-is-you","steps":"rrR","played":3}`, `step 2 is 'R'`},
		{`{}`, `{"level":"baba-is-you","steps":"rrrrrrl","played":7}`, "step 6 after the level was won"},
		{`{}`, `{"level":"baba-is-you","steps":"rr","played":1}`, "2 steps kept of 1 played"},
		{`{}`, `{"level":"baba-is-you","steps":"rr"}`, `needs "level", "steps" and "played"`},
		{`{}`, `{"level":"baba-is-you","steps":"","played":0,"turn":1}`, "unknown field"},
		{`{}`, `[]`, "baba checkpoint"},
		{`{}`, `{"level":"baba-is-you","steps":"` + strings.Repeat("u", MaxSteps+1) + `","played":20000}`, "more than 10000"},
	}
	for _, tt := range tests {
		t.Run(session.Clip(tt.data), func(t *testing.T) {
			m, err := Game.Resume(session.IntSeed(1), json.RawMessage(tt.config), 2, []byte(tt.data))
			if strings.Contains(tt.want, "{") || strings.HasPrefix(tt.want, `"`) {
				if err != nil {
					t.Fatal(err)
				}
				if got := encode(t, m.View(0)); !strings.Contains(got, tt.want) {
					t.Errorf("view %s, want %s in it", got, tt.want)
				}
				if cp, err := m.Checkpoint(); err != nil || string(cp) != tt.data {
					t.Errorf("checkpoint again: %s, %v", cp, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Resume: %v, want an error naming %q", err, tt.want)
			}
		})
	}
	if _, err := Game.Resume(session.IntSeed(1), nil, 5, []byte(`{"level":"baba-is-you","steps":"","played":0}`)); err == nil {
		t.Error("Resume with 5 seats")
	}
}
