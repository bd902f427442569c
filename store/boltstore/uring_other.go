//go:build !linux

package boltstore

import (
	"errors"
	"os"
)

// syncRing is Linux's (uring_linux.go): elsewhere the log syncs with
// fdatasync alone.
type syncRing struct{}

var errRing = errors.New("io_uring")

func newSyncRing() (*syncRing, error) { return nil, errors.New("io_uring: not on this system") }

func (*syncRing) fdatasync(*os.File) error { return errRing }

func (*syncRing) close() {}
