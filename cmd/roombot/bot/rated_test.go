package bot

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/roomd/roomd/core/games"
	"github.com/roomd/roomd/room"
	"github.com/roomd/roomd/store/memstore"
	"github.com/roomd/roomd/transport"
	"github.com/roomd/roomd/transport/auth"
)

const ratedSecret = "roombot's test secret, 32 bytes or more"

// startRatedServer runs a real roomd on a loopback port that signs players
// in with ratedSecret and pairs rated quick play in its process.
func startRatedServer(t *testing.T) string {
	t.Helper()
	st := memstore.New()
	rooms, err := room.NewManager(room.Config{Games: games.Registry(), Store: st, Ratings: st, Pool: memstore.NewPool(),
		AIDelay: 5 * time.Millisecond, RetryAfter: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	v, err := auth.New(auth.Config{Secret: []byte(ratedSecret)})
	if err != nil {
		t.Fatal(err)
	}
	front, err := transport.NewServer(transport.Config{Rooms: rooms, Auth: v, RateLimit: 1000, RateBurst: 1000,
		Quotas: transport.Quotas{Off: true}})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(front.Handler())
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := front.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
		hs.Close()
		v.Close()
	})
	return hs.URL
}

// TestRatedRun: 8 bots of four strengths queue for rated tic-tac-toe
// against a real server that keeps ratings, for a few seconds: they are
// paired, play and finish matches, every pair within the rating window
// when it was paired, and the report's figures are there, rho among them
// (the ratings moved). Six seconds are too few for the ratings to rank
// as the strengths do: rho's value is not checked.
func TestRatedRun(t *testing.T) {
	t.Parallel()
	url := startRatedServer(t)
	out := filepath.Join(t.TempDir(), "rated.json")
	var stdout, stderr bytes.Buffer
	code := run(t.Context(), []string{"--rated", "--jwt-secret", ratedSecret, "--url", url, "--bots", "8",
		"--strengths", "1200,1500,1800,2100", "--duration", "6s", "--json", out, "--log-level", "warn"}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("roombot --rated exited %d\nstdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var res RatedResult
	if err := json.Unmarshal(data, &res); err != nil {
		t.Fatal(err)
	}
	if res.Bots != 8 || res.Matches < 4 || res.Paired < 2*res.Matches || res.MatchP50 <= 0 || res.MatchP99 < res.MatchP50 || len(res.Failures) > 0 {
		t.Fatalf("report %+v", res)
	}
	if testing.Verbose() {
		t.Logf("%s", stdout.String())
	}
	if res.OutsideWindow != 0 || res.Rho == nil || *res.Rho < -1 || *res.Rho > 1 {
		t.Fatalf("%d pairs outside their window; rho %v", res.OutsideWindow, res.Rho)
	}
	for _, ms := range []int64{0, 4999, 5000, 40_000, 59_999, 60_000} {
		if got, want := window(ms), room.Window(time.Duration(ms)*time.Millisecond); got != want {
			t.Fatalf("roombot's window after %d ms = %v, the server's %v", ms, got, want)
		}
	}
	if len(res.Ratings) != 8 {
		t.Fatalf("final ratings of %d bots, want 8: %v", len(res.Ratings), res.Ratings)
	}
	if !strings.Contains(stdout.String(), "time to match: p50") {
		t.Fatalf("summary:\n%s", stdout.String())
	}
}

func TestRatedFlags(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--rated"}, "--jwt-secret"},
		{[]string{"--rated", "--jwt-secret", ratedSecret, "--bots", "1"}, "--bots"},
		{[]string{"--rated", "--jwt-secret", ratedSecret, "--strengths", "x"}, "--strengths"},
		{[]string{"--rated", "--jwt-secret", ratedSecret, "--clock", "{"}, "--clock"},
		{[]string{"--rated", "--jwt-secret", ratedSecret, "--clock", "0s"}, "--clock"},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(t.Context(), tc.args, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("%v: exit %d, %s; want 2 naming %s", tc.args, code, stderr.String(), tc.want)
		}
	}
	got, err := parseStrengths("1000-2000", 5)
	if err != nil || len(got) != 5 || got[0] != 1000 || got[2] != 1500 || got[4] != 2000 {
		t.Fatalf("spread = %v, %v", got, err)
	}
	got, err = parseStrengths("1200,1800", 3)
	if err != nil || got[0] != 1200 || got[1] != 1800 || got[2] != 1200 {
		t.Fatalf("list = %v, %v", got, err)
	}
}

func TestSpearman(t *testing.T) {
	t.Parallel()
	if r, ok := spearman([]float64{1, 2, 3, 4}, []float64{10, 20, 30, 40}); !ok || math.Abs(r-1) > 1e-9 {
		t.Fatalf("rho = %v, %v; want 1", r, ok)
	}
	if r, ok := spearman([]float64{1, 2, 3, 4}, []float64{4, 3, 2, 1}); !ok || math.Abs(r+1) > 1e-9 {
		t.Fatalf("rho = %v, %v; want -1", r, ok)
	}
	if _, ok := spearman([]float64{1200, 1254.5454545454545, 1309.090909090909, 1363.6363636363635, 1418.1818181818182, 1472.7272727272727, 1527.2727272727273},
		[]float64{1500, 1500, 1500, 1500, 1500, 1500, 1500}); ok {
		t.Fatal("rho of constant ratings")
	}
}

// TestLoses: the stronger wins about as often as Elo expects, and both
// seats draw the same.
func TestLoses(t *testing.T) {
	t.Parallel()
	wins := 0
	const n = 4000
	for i := range n {
		if !loses(strings.Repeat("R", i%7)+string(rune('A'+i%26))+time.Duration(i).String(), 1800, 1500) {
			wins++
		}
	}
	want := 1 / (1 + math.Pow(10, -300.0/400)) // 0.849
	if got := float64(wins) / n; math.Abs(got-want) > 0.04 {
		t.Fatalf("1800 beat 1500 in %.3f of matches, want about %.3f", got, want)
	}
}
