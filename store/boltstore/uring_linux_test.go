package boltstore

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/roomd/roomd/store"
	"github.com/roomd/roomd/store/storetest"
)

// ring returns an io_uring for syncs, or skips the test where the system
// refuses one (it fails instead under CI=true: CI's machines have it).
func ring(t *testing.T) *syncRing {
	t.Helper()
	r, err := newSyncRing()
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("no io_uring (CI=true): %v", err)
		}
		t.Skipf("no io_uring here: %v", err)
	}
	t.Cleanup(r.close)
	return r
}

// TestSyncRing: the ring's fdatasync answers every sync of a file, many in
// a row, and reports a failed sync as the sync's own error (EBADF for a
// closed file), not as a failure of the ring.
func TestSyncRing(t *testing.T) {
	r := ring(t)
	f, err := os.Create(filepath.Join(t.TempDir(), "log"))
	if err != nil {
		t.Fatal(err)
	}
	for i := range 200 {
		if _, err := f.WriteAt([]byte("record"), int64(i*6)); err != nil {
			t.Fatal(err)
		}
		if err := r.fdatasync(f); err != nil {
			t.Fatalf("sync %d: %v", i, err)
		}
	}
	f.Close()
	err = r.fdatasync(f)
	if err == nil || errors.Is(err, errRing) {
		t.Fatalf("a closed file's sync: %v, want its own error", err)
	}
	other, err := os.Create(filepath.Join(t.TempDir(), "other"))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if err := r.fdatasync(other); err != nil {
		t.Fatalf("a sync after a failed one: %v", err)
	}
}

// TestRingWriteSync: the ring's linked write and sync put the bytes where
// pwrite would, one record after another with fdatasyncs interleaved; a
// write the kernel refuses (a read-only file) is its own error with
// nothing written, not a failure of the ring, and the ring goes on.
func TestRingWriteSync(t *testing.T) {
	r := ring(t)
	path := filepath.Join(t.TempDir(), "log")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var want []byte
	for i := range 300 {
		rec := bytes.Repeat([]byte{byte('a' + i%26)}, 1+i%97)
		n, err := r.writeSync(f, rec, int64(len(want)))
		if err != nil || n != len(rec) {
			t.Fatalf("record %d: wrote %d of %d: %v", i, n, len(rec), err)
		}
		want = append(want, rec...)
		if i%50 == 0 {
			if err := r.fdatasync(f); err != nil {
				t.Fatalf("sync after record %d: %v", i, err)
			}
		}
	}
	if got, err := os.ReadFile(path); err != nil || !bytes.Equal(got, want) {
		t.Fatalf("the file holds %d bytes (%v), want the %d written", len(got), err, len(want))
	}
	ro, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	n, err := r.writeSync(ro, []byte("x"), 0)
	if n != 0 || err == nil || errors.Is(err, errRing) {
		t.Fatalf("a write to a read-only file: %d written, %v; want 0 and its own error", n, err)
	}
	if n, err := r.writeSync(f, []byte("after"), int64(len(want))); err != nil || n != 5 {
		t.Fatalf("a write after a refused one: %d, %v", n, err)
	}
}

// TestWALSyncsThroughTheRing: the log syncs through the ring unless told
// to block, and appends land either way.
func TestWALSyncsThroughTheRing(t *testing.T) {
	ring(t) // skips where there is none
	for _, blocking := range []bool{false, true} {
		b, err := Open(t.TempDir(), BoltOptions{BlockingSync: blocking})
		if err != nil {
			t.Fatal(err)
		}
		if got := b.wal.ring != nil; got == blocking {
			t.Fatalf("BlockingSync %v: the log has a ring: %v", blocking, got)
		}
		b.Close()
	}
}

// TestRingStats: Stats says whether the log syncs through the ring, and
// once the ring has failed, why it no longer does; the log goes on with
// fdatasync(2), and appends still land and survive a reopen. With one P,
// the failed ring leaves a second one until Close.
func TestRingStats(t *testing.T) {
	ring(t)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	dir := t.TempDir()
	b := openBolt(t, dir, BoltOptions{CheckpointInterval: 1 << 40})
	if st := b.Stats(); !st.RingSync || st.RingError != "" {
		t.Fatalf("a fresh store: %+v", st)
	}
	l := storetest.MustCreate(t, b, "RINGFL", store.Snapshot{Rev: 0, Data: []byte("s0")})
	storetest.MustAppend(t, b, l, []store.Entry{storetest.Entry("RINGFL", 1)})
	// The ring's descriptor goes bad under it (its memory stays mapped):
	// the next submission fails, as a broken ring's would. The committer
	// reads fd after this write (the append's queue orders them).
	fd := b.wal.ring.fd
	b.wal.ring.fd = -1
	storetest.MustAppend(t, b, l, []store.Entry{storetest.Entry("RINGFL", 2)})
	unix.Close(fd)
	if st := b.Stats(); st.RingSync || !strings.Contains(st.RingError, "io_uring") {
		t.Fatalf("after the ring failed: %+v", st)
	}
	if n := runtime.GOMAXPROCS(0); n != 2 {
		t.Fatalf("after the ring failed GOMAXPROCS is %d, want a spare P (2)", n)
	}
	storetest.MustAppend(t, b, l, []store.Entry{storetest.Entry("RINGFL", 3)})
	b = reopen(t, b, dir, 3)
	if n := runtime.GOMAXPROCS(0); n != 1 {
		t.Fatalf("after Close GOMAXPROCS is %d, want it given back (1)", n)
	}
	_, rec := storetest.MustOpen(t, b, "RINGFL")
	storetest.CheckRecord(t, rec, store.Snapshot{Rev: 0, Data: []byte("s0")}, storetest.Entries("RINGFL", 1, 3))

	blocking := openBolt(t, t.TempDir(), BoltOptions{BlockingSync: true})
	if st := blocking.Stats(); st.RingSync || st.RingError != "" {
		t.Fatalf("BlockingSync: %+v", st)
	}
}

// TestRingWaitLeavesTheP: with one P, a sync the device is slow to finish
// holds no P while the committer waits for it. The slow device is a kernel
// timeout linked in front of an fdatasync, waited for by the ring's run,
// as a commit's write and sync are. While run waits, another goroutine
// makes round trips on a loopback socket (through Go's poller, answered by
// a third goroutine) and sleeps on timers — and all of that is done before
// run returns. The test runs in a child process without the runtime's
// asynchronous preemption, which would otherwise cut a held P short every
// 10 ms or so: there, a wait that holds the P (io_uring_enter waiting for
// the completions, a sync made as a raw system call) runs nothing else
// until the device answers, and fails this.
// ringWaitChild marks TestRingWaitLeavesTheP's child process.
const ringWaitChild = "ROOMD_RING_WAIT_CHILD"

func TestRingWaitLeavesTheP(t *testing.T) {
	if os.Getenv(ringWaitChild) != "1" {
		ring(t) // skips (or fails under CI=true) here, not in the child
		cmd := exec.Command(os.Args[0], "-test.run=^TestRingWaitLeavesTheP$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), ringWaitChild+"=1", "GODEBUG=asyncpreemptoff=1")
		out, err := cmd.CombinedOutput()
		if err != nil || !bytes.Contains(out, []byte("--- PASS: TestRingWaitLeavesTheP")) {
			t.Fatalf("the child: %v\n%s", err, out)
		}
		return
	}
	r := ring(t)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	f, err := os.Create(filepath.Join(t.TempDir(), "log"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteAt([]byte("record"), 0); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	echoed := make(chan struct{})
	go func() {
		defer close(echoed)
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		_, _ = io.Copy(c, c)
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer func() { c.Close(); <-echoed }()

	const trips, device = 200, 300 * time.Millisecond
	others := make(chan error, 1)
	go func() {
		var b [1]byte
		for i := range trips {
			if _, err := c.Write([]byte{byte(i)}); err != nil {
				others <- err
				return
			}
			if _, err := io.ReadFull(c, b[:]); err != nil || b[0] != byte(i) {
				others <- fmt.Errorf("round trip %d: %v, got %d", i, err, b[0])
				return
			}
		}
		for range 5 {
			time.Sleep(time.Millisecond)
		}
		others <- nil
	}()

	// The timeout completes with -ETIME; IORING_TIMEOUT_ETIME_SUCCESS
	// keeps that from cancelling the sync linked after it.
	ts := unix.Timespec{Nsec: int64(device)}
	tail := atomic.LoadUint32(r.sqTail)
	r.prep(tail, sqe{op: ioringOpTimeout, flags: ioringSQELink, addr: uint64(uintptr(unsafe.Pointer(&ts))), len: 1, opFlags: ioringTimeoutETimeSuccess})
	r.prepSync(tail+1, f)
	var res [2]int32
	start := time.Now()
	err = r.run(tail, res[:])
	waited := time.Since(start)
	runtime.KeepAlive(&ts)
	if err != nil {
		t.Fatal(err)
	}
	if res[0] != -int32(unix.ETIME) || res[1] != 0 {
		t.Fatalf("the timeout and the sync answered %d and %d, want -ETIME and 0", res[0], res[1])
	}
	if waited < device*9/10 {
		t.Fatalf("run returned after %v: the device was not slow (want about %v)", waited, device)
	}
	select {
	case err := <-others:
		if err != nil {
			t.Fatal(err)
		}
	default:
		t.Fatalf("after the %v the sync waited, the other goroutine had not finished %d loopback round trips and 5 sleeps of 1 ms: the wait held the only P", waited, trips)
	}
}
