package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/roomd/roomd"
	"github.com/roomd/roomd/core/games"
)

type vectorGame struct {
	ID     string          `json:"id"`
	Seed   int64           `json:"seed"`
	Config json.RawMessage `json:"config"`
	Log    json.RawMessage `json:"log"`
	Final  struct {
		View json.RawMessage `json:"view"`
	} `json:"final"`
	Replay json.RawMessage `json:"replay"`
}

func loadGames(t *testing.T) []vectorGame {
	t.Helper()
	data, err := os.ReadFile("../../testdata/vectors/mnswpr/games.json")
	if err != nil {
		t.Fatal(err)
	}
	var file struct{ Cases []vectorGame }
	if err := json.Unmarshal(data, &file); err != nil {
		t.Fatal(err)
	}
	return file.Cases
}

func canon(t *testing.T, b []byte) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	out, _ := json.Marshal(v)
	return string(out)
}

// TestReplayCommandMatchesVectors runs `roomd replay --view` on every
// reference game: the verdict and the final view are the reference's.
func TestReplayCommandMatchesVectors(t *testing.T) {
	t.Parallel()
	for _, g := range loadGames(t) {
		t.Run(g.ID, func(t *testing.T) {
			rec, _ := json.Marshal(map[string]any{"seed": g.Seed, "config": g.Config, "log": g.Log})
			var stdout, stderr bytes.Buffer
			code := roomd.Command{Stdin: bytes.NewReader(rec), Stdout: &stdout, Stderr: &stderr}.Run([]string{"replay", "--view", "-"})
			var out struct {
				Status string          `json:"status"`
				Time   float64         `json:"time"`
				Valid  bool            `json:"valid"`
				Reason *string         `json:"reason"`
				View   json.RawMessage `json:"view,omitempty"`
			}
			if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
				t.Fatalf("output %q: %v (stderr %s)", stdout.String(), err, stderr.String())
			}
			view := out.View
			out.View = nil
			verdict, _ := json.Marshal(out)
			if canon(t, verdict) != canon(t, g.Replay) {
				t.Errorf("verdict %s, want %s", verdict, g.Replay)
			}
			if canon(t, view) != canon(t, g.Final.View) {
				t.Errorf("view %s\nwant %s", view, g.Final.View)
			}
			if want := map[bool]int{true: 0, false: 1}[out.Valid]; code != want {
				t.Errorf("exit %d, want %d", code, want)
			}
		})
	}
}

func TestReplayCommandExitCodes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(body), 0o644)
		return p
	}
	for _, tc := range []struct {
		name, body string
		code       int
		stdout     string
		stderr     string
	}{
		{"unfinished", `{"seed":42,"config":{"rows":9,"cols":9,"mines":10},"log":[{"move":{"type":"flag","r":0,"c":0},"t":1}]}`, 1, `"reason":"log does not reach a terminal state"`, ""},
		{"off the board", `{"seed":42,"config":{"rows":9,"cols":9,"mines":10},"log":[{"move":{"type":"reveal","r":0,"c":9},"t":1}]}`, 1, `entry 0: malformed move`, ""},
		{"not JSON", `{"seed":`, 2, "", "not a JSON object"},
		{"no log", `{"seed":1,"config":{}}`, 2, "", `record has no "log"`},
		{"fractional seed", `{"seed":1.5,"config":{},"log":[]}`, 2, "", "seed must be an integer"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := roomd.Command{Stdout: &stdout, Stderr: &stderr}.Run([]string{"replay", write(tc.name+".json", tc.body)})
			if code != tc.code || !strings.Contains(stdout.String(), tc.stdout) || !strings.Contains(stderr.String(), tc.stderr) {
				t.Fatalf("exit %d stdout %q stderr %q; want %d, %q, %q", code, stdout.String(), stderr.String(), tc.code, tc.stdout, tc.stderr)
			}
		})
	}
	var stderr bytes.Buffer
	if code := (roomd.Command{Stdout: &bytes.Buffer{}, Stderr: &stderr}).Run([]string{"replay", filepath.Join(dir, "missing.json")}); code != 2 || !strings.Contains(stderr.String(), "missing.json") {
		t.Fatalf("missing file: exit %d, %q", code, stderr.String())
	}
}

// buildRoomd compiles the binary once per test run.
func buildRoomd(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "roomd")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	return bin
}

// TestServeAndGracefulStop runs the real binary: it prints the URL, serves
// the API (every game of games.go included), and exits 0 on SIGTERM.
func TestServeAndGracefulStop(t *testing.T) {
	t.Parallel()
	bin := buildRoomd(t)
	cmd := exec.Command(bin, "--addr", "127.0.0.1:0", "--log-format", "json")
	cmd.Dir = t.TempDir()
	stdout, _ := cmd.StdoutPipe()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("no URL printed: %v (%s)", err, stderr.String())
	}
	i := strings.Index(line, "http://")
	if i < 0 {
		t.Fatalf("printed %q", line)
	}
	url := strings.TrimSpace(line[i:])
	resp, err := http.Post(url+"/api/rooms", "application/json", strings.NewReader(`{"game":"minesweeper","settings":{"mode":"solo","level":"beginner"},"name":"Ann"}`))
	if err != nil {
		t.Fatal(err)
	}
	var created struct{ Room, Token string }
	json.NewDecoder(resp.Body).Decode(&created)
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated || len(created.Room) != 6 || created.Token == "" {
		t.Fatalf("create: %d %+v", resp.StatusCode, created)
	}
	// GET /api/games lists every game of the registry (games.go).
	resp, err = http.Get(url + "/api/games")
	if err != nil {
		t.Fatal(err)
	}
	var listed struct{ Games []struct{ ID string } }
	json.NewDecoder(resp.Body).Decode(&listed)
	resp.Body.Close()
	var ids []string
	for _, g := range listed.Games {
		ids = append(ids, g.ID)
	}
	if !slices.Equal(ids, games.IDs()) {
		t.Errorf("GET /api/games lists %q, core/games %q", ids, games.IDs())
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("roomd exited with %v\n%s", err, stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("roomd did not stop after SIGTERM")
	}
	if !strings.Contains(stderr.String(), "stopped cleanly") {
		t.Fatalf("log lacks the clean stop:\n%s", stderr.String())
	}
}

// TestHelpDocumentsFlags checks that -h names every flag with its variable.
func TestHelpDocumentsFlags(t *testing.T) {
	t.Parallel()
	var stderr bytes.Buffer
	if _, err := roomd.ParseFlags([]string{"-h"}, &stderr); err == nil {
		t.Fatal("-h did not stop parsing")
	}
	for _, want := range []string{"-addr", "ROOMD_ADDR", "-origins", "ROOMD_ORIGINS", "replay"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("help lacks %q:\n%s", want, stderr.String())
		}
	}
}
