package boltstore

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
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
