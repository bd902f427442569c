package room

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/roomd/roomd/core/minesweeper"
	"github.com/roomd/roomd/core/nim"
	"github.com/roomd/roomd/core/session"
	"github.com/roomd/roomd/protocol"
	"github.com/roomd/roomd/store/boltstore"
	"github.com/roomd/roomd/store/memstore"
)

// BenchmarkRestore10k measures restoring 10,000 rooms from the embedded
// store (each a Minesweeper match with a few moves, stored as snapshot + log)
// with RestoreAll, as `roomd --restore-all` does at start.
//
//	go test -run '^$' -bench Restore10k -benchtime 3x ./room
func BenchmarkRestore10k(b *testing.B) {
	const rooms = 10000
	dir := b.TempDir()
	st, err := boltstore.Open(dir, boltstore.BoltOptions{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	games := session.NewRegistry(minesweeper.Game, nim.Game)
	m, err := NewManager(Config{Games: games, Store: st, SnapshotEvery: 4})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	sem := make(chan struct{}, 64)
	errs := make(chan error, rooms)
	for i := range rooms {
		sem <- struct{}{}
		go func() {
			defer func() { <-sem }()
			errs <- seedRoom(ctx, m, i)
		}()
	}
	for range rooms {
		if err := <-errs; err != nil {
			b.Fatal(err)
		}
	}
	if err := m.Shutdown(ctx); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		m2, err := NewManager(Config{Games: games, Store: st})
		if err != nil {
			b.Fatal(err)
		}
		n, err := m2.RestoreAll(ctx)
		if err != nil || n != rooms {
			b.Fatalf("restored %d of %d: %v", n, rooms, err)
		}
		b.StopTimer()
		m2.Shutdown(ctx)
		b.StartTimer()
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/rooms, "µs/room")
	st.Close()
}

// seedRoom creates a solo room, starts its match and plays a reveal and a
// few flags through a fake client.
func seedRoom(ctx context.Context, m *Manager, i int) error {
	created, err := m.Create(ctx, CreateRequest{Game: "minesweeper", Settings: json.RawMessage(`{"mode":"solo","level":"expert"}`)})
	if err != nil {
		return err
	}
	r, err := m.Get(ctx, created.Room)
	if err != nil {
		return err
	}
	c := newFake(fmt.Sprint(i))
	r.Hello(c, &protocol.Hello{Room: created.Room, Token: created.Token})
	cmds := []json.RawMessage{nil, json.RawMessage(`{"type":"reveal","r":8,"c":15}`)}
	for k := range 5 {
		cmds = append(cmds, json.RawMessage(fmt.Sprintf(`{"type":"flag","r":0,"c":%d}`, k)))
	}
	for k, cmd := range cmds {
		a := &protocol.Action{Type: protocol.TypeCommand, ID: fmt.Sprint(k), Rev: uint64(k), Command: cmd}
		if cmd == nil {
			a = &protocol.Action{Type: protocol.TypeControl, ID: "start", Control: &protocol.Control{Op: protocol.ControlStart}}
		}
		if err := r.Act(c, a); err != nil {
			return err
		}
		deadline := time.Now().Add(10 * time.Second)
		for !c.hasReceipt(a.ID) {
			if time.Now().After(deadline) {
				return fmt.Errorf("room %s: no receipt for %s", created.Room, a.ID)
			}
			<-c.signal
		}
	}
	return nil
}

func (f *fakeClient) hasReceipt(id string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, fr := range f.frames {
		if m, err := protocol.DecodeServer(fr); err == nil && m.Receipt != nil && m.Receipt.ID == id {
			return true
		}
	}
	return false
}

// BenchmarkSubmitReplayLongest: what the longest replay POST /api/replays
// takes costs — 10,000 moves (a match's bound), 30 ms apart, on an expert
// board — decoded, replayed and judged.
//
//	go test -run '^$' -bench SubmitReplayLongest -benchmem ./room
func BenchmarkSubmitReplayLongest(b *testing.B) {
	m, err := NewManager(Config{Games: session.NewRegistry(minesweeper.Game), Store: memstore.New()})
	if err != nil {
		b.Fatal(err)
	}
	defer m.Shutdown(context.Background())
	log := make([]map[string]any, 10_000)
	for i := range log {
		log[i] = map[string]any{"move": map[string]any{"type": "flag", "r": 0, "c": i % 30}, "t": 30 * i}
	}
	body, _ := json.Marshal(map[string]any{"game": "minesweeper", "seed": 7, "config": map[string]any{"level": "expert"}, "log": log})
	if len(body) > MaxReplayBytes {
		b.Fatalf("%d bytes, more than a replay may have", len(body))
	}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		v, err := m.SubmitReplay(context.Background(), body)
		if err != nil || v.Reason == nil {
			b.Fatalf("%+v %v", v, err)
		}
	}
}

// BenchmarkStoreCtx: a store call's context, shared by the calls of one
// window, against a context and timer of its own.
//
//	go test -run '^$' -bench StoreCtx -benchmem ./room
func BenchmarkStoreCtx(b *testing.B) {
	m, err := NewManager(Config{Games: session.NewRegistry(nim.Game), Store: memstore.New(), AIDelay: -1})
	if err != nil {
		b.Fatal(err)
	}
	defer m.Shutdown(context.Background())
	b.Run("shared", func(b *testing.B) {
		for b.Loop() {
			ctx := m.storeCtx()
			_ = ctx.Done()
		}
	})
	b.Run("own", func(b *testing.B) {
		for b.Loop() {
			ctx, cancel := context.WithTimeout(context.Background(), m.cfg.StoreTimeout)
			_ = ctx.Done()
			cancel()
		}
	})
}
