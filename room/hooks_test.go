package room

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/roomd/roomd/core/nim"
	"github.com/roomd/roomd/core/session"
	"github.com/roomd/roomd/protocol"
	"github.com/roomd/roomd/store/memstore"
)

// TestWebhookEvents: a room's life makes its events, each stored with the
// change that made it — room.created, player.joined, match.started,
// match.ended (with the result, its secret and moves), player.left (left,
// and removed by the host) — in order, with unique ids; the queued-hook
// callback fires; an append the store refuses stores no event.
func TestWebhookEvents(t *testing.T) {
	st := memstore.New()
	var woken atomic.Int32
	m, err := NewManager(Config{Games: session.NewRegistry(nim.Game), Store: st, Outbox: st, Webhooks: true, AIDelay: -1,
		PresenceInterval: time.Millisecond, HooksQueued: func() { woken.Add(1) }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		m.Shutdown(ctx)
	})
	r, host, guest, _ := nimRoom(t, m)
	ended := func() bool {
		for _, msg := range host.messages(t) {
			if msg.Update != nil && msg.Update.Result != nil {
				return true
			}
		}
		return false
	}
	for i := 0; !ended(); i++ {
		if i > 40 {
			t.Fatal("the match did not end")
		}
		if rc := act(t, r, host, fmt.Sprint("h", i), protocol.TypeCommand, take(1), nil); !rc.OK {
			if rc := act(t, r, guest, fmt.Sprint("g", i), protocol.TypeCommand, take(1), nil); !rc.OK {
				t.Fatalf("neither seat may take: %+v", rc.Notice)
			}
		}
	}
	act(t, r, guest, "bye", protocol.TypeLeave, nil, nil)
	waitFor(t, "the events", func() bool {
		evs, _ := st.Due(context.Background(), time.Now().Add(time.Hour).UnixMilli(), 100)
		return len(evs) >= 5
	})
	evs, _ := st.Due(context.Background(), time.Now().Add(time.Hour).UnixMilli(), 100)
	var types []string
	seen := map[string]bool{}
	var matchEnded protocol.HookMatch
	for _, ev := range evs {
		var body protocol.WebhookEvent
		if err := json.Unmarshal(ev.Data, &body); err != nil || body.ID != ev.ID || body.Room != r.Code() || body.Game != "nim" || seen[body.ID] {
			t.Fatalf("event %s: %s (%v)", ev.ID, ev.Data, err)
		}
		seen[body.ID] = true
		types = append(types, body.Type)
		if body.Type == protocol.HookMatchEnded {
			json.Unmarshal(body.Data, &matchEnded)
		}
	}
	want := []string{protocol.HookRoomCreated, protocol.HookPlayerJoined, protocol.HookMatchStarted, protocol.HookMatchEnded, protocol.HookPlayerLeft}
	if !slices.Equal(types, want) {
		t.Fatalf("events %v, want %v", types, want)
	}
	if res := matchEnded.Result; res == nil || res.Status == "" || len(res.Seed) == 0 || len(res.Log) == 0 || len(matchEnded.Players) != 2 {
		t.Fatalf("match.ended: %+v", matchEnded)
	}
	if woken.Load() == 0 {
		t.Error("HooksQueued never called")
	}

	// A refused append stores no event: the join of a player is refused by
	// the store and the outbox holds nothing new.
	before := len(evs)
	st.SetFail(errors.New("disk full"))
	if err := r.Hello(newFake("dan"), &protocol.Hello{Room: r.Code(), Name: "Dan"}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond)
	st.SetFail(nil)
	evs, _ = st.Due(context.Background(), time.Now().Add(time.Hour).UnixMilli(), 100)
	for _, ev := range evs[before:] {
		t.Errorf("an event stored with a refused append: %s", ev.Data)
	}
}
