// Package testredis runs a private redis-server for tests: on a free port of
// 127.0.0.1, with its data in a temporary directory, stopped when the test
// ends. It never talks to a Redis it did not start.
//
// When redis-server is not on PATH the test is skipped, unless CI=true:
// then it fails, since a missing real dependency must fail CI.
//
// StartCluster runs a Redis Cluster of such servers (cluster.go), with
// replicas if asked; Failover kills a master for its replica to take its
// place (failover.go).
package testredis

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Option changes how the server runs.
type Option func(*config)

type config struct {
	persist bool
	rdb     string
	args    []string
}

// NoPersistence runs the server without the append-only file: a restart
// comes back empty.
func NoPersistence() Option { return func(c *config) { c.persist = false } }

// FromRDB starts the server with the data of the RDB file at path (e.g. a
// fixture written by an earlier version): the file is copied into the data
// directory as dump.rdb, so the original is never changed. The server then
// runs without the append-only file, as with NoPersistence (Redis ignores an
// RDB file when the append-only file is on): a restart loads the copied RDB
// again, and writes since are lost unless saved with Do("SAVE").
func FromRDB(path string) Option {
	return func(c *config) { c.rdb, c.persist = path, false }
}

// Args adds redis-server command-line arguments, e.g.
// Args("--appendfsync", "always").
func Args(args ...string) Option { return func(c *config) { c.args = append(c.args, args...) } }

// Server is one redis-server process (and its restarts).
type Server struct {
	t    testing.TB
	bin  string
	cfg  config
	dir  string // data directory
	logf string
	port int
	// bus is the cluster bus port of a cluster node (StartCluster); zero
	// for a plain server.
	bus int
	// id is a cluster node's id, once asked (nodeID).
	id string

	mu     sync.Mutex
	cmd    *exec.Cmd
	exited chan struct{}
	paused bool
	resume *time.Timer
}

// startTimeout bounds waiting for the server to answer PING.
const startTimeout = 15 * time.Second

// Start starts a redis-server for the test and stops it in t.Cleanup. By
// default it persists with the append-only file (appendfsync everysec, as
// Redis ships) so Restart brings the data back.
func Start(t testing.TB, opts ...Option) *Server {
	t.Helper()
	return start(t, lookPath(t, "redis-server"), false, opts)
}

// lookPath finds a Redis binary, or skips the test (fails it when CI=true).
func lookPath(t testing.TB, name string) string {
	t.Helper()
	bin, err := exec.LookPath(name)
	if err != nil {
		msg := "testredis: " + name + " is not on PATH (Debian: apt-get install redis-server)"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return bin
}

// start starts a server from bin; a cluster node (cluster) gets a bus port
// too, chosen with its port.
func start(t testing.TB, bin string, cluster bool, opts []Option) *Server {
	t.Helper()
	cfg := config{persist: true}
	for _, o := range opts {
		o(&cfg)
	}
	tmp := t.TempDir()
	s := &Server{t: t, bin: bin, cfg: cfg, dir: filepath.Join(tmp, "data"), logf: filepath.Join(tmp, "redis.log")}
	if err := os.Mkdir(s.dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if cfg.rdb != "" {
		data, err := os.ReadFile(cfg.rdb)
		if err != nil {
			t.Fatalf("testredis: %v", err)
		}
		if err := os.WriteFile(filepath.Join(s.dir, "dump.rdb"), data, 0o600); err != nil {
			t.Fatalf("testredis: %v", err)
		}
	}
	t.Cleanup(s.kill)
	var lastErr error
	for range 5 {
		var err error
		if s.port, err = freePort(); err != nil {
			t.Fatalf("testredis: %v", err)
		}
		if cluster {
			// An explicit bus port: the default, port + 10000, may be taken
			// or beyond 65535.
			s.bus = 0
			for s.bus == 0 || s.bus == s.port {
				if s.bus, err = freePort(); err != nil {
					t.Fatalf("testredis: %v", err)
				}
			}
		}
		if lastErr = s.start(); lastErr == nil {
			return s
		}
	}
	t.Fatalf("testredis: %v", lastErr)
	return nil
}

// freePort asks the kernel for a free port on 127.0.0.1 (never 6379, the
// machine's own Redis).
func freePort() (int, error) {
	for {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return 0, err
		}
		port := l.Addr().(*net.TCPAddr).Port
		l.Close()
		if port != 6379 {
			return port, nil
		}
	}
}

// Addr returns host:port.
func (s *Server) Addr() string { return "127.0.0.1:" + strconv.Itoa(s.port) }

// URL returns the redis:// URL of the server.
func (s *Server) URL() string { return "redis://" + s.Addr() + "/0" }

// Dir returns the server's data directory.
func (s *Server) Dir() string { return s.dir }

func (s *Server) start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd != nil {
		return fmt.Errorf("redis-server on %s is already running", s.Addr())
	}
	args := []string{
		"--port", strconv.Itoa(s.port), "--bind", "127.0.0.1", "--dir", s.dir,
		"--save", "", "--daemonize", "no", "--logfile", s.logf,
		"--protected-mode", "yes",
	}
	if s.cfg.persist {
		args = append(args, "--appendonly", "yes")
	} else {
		args = append(args, "--appendonly", "no")
	}
	if s.bus != 0 {
		// nodes.conf is the node's identity and view of the cluster, kept
		// in the data directory so that a restart rejoins the cluster.
		args = append(args, "--cluster-enabled", "yes", "--cluster-port", strconv.Itoa(s.bus),
			"--cluster-config-file", filepath.Join(s.dir, "nodes.conf"))
	}
	args = append(args, s.cfg.args...)
	cmd := exec.Command(s.bin, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start redis-server: %w", err)
	}
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(exited)
	}()
	deadline := time.Now().Add(startTimeout)
	for {
		if reply, err := s.send("PING"); err == nil && reply == "+PONG" {
			break
		}
		select {
		case <-exited:
			return fmt.Errorf("redis-server on port %d exited at start:\n%s", s.port, s.logTail())
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			<-exited
			return fmt.Errorf("redis-server on port %d did not answer PING within %v:\n%s", s.port, startTimeout, s.logTail())
		}
	}
	s.cmd, s.exited, s.paused = cmd, exited, false
	return nil
}

// send sends one inline command on a new connection and returns the first
// reply line.
func (s *Server) send(command string) (string, error) {
	c, err := net.DialTimeout("tcp", s.Addr(), time.Second)
	if err != nil {
		return "", err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(2 * time.Second))
	if _, err := c.Write([]byte(command + "\r\n")); err != nil {
		return "", err
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	return strings.TrimSpace(line), err
}

func (s *Server) logTail() string {
	b, _ := os.ReadFile(s.logf)
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return string(b)
}

// Start starts the server again after Stop or Kill, on the same port and
// data directory.
func (s *Server) Start() {
	s.t.Helper()
	if err := s.start(); err != nil {
		s.t.Fatalf("testredis: %v", err)
	}
}

// Stop shuts the server down gracefully (SHUTDOWN: the append-only file is
// flushed) and waits for it to exit.
func (s *Server) Stop() {
	s.t.Helper()
	s.Resume()
	s.mu.Lock()
	cmd, exited := s.cmd, s.exited
	s.mu.Unlock()
	if cmd == nil {
		return
	}
	_, _ = s.send("SHUTDOWN")
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Kill()
		<-exited
	}
	s.mu.Lock()
	s.cmd = nil
	s.mu.Unlock()
}

// Kill kills the server with SIGKILL and waits for it to exit: acknowledged
// writes survive only as far as the append-only file's fsync policy goes.
func (s *Server) Kill() {
	s.t.Helper()
	s.kill()
}

func (s *Server) kill() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.resume != nil {
		s.resume.Stop()
		s.resume = nil
	}
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Kill()
	<-s.exited
	s.cmd, s.paused = nil, false
}

// Restart stops the server gracefully and starts it again on the same port
// and data directory, so persisted data comes back.
func (s *Server) Restart() {
	s.t.Helper()
	s.Stop()
	s.Start()
}

// RestartEmpty kills the server, wipes its data directory and starts it
// again on the same port: a server that lost everything.
func (s *Server) RestartEmpty() {
	s.t.Helper()
	s.kill()
	if err := os.RemoveAll(s.dir); err != nil {
		s.t.Fatal(err)
	}
	if err := os.Mkdir(s.dir, 0o700); err != nil {
		s.t.Fatal(err)
	}
	s.Start()
}

// Pause freezes the server (SIGSTOP) for d, then lets it go on (SIGCONT).
// It returns at once. Connections stay open and commands hang meanwhile:
// the outage clients see as timeouts.
func (s *Server) Pause(d time.Duration) {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		s.t.Fatal("testredis: Pause: server is not running")
	}
	if err := s.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		s.t.Fatalf("testredis: pause: %v", err)
	}
	s.paused = true
	if s.resume != nil {
		s.resume.Stop()
	}
	s.resume = time.AfterFunc(d, s.Resume)
}

// Resume ends a Pause early.
func (s *Server) Resume() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.resume != nil {
		s.resume.Stop()
		s.resume = nil
	}
	if s.cmd != nil && s.paused {
		_ = s.cmd.Process.Signal(syscall.SIGCONT)
		s.paused = false
	}
}

// Do sends one inline command (e.g. "SCRIPT FLUSH") and returns the first
// line of the reply.
func (s *Server) Do(command string) string {
	s.t.Helper()
	reply, err := s.send(command)
	if err != nil {
		s.t.Fatalf("testredis: %s: %v", command, err)
	}
	return reply
}
