package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
		code := verifyMain(args, strings.NewReader(""), &out, &errOut)
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
