package main

import (
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/roomd/roomd/internal/wsframe"
)

// TestWatchPollYields: with many sockets ready at once the loop reads them
// a few at a time, yielding between (so that the players' goroutines and
// their send timers run during a fan-out), and still reads them all: every
// server ping is answered with a pong of its payload.
func TestWatchPollYields(t *testing.T) {
	w, err := newWatchPoll()
	if err != nil {
		t.Fatal(err)
	}
	w.mu.Lock()
	w.yieldAfter = 4
	w.mu.Unlock()
	const n = 32
	peers := make([]int, n)
	for i := range n {
		fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			t.Fatal(err)
		}
		peers[i] = fds[1]
		defer unix.Close(fds[1])
		if err := w.addFD(&player{}, fds[0], wsframe.Message{Limit: 1 << 20}, nil); err != nil {
			t.Fatal(err)
		}
	}
	before := w.yields.Load()
	// The pings are written under the loop's lock, so that they are ready
	// at once: a loop woken by the first would otherwise, on a second core,
	// read them one by one as they come and never reach 4 in one cycle.
	w.mu.Lock()
	for i, fd := range peers {
		ping := []byte{0x80 | wsframe.OpPing, 1, byte(i)} // a server's frame: unmasked
		if _, err := unix.Write(fd, ping); err != nil {
			w.mu.Unlock()
			t.Fatal(err)
		}
	}
	w.mu.Unlock()
	for i, fd := range peers {
		// The pong: a client's frame, masked; 2 bytes of header, the key, the payload.
		if err := unix.SetNonblock(fd, true); err != nil {
			t.Fatal(err)
		}
		var got []byte
		b := make([]byte, 64)
		deadline := time.Now().Add(10 * time.Second)
		for len(got) < 7 && time.Now().Before(deadline) {
			k, err := unix.Read(fd, b)
			if err == unix.EAGAIN {
				time.Sleep(time.Millisecond)
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, b[:k]...)
		}
		if len(got) != 7 || got[0] != 0x80|wsframe.OpPong || got[1] != 0x80|1 || got[6]^got[2] != byte(i) {
			t.Fatalf("socket %d: %x, want a masked pong of payload %x", i, got, []byte{byte(i)})
		}
	}
	if got := w.yields.Load() - before; got == 0 {
		t.Errorf("%d sockets ready at once, the loop yielding every 4 reads: it never yielded", n)
	}
	w.stop()
}
