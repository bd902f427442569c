package queue

import (
	"errors"
	"sync"
	"testing"
)

func TestPushDrainOrderAndBound(t *testing.T) {
	q := New[int](3)
	for i := range 3 {
		if err := q.Push(i); err != nil {
			t.Fatal(err)
		}
	}
	if err := q.Push(3); !errors.Is(err, ErrFull) {
		t.Fatalf("push past the bound: %v, want ErrFull", err)
	}
	select {
	case <-q.Signal():
	default:
		t.Fatal("no signal after a push")
	}
	got := q.Drain()
	if len(got) != 3 || got[0] != 0 || got[2] != 2 {
		t.Fatalf("drain = %v", got)
	}
	if n := len(q.Drain()); n != 0 {
		t.Fatalf("second drain has %d items", n)
	}
	if err := q.Push(9); err != nil {
		t.Fatalf("push after a drain: %v", err)
	}
	if left := q.Close(); len(left) != 1 || left[0] != 9 {
		t.Fatalf("close returned %v", left)
	}
	if err := q.Push(1); !errors.Is(err, ErrClosed) {
		t.Fatalf("push after close: %v", err)
	}
}

func TestTakeBatches(t *testing.T) {
	q := New[int](0)
	for i := range 10 {
		q.Push(i)
	}
	a := q.Take(4)
	b := q.Take(4)
	c := q.Take(4)
	if len(a) != 4 || len(b) != 4 || len(c) != 2 || a[0] != 0 || b[0] != 4 || c[1] != 9 {
		t.Fatalf("batches %v %v %v", a, b, c)
	}
	if q.Take(4) != nil || q.Len() != 0 {
		t.Fatal("queue not empty")
	}
}

func TestManyProducers(t *testing.T) {
	q := New[int](0)
	var wg sync.WaitGroup
	for p := range 8 {
		wg.Go(func() {
			for i := range 1000 {
				q.Push(p*1000 + i)
			}
		})
	}
	seen := map[int]bool{}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	for len(seen) < 8000 {
		select {
		case <-q.Signal():
		case <-done:
		}
		for _, v := range q.Drain() {
			if seen[v] {
				t.Fatalf("%d twice", v)
			}
			seen[v] = true
		}
	}
}
