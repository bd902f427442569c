package epollset

import (
	"testing"
	"time"

	"go.uber.org/goleak"
	"golang.org/x/sys/unix"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// A descriptor's events come under its token, the wake-up under
// KickToken until Woken takes it; Run parks between cycles and runs one
// when the set is ready, until a cycle says it is the last.
func TestSet(t *testing.T) {
	s, err := New()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fds[0])
	defer unix.Close(fds[1])
	if err := s.Add(fds[0], 7, unix.EPOLLIN); err != nil {
		t.Fatal(err)
	}
	evs := make([]unix.EpollEvent, 4)
	if n := s.Ready(evs); n != 0 {
		t.Fatalf("%d events on an idle set", n)
	}
	if _, err := unix.Write(fds[1], []byte("x")); err != nil {
		t.Fatal(err)
	}
	s.Wake()
	n := s.Ready(evs)
	got := map[int32]bool{}
	for _, ev := range evs[:n] {
		got[ev.Fd] = true
	}
	if n != 2 || !got[7] || !got[KickToken] {
		t.Fatalf("events %v, want tokens 7 and %d", evs[:n], KickToken)
	}
	s.Woken()
	s.Del(fds[0])
	if n := s.Ready(evs); n != 0 {
		t.Fatalf("%d events after the wake-up was taken and the socket left: %v", n, evs[:n])
	}

	cycles := make(chan int, 8)
	ended := make(chan error, 1)
	count := 0
	go func() {
		ended <- s.Run(func() bool {
			woken := false
			for n := s.Ready(evs); n > 0; n = s.Ready(evs) {
				s.Woken()
				woken = true
			}
			if woken {
				count++
				cycles <- count
			}
			return count == 2
		})
	}()
	for want := 1; want <= 2; want++ {
		s.Wake()
		select {
		case c := <-cycles:
			if c != want {
				t.Fatalf("cycle %d, want %d", c, want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("no cycle %d after a wake-up", want)
		}
	}
	select {
	case err := <-ended:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not end when its cycle said so")
	}
}
