package bot

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/roomd/roomd/core/babagame"
	"github.com/roomd/roomd/core/session"
	"github.com/roomd/roomd/core/session/sessiontest"
)

// TestBabaFollower: a follower that starts from a level's first view and
// applies the beats of every command holds the server's view after each,
// byte for byte, through steps, a conversion, a loss, undos, a restart and
// the win, in both controls; the view it was given is left as it was.
func TestBabaFollower(t *testing.T) {
	t.Parallel()
	cases := []struct {
		level, control string
		seats          int
		commands       string // "udlr" steps, z undo, x restart; by seat 0, 1, … in turn in turns control
	}{
		{"baba-is-you", babagame.ControlShared, 1, "rrzrrxrrrrrr"},
		{"rock-is-flag", babagame.ControlShared, 2, "ddzdlllu"},
		{"water-is-sink", babagame.ControlTurns, 2, "urrrrzzxrrrrrr"},
		{"lava-is-hot", babagame.ControlTurns, 3, "ddrrrrzzzzzzrrrrrr"},
	}
	for _, tc := range cases {
		t.Run(tc.level, func(t *testing.T) {
			s := sessiontest.NewSession(t, babagame.Game, 1, fmt.Sprintf(`{"level":%q,"control":%q}`, tc.level, tc.control), tc.seats)
			first := babaJSON(t, s.Match().View(0))
			f := gameFor(t, "baba").newFollower()
			if err := setView(f, first); err != nil {
				t.Fatal(err)
			}
			kept, _ := f.decodeView(first) // a decoded view, as the leak checks keep it
			seat := 0
			for i := range len(tc.commands) {
				st, err := s.Apply(seat, babaCommand(tc.commands[i]))
				if err != nil {
					t.Fatalf("command %d (%c) by seat %d: %v", i, tc.commands[i], seat, err)
				}
				if tc.commands[i] != 'z' && tc.commands[i] != 'x' && tc.control == babagame.ControlTurns {
					seat = (seat + 1) % tc.seats
				}
				if err := applyBeats(f, babaJSON(t, st.Beats(0))); err != nil {
					t.Fatalf("command %d: %v", i, err)
				}
				if eq, _, detail, err := f.compare(babaJSON(t, s.Match().View(1%tc.seats))); !eq || err != nil {
					t.Fatalf("after command %d (%c): %s %v", i, tc.commands[i], detail, err)
				}
			}
			if !s.Status().Over {
				t.Errorf("%q does not win %s", tc.commands, tc.level)
			}
			if got := (babaAdapter{}).encode(kept.(babagame.View)); string(got) != string(first) {
				t.Errorf("the first decoded view changed:\n got %s\nwant %s", got, first)
			}
			if cmd, ok := f.choose(0); ok {
				t.Errorf("chose %s on a won level", cmd)
			}
		})
	}
}

// TestBabaChoice: steps mostly, an undo or a restart sometimes but never
// with nothing to revert, an undo whenever the level is lost, and nothing
// once it is won or out of turn.
func TestBabaChoice(t *testing.T) {
	t.Parallel()
	v := babagame.View{Level: "baba-is-you", Moves: 3}
	count := map[string]int{}
	for i := range 600 {
		n := i
		mv, ok := babaChoice(v, 0, func(k int) int { n = n*7919 + 13; return (n/3 + n) % k })
		if !ok {
			t.Fatal("no move on a level being played")
		}
		count[mv.Type]++
	}
	if count[babagame.MoveStep] < 400 || count[babagame.MoveUndo] == 0 || count[babagame.MoveRestart] == 0 || count[babagame.MoveUndo] < count[babagame.MoveRestart] {
		t.Errorf("choices %v", count)
	}
	always := func(k int) int { return 0 } // the rarest branch every time
	start := babagame.View{Moves: 0}
	if mv, ok := babaChoice(start, 0, always); !ok || mv.Type != babagame.MoveStep {
		t.Errorf("at the start: %+v %v, want a step", mv, ok)
	}
	lost := babagame.View{Moves: 4, Lost: true}
	if mv, ok := babaChoice(lost, 0, func(k int) int { return k - 1 }); !ok || mv.Type != babagame.MoveUndo {
		t.Errorf("lost: %+v %v, want an undo", mv, ok)
	}
	if _, ok := babaChoice(babagame.View{Moves: 6, Won: true}, 0, always); ok {
		t.Error("a move on a won level")
	}
	one := session.Seat(1)
	turns := babagame.View{Moves: 1, Turn: &one}
	if _, ok := babaChoice(turns, 0, always); ok {
		t.Error("seat 0 moves on seat 1's turn")
	}
	if _, ok := babaChoice(turns, 1, always); !ok {
		t.Error("seat 1 does not move on its turn")
	}
	// What choose sends is a command the game decodes.
	for range 50 {
		cmd, ok := babaAdapter{}.choose(v, 0)
		var mv babagame.Move
		if !ok || json.Unmarshal(cmd, &mv) != nil {
			t.Fatalf("chose %s, %v", cmd, ok)
		}
	}
}

// TestBabaSettings: --level names a Baba level; the flag's default (a
// Minesweeper level) is Baba's first; another word is a bad flag.
func TestBabaSettings(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ level, want, err string }{
		{"beginner", `{"level":"baba-is-you","control":"shared"}`, ""},
		{"lava-is-hot", `{"level":"lava-is-hot","control":"shared"}`, ""},
		{"expert", "", `--level "expert": want one of baba-is-you, rock-is-you`},
	} {
		c := config{Mode: babagame.ModeCoop, Level: tc.level}
		got, err := babaAdapter{}.settings(&c)
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("--level %s: error %v, want %q", tc.level, err, tc.err)
		case tc.err == "" && (err != nil || string(got) != tc.want):
			t.Errorf("--level %s: %s %v, want %s", tc.level, got, err, tc.want)
		}
	}
	for _, code := range []string{babagame.CodeFinished, babagame.CodeAtStart} {
		if refusalClass(gameFor(t, "baba"), code) != "expected" {
			t.Errorf("%s is not an expected refusal", code)
		}
	}
	if refusalClass(gameFor(t, "baba"), babagame.CodeTooManySteps) != "error" {
		t.Errorf("%s is expected", babagame.CodeTooManySteps)
	}
}

// babaCommand is the JSON command of a letter: "udlr" a step, z an undo,
// x a restart.
func babaCommand(letter byte) json.RawMessage {
	switch letter {
	case 'z':
		return json.RawMessage(`{"type":"undo"}`)
	case 'x':
		return json.RawMessage(`{"type":"restart"}`)
	}
	word := map[byte]string{'u': "up", 'd': "down", 'l': "left", 'r': "right"}[letter]
	return json.RawMessage(`{"type":"step","dir":"` + word + `"}`)
}

func babaJSON(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
