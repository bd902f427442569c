package boltstore

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
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
	ioringOffSQRing  = 0
	ioringOffCQRing  = 0x8000000
	ioringOffSQEs    = 0x10000000
	ioringFeatSingle = 1 << 0 // IORING_FEAT_SINGLE_MMAP
	ioringOpFsync    = 3
	ioringOpTimeout  = 11     // IORING_OP_TIMEOUT (TestRingWaitLeavesTheP's slow device)
	ioringOpWrite    = 23     // IORING_OP_WRITE, Linux 5.6
	ioringSQELink    = 1 << 2 // IOSQE_IO_LINK
	ioringFsyncData  = 1 << 0 // IORING_FSYNC_DATASYNC
	// IORING_TIMEOUT_ETIME_SUCCESS, Linux 5.16: a timeout's -ETIME does
	// not cancel the requests linked after it.
	ioringTimeoutETimeSuccess = 1 << 5
	ioringRegEventfd          = 4
	ioringSQESize             = 64
	ioringCQESize             = 16
	ioringParamsBytes         = 120
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
// then syncs with fdatasync(2). errUnsubmitted is one that left nothing
// in flight.
var (
	errRing        = errors.New("io_uring")
	errUnsubmitted = fmt.Errorf("%w: nothing submitted", errRing)
)

// fdatasync syncs f's data as fdatasync(2) does, the committer's goroutine
// parked in Go's poller meanwhile.
func (r *syncRing) fdatasync(f *os.File) error {
	tail := atomic.LoadUint32(r.sqTail)
	r.prepSync(tail, f)
	var res [1]int32
	if err := r.run(tail, res[:]); err != nil {
		return err
	}
	if res[0] < 0 {
		return syscall.Errno(-res[0])
	}
	return nil
}

// writeSync writes p at off in f and syncs f's data, as pwrite(2) and
// fdatasync(2) would, in one submission: the sync is linked after the
// write, so that the log's commit makes no system call of its own beyond
// io_uring_enter (an ordinary one wakes the runtime's monitor thread).
// It returns how much was written; after a short write the kernel cancels
// the sync (the caller writes the rest and syncs), and a kernel without
// IORING_OP_WRITE fails it with EINVAL and 0 written. p stays the
// kernel's until writeSync returns — and for good after an errRing, when
// the request may still be in flight.
func (r *syncRing) writeSync(f *os.File, p []byte, off int64) (int, error) {
	tail := atomic.LoadUint32(r.sqTail)
	r.prep(tail, sqe{op: ioringOpWrite, flags: ioringSQELink, fd: int32(f.Fd()), off: uint64(off),
		addr: uint64(uintptr(unsafe.Pointer(unsafe.SliceData(p)))), len: uint32(len(p))})
	r.prepSync(tail+1, f)
	var res [2]int32
	err := r.run(tail, res[:])
	runtime.KeepAlive(p)
	switch {
	case err != nil:
		return 0, err
	case res[0] < 0:
		return 0, syscall.Errno(-res[0])
	case int(res[0]) < len(p):
		return int(res[0]), io.ErrShortWrite
	case res[1] < 0:
		return len(p), syscall.Errno(-res[1])
	}
	return len(p), nil
}

// entry returns the cleared submission entry for the request numbered
// tail (its user_data), and points the ring's slot at it.
func (r *syncRing) entry(tail uint32) []byte {
	idx := tail & atomic.LoadUint32(r.sqMask)
	sqe := r.sqe[idx*ioringSQESize : (idx+1)*ioringSQESize]
	clear(sqe)
	*(*uint64)(unsafe.Pointer(&sqe[32])) = uint64(tail)     // user_data
	*(*uint32)(unsafe.Add(r.sqArray, uintptr(idx)*4)) = idx // the ring's slot → the entry
	return sqe
}

// sqe is what a request sets of its submission entry (struct
// io_uring_sqe); opFlags is the union after len (fsync_flags,
// timeout_flags, …).
type sqe struct {
	op, flags    uint8
	fd           int32
	off, addr    uint64
	len, opFlags uint32
}

// prep fills the entry of request tail.
func (r *syncRing) prep(tail uint32, e sqe) {
	b := r.entry(tail)
	b[0], b[1] = e.op, e.flags
	*(*int32)(unsafe.Pointer(&b[4])) = e.fd
	*(*uint64)(unsafe.Pointer(&b[8])) = e.off
	*(*uint64)(unsafe.Pointer(&b[16])) = e.addr
	*(*uint32)(unsafe.Pointer(&b[24])) = e.len
	*(*uint32)(unsafe.Pointer(&b[28])) = e.opFlags
}

// prepSync fills the entry of request tail with an fdatasync of f.
func (r *syncRing) prepSync(tail uint32, f *os.File) {
	r.prep(tail, sqe{op: ioringOpFsync, fd: int32(f.Fd()), opFlags: ioringFsyncData})
}

// run submits the len(res) requests prepared from first on and waits for
// their completions, parked in Go's poller, putting each one's result in
// res by its number.
func (r *syncRing) run(first uint32, res []int32) error {
	n := uint32(len(res))
	atomic.StoreUint32(r.sqTail, first+n) // published to the kernel
	for submitted, tries := uint32(0), 0; submitted < n; tries++ {
		// A sync cannot be done without blocking, so the kernel hands it
		// to a worker at once: this call does not wait for the disk.
		got, _, errno := unix.RawSyscall6(unix.SYS_IO_URING_ENTER, uintptr(r.fd), uintptr(n-submitted), 0, 0, 0, 0)
		if errno == 0 {
			submitted += uint32(got)
		}
		if submitted == n {
			break
		}
		if tries < 100 && (errno == 0 || errno == unix.EINTR || errno == unix.EAGAIN || errno == unix.EBUSY) {
			continue
		}
		if submitted == 0 {
			return fmt.Errorf("%w: enter: %v", errUnsubmitted, errno)
		}
		return fmt.Errorf("%w: enter: %d of %d submitted, %v", errRing, submitted, n, errno)
	}
	for done := uint32(0); done < n; {
		head := atomic.LoadUint32(r.cqHead)
		if head != atomic.LoadUint32(r.cqTail) {
			cqe := unsafe.Add(r.cqes, uintptr(head&atomic.LoadUint32(r.cqMask))*ioringCQESize)
			data, v := *(*uint64)(cqe), *(*int32)(unsafe.Add(cqe, 8))
			atomic.StoreUint32(r.cqHead, head+1)
			i := uint32(data) - first
			if data>>32 != 0 || i >= n {
				return fmt.Errorf("%w: completion %d for requests %d to %d", errRing, data, first, first+n-1)
			}
			res[i] = v
			done++
			continue
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
	return nil
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
