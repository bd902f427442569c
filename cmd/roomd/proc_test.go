package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/roomd/roomd/internal/testpar"
	"github.com/roomd/roomd/protocol"
	"github.com/roomd/roomd/transport/client"
)

// TestMain runs four tests at once: they mostly wait on the roomd
// processes they start (restarts, outages, timeouts), each on its own
// port and data directory.
func TestMain(m *testing.M) {
	testpar.Default(4)
	os.Exit(m.Run())
}

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// roomdBinary builds cmd/roomd once for all tests of this package.
func roomdBinary(t testing.TB) string {
	t.Helper()
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "roomd-bin")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "roomd")
		out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			binErr = fmt.Errorf("build roomd: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

// freeAddr returns a loopback address with a port nobody listens on now, so
// that a restarted roomd can listen on the same one.
func freeAddr(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// proc is a roomd child process.
type proc struct {
	t    testing.TB
	cmd  *exec.Cmd
	URL  string
	logs *bytes.Buffer
	sw   *syncWriter // logs' writer: read them with logText while roomd runs
	done chan error
}

// logText returns what roomd logged so far.
func (p *proc) logText() string {
	p.sw.mu.Lock()
	defer p.sw.mu.Unlock()
	return p.logs.String()
}

// logUntil returns the log once it holds every one of want, or after 5 s:
// the log is copied from roomd's stderr by exec's goroutine, which may not
// have caught up with what roomd wrote before it printed its URL.
func (p *proc) logUntil(want ...string) string {
	deadline := time.Now().Add(5 * time.Second)
	for {
		text := p.logText()
		all := true
		for _, w := range want {
			all = all && strings.Contains(text, w)
		}
		if all || time.Now().After(deadline) {
			return text
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// startRoomd starts the real binary on addr with args and waits until it
// prints its URL.
func startRoomd(t testing.TB, addr string, args ...string) *proc {
	t.Helper()
	cmd := exec.Command(roomdBinary(t), append([]string{"--addr", addr, "--log-format", "json", "--retry-after", "300ms", "--quotas", "off"}, args...)...)
	cmd.Dir = t.TempDir()
	stdout, _ := cmd.StdoutPipe()
	p := &proc{t: t, cmd: cmd, logs: &bytes.Buffer{}, done: make(chan error, 1)}
	p.sw = &syncWriter{w: p.logs}
	cmd.Stderr = p.sw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.done <- cmd.Wait() }()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			<-p.done
		}
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("roomd printed no URL: %v\n%s", err, p.logText())
	}
	go io.Copy(io.Discard, stdout)
	p.URL = "http://" + addr
	if strings.Contains(line, "https://") {
		p.URL = "https://" + addr
	} else if !strings.Contains(line, "http://") {
		t.Fatalf("roomd printed %q", line)
	}
	return p
}

type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(b)
}

func (p *proc) wait(what string) {
	p.t.Helper()
	select {
	case err := <-p.done:
		p.done <- err
		if what == "term" && err != nil {
			p.t.Fatalf("roomd exited with %v after SIGTERM", err)
		}
	case <-time.After(30 * time.Second):
		p.t.Fatalf("roomd did not exit after %s", what)
	}
}

// term stops roomd gracefully.
func (p *proc) term() {
	p.t.Helper()
	p.cmd.Process.Signal(syscall.SIGTERM)
	p.wait("term")
}

// kill9 kills roomd without a chance to clean up.
func (p *proc) kill9() {
	p.t.Helper()
	p.cmd.Process.Signal(syscall.SIGKILL)
	p.wait("kill")
}

func createRoom(t testing.TB, base, settings string) (room, token string) {
	t.Helper()
	return createGame(t, base, "minesweeper", "bot", settings)
}

// createGame creates a room of game with settings, its host named name.
func createGame(t testing.TB, base, game, name, settings string) (room, token string) {
	t.Helper()
	resp, err := http.Post(base+"/api/rooms", "application/json",
		strings.NewReader(fmt.Sprintf(`{"game":%q,"name":%q,"settings":%s}`, game, name, settings)))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var res struct{ Room, Token string }
	if err := json.NewDecoder(resp.Body).Decode(&res); err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("create room: %d %v", resp.StatusCode, err)
	}
	return res.Room, res.Token
}

var msPin = protocol.GamePin{ID: "minesweeper", RulesVersion: "minesweeper/1"}

// bot is one seated client with its receipts recorded.
type bot struct {
	t    testing.TB
	tr   *client.Remote
	room string

	mu       sync.Mutex
	acked    map[string]uint64 // action id → revision, for ok receipts
	ackTicks map[string]uint64 // action id → tick, for ok receipts of a real-time match's inputs
	refused  map[string]string // action id → notice code
	snapshot *protocol.Snapshot
	update   *protocol.Update // the last update
	ticks    []uint64         // the tick numbers received, in order
	closes   []int
	// follow, when set, applies an update's beats to the view the bot
	// follows (view, at revision rev): the game's own View.Apply.
	follow func(view json.RawMessage, beats json.RawMessage) (json.RawMessage, error)
	view   json.RawMessage
	rev    uint64
	sig    chan struct{}
	done   chan struct{}
}

func dialBot(t testing.TB, base, room, token string) *bot {
	return dialGame(t, base, room, token, msPin)
}

func dialGame(t testing.TB, base, room, token string, pin protocol.GamePin) *bot {
	t.Helper()
	return dialFollow(t, base, room, token, pin, nil)
}

// dialFollow dials a bot that follows its view with follow (see bot.follow).
func dialFollow(t testing.TB, base, room, token string, pin protocol.GamePin,
	follow func(view, beats json.RawMessage) (json.RawMessage, error)) *bot {
	t.Helper()
	return dialConfig(t, client.Config{URL: base, Room: room, Token: token, Game: pin,
		Backoff: func(int) time.Duration { return 100 * time.Millisecond }}, follow)
}

// dialConfig dials a bot with cfg (see bot.follow for follow).
func dialConfig(t testing.TB, cfg client.Config, follow func(view, beats json.RawMessage) (json.RawMessage, error)) *bot {
	t.Helper()
	room := cfg.Room
	tr, err := client.Dial(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	b := &bot{t: t, tr: tr, room: room, acked: map[string]uint64{}, ackTicks: map[string]uint64{}, refused: map[string]string{},
		follow: follow, sig: make(chan struct{}, 1), done: make(chan struct{})}
	go func() {
		defer close(b.done)
		for ev := range tr.Events() {
			b.mu.Lock()
			switch {
			case ev.Receipt != nil && ev.Receipt.OK:
				b.acked[ev.Receipt.ID] = ev.Receipt.Rev
				if ev.Receipt.Tick != 0 {
					b.ackTicks[ev.Receipt.ID] = ev.Receipt.Tick
				}
			case ev.Receipt != nil:
				b.refused[ev.Receipt.ID] = ev.Receipt.Notice.Code
			case ev.Snapshot != nil:
				b.snapshot = ev.Snapshot
				b.view, _ = ev.Snapshot.View.(json.RawMessage)
				b.rev = ev.Snapshot.Rev
			case ev.Update != nil:
				b.update = ev.Update
				b.followUpdate(ev.Update)
			case ev.Tick != nil:
				b.ticks = append(b.ticks, ev.Tick.Tick)
			case ev.Kind == client.EventState && ev.Close != 0:
				b.closes = append(b.closes, ev.Close)
			}
			b.mu.Unlock()
			select {
			case b.sig <- struct{}{}:
			default:
			}
		}
	}()
	t.Cleanup(b.close)
	return b
}

func (b *bot) close() { b.tr.Close(); <-b.done }

// followUpdate moves the followed view on by one update: its view when it
// has one, else its beats through follow. Called with b.mu held.
func (b *bot) followUpdate(u *protocol.Update) {
	if b.follow == nil {
		return
	}
	b.rev = u.To
	if v, ok := u.View.(json.RawMessage); ok && v != nil {
		b.view = v
		return
	}
	beats, ok := u.Beats.(json.RawMessage)
	if !ok || beats == nil || b.view == nil {
		return
	}
	v, err := b.follow(b.view, beats)
	if err != nil {
		b.t.Errorf("room %s: update %d→%d: %v", b.room, u.From, u.To, err)
		return
	}
	b.view = v
}

func (b *bot) until(what string, d time.Duration, cond func() bool) {
	b.t.Helper()
	deadline := time.After(d)
	for {
		b.mu.Lock()
		ok := cond()
		b.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-b.sig:
		case <-time.After(10 * time.Millisecond):
		case <-deadline:
			b.t.Fatalf("room %s: timed out waiting for %s (state %s)", b.room, what, b.tr.State())
		}
	}
}

// send sends an action once online; it returns its id ("" if offline).
func (b *bot) send(a protocol.Action) string {
	id, err := b.tr.Send(context.Background(), a)
	if err != nil {
		return ""
	}
	return id
}

// waitReceipt waits for id's receipt and reports whether it was ok.
func (b *bot) waitReceipt(id string, d time.Duration) (ok bool, code string, got bool) {
	deadline := time.After(d)
	for {
		b.mu.Lock()
		_, ok = b.acked[id]
		code, refused := b.refused[id]
		b.mu.Unlock()
		if ok || refused {
			return ok, code, true
		}
		select {
		case <-b.sig:
		case <-time.After(10 * time.Millisecond):
		case <-deadline:
			return false, "", false
		}
	}
}

func flagCmd(k int) json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{"type":"flag","r":%d,"c":%d}`, k/30, k%30))
}

// flaggedCells reads the flagged cells of a snapshot's view.
func flaggedCells(t testing.TB, s *protocol.Snapshot) map[string]bool {
	t.Helper()
	var v struct {
		Cells []struct {
			R, C   int
			Status string
		}
	}
	raw, _ := json.Marshal(s.View)
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, c := range v.Cells {
		if c.Status == "flagged" {
			out[fmt.Sprintf(`{"type":"flag","r":%d,"c":%d}`, c.R, c.C)] = true
		}
	}
	return out
}
