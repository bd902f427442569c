package boltstore

import (
	"errors"
	"fmt"
	"os"
	"sync/atomic"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// syncRing makes the write-ahead log's fdatasync without blocking a
// thread of the Go runtime: the sync is an io_uring request, done by the
// kernel's workers for this process (their CPU is the process's), and its
// completion is an eventfd that the committer waits on in Go's network
// poller. A blocking fdatasync holds its scheduler P until the runtime's
// monitor takes it back, and then has to win a P back to return; with one
// P (GOMAXPROCS=1, a one-CPU container) every socket and room waited on
// the disk meanwhile (BENCHMARKS.md, "The embedded store under load").
//
// The ring does one thing, one request at a time, for the committer alone:
// it needs no lock. Where io_uring is missing or refused (an old kernel, a
// seccomp profile), newSyncRing fails and the log syncs with fdatasync.
type syncRing struct {
	fd  int
	ev  *os.File // the completion eventfd, in Go's poller
	evc syscall.RawConn
	sq  []byte // the submission ring, mmapped (the completion ring too: FEAT_SINGLE_MMAP)
	cq  []byte // the completion ring, when it is a mapping of its own
	sqe []byte // the submission entries

	sqTail, sqMask, cqHead, cqTail, cqMask *uint32
	sqArray                                unsafe.Pointer
	cqes                                   unsafe.Pointer
}

// io_uring's ABI (include/uapi/linux/io_uring.h).
const (
	ioringOffSQRing   = 0
	ioringOffCQRing   = 0x8000000
	ioringOffSQEs     = 0x10000000
	ioringFeatSingle  = 1 << 0 // IORING_FEAT_SINGLE_MMAP
	ioringOpFsync     = 3
	ioringFsyncData   = 1 << 0 // IORING_FSYNC_DATASYNC
	ioringRegEventfd  = 4
	ioringSQESize     = 64
	ioringCQESize     = 16
	ioringParamsBytes = 120
)

// ioUringParams is struct io_uring_params.
type ioUringParams struct {
	sqEntries, cqEntries, flags, sqThreadCPU, sqThreadIdle, features, wqFd uint32
	resv                                                                   [3]uint32
	sqOff                                                                  struct {
		head, tail, ringMask, ringEntries, flags, dropped, array, resv1 uint32
		userAddr                                                        uint64
	}
	cqOff struct {
		head, tail, ringMask, ringEntries, overflow, cqes, flags, resv1 uint32
		userAddr                                                        uint64
	}
}

func newSyncRing() (*syncRing, error) {
	var p ioUringParams
	if unsafe.Sizeof(p) != ioringParamsBytes {
		return nil, errors.New("io_uring: unexpected params size")
	}
	fd, _, errno := unix.Syscall(unix.SYS_IO_URING_SETUP, 4, uintptr(unsafe.Pointer(&p)), 0)
	if errno != 0 {
		return nil, fmt.Errorf("io_uring_setup: %w", errno)
	}
	r := &syncRing{fd: int(fd)}
	fail := func(err error) (*syncRing, error) {
		r.close()
		return nil, err
	}
	sqSize := int(p.sqOff.array + p.sqEntries*4)
	cqSize := int(p.cqOff.cqes + p.cqEntries*ioringCQESize)
	single := p.features&ioringFeatSingle != 0
	if single {
		sqSize = max(sqSize, cqSize)
	}
	var err error
	if r.sq, err = unix.Mmap(r.fd, ioringOffSQRing, sqSize, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_POPULATE); err != nil {
		return fail(fmt.Errorf("io_uring mmap: %w", err))
	}
	cq := r.sq
	if !single {
		if r.cq, err = unix.Mmap(r.fd, ioringOffCQRing, cqSize, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_POPULATE); err != nil {
			return fail(fmt.Errorf("io_uring mmap: %w", err))
		}
		cq = r.cq
	}
	if r.sqe, err = unix.Mmap(r.fd, ioringOffSQEs, int(p.sqEntries)*ioringSQESize, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_POPULATE); err != nil {
		return fail(fmt.Errorf("io_uring mmap: %w", err))
	}
	at := func(b []byte, off uint32) *uint32 { return (*uint32)(unsafe.Pointer(&b[off])) }
	r.sqTail, r.sqMask = at(r.sq, p.sqOff.tail), at(r.sq, p.sqOff.ringMask)
	r.sqArray = unsafe.Pointer(&r.sq[p.sqOff.array])
	r.cqHead, r.cqTail, r.cqMask = at(cq, p.cqOff.head), at(cq, p.cqOff.tail), at(cq, p.cqOff.ringMask)
	r.cqes = unsafe.Pointer(&cq[p.cqOff.cqes])

	ev, err := unix.Eventfd(0, unix.EFD_NONBLOCK|unix.EFD_CLOEXEC)
	if err != nil {
		return fail(fmt.Errorf("eventfd: %w", err))
	}
	r.ev = os.NewFile(uintptr(ev), "io_uring eventfd") // non-blocking: in Go's poller
	evfd := int32(ev)
	if _, _, errno := unix.Syscall6(unix.SYS_IO_URING_REGISTER, uintptr(r.fd), ioringRegEventfd, uintptr(unsafe.Pointer(&evfd)), 1, 0, 0); errno != 0 {
		return fail(fmt.Errorf("io_uring_register eventfd: %w", errno))
	}
	if r.evc, err = r.ev.SyscallConn(); err != nil {
		return fail(err)
	}
	return r, nil
}

// errRing is a failure of the ring itself, not of the sync: the log
// then syncs with fdatasync(2).
var errRing = errors.New("io_uring")

// fdatasync syncs f's data as fdatasync(2) does, the committer's goroutine
// parked in Go's poller meanwhile.
func (r *syncRing) fdatasync(f *os.File) error {
	tail := atomic.LoadUint32(r.sqTail)
	idx := tail & atomic.LoadUint32(r.sqMask)
	sqe := r.sqe[idx*ioringSQESize : (idx+1)*ioringSQESize]
	clear(sqe)
	sqe[0] = ioringOpFsync                                  // opcode
	*(*int32)(unsafe.Pointer(&sqe[4])) = int32(f.Fd())      // fd
	*(*uint32)(unsafe.Pointer(&sqe[28])) = ioringFsyncData  // fsync_flags
	*(*uint64)(unsafe.Pointer(&sqe[32])) = uint64(tail)     // user_data
	*(*uint32)(unsafe.Add(r.sqArray, uintptr(idx)*4)) = idx // the ring's slot → the entry
	atomic.StoreUint32(r.sqTail, tail+1)                    // published to the kernel
	for tries := 0; ; tries++ {
		// The sync cannot be done without blocking, so the kernel hands
		// it to a worker at once: this call does not wait for the disk.
		n, _, errno := unix.RawSyscall6(unix.SYS_IO_URING_ENTER, uintptr(r.fd), 1, 0, 0, 0, 0)
		if errno == 0 && n == 1 {
			break
		}
		if tries < 100 && (errno == 0 || errno == unix.EINTR || errno == unix.EAGAIN || errno == unix.EBUSY) {
			continue
		}
		return fmt.Errorf("%w: enter: %d submitted, %v", errRing, n, errno)
	}
	for {
		head := atomic.LoadUint32(r.cqHead)
		if head != atomic.LoadUint32(r.cqTail) {
			cqe := unsafe.Add(r.cqes, uintptr(head&atomic.LoadUint32(r.cqMask))*ioringCQESize)
			data, res := *(*uint64)(cqe), *(*int32)(unsafe.Add(cqe, 8))
			atomic.StoreUint32(r.cqHead, head+1)
			switch {
			case data != uint64(tail):
				return fmt.Errorf("%w: completion %d for request %d", errRing, data, tail)
			case res < 0:
				return syscall.Errno(-res)
			}
			return nil
		}
		// Wait for the completion's eventfd in Go's poller, then read it.
		var werr error
		if err := r.evc.Read(func(fd uintptr) bool {
			var b [8]byte
			_, _, errno := unix.RawSyscall(unix.SYS_READ, fd, uintptr(unsafe.Pointer(&b[0])), 8)
			if errno == unix.EAGAIN {
				return atomic.LoadUint32(r.cqHead) != atomic.LoadUint32(r.cqTail)
			}
			if errno != 0 && errno != unix.EINTR {
				werr = errno
			}
			return true
		}); err != nil || werr != nil {
			return fmt.Errorf("%w: eventfd: %v", errRing, errors.Join(err, werr))
		}
	}
}

func (r *syncRing) close() {
	if r.ev != nil {
		r.ev.Close()
	}
	for _, m := range [][]byte{r.sqe, r.cq, r.sq} {
		if m != nil {
			unix.Munmap(m)
		}
	}
	unix.Close(r.fd)
}
