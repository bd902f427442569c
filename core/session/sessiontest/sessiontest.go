// Package sessiontest holds what the tests of every game under core/ need:
// a session on a test clock, a match's whole observable state, rejections,
// and the published JSON schemas compiled for checking against the decoders.
// It is imported by tests only.
package sessiontest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/roomd/roomd/core/session"
)

// TB is what the helpers need of *testing.T and *rapid.T alike.
type TB interface {
	Helper()
	Fatalf(format string, args ...any)
}

// NewSession starts a session of g whose clock advances 1000 ms at every
// read, so that every accepted move has its own time.
func NewSession(t TB, g session.Game, seed int64, config string, seats int) *session.GameSession {
	t.Helper()
	now := 0.0
	clock := func() float64 { now += 1000; return now }
	s, err := session.NewSession(g, session.IntSeed(seed), json.RawMessage(config), seats, clock)
	if err != nil {
		t.Fatalf("NewSession(%s, seed %d, %s, %d seats): %v", g.Info().ID, seed, config, seats, err)
	}
	return s
}

// State returns the typed state of m, failing the test if m holds another.
func State[S any](t TB, m session.Match) S {
	t.Helper()
	s, ok := session.State[S](m)
	if !ok {
		var want S
		t.Fatalf("match %T holds no %T", m, want)
	}
	return s
}

// Encode marshals v, failing the test on error.
func Encode(t TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("marshal %T: %v", v, err)
	}
	return string(b)
}

// Viewers lists every seat of a match of seats, then the spectator.
func Viewers(seats int) []session.Seat {
	out := make([]session.Seat, 0, seats+1)
	for s := range seats {
		out = append(out, s)
	}
	return append(out, session.Spectator)
}

// Everything is the observable state of a match: status, pending seats,
// and every viewer's audience and view, as JSON. Two matches that show the
// same Everything look the same to every client.
func Everything(t TB, m session.Match, seats int) string {
	t.Helper()
	out := Encode(t, m.Status()) + Encode(t, m.Pending())
	for _, v := range Viewers(seats) {
		out += fmt.Sprintf("|%d:%d:%s", v, m.Audience(v), Encode(t, m.View(v)))
	}
	return out
}

// AsRejection returns err as a *session.Rejection, failing the test if it
// is not one.
func AsRejection(t TB, err error) *session.Rejection {
	t.Helper()
	var rej *session.Rejection
	if !errors.As(err, &rej) {
		t.Fatalf("error %v (%T) is not a *session.Rejection", err, err)
	}
	return rej
}

// Schema compiles one of a game's published schemas.
func Schema(t TB, name string, schema json.RawMessage) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		t.Fatalf("%s schema: %v", name, err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(name, doc); err != nil {
		t.Fatalf("%s schema: %v", name, err)
	}
	sch, err := c.Compile(name)
	if err != nil {
		t.Fatalf("%s schema: %v", name, err)
	}
	return sch
}

// Valid reports whether raw is a JSON value that sch accepts.
func Valid(sch *jsonschema.Schema, raw string) bool {
	inst, err := jsonschema.UnmarshalJSON(strings.NewReader(raw))
	return err == nil && sch.Validate(inst) == nil
}
