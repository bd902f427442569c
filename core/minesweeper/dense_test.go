package minesweeper

import (
	"bytes"
	"encoding/json"
	"testing"

	"pgregory.net/rapid"

	"github.com/roomd/roomd/core/session"
)

// TestDenseFollowsView plays random solo and co-op matches and follows
// every viewer's view two ways, with View.Apply and with a Dense: after
// every update the Dense's view (its phase included) and its move are the
// View's, byte for byte; a clone taken before an update is the view before it;
// and events that do not play fail both the same way, leaving the same
// view.
func TestDenseFollowsView(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := drawGame(t)
		if g.cfg.ModeOrSolo() == ModeRace {
			_, err := NewDense(View{Race: true, Config: g.cfg.Raw()})
			if err == nil {
				t.Fatal("NewDense took a race's view")
			}
			return
		}
		views := map[session.Seat]*View{}
		denses := map[session.Seat]*Dense{}
		for v := session.Spectator; v < g.seats; v++ {
			var view View
			if err := json.Unmarshal(mustJSON(t, g.sess.Match().View(v)), &view); err != nil {
				t.Fatal(err)
			}
			d, err := NewDense(view)
			if err != nil {
				t.Fatal(err)
			}
			views[v], denses[v] = &view, d
		}
		same := func(what string, v session.Seat) {
			want, got := mustJSON(t, *views[v]), mustJSON(t, denses[v].View())
			if !bytes.Equal(got, want) {
				t.Fatalf("%s, viewer %d: dense\n%s\nnot\n%s", what, v, got, want)
			}
			seat := max(v, 0)
			wm, wok := Rules{}.Choose(*views[v], seat, session.IntSeed(7).Source())
			gm, gok := denses[v].Choose()
			if gm != wm || gok != wok {
				t.Fatalf("%s, viewer %d: dense chose %v %v, not %v %v", what, v, gm, gok, wm, wok)
			}
		}
		g.play(t, 60, func(p played) {
			for v := session.Spectator; v < g.seats; v++ {
				var events []Event
				if err := json.Unmarshal(mustJSON(t, p.step.Beats(v)), &events); err != nil {
					t.Fatal(err)
				}
				before := mustJSON(t, *views[v])
				clone := denses[v].Clone()
				werr, gerr := views[v].Apply(events), denses[v].Apply(events)
				if (werr == nil) != (gerr == nil) || (werr != nil && werr.Error() != gerr.Error()) {
					t.Fatalf("viewer %d apply %v: dense %v, view %v", v, events, gerr, werr)
				}
				same("after an update", v)
				if got := mustJSON(t, clone.View()); !bytes.Equal(got, before) {
					t.Fatalf("viewer %d: the clone changed with the update:\n%s\nnot\n%s", v, got, before)
				}
			}
		})
		// Events that do not play: off the board, or not a single board's.
		v := rapid.IntRange(int(session.Spectator), g.seats-1).Draw(t, "badViewer")
		bad := rapid.SampledFrom([]Event{
			{Type: EventFlag, R: g.cfg.Rows, C: 0, Flagged: true},
			{Type: EventReveal, Cells: []RevealedCell{{R: 0, C: 0, Adjacent: 0}, {R: -1, C: 0}}},
			{Type: EventProgress},
		}).Draw(t, "bad")
		werr, gerr := views[v].Apply([]Event{bad}), denses[v].Apply([]Event{bad})
		if werr == nil || gerr == nil || werr.Error() != gerr.Error() {
			t.Fatalf("bad event %v: dense %v, view %v", bad, gerr, werr)
		}
		same("after a failed update", v)
	})
}
