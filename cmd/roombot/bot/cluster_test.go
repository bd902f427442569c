package bot

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/roomd/roomd/internal/testredis"
)

// roomdNode is a real roomd child process, one node of a cluster.
type roomdNode struct {
	cmd  *exec.Cmd
	url  string
	logs *lockedBuffer
	done chan error
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// buildRoomd builds cmd/roomd into dir.
func buildRoomd(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "roomd")
	if out, err := exec.Command("go", "build", "-o", bin, "../../roomd").CombinedOutput(); err != nil {
		t.Fatalf("build roomd: %v\n%s", err, out)
	}
	return bin
}

func startRoomdNode(t *testing.T, bin, id string, args ...string) *roomdNode {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return startRoomdAt(t, bin, addr, id, args...)
}

// startRoomdAt starts a node on addr (a restart takes the same address).
func startRoomdAt(t *testing.T, bin, addr, id string, args ...string) *roomdNode {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"--addr", addr, "--node-id", id, "--public-url", "http://" + addr,
		"--log-format", "json", "--log-level", "info", "--quotas", "off", "--retry-after", "200ms"}, args...)...)
	cmd.Dir = t.TempDir()
	n := &roomdNode{cmd: cmd, url: "http://" + addr, logs: &lockedBuffer{}, done: make(chan error, 1)}
	cmd.Stderr = n.logs
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { n.done <- cmd.Wait() }()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			<-n.done
		}
	})
	if _, err := bufio.NewReader(stdout).ReadString('\n'); err != nil {
		t.Fatalf("roomd %s did not start: %v\n%s", id, err, n.logs)
	}
	go func() { _, _ = bufio.NewReader(stdout).WriteTo(os.Stderr) }()
	return n
}

// TestClusterChaos runs roombot with chaos against three real roomd nodes
// on one real Redis (--url A,B,C) and restarts every node in turn while it
// plays (SIGTERM: a drain; then the node starts again on its address): no
// invariant is violated, every socket reaches its room through any node,
// and each node's rooms move with their players.
func TestClusterChaos(t *testing.T) {
	t.Parallel()
	rs := testredis.Start(t)
	bin := buildRoomd(t)
	store := []string{"--redis", rs.URL(), "--lease-ttl", "2s"}
	a, b, c := startRoomdNode(t, bin, "node-a", store...), startRoomdNode(t, bin, "node-b", store...), startRoomdNode(t, bin, "node-c", store...)
	time.Sleep(800 * time.Millisecond) // a registration round: the nodes see each other
	jsonPath := filepath.Join(t.TempDir(), "cluster.json")
	args := []string{"--url", strings.Join([]string{a.url, b.url, c.url}, ","), "--game", "minesweeper", "--mode", "coop",
		"--players", "2", "--spectators", "1", "--rooms", "6", "--duration", "9s", "--drain", "6s", "--check-every", "1s",
		"--loop", "closed", "--think", "uniform:60ms", "--chaos", "--chaos-drop", "0.05", "--chaos-resend", "0.1",
		"--chaos-malformed", "6", "--progress", "0", "--seed", "11", "--log-level", "warn", "--json", jsonPath}
	var stdout, stderr bytes.Buffer
	code := make(chan int, 1)
	go func() { code <- run(context.Background(), args, &stdout, &stderr) }()
	time.Sleep(3 * time.Second)
	nodes := []*roomdNode{a, b, c}
	for i, n := range nodes {
		n.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case err := <-n.done:
			if err != nil {
				t.Errorf("node %d exited with %v after SIGTERM", i, err)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("node %d did not exit after SIGTERM", i)
		}
		if !strings.Contains(n.logs.String(), "drained") {
			t.Errorf("node %d did not drain:\n%s", i, n.logs.String())
		}
		nodes[i] = startRoomdAt(t, bin, strings.TrimPrefix(n.url, "http://"), fmt.Sprintf("node-%c", 'a'+i), store...)
		time.Sleep(time.Second)
	}
	if got := <-code; got != 0 {
		t.Fatalf("roombot exit status %d\n%s\n%s", got, stdout.String(), stderr.String())
	}
	var res result
	data, err := os.ReadFile(jsonPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &res); err != nil {
		t.Fatal(err)
	}
	t.Logf("%s", stdout.String())
	if res.Violations.Total != 0 {
		t.Errorf("violations: %v", res.Violations.ByKind)
	}
	if res.Window.Moves < 100 {
		t.Errorf("only %d moves", res.Window.Moves)
	}
	if n := res.Counts["chaos/drops"]; n == 0 {
		t.Error("chaos dropped no socket")
	}
	for k, v := range res.Counts {
		if strings.HasPrefix(k, "error") {
			t.Errorf("players saw errors beyond reconnects: %s = %d", k, v)
		}
	}
	moved := 0
	for k, v := range res.Counts {
		if strings.Contains(k, "4009") {
			moved += int(v)
		}
	}
	if moved == 0 {
		t.Errorf("no socket was told its room moved (4009) by the drain; counts %v", res.Counts)
	}
	for _, n := range nodes {
		if strings.Contains(n.logs.String(), "panic") {
			t.Errorf("a node panicked:\n%s", n.logs.String())
		}
	}
}
