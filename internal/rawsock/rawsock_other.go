//go:build !linux

package rawsock

import "syscall"

// Supported is false: outside Linux sockets are read and written through
// net.Conn, and Wrap returns them as they are.
const Supported = false

func Write(uintptr, []byte) (int, syscall.Errno) { return 0, syscall.EINVAL }

func Read(uintptr, []byte) (int, syscall.Errno) { return 0, syscall.EINVAL }

func Close(int) {}
