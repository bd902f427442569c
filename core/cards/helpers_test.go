package cards

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// tb is what the helpers need of *testing.T, *testing.B and *rapid.T
// alike.
type tb interface {
	Helper()
	Fatal(args ...any)
	Fatalf(format string, args ...any)
}

// newGame starts a game or fails the test.
func newGame(t tb, opts Options) *Game {
	t.Helper()
	g, err := NewGame(opts)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// must returns a call's value, or fails the test that t names (through
// the returned function) on the call's error.
func must[T any](t tb) func(v T, err error) T {
	return func(v T, err error) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

// ok fails the test on err.
func ok(t tb, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func summon(t tb, g *Game, card string, p Player) ID {
	t.Helper()
	return must[ID](t)(g.Summon(card, p))
}

func addToHand(t tb, g *Game, card string, p Player) ID {
	t.Helper()
	return must[ID](t)(g.AddToHand(card, p))
}

func health(t tb, g *Game, id ID) int32 {
	t.Helper()
	return must[int32](t)(g.Health(id))
}

func attack(t tb, g *Game, id ID) int32 {
	t.Helper()
	return must[int32](t)(g.Attack(id))
}

func zone(t tb, g *Game, id ID) Zone {
	t.Helper()
	return must[Zone](t)(g.ZoneOf(id))
}

func board(t tb, g *Game, p Player) []ID {
	t.Helper()
	return must[[]ID](t)(g.Board(p))
}

func hand(t tb, g *Game, p Player) []ID {
	t.Helper()
	return must[[]ID](t)(g.Hand(p))
}

// wantLog checks the log since the last ClearLog, then clears it.
func wantLog(t tb, g *Game, want ...Event) {
	t.Helper()
	got := g.Log()
	if !slices.Equal(got, want) {
		t.Fatalf("log:\n%s\nwant:\n%s", events(got), events(want))
	}
	g.ClearLog()
}

func events(es []Event) string {
	var b strings.Builder
	for _, e := range es {
		fmt.Fprintf(&b, "  %v\n", e)
	}
	return b.String()
}

// ofType returns the events of the log of type typ.
func ofType(g *Game, typ EventType) []Event {
	var out []Event
	for _, e := range g.Log() {
		if e.Type == typ {
			out = append(out, e)
		}
	}
	return out
}

// fingerprint is everything observable of a game, and its internal
// snapshot of multipliers, as one string: two games with the same
// fingerprint answer every call alike.
func fingerprint(t tb, g *Game) string {
	t.Helper()
	var defs []CardDef
	for _, name := range g.Cards() {
		d, _ := g.Card(name)
		defs = append(defs, d)
	}
	b, err := json.Marshal(struct {
		Snapshot Snapshot
		Log      []Event
		Cards    []CardDef
		Mult     string
		Rules    []RuleAura
		Requests []TextRequest
		Origins  []ID
	}{g.Snapshot(), g.Log(), defs, fmt.Sprint(g.s.mult), g.s.rules, g.s.requests, origins(g)})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func origins(g *Game) []ID {
	out := make([]ID, len(g.s.ents))
	for i, e := range g.s.ents {
		out[i] = e.origin
	}
	return out
}

// refused checks that call fails with an error that is target (if not
// nil) and changes nothing.
func refused(t tb, g *Game, target error, call func() error) {
	t.Helper()
	before := fingerprint(t, g)
	err := call()
	if err == nil {
		t.Fatalf("the call succeeded; want an error")
	}
	if target != nil && !errorsIs(err, target) {
		t.Fatalf("error %v; want %v", err, target)
	}
	if after := fingerprint(t, g); after != before {
		t.Fatalf("the failed call (%v) changed the game:\n%s", err, diff(before, after))
	}
}

// custom returns a game with extra card definitions given as JSON.
func custom(t tb, opts Options, cardsJSON string) *Game {
	t.Helper()
	defs, err := DecodeCards([]byte(cardsJSON))
	if err != nil {
		t.Fatal(err)
	}
	opts.Cards = append(opts.Cards, defs...)
	return newGame(t, opts)
}

func errorsIs(err, target error) bool { return errors.Is(err, target) }

// diff shows where two fingerprints part.
func diff(a, b string) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	from := max(0, i-80)
	return fmt.Sprintf("before: …%s\nafter:  …%s", a[from:min(len(a), i+80)], b[from:min(len(b), i+80)])
}
