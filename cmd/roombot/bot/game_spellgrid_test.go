package bot

import (
	"encoding/json"
	"testing"

	"github.com/roomd/roomd/core/session"
	"github.com/roomd/roomd/core/spellgridgame"
)

// TestSpellGridAdapter_Walk plays every level with the bot's choices
// from a followed view that is never stale: the rules accept every
// command chosen, the follower (fed the server's JSON, as a bot is) holds
// the server's view after each, and the walk uses every kind of command.
func TestSpellGridAdapter_Walk(t *testing.T) {
	t.Parallel()
	g, ok := roombotGames.lookup("spellgrid")
	if !ok {
		t.Fatal("spellgrid is not registered")
	}
	kinds := map[string]int{}
	rules := spellgridgame.Rules{}
	for _, level := range spellgridgame.Levels() {
		s, err := rules.Init(session.IntSeed(1), spellgridgame.Config{Level: level}, 1)
		if err != nil {
			t.Fatal(err)
		}
		f := g.newFollower()
		v, err := f.decodeView(sgJSON(t, rules.Project(s, 0)))
		if err != nil {
			t.Fatal(err)
		}
		f.setDecoded(v)
		for i := range 400 {
			cmd, ok := f.choose(0)
			if !ok {
				if !rules.Project(s, 0).Won {
					t.Fatalf("%s, command %d: no move on a level not won", level, i)
				}
				break
			}
			if again, _ := f.choose(0); string(again) != string(cmd) {
				t.Fatalf("%s, command %d: the same view gave %s, then %s", level, i, cmd, again)
			}
			var m spellgridgame.Move
			if err := json.Unmarshal(cmd, &m); err != nil {
				t.Fatalf("%s, command %d: %s: %v", level, i, cmd, err)
			}
			kinds[m.Type]++
			var evs []spellgridgame.Event
			if s, evs, err = rules.Apply(s, session.Input[spellgridgame.Move]{Move: m}); err != nil {
				t.Fatalf("%s, command %d: %s refused on a fresh view: %v", level, i, cmd, err)
			}
			beats, err := f.decodeBeats(sgJSON(t, rules.ProjectEvents(s, evs, 0)))
			if err != nil {
				t.Fatal(err)
			}
			if err := f.applyDecoded(beats); err != nil {
				t.Fatal(err)
			}
			equal, _, detail, err := f.compare(sgJSON(t, rules.Project(s, 0)))
			if err != nil || !equal {
				t.Fatalf("%s, command %d: %s: the followed view differs (%v): %s", level, i, cmd, err, detail)
			}
		}
	}
	for _, k := range []string{spellgridgame.MoveStep, spellgridgame.MoveCast, spellgridgame.MovePlay, spellgridgame.MoveUndo, spellgridgame.MoveRestart} {
		if kinds[k] == 0 {
			t.Errorf("no %s in the walk: %v", k, kinds)
		}
	}
}

// The bot has no move once the level is won, nor for a seat other than
// the one.
func TestSpellGridAdapter_NoMove(t *testing.T) {
	t.Parallel()
	a := spellgridAdapter{}
	v := spellgridgame.View{Width: 2, Height: 2, Hand: []string{"Fireball"}}
	if _, ok := a.choose(v, 0); !ok {
		t.Error("no move on a level not won")
	}
	if cmd, ok := a.choose(v, 1); ok {
		t.Errorf("seat 1 moves: %s", cmd)
	}
	v.Won = true
	if cmd, ok := a.choose(v, 0); ok {
		t.Errorf("a move after the win: %s", cmd)
	}
}

// --level names a level; its default (Minesweeper's beginner) is the
// first level, and any other word is refused.
func TestSpellGridAdapter_Settings(t *testing.T) {
	t.Parallel()
	a := spellgridAdapter{}
	for _, tc := range []struct{ level, want string }{
		{"beginner", `{"level":"scribe"}`},
		{"", `{"level":"scribe"}`},
		{"golem", `{"level":"golem"}`},
		{"expert", ""},
	} {
		got, err := a.settings(&config{Level: tc.level})
		switch {
		case tc.want == "" && err == nil:
			t.Errorf("--level %q: settings %s, want an error", tc.level, got)
		case tc.want != "" && (err != nil || string(got) != tc.want):
			t.Errorf("--level %q: settings %s, %v; want %s", tc.level, got, err, tc.want)
		}
	}
}

func sgJSON(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
