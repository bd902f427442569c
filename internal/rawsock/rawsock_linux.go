package rawsock

import (
	"syscall"
	"unsafe"
)

// Supported says Read and Write are raw system calls here.
const Supported = true

// Write is write(2) on a non-blocking descriptor without the runtime's
// system-call bookkeeping; p is not empty.
func Write(fd uintptr, p []byte) (int, syscall.Errno) {
	n, _, errno := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
	return int(n), errno
}

// Read is read(2) on a non-blocking descriptor, likewise; p is not empty.
func Read(fd uintptr, p []byte) (int, syscall.Errno) {
	n, _, errno := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
	return int(n), errno
}

// Close closes a descriptor.
func Close(fd int) { _ = syscall.Close(fd) }
