//go:build !linux

package transport

import "syscall"

// rawSyscalls is false: outside Linux a sock neither writes directly nor
// reads but through net.Conn.
const rawSyscalls = false

func rawWrite(uintptr, []byte) (int, syscall.Errno) { return 0, syscall.EINVAL }

func rawRead(uintptr, []byte) (int, syscall.Errno) { return 0, syscall.EINVAL }

// closeDescriptor is never called: outside Linux no poller owns a socket.
func closeDescriptor(int) {}
