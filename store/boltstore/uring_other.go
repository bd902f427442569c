//go:build !linux

package boltstore

import (
	"errors"
	"os"
)

// syncRing is Linux's (uring_linux.go): elsewhere the log syncs with
// fdatasync alone.
type syncRing struct{}

var (
	errRing        = errors.New("io_uring")
	errUnsubmitted = errRing
)

func newSyncRing() (*syncRing, error) { return nil, errors.New("io_uring: not on this system") }

func (*syncRing) fdatasync(*os.File) error { return errRing }

func (*syncRing) writeSync(*os.File, []byte, int64) (int, error) { return 0, errUnsubmitted }

func (*syncRing) close() {}
