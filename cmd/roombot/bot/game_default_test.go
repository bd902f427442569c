package bot

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/roomd/roomd/core/nim"
	"github.com/roomd/roomd/core/session"
	"github.com/roomd/roomd/core/tictactoe"
	"github.com/roomd/roomd/protocol"
)

// defaultRegistry plays games through the default follower only, as a
// game from outside roomd's tree is played.
func defaultRegistry(t *testing.T, games ...Game) gameRegistry {
	t.Helper()
	var list []*game
	for _, g := range games {
		a, err := newDefaultAdapter(g)
		if err != nil {
			t.Fatal(err)
		}
		list = append(list, gameOf[json.RawMessage, json.RawMessage](a))
	}
	r, err := newGameRegistry(list...)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// playShort runs a short scenario of games and returns its result and exit
// status.
func playShort(t *testing.T, url string, games gameRegistry, args ...string) (result, int) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "result.json")
	args = append([]string{"--url", url, "--duration", "2s", "--rooms", "2", "--spectators", "1", "--drain", "5s",
		"--check-every", "500ms", "--progress", "0", "--seed", "11", "--log-level", "warn",
		"--loop", "open", "--rate", "40", "--json", path}, args...)
	var stdout, stderr bytes.Buffer
	code := runWith(context.Background(), games, args, &stdout, &stderr)
	t.Logf("%s%s", stdout.String(), stderr.String())
	var res result
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("exit %d, no result: %v", code, err)
	}
	if err := json.Unmarshal(data, &res); err != nil {
		t.Fatal(err)
	}
	return res, code
}

// TestDefaultFollowerPlays: a game roombot has no adapter for is played
// from its rules alone (its Go reducer and AI), with every generic check:
// the followed views equal the server's, and no invariant is violated —
// for a game with nothing hidden and for one with hidden heaps.
func TestDefaultFollowerPlays(t *testing.T) {
	t.Parallel()
	url := startServer(t)
	for _, tc := range []struct {
		rules session.Game
		args  []string
	}{
		{tictactoe.Game, []string{"--players", "2"}},
		{nim.Game, []string{"--players", "2", "--ai", "1"}},
	} {
		id := tc.rules.Info().ID
		t.Run(id, func(t *testing.T) {
			t.Parallel()
			res, code := playShort(t, url, defaultRegistry(t, Game{Rules: tc.rules}), append([]string{"--game", id}, tc.args...)...)
			switch {
			case code != 0 || res.Violations.Total != 0:
				t.Errorf("exit %d, violations %v", code, res.Violations.ByKind)
			case res.Window.Moves < 20:
				t.Errorf("only %d moves", res.Window.Moves)
			case res.Checks.FinalViews == 0 || res.Checks.ViewChecks < int64(res.Checks.FinalViews):
				t.Errorf("views not checked against the server's: %+v", res.Checks)
			case res.Checks.LeakMatches == 0:
				t.Errorf("no leak checks: %+v", res.Checks)
			}
		})
	}
}

// flagEveryMatch is a game's own Checks that records what it is given
// and finds one leak in every match it checks.
type flagEveryMatch struct {
	mu     sync.Mutex
	calls  atomic.Int64
	views  int
	beats  int
	spects bool
}

func (f *flagEveryMatch) Leaks(frames []Frame, res protocol.Result, seat int) []string {
	f.calls.Add(1)
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, fr := range frames {
		f.views += len(fr.Views)
		f.beats += len(fr.Beats)
	}
	f.spects = f.spects || seat == -1
	return []string{"planted"}
}

// TestGameChecksReported: a game's own Checks see the frames of each
// match, decoded, for seats and spectators, and what they find is a
// violation (exit 3, kind leak-game).
func TestGameChecksReported(t *testing.T) {
	t.Parallel()
	url := startServer(t)
	checks := &flagEveryMatch{}
	reg, err := registryOf([]Game{{Rules: tictactoe.Game, Checks: checks}})
	if err != nil {
		t.Fatal(err)
	}
	res, code := playShort(t, url, reg, "--game", "tictactoe", "--players", "2")
	if code != 3 || res.Violations.ByKind[vLeakGame] == 0 {
		t.Fatalf("exit %d, violations %v; want 3 with %s", code, res.Violations.ByKind, vLeakGame)
	}
	if checks.calls.Load() == 0 || checks.views == 0 || checks.beats == 0 || !checks.spects {
		t.Errorf("checks given %d calls, %d views, %d beats, a spectator's: %v", checks.calls.Load(), checks.views, checks.beats, checks.spects)
	}
}

// TestRegistryOf: a built-in game without checks of its own keeps its
// adapter; games are refused when roombot could not play them.
func TestRegistryOf(t *testing.T) {
	t.Parallel()
	reg, err := registryOf(Builtin())
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range reg.order {
		if a, _ := adapters.lookup(g.info().ID); a != g {
			t.Errorf("%s is not played by its adapter", g.info().ID)
		}
	}
	if _, err := registryOf([]Game{{Rules: nim.Game}, {Rules: nim.Game}}); err == nil || !strings.Contains(err.Error(), "nim given twice") {
		t.Errorf("twice: %v", err)
	}
	if _, err := registryOf([]Game{{}}); err == nil {
		t.Error("a game without rules was taken")
	}
	var out bytes.Buffer
	if code := Run(context.Background(), []Game{{Rules: nim.Game}, {Rules: nim.Game}}, []string{"-h"}, &out, &out); code != 2 || !strings.Contains(out.String(), "twice") {
		t.Errorf("Run with a game twice: %d %s", code, out.String())
	}
}
