package nim

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"testing"

	"github.com/roomd/roomd/core/session"
	"pgregory.net/rapid"
)

// TestHiddenInformation plays random games (random seeds, seat counts and
// piles; each take by the AI or at random) and checks after every take,
// for every seat and the spectator, that the view and the events marshalled
// to JSON hold no other seat's secret before the end, and every secret
// after it. It checks this twice: structurally, by decoding the JSON and
// allowing only known fields, and by noninterference, replaying the same
// takes on a twin state in which every secret the viewer must not know is
// different and asking for byte-identical output.
func TestHiddenInformation(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		seed := rapid.Int64().Draw(t, "seed")
		seats := rapid.IntRange(MinSeats, MaxSeats).Draw(t, "seats")
		pile := rapid.IntRange(1, 40).Draw(t, "pile")
		sess := newSession(t, seed, fmt.Sprintf(`{"pile":%d}`, pile), seats)
		m := sess.Match()
		secrets := stateOf(t, m).Secrets()
		twins := make(map[Seat]*State)
		for _, v := range viewers(seats) {
			twins[v] = twin(stateOf(t, m), v)
		}
		follow := newClients(t, m, seats)
		checkViews(t, m, seats, secrets)
		for turn := 0; !m.Status().Over; turn++ {
			if turn > pile {
				t.Fatalf("the game goes on after %d takes from a pile of %d", turn, pile)
			}
			seat, command := drawTake(t, m)
			step, err := sess.Apply(seat, command)
			if err != nil {
				t.Fatalf("seat %d: %s refused: %v", seat, command, err)
			}
			checkViews(t, m, seats, secrets)
			checkEvents(t, m, step, seats, secrets)
			checkTwins(t, m, step, twins, seat, command)
			checkAudience(t, m, step, seats)
			follow.step(t, m, step)
			if rapid.Bool().Draw(t, "rejoin") {
				follow.rejoin(t, m, rapid.SampledFrom(viewers(seats)).Draw(t, "rejoiner"))
			}
		}
		if st := sess.Status(); len(st.Outcome.Winners) != 1 {
			t.Fatalf("status %+v, want one winner", st)
		}
	})
}

// drawTake is the seat to act and a legal take, chosen by the AI or at random.
func drawTake(t *rapid.T, m session.Match) (Seat, json.RawMessage) {
	seat := m.Pending()[0]
	if rapid.Bool().Draw(t, "ai") {
		command, ok := m.AIMove(seat, session.IntSeed(7).Source())
		if !ok {
			t.Fatalf("the AI has no move for seat %d, whose turn it is", seat)
		}
		return seat, command
	}
	pile := m.View(session.Spectator).(View).Pile
	return seat, take(rapid.IntRange(MinTake, min(MaxTake, pile)).Draw(t, "n"))
}

// twin copies s with every secret viewer may not know changed.
func twin(s *State, viewer Seat) *State {
	c := *s
	c.secrets = slices.Clone(s.secrets)
	c.history = slices.Clone(s.history)
	for i := range c.secrets {
		if i != viewer {
			c.secrets[i] = c.secrets[i]%3 + 1
		}
	}
	return &c
}

// fields decodes a JSON object into its members.
func fields(t tb, raw []byte) map[string]json.RawMessage {
	t.Helper()
	var out map[string]json.RawMessage
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("%s is not a JSON object: %v", raw, err)
	}
	return out
}

// hasKeys checks that obj has exactly the keys want.
func hasKeys(t tb, what string, obj map[string]json.RawMessage, want ...string) {
	t.Helper()
	got := slices.Sorted(maps.Keys(obj))
	sort.Strings(want)
	if !slices.Equal(got, want) {
		t.Fatalf("%s has keys %v, want %v", what, got, want)
	}
}

// checkViews checks every viewer's view, as JSON, against what it may know.
func checkViews(t tb, m session.Match, seats int, secrets []int) {
	t.Helper()
	st := m.Status()
	for _, viewer := range viewers(seats) {
		raw := encode(t, m.View(viewer))
		what := fmt.Sprintf("view of %d", viewer)
		v := fields(t, []byte(raw))
		keys := []string{"config", "pile", "turn", "seats", "history", "over"}
		switch {
		case st.Over:
			keys = append(keys, "winner", "secrets")
		case viewer != session.Spectator:
			keys = append(keys, "you", "secret")
		}
		hasKeys(t, what, v, keys...)
		hasJSON(t, what+" over", v["over"], st.Over)
		if st.Over {
			hasJSON(t, what+" secrets", v["secrets"], secrets)
			hasJSON(t, what+" winner", v["winner"], st.Outcome.Winners[0])
		} else if viewer != session.Spectator {
			hasJSON(t, what+" you", v["you"], viewer)
			hasJSON(t, what+" secret", v["secret"], secrets[viewer])
		}
		var history []map[string]json.RawMessage
		if err := json.Unmarshal(v["history"], &history); err != nil {
			t.Fatalf("%s history %s: %v", what, v["history"], err)
		}
		for i, h := range history {
			hasKeys(t, fmt.Sprintf("%s history %d", what, i), h, "seat", "n")
		}
		for k := range fields(t, v["config"]) {
			if k != "pile" && k != "mode" {
				t.Fatalf("%s config has %q", what, k)
			}
		}
	}
	// A viewer that is no seat is a spectator.
	for _, other := range []Seat{seats, 99, -2} {
		if got, want := encode(t, m.View(other)), encode(t, m.View(session.Spectator)); got != want {
			t.Fatalf("view of %d is %s, want the spectator's %s", other, got, want)
		}
	}
}

// checkEvents checks every viewer's events, as JSON: takes only, until the
// end event, which ends the last step and shows every secret.
func checkEvents(t tb, m session.Match, step session.Step, seats int, secrets []int) {
	t.Helper()
	st := m.Status()
	for _, viewer := range viewers(seats) {
		var events []map[string]json.RawMessage
		raw := encode(t, step.Beats(viewer))
		if err := json.Unmarshal([]byte(raw), &events); err != nil {
			t.Fatalf("events of %d: %s: %v", viewer, raw, err)
		}
		ends := 0
		for i, e := range events {
			what := fmt.Sprintf("event %d of %d", i, viewer)
			var typ string
			if err := json.Unmarshal(e["type"], &typ); err != nil {
				t.Fatalf("%s: type %s: %v", what, e["type"], err)
			}
			switch typ {
			case EventTook:
				hasKeys(t, what, e, "type", "seat", "n", "pile")
			case EventEnd:
				if !st.Over || i != len(events)-1 {
					t.Fatalf("%s: an end event at %d of %d events, over %v", what, i, len(events), st.Over)
				}
				hasKeys(t, what, e, "type", "winner", "lastTaker", "secrets")
				hasJSON(t, what+" secrets", e["secrets"], secrets)
				hasJSON(t, what+" winner", e["winner"], st.Outcome.Winners[0])
				ends++
			default:
				t.Fatalf("%s: unknown type %q", what, typ)
			}
		}
		if st.Over != (ends == 1) {
			t.Fatalf("events of %d: %d end events, over %v: %s", viewer, ends, st.Over, raw)
		}
	}
}

// hasJSON checks that raw is the JSON of want.
func hasJSON(t tb, what string, raw json.RawMessage, want any) {
	t.Helper()
	if w := encode(t, want); string(raw) != w {
		t.Fatalf("%s is %s, want %s", what, raw, w)
	}
}

// checkTwins plays the same take on every viewer's twin and, while the game
// runs, wants the same bytes as the real match shows that viewer.
func checkTwins(t tb, m session.Match, step session.Step, twins map[Seat]*State, seat Seat, command json.RawMessage) {
	t.Helper()
	move, err := session.DecodeMove[Move](command)
	if err != nil {
		t.Fatalf("decode %s: %v", command, err)
	}
	over := m.Status().Over
	for viewer, tw := range twins {
		tw, events, err := Rules{}.Apply(tw, session.Input[Move]{Seat: seat, Move: move})
		if err != nil {
			t.Fatalf("twin of %d refused %s: %v", viewer, command, err)
		}
		if over {
			continue // now every secret is public, and the winner may differ
		}
		if got, want := encode(t, Rules{}.Project(tw, viewer)), encode(t, m.View(viewer)); got != want {
			t.Fatalf("view of %d depends on secrets it may not know:\n%s\nwith other secrets:\n%s", viewer, want, got)
		}
		if got, want := encode(t, Rules{}.ProjectEvents(tw, events, viewer)), encode(t, step.Beats(viewer)); got != want {
			t.Fatalf("events of %d depend on secrets it may not know:\n%s\nwith other secrets:\n%s", viewer, want, got)
		}
	}
}

// checkAudience checks the audience keys and that viewers sharing a key get
// identical bytes.
func checkAudience(t tb, m session.Match, step session.Step, seats int) {
	t.Helper()
	over := m.Status().Over
	seen := make(map[int]string)
	for _, v := range viewers(seats) {
		key := m.Audience(v)
		want := v + 1
		if over || v == session.Spectator {
			want = 0
		}
		if key != want {
			t.Fatalf("audience of %d is %d, want %d (over %v)", v, key, want, over)
		}
		out := encode(t, m.View(v)) + encode(t, step.Beats(v))
		if prev, ok := seen[key]; ok && prev != out {
			t.Fatalf("audience %d: viewer %d gets\n%s\nanother viewer gets\n%s", key, v, out, prev)
		}
		seen[key] = out
	}
	if k := m.Audience(99); k != 0 {
		t.Fatalf("audience of 99 is %d, want 0", k)
	}
}

// clients follows a match as Go clients do: each viewer starts from a
// snapshot of its view sent as JSON, then applies the events it is sent.
type clients struct {
	views map[Seat]*View
}

func newClients(t tb, m session.Match, seats int) *clients {
	t.Helper()
	c := &clients{views: make(map[Seat]*View)}
	for _, v := range viewers(seats) {
		c.rejoin(t, m, v)
	}
	return c
}

// rejoin replaces viewer's view with a fresh snapshot.
func (c *clients) rejoin(t tb, m session.Match, viewer Seat) {
	t.Helper()
	var v View
	if err := json.Unmarshal([]byte(encode(t, m.View(viewer))), &v); err != nil {
		t.Fatalf("decode view of %d: %v", viewer, err)
	}
	c.views[viewer] = &v
}

// step applies a step's events, sent as JSON, to every client's view and
// wants the view the server projects.
func (c *clients) step(t tb, m session.Match, step session.Step) {
	t.Helper()
	for viewer, v := range c.views {
		var events []Event
		if err := json.Unmarshal([]byte(encode(t, step.Beats(viewer))), &events); err != nil {
			t.Fatalf("decode events of %d: %v", viewer, err)
		}
		v.Apply(events)
		if got, want := encode(t, v), encode(t, m.View(viewer)); got != want {
			t.Fatalf("client view of %d after %s:\n%s\nthe server projects\n%s", viewer, encode(t, events), got, want)
		}
	}
}

// The client view is the server's projection from the very first snapshot.
func TestClientsStartEqual(t *testing.T) {
	s := newSession(t, 3, `{"pile":9}`, 3)
	c := newClients(t, s.Match(), 3)
	for viewer, v := range c.views {
		if got, want := encode(t, v), encode(t, s.Match().View(viewer)); got != want {
			t.Errorf("snapshot of %d decodes to %s, want %s", viewer, got, want)
		}
	}
}
