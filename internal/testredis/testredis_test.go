package testredis

import (
	"os"
	"path/filepath"
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

func TestFromRDB(t *testing.T) {
	src := Start(t, NoPersistence())
	src.Do("SET k v")
	if got := src.Do("SAVE"); got != "+OK" {
		t.Fatalf("SAVE: %q", got)
	}
	rdb := filepath.Join(t.TempDir(), "fixture.rdb")
	data, err := os.ReadFile(filepath.Join(src.Dir(), "dump.rdb"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(rdb, data, 0o600); err != nil {
		t.Fatal(err)
	}
	s := Start(t, FromRDB(rdb))
	if got := s.Do("GET k"); got != "$1" {
		t.Fatalf("GET k = %q, want the value loaded from the RDB", got)
	}
	s.Do("SET k other")
	s.Do("SAVE")
	if after, err := os.ReadFile(rdb); err != nil || string(after) != string(data) {
		t.Fatalf("the RDB file given was changed (%v)", err)
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
