package redisstore

import (
	"bytes"
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/roomd/roomd/internal/testredis"
	"github.com/roomd/roomd/store"
	"github.com/roomd/roomd/store/storetest"
)

// failoverBound is how soon after a promotion appends must land again.
const failoverBound = 5 * time.Second

// failoverRoom is a room appending in a loop: on a failure it tries the
// same entry again (the store takes a retry of a landed append), as a
// room whose client resends.
type failoverRoom struct {
	lease store.Lease
	// onTarget is set for a room on the master that is killed.
	onTarget bool

	mu      sync.Mutex
	acked   uint64      // the last revision acknowledged
	oks     []time.Time // when each append was acknowledged
	refused int
}

func (f *failoverRoom) run(r *Redis, stop <-chan struct{}) {
	for rev := uint64(1); ; {
		select {
		case <-stop:
			return
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		err := r.Append(ctx, f.lease, []store.Entry{storetest.Entry(f.lease.Room, rev)})
		cancel()
		f.mu.Lock()
		if err == nil {
			f.acked, f.oks = rev, append(f.oks, time.Now())
			rev++
		} else {
			f.refused++
		}
		f.mu.Unlock()
		time.Sleep(5 * time.Millisecond)
	}
}

// firstAfter returns when the room's first append acknowledged after at
// was, or false.
func (f *failoverRoom) firstAfter(at time.Time) (time.Time, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, ok := range f.oks {
		if ok.After(at) {
			return ok, true
		}
	}
	return time.Time{}, false
}

// TestClusterFailover kills a master of a cluster of three masters with a
// replica each while rooms on every master append in a loop and a node
// registers itself over and over: the master of the registry and of four
// rooms. Once its replica says role:master, those rooms append again
// within failoverBound (the client reads the slots' map again:
// ClusterReload), and every append acknowledged is in the store
// afterwards.
func TestClusterFailover(t *testing.T) {
	t.Parallel()
	cl := testredis.StartClusterConfig(t, testredis.ClusterConfig{Replicas: 1})
	r := openRedis(t, cl.URL(), RedisOptions{Cluster: true})
	ctx := storetest.Ctx(t)
	target := cl.MasterOf(r.nodeKeys()[0])
	var rooms []*failoverRoom
	hit := 0
	for i := 0; hit < 4 || len(rooms)-hit < 4; i++ {
		code := fmt.Sprintf("FAIL%02d", i)
		on := cl.MasterOf(r.keys(code)[0]) == target
		if (on && hit == 4) || (!on && len(rooms)-hit == 4) {
			continue
		}
		if on {
			hit++
		}
		rooms = append(rooms, &failoverRoom{lease: storetest.MustCreate(t, r, code, store.Snapshot{}), onTarget: on})
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for _, f := range rooms {
		wg.Go(func() { f.run(r, stop) })
	}
	var lastRegFail atomic.Int64 // Unix ns
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			if err := r.Register(ctx, store.Node{ID: "n1", PeerURL: "http://n1"}, time.Minute); err != nil {
				lastRegFail.Store(time.Now().UnixNano())
			}
			cancel()
		}
	})
	defer func() {
		select {
		case <-stop:
		default:
			close(stop)
		}
		wg.Wait()
	}()
	time.Sleep(500 * time.Millisecond)

	f := cl.Failover(target)
	t.Logf("master %s killed; its replica %s said role:master %v later", f.Master.Addr(), f.Replica.Addr(), f.Promoted.Sub(f.Killed).Round(time.Millisecond))
	var gaps []time.Duration
	for _, room := range rooms {
		if !room.onTarget {
			continue
		}
		deadline := f.Promoted.Add(failoverBound + 5*time.Second)
		for {
			if at, ok := room.firstAfter(f.Promoted); ok {
				gaps = append(gaps, at.Sub(f.Promoted).Round(time.Millisecond))
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("room %s: no append acknowledged within %v of the promotion", room.lease.Room, failoverBound+5*time.Second)
			}
			time.Sleep(5 * time.Millisecond)
		}
		if gap := gaps[len(gaps)-1]; gap > failoverBound {
			t.Errorf("room %s appended again %v after the promotion, more than %v", room.lease.Room, gap, failoverBound)
		}
	}
	time.Sleep(200 * time.Millisecond)
	close(stop)
	wg.Wait()
	refused := 0
	for _, room := range rooms {
		refused += room.refused
	}
	t.Logf("rooms on the killed master appended again %v after the promotion; %d appends refused in all", gaps, refused)
	if ns := lastRegFail.Load(); ns != 0 {
		t.Logf("the last registration refused: %v after the promotion", time.Unix(0, ns).Sub(f.Promoted).Round(time.Millisecond))
	}
	if _, err := r.Nodes(ctx); err != nil {
		t.Fatalf("nodes after the failover: %v", err)
	}
	for _, room := range rooms {
		_, rec := storetest.MustOpen(t, r, room.lease.Room)
		if n := uint64(len(rec.Entries)); n < room.acked {
			t.Errorf("room %s: %d entries stored, %d acknowledged", room.lease.Room, n, room.acked)
		}
		storetest.CheckRecord(t, rec, store.Snapshot{}, storetest.Entries(room.lease.Room, 1, uint64(len(rec.Entries))))
	}

	// The old master comes back as its replica's replica: the store goes
	// on, and go-redis's probe of the dead address (a goroutine dialling
	// it once a second until it answers or the client closes) ends.
	f.Master.Start()
	cl.WaitOK()
	for _, room := range rooms {
		l, rec := storetest.MustOpen(t, r, room.lease.Room)
		storetest.MustAppend(t, r, l, storetest.Entries(room.lease.Room, uint64(len(rec.Entries))+1, uint64(len(rec.Entries))+1))
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	waitNoDialProbe(t)
}

// waitNoDialProbe waits, for up to 3 s, until no go-redis pool probes a
// dead address (its goroutine sleeps a second between dials and sees the
// pool closed only then), so that goleak does not take one on its way out
// for a leak.
func waitNoDialProbe(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	buf := make([]byte, 1<<20)
	for time.Now().Before(deadline) {
		if n := runtime.Stack(buf, true); !bytes.Contains(buf[:n], []byte("(*ConnPool).tryDial")) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Log("a go-redis pool still probes a dead address")
}
