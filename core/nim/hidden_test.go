package nim

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/roomd/roomd/core/session"
)

// secretSeeds returns n secret seeds whose keys come from a fixed
// generator, so that every run plays the same matches.
func secretSeeds(n int) []session.Seed {
	gen := rand.NewChaCha8([32]byte{'n', 'i', 'm'})
	out := make([]session.Seed, n)
	for i := range out {
		var key [session.SeedBytes]byte
		_, _ = gen.Read(key[:]) // never fails
		out[i] = session.SecretSeed(key)
	}
	return out
}

// startSecret starts a session of Game from a secret seed.
func startSecret(t *testing.T, seed session.Seed, config string, seats int) *session.GameSession {
	t.Helper()
	now := 0.0
	clock := func() float64 { now += 1000; return now }
	s, err := session.NewSession(Game, seed, json.RawMessage(config), seats, clock)
	if err != nil {
		t.Fatalf("NewSession(%s, %d seats): %v", config, seats, err)
	}
	return s
}

// resampled counts the resamplings that changed the hidden state.
type resampled struct{ draws, changed int }

// checkHidden checks every viewer of m after a step (nil before the first
// take): nothing it is sent holds a Tell of what it must not know, nothing
// is larger than the game's bounds, and Resample for that viewer keeps its
// view, the spectator's and what the other seats see of the public state,
// leaves m alone and deals the hidden secrets again.
func checkHidden(t *testing.T, m session.Match, step session.Step, seats int, src session.Source, count *resampled) {
	t.Helper()
	info := Game.Info()
	before := everything(t, m, seats)
	truth := stateOf(t, m).Secrets()
	for _, viewer := range viewers(seats) {
		secrets, ok := session.Secrets(m, viewer)
		if !ok {
			t.Fatal("nim declares no hidden information")
		}
		view := encode(t, m.View(viewer))
		beats := []byte("[]")
		if step != nil {
			var err error
			if beats, err = step.AppendBeats(nil, viewer); err != nil {
				t.Fatalf("events of %d: %v", viewer, err)
			}
		}
		for _, sec := range secrets {
			if strings.Contains(view, sec.Tell) {
				t.Fatalf("the view of %d gives away %s (%s): %s", viewer, sec.What, sec.Tell, view)
			}
			if strings.Contains(string(beats), sec.Tell) {
				t.Fatalf("the events of %d give away %s (%s): %s", viewer, sec.What, sec.Tell, beats)
			}
		}
		if len(view) > info.MaxViewBytes || len(beats) > info.MaxEventBytes {
			t.Fatalf("viewer %d gets a view of %d bytes and events of %d, more than %d and %d",
				viewer, len(view), len(beats), info.MaxViewBytes, info.MaxEventBytes)
		}

		r, ok := session.Resample(m, viewer, src)
		if !ok {
			t.Fatal("nim declares no hidden information")
		}
		if got := encode(t, r.View(viewer)); got != view {
			t.Fatalf("resampled for %d, its view is\n%s\nnot\n%s", viewer, got, view)
		}
		if got, want := encode(t, r.View(session.Spectator)), encode(t, m.View(session.Spectator)); got != want {
			t.Fatalf("resampled for %d, the spectator's view is\n%s\nnot\n%s", viewer, got, want)
		}
		for _, other := range viewers(seats) {
			if got, want := public(t, r.View(other)), public(t, m.View(other)); got != want {
				t.Fatalf("resampled for %d, seat %d sees the public state as\n%s\nnot\n%s", viewer, other, got, want)
			}
		}
		if got := everything(t, m, seats); got != before {
			t.Fatalf("resampling for %d changed the match:\n%s\nwas\n%s", viewer, got, before)
		}
		if got := stateOf(t, m).Secrets(); !slices.Equal(got, truth) {
			t.Fatalf("resampling for %d changed the secrets to %v, were %v", viewer, got, truth)
		}
		again := stateOf(t, r).Secrets()
		if viewer >= 0 && again[viewer] != truth[viewer] {
			t.Fatalf("resampling for %d dealt it %d, it holds %d", viewer, again[viewer], truth[viewer])
		}
		if len(secrets) > 0 {
			count.draws++
			if after, _ := session.Secrets(r, viewer); !slices.Equal(after, secrets) {
				count.changed++
			}
		}
	}
}

// public is a view as JSON without the viewer's own secret.
func public(t *testing.T, v any) string {
	t.Helper()
	pv := v.(View)
	pv.Secret = nil
	return encode(t, pv)
}

// Random matches from secret seeds, every seat count and piles from 1 to
// the default, each take by the AI or at random: after every take no
// viewer is sent a Tell of what it must not know, and Resample passes for
// every viewer.
func TestHiddenSecretsStayHidden(t *testing.T) {
	seeds := secretSeeds(120)
	rng := rand.New(rand.NewPCG(1, 2))
	src := session.SecretSeed([32]byte{'r', 'e'}).Source()
	var count resampled
	for i, seed := range seeds {
		seats := MinSeats + i%(MaxSeats-MinSeats+1)
		pile := []int{1, 2, 4, 7, DefaultPile}[i%5]
		t.Run(fmt.Sprintf("%d seats pile %d #%d", seats, pile, i), func(t *testing.T) {
			s := startSecret(t, seed, fmt.Sprintf(`{"pile":%d}`, pile), seats)
			m := s.Match()
			checkHidden(t, m, nil, seats, src, &count)
			for !m.Status().Over {
				seat := m.Pending()[0]
				command, ok := s.AIMove(seat)
				if !ok {
					t.Fatalf("the AI has no move for seat %d", seat)
				}
				if rng.IntN(2) == 0 {
					command = take(MinTake + rng.IntN(min(MaxTake, m.View(seat).(View).Pile)))
				}
				step, err := s.Apply(seat, command)
				if err != nil {
					t.Fatalf("seat %d: %s refused: %v", seat, command, err)
				}
				checkHidden(t, m, step, seats, src, &count)
			}
		})
	}
	// A seat's one hidden secret changes 2 times in 3, more secrets more
	// often: the bar is 60%.
	if count.draws < 500 || 10*count.changed < 6*count.draws {
		t.Fatalf("Resample changed the secrets in %d draws of %d", count.changed, count.draws)
	}
	t.Logf("Resample changed the secrets in %d draws of %d", count.changed, count.draws)
}

// Secrets names every secret a viewer must not know, with the bytes its
// view would show.
func TestHiddenSecretsList(t *testing.T) {
	running := &State{seats: 3, pile: 5, secrets: []int{2, 2, 3}, history: []Take{}}
	tests := []struct {
		name   string
		s      *State
		viewer Seat
		want   []session.Secret
	}{
		{"seat 0", running, 0, []session.Secret{
			{What: "seat 1's secret 2", Tell: `"you":1,"secret":2`},
			{What: "seat 2's secret 3", Tell: `"secret":3`},
		}},
		{"seat 2", running, 2, []session.Secret{
			{What: "seat 0's secret 2", Tell: `"secret":2`},
			{What: "seat 1's secret 2", Tell: `"secret":2`},
		}},
		{"spectator", running, session.Spectator, []session.Secret{
			{What: "seat 0's secret 2", Tell: `"secret":2`},
			{What: "seat 1's secret 2", Tell: `"secret":2`},
			{What: "seat 2's secret 3", Tell: `"secret":3`},
		}},
		{"over", &State{seats: 2, secrets: []int{1, 3}, history: []Take{{0, 3}}, over: true, winner: 0}, 1, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := (Rules{}).Secrets(tt.s, tt.viewer); !slices.Equal(got, tt.want) {
				t.Errorf("Secrets = %q, want %q", got, tt.want)
			}
		})
	}
}

// Resample deals every hidden secret anew, each of 1 to 3, keeps the
// viewer's own, and deals nothing once the game is over.
func TestHiddenResampleDeals(t *testing.T) {
	s := &State{seats: 4, pile: 9, secrets: []int{1, 2, 3, 1}, history: []Take{{0, 1}}}
	src := session.IntSeed(5).Source()
	seen := make(map[[2]int]bool)
	for range 200 {
		r := (Rules{}).Resample(s, 1, src)
		if r.secrets[1] != 2 {
			t.Fatalf("seat 1 was dealt %d, holds 2", r.secrets[1])
		}
		for j, k := range r.secrets {
			if k < 1 || k > 3 {
				t.Fatalf("seat %d was dealt %d", j, k)
			}
			seen[[2]int{j, k}] = true
		}
		r.history[0].N = 3 // the copy shares nothing with s
	}
	if len(seen) != 3*3+1 {
		t.Errorf("dealt %v, want every secret for every seat but 1", seen)
	}
	if !slices.Equal(s.secrets, []int{1, 2, 3, 1}) || s.history[0].N != 1 {
		t.Errorf("Resample changed s: secrets %v history %v", s.secrets, s.history)
	}
	over := &State{seats: 2, secrets: []int{3, 1}, history: []Take{{0, 2}}, over: true}
	if r := (Rules{}).Resample(over, session.Spectator, src); !slices.Equal(r.secrets, over.secrets) {
		t.Errorf("resampled once over: %v, want %v", r.secrets, over.secrets)
	}
}

// The bounds hold for the largest match, a pile of MaxPile taken one by one
// by MaxSeats seats, and are no more than four times what it sends.
func TestHiddenBounds(t *testing.T) {
	info := Game.Info()
	s := startSecret(t, secretSeeds(1)[0], fmt.Sprintf(`{"pile":%d,"mode":"classic"}`, MaxPile), MaxSeats)
	m := s.Match()
	view, events := 0, 0
	for {
		if m.View(session.Spectator).(View).Pile <= MaxTake { // views grow with the history
			for _, v := range viewers(MaxSeats) {
				view = max(view, len(encode(t, m.View(v))))
			}
		}
		if m.Status().Over {
			break
		}
		step, err := s.Apply(m.Pending()[0], take(1))
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range viewers(MaxSeats) {
			b, err := step.AppendBeats(nil, v)
			if err != nil {
				t.Fatal(err)
			}
			events = max(events, len(b))
		}
	}
	t.Logf("largest view %d bytes (bound %d), largest events %d (bound %d)", view, info.MaxViewBytes, events, info.MaxEventBytes)
	if view > info.MaxViewBytes || 4*view < info.MaxViewBytes {
		t.Errorf("largest view %d bytes, bound %d", view, info.MaxViewBytes)
	}
	if events > info.MaxEventBytes || 4*events < info.MaxEventBytes {
		t.Errorf("largest events %d bytes, bound %d", events, info.MaxEventBytes)
	}
}
