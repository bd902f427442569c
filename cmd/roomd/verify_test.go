package main

import (
	"bytes"
	"encoding/json"
	"github.com/roomd/roomd"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/roomd/roomd/core/cardgame"
	"github.com/roomd/roomd/core/minesweeper"
	"github.com/roomd/roomd/core/session"
	"github.com/roomd/roomd/protocol"
)

// finishedMatch plays an intermediate Minesweeper match with the AI from a
// secret seed, a move every 700 ms, and returns its record in the form GET
// /api/rooms/{code}/replay serves, with its commitment.
func finishedMatch(t *testing.T) (protocol.Replay, string) {
	t.Helper()
	var key [session.SeedBytes]byte
	copy(key[:], "a secret a host drew at random!!")
	seed := session.SecretSeed(key)
	config := json.RawMessage(`{"level":"intermediate"}`)
	s, err := session.NewSession(minesweeper.Game, seed, config, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	now := 1_000.0
	for i := 0; !s.Status().Over; i++ {
		mv, ok := s.Match().AIMove(0, session.IntSeed(7).Source())
		if !ok || i > 2000 {
			t.Fatal("the AI has no move")
		}
		now += 700
		if _, err := s.ApplyAt(0, mv, now); err != nil {
			t.Fatal(err)
		}
	}
	res, _ := s.Result()
	seedJSON, _ := seed.MarshalJSON()
	logJSON, _ := json.Marshal(s.Log())
	st := s.Status()
	winners := st.Outcome.Winners
	if winners == nil {
		winners = []int{}
	}
	return protocol.Replay{Game: "minesweeper", RulesVersion: minesweeper.Info.RulesVersion, Seed: seedJSON, Config: config,
		Seats: 1, Log: logJSON, Result: protocol.Result{Match: 1, Status: res.Status, TimeMs: res.Time, Winners: winners,
			Seed: seedJSON, Commitment: seed.Commitment(), Config: config}}, seed.Commitment()
}

func TestVerifyCommand(t *testing.T) {
	t.Parallel()
	rec, commitment := finishedMatch(t)
	dir := t.TempDir()
	write := func(name string, r protocol.Replay) string {
		b, _ := json.Marshal(r)
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	run := func(args ...string) (int, string, string) {
		var out, errOut bytes.Buffer
		code := roomd.Command{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut}.Run(append([]string{"verify"}, args...))
		return code, out.String(), errOut.String()
	}
	good := write("good.json", rec)
	code, out, stderr := run("--commitment", strings.ToUpper(commitment), good)
	if code != 0 || !strings.Contains(out, `"fair":true`) {
		t.Fatalf("a fair match: exit %d\n%s%s", code, out, stderr)
	}
	var v struct {
		Fair       bool
		Commitment struct{ OK bool }
		Outcome    struct {
			OK     bool
			Detail string
		}
	}
	json.Unmarshal([]byte(out), &v)
	if !v.Commitment.OK || !v.Outcome.OK || !strings.Contains(v.Outcome.Detail, rec.Result.Status) {
		t.Fatalf("verdict %+v", v)
	}
	// The commitment the player saw differs from the secret's.
	other := strings.Repeat("ab", 32)
	if code, out, _ := run("--commitment", other, good); code != 1 || !strings.Contains(out, `"fair":false`) {
		t.Fatalf("a wrong commitment: exit %d %s", code, out)
	}
	// The host claims another time.
	lied := rec
	lied.Result.TimeMs++
	if code, out, _ := run(write("lied.json", lied)); code != 1 || !strings.Contains(out, "the result says") {
		t.Fatalf("a wrong time: exit %d %s", code, out)
	}
	// Another secret under the same commitment: another board.
	swapped := rec
	swapped.Seed = json.RawMessage(`"` + strings.Repeat("0", 64) + `"`)
	if code, out, _ := run(write("swapped.json", swapped)); code != 1 || !strings.Contains(out, "not the result's commitment") {
		t.Fatalf("another secret: exit %d %s", code, out)
	}
	if code, _, stderr := run(filepath.Join(dir, "missing.json")); code != 2 || stderr == "" {
		t.Fatalf("a missing file: exit %d %q", code, stderr)
	}
	if code, _, _ := run(); code != 2 {
		t.Fatalf("no argument: exit %d", code)
	}
}

// TestVerifyDuel: roomd verify checks a finished card duel by re-deriving
// its deals, draws and random effects from the disclosed secret. A duel
// played to its end under cards/2 is fair; the same record claimed as
// cards/1 (whose deal came from 32 bits of the secret) is not — its
// moves are refused on that deal; a duel stored under cards/1 before the
// change (testdata/fixtures/cards1) still is, re-derived the old way.
func TestVerifyDuel(t *testing.T) {
	t.Parallel()
	var key [session.SeedBytes]byte
	copy(key[:], "the duel's secret, from crypto!!")
	seed := session.SecretSeed(key)
	config := json.RawMessage(`{"decks":["raiders","wardens"],"mode":"duel"}`)
	s, err := session.NewSession(cardgame.Game, seed, config, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	now := 1_000.0
	for i := 0; !s.Status().Over; i++ {
		seat := s.Match().Pending()[0]
		mv, ok := s.AIMove(seat)
		if !ok || i > 3000 {
			t.Fatal("the AI has no move")
		}
		now += 500
		if _, err := s.ApplyAt(seat, mv, now); err != nil {
			t.Fatal(err)
		}
	}
	res, _ := s.Result()
	seedJSON, _ := seed.MarshalJSON()
	logJSON, _ := json.Marshal(s.Log())
	rec := protocol.Replay{Game: "cards", RulesVersion: cardgame.RulesVersion, Seed: seedJSON, Config: config, Seats: 2, Log: logJSON,
		Result: protocol.Result{Match: 1, Status: res.Status, TimeMs: res.Time, Winners: res.Outcome.Winners, Seed: seedJSON,
			Commitment: seed.Commitment(), Config: config}}
	dir := t.TempDir()
	verify := func(name string, r any) (int, string) {
		b, _ := json.Marshal(r)
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		var out, errOut bytes.Buffer
		code := roomd.Command{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut}.Run([]string{"verify", p})
		return code, out.String() + errOut.String()
	}
	if code, out := verify("cards2.json", rec); code != 0 || !strings.Contains(out, `"fair":true`) {
		t.Fatalf("a duel played under cards/2: exit %d %s", code, out)
	}
	old := rec
	old.RulesVersion = cardgame.LegacyRulesVersion
	if code, out := verify("as-cards1.json", old); code != 1 || !strings.Contains(out, "refused on the match the secret deals") && !strings.Contains(out, "the result says") {
		t.Fatalf("the duel claimed as cards/1: exit %d %s", code, out)
	}
	data, err := os.ReadFile("../../testdata/fixtures/cards1/bolt.json")
	if err != nil {
		t.Fatal(err)
	}
	var fx struct {
		Rooms []struct {
			Replay     map[string]any `json:"replay"`
			Commitment string         `json:"commitment"`
		} `json:"rooms"`
	}
	if err := json.Unmarshal(data, &fx); err != nil || len(fx.Rooms) < 2 || fx.Rooms[1].Replay == nil {
		t.Fatalf("the cards/1 fixture: %v", err)
	}
	stored := fx.Rooms[1].Replay
	stored["commitment"] = fx.Rooms[1].Commitment
	if code, out := verify("stored-cards1.json", stored); code != 0 || !strings.Contains(out, `"fair":true`) {
		t.Fatalf("the duel stored under cards/1: exit %d %s", code, out)
	}
}
