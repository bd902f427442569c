package room

import (
	"encoding/json"
	"testing"
	"testing/synctest"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/roomd/roomd/core/session"
	"github.com/roomd/roomd/core/session/sessiontest"
	"github.com/roomd/roomd/protocol"
)

// boomGame is a game whose code fails on demand (sessiontest.Boom).
var boomGame = sessiontest.Boom

// TestEnginePanic: a panic in a game's Apply costs the command, not the
// room or the process: the sender gets engine-threw, the state is as it was
// (the game's half change is gone), the next command is applied, another
// room never noticed, and the panic is counted.
func TestEnginePanic(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		reg := prometheus.NewRegistry()
		mt := NewMetrics(reg)
		m := bubbleManager(t, Config{Games: session.NewRegistry(boomGame), Metrics: mt, AIDelay: -1})
		var rooms []*Room
		var clients []*fakeClient
		for range 2 {
			created, err := m.Create(t.Context(), CreateRequest{Game: "boom", Name: "Ann"})
			if err != nil {
				t.Fatal(err)
			}
			r, _ := m.Get(t.Context(), created.Room)
			c := newFake("ann")
			r.Hello(c, &protocol.Hello{Room: r.Code(), Token: created.Token})
			synctest.Wait()
			sendAct(t, r, c, "go", protocol.TypeControl, nil, &protocol.Control{Op: protocol.ControlStart})
			sendAct(t, r, c, "one", protocol.TypeCommand, json.RawMessage(`{}`), nil)
			rooms, clients = append(rooms, r), append(clients, c)
		}
		r, c := rooms[0], clients[0]
		before := r.Stats().Rev
		sendAct(t, r, c, "bang", protocol.TypeCommand, json.RawMessage(`{"boom":true}`), nil)
		if rc := c.receipt(t, "bang"); rc.OK || rc.Notice.Code != protocol.CodeEngineThrew {
			t.Fatalf("the panicking command: %+v", rc)
		}
		if r.Stats().Rev != before {
			t.Fatalf("revision %d after a panic, want %d", r.Stats().Rev, before)
		}
		sendAct(t, r, c, "two", protocol.TypeCommand, json.RawMessage(`{}`), nil)
		u := c.last(t, protocol.TypeUpdate).Update
		if beats, _ := json.Marshal(u.Beats); string(beats) != "[2]" || u.To != before+1 {
			t.Fatalf("after the panic: update %d→%d beats %s, want the second move (counter 2)", u.From, u.To, beats)
		}
		sendAct(t, rooms[1], clients[1], "two", protocol.TypeCommand, json.RawMessage(`{}`), nil)
		if rc := clients[1].receipt(t, "two"); !rc.OK {
			t.Fatalf("the other room: %+v", rc)
		}
		if n := testutil.ToFloat64(mt.panics.WithLabelValues("boom")); n != 1 {
			t.Fatalf("%v panics counted", n)
		}
	})
}

// TestAIPanic: an AI that panics is retried at most three times, then the
// room tells everyone and stops asking it; the room goes on.
func TestAIPanic(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		reg := prometheus.NewRegistry()
		mt := NewMetrics(reg)
		m := bubbleManager(t, Config{Games: session.NewRegistry(boomGame), Metrics: mt, AIDelay: -1})
		created, _ := m.Create(t.Context(), CreateRequest{Game: "boom", Name: "Ann"})
		r, _ := m.Get(t.Context(), created.Room)
		c := newFake("ann")
		r.Hello(c, &protocol.Hello{Room: r.Code(), Token: created.Token})
		synctest.Wait()
		sendAct(t, r, c, "ai", protocol.TypeControl, nil, &protocol.Control{Op: protocol.ControlFillWithAI})
		sendAct(t, r, c, "go", protocol.TypeControl, nil, &protocol.Control{Op: protocol.ControlStart})
		synctest.Wait()
		if n := testutil.ToFloat64(mt.panics.WithLabelValues("boom")); n != 0 {
			t.Fatalf("the AI was asked %v times before the human's first move", n)
		}
		sendAct(t, r, c, "first", protocol.TypeCommand, json.RawMessage(`{}`), nil)
		if n := testutil.ToFloat64(mt.panics.WithLabelValues("boom")); n != maxAIFailures {
			t.Fatalf("the AI was asked %v times, want %d", n, maxAIFailures)
		}
		if n := c.last(t, protocol.TypeNotice).Notice; n.Code != protocol.CodeEngineThrew {
			t.Fatalf("notice %+v", n)
		}
		sendAct(t, r, c, "mine", protocol.TypeCommand, json.RawMessage(`{}`), nil)
		if rc := c.receipt(t, "mine"); !rc.OK {
			t.Fatalf("a human move after the AI broke: %+v", rc)
		}
	})
}
