package boltstore

import (
	"runtime"
	"sync"

	"go.etcd.io/bbolt"
)

// A bbolt commit fdatasyncs twice, with blocking system calls: a
// checkpoint's first sync writes a second's worth of pages and took
// 8.5–13 ms on the benchmark machine. With one P (GOMAXPROCS=1) the
// thread in the call keeps the P until the runtime's monitor takes it back
// — up to its 10 ms tick when it has been idle, as it is once the log's
// own syncs go through io_uring — and no socket or room runs meanwhile:
// a once-a-second stall that was most of the receipts' p99 with one P
// (BENCHMARKS.md, "The embedded store under load"). So while a committer's
// bbolt transaction runs, the process has a second P: the other goroutines
// go on while its thread waits in the kernel. Both Ps run on whatever CPUs
// there are; the second one only adds a runnable thread for those few
// milliseconds.

var spare struct {
	sync.Mutex
	users   int
	raised  bool // this package raised GOMAXPROCS from 1 to 2
	dflt    bool // and the 1 was the runtime's default (BoltOptions.DefaultProcs)
	setProc func(int) int
	setDflt func()
}

func init() { spare.setProc, spare.setDflt = runtime.GOMAXPROCS, runtime.SetDefaultGOMAXPROCS }

// borrowProc raises GOMAXPROCS from 1 to 2 for the first of its users;
// returnProc puts it back after the last, unless something else changed
// it meanwhile. A 1 that was the runtime's default (dflt) goes back with
// runtime.SetDefaultGOMAXPROCS: setting it to 1 with runtime.GOMAXPROCS
// would end the runtime's automatic updates (a container's CPU limit
// raised later would no longer raise it).
func borrowProc(dflt bool) {
	spare.Lock()
	defer spare.Unlock()
	if spare.users++; spare.users == 1 && spare.setProc(0) == 1 {
		spare.setProc(2)
		spare.raised, spare.dflt = true, dflt
	}
}

func returnProc() {
	spare.Lock()
	defer spare.Unlock()
	if spare.users--; spare.users == 0 && spare.raised {
		if spare.setProc(0) == 2 {
			if spare.dflt {
				spare.setDflt()
			} else {
				spare.setProc(1)
			}
		}
		spare.raised = false
	}
}

// update runs fn in a bbolt transaction, with a spare P while it runs
// when the store syncs (KeepProcs unset).
func (b *Bolt) update(fn func(*bbolt.Tx) error) error {
	if !b.opts.NoSync && !b.opts.KeepProcs {
		borrowProc(b.opts.DefaultProcs)
		defer returnProc()
	}
	return b.db.Update(fn)
}
