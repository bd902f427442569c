package testredis

import (
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestPersistAcrossRestart(t *testing.T) {
	s := Start(t, Args("--appendfsync", "always"))
	if strings.HasSuffix(s.Addr(), ":6379") {
		t.Fatal("uses the machine's Redis port")
	}
	if got := s.Do("SET k v"); got != "+OK" {
		t.Fatalf("SET: %q", got)
	}
	s.Kill()
	s.Start()
	if got := s.Do("EXISTS k"); got != ":1" {
		t.Fatalf("after kill and start: EXISTS k = %q, want :1", got)
	}
	s.Restart()
	if got := s.Do("EXISTS k"); got != ":1" {
		t.Fatalf("after restart: EXISTS k = %q, want :1", got)
	}
	s.RestartEmpty()
	if got := s.Do("EXISTS k"); got != ":0" {
		t.Fatalf("after empty restart: EXISTS k = %q, want :0", got)
	}
}

func TestNoPersistence(t *testing.T) {
	s := Start(t, NoPersistence())
	s.Do("SET k v")
	s.Restart()
	if got := s.Do("EXISTS k"); got != ":0" {
		t.Fatalf("EXISTS k = %q, want :0", got)
	}
}

func TestPause(t *testing.T) {
	s := Start(t)
	s.Pause(time.Hour)
	if _, err := s.send("PING"); err == nil {
		t.Fatal("a paused server answered")
	}
	s.Resume()
	if got := s.Do("PING"); got != "+PONG" {
		t.Fatalf("PING after resume: %q", got)
	}
}
