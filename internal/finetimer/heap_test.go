package finetimer

import (
	"container/heap"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// TestTimerHeap: any run of pushes, time changes (fix), removals anywhere
// and removals of the first keeps a heap — no entry earlier than its
// parent, each entry's time its timer's, each timer's index its entry's —
// holding exactly the timers pending, and the first entry is always one of
// the earliest; a removed timer is no longer pending.
func TestTimerHeap(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var h timerHeap
		pending := map[*Func]bool{}
		var all []*Func
		when := rapid.Int64Range(-5, 40) // few values: many equal times
		for step := range rapid.IntRange(1, 200).Draw(t, "steps") {
			live := func() []*Func {
				var l []*Func
				for _, f := range all {
					if pending[f] {
						l = append(l, f)
					}
				}
				return l
			}()
			switch op := rapid.IntRange(0, 3).Draw(t, "op"); {
			case op == 0 || len(live) == 0:
				f := &Func{at: when.Draw(t, "at"), i: -1}
				all = append(all, f)
				pending[f] = true
				h.push(f)
			case op == 1:
				f := rapid.SampledFrom(live).Draw(t, "fix")
				f.at = when.Draw(t, "at")
				h[f.i].at = f.at
				h.fix(f.i)
			case op == 2:
				f := rapid.SampledFrom(live).Draw(t, "remove")
				if got := h.remove(f.i); got != f {
					t.Fatalf("step %d: remove(%p's index) took %p", step, f, got)
				}
				delete(pending, f)
			default:
				earliest := slices.MinFunc(live, func(a, b *Func) int { return int(a.at - b.at) }).at
				f := h.remove(0)
				if f.at != earliest || !pending[f] {
					t.Fatalf("step %d: the first entry is at %d (pending %v), the earliest pending at %d", step, f.at, pending[f], earliest)
				}
				delete(pending, f)
			}
			if len(h) != len(pending) {
				t.Fatalf("step %d: %d entries, %d timers pending", step, len(h), len(pending))
			}
			for i, e := range h {
				if !pending[e.t] || e.t.i != i || e.at != e.t.at {
					t.Fatalf("step %d: entry %d: pending %v, its timer's index %d, at %d against its timer's %d", step, i, pending[e.t], e.t.i, e.at, e.t.at)
				}
				if p := (i - 1) / heapArity; i > 0 && h[p].at > e.at {
					t.Fatalf("step %d: entry %d (at %d) is earlier than its parent %d (at %d)", step, i, e.at, p, h[p].at)
				}
			}
			for _, f := range all {
				if !pending[f] && f.i != -1 {
					t.Fatalf("step %d: a timer no longer pending has index %d", step, f.i)
				}
			}
		}
	})
}

// BenchmarkTimerHeap: the bots' cycle on 2,000 pending timers — the first
// one runs and is set again 0.5–1.5 s on — on this heap, and on the one
// before it (container/heap, two children to a node, comparing the
// timers' time.Time through their pointers).
func BenchmarkTimerHeap(b *testing.B) {
	const n = 2000
	r := rand.New(rand.NewPCG(1, 2))
	next := func(now int64) int64 { return now + int64(500*time.Millisecond) + r.Int64N(int64(time.Second)) }
	b.Run("4-ary", func(b *testing.B) {
		var h timerHeap
		for range n {
			h.push(&Func{at: next(0), i: -1})
		}
		b.ResetTimer()
		for range b.N {
			f := h.remove(0)
			f.at = next(f.at)
			h.push(f)
		}
	})
	b.Run("container-heap", func(b *testing.B) {
		var h oldHeap
		base := time.Now()
		for range n {
			heap.Push(&h, &oldFunc{when: base.Add(time.Duration(next(0)))})
		}
		b.ResetTimer()
		for range b.N {
			f := heap.Pop(&h).(*oldFunc)
			f.when = base.Add(time.Duration(next(int64(f.when.Sub(base)))))
			heap.Push(&h, f)
		}
	})
}

// oldFunc and oldHeap are the timer heap as it was before timerHeap.
type oldFunc struct {
	when time.Time
	i    int
}

type oldHeap []*oldFunc

func (h oldHeap) Len() int           { return len(h) }
func (h oldHeap) Less(i, j int) bool { return h[i].when.Before(h[j].when) }
func (h oldHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].i, h[j].i = i, j
}
func (h *oldHeap) Push(x any) {
	t := x.(*oldFunc)
	t.i = len(*h)
	*h = append(*h, t)
}
func (h *oldHeap) Pop() any {
	old := *h
	t := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	t.i = -1
	return t
}
