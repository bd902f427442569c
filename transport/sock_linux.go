package transport

import (
	"syscall"
	"unsafe"
)

// rawSyscalls says sock reads and writes with rawRead and rawWrite.
const rawSyscalls = true

// rawWrite is write(2) on a non-blocking descriptor without the runtime's
// syscall bookkeeping (see sock.writeOnce); p is not empty.
func rawWrite(fd uintptr, p []byte) (int, syscall.Errno) {
	n, _, errno := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
	return int(n), errno
}

// rawRead is read(2) on a non-blocking descriptor, likewise; p is not
// empty.
func rawRead(fd uintptr, p []byte) (int, syscall.Errno) {
	n, _, errno := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
	return int(n), errno
}

// closeDescriptor closes a descriptor the poller owns.
func closeDescriptor(fd int) { _ = syscall.Close(fd) }
