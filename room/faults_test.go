package room

import (
	"encoding/json"
	"strings"
	"testing"
	"testing/synctest"
	"time"

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

// stubbornGame is a game for two whose seats take turns counting up, one
// move {"n":N} at a time (N the next number; anything else is refused), to
// 10. Seat 0's AI counts right; seat 1's proposes N+5, which the rules
// refuse.
var stubbornGame = session.Define(session.Definition[struct{}, *stubbornState, stubbornMove, int, stubbornState]{
	Info:  session.Info{ID: "stubborn", Name: "Stubborn", RulesVersion: "stubborn/1", Modes: []session.Mode{stubbornMode}},
	Rules: stubbornRules{},
	Setup: func(struct{}) (session.Setup, error) { return session.Setup{Mode: stubbornMode}, nil },
})

var stubbornMode = session.Mode{ID: "duel", Name: "Duel", MinSeats: 2, MaxSeats: 2, AI: true}

type (
	stubbornState struct{ N, Turn int }
	stubbornMove  struct {
		N int `json:"n"`
	}
	stubbornRules struct{}
)

func (stubbornRules) Init(session.Seed, struct{}, int) (*stubbornState, error) {
	return &stubbornState{}, nil
}
func (stubbornRules) Apply(s *stubbornState, in session.Input[stubbornMove]) (*stubbornState, []int, error) {
	switch {
	case s.N >= 10:
		return s, nil, session.Reject(session.CodeGameOver, "over")
	case in.Seat != s.Turn:
		return s, nil, session.Reject(session.CodeNotYourTurn, "not your turn")
	case in.Move.N != s.N+1:
		return s, nil, session.Reject(session.CodeInvalidMove, "the next number is %d", s.N+1)
	}
	s.N, s.Turn = s.N+1, 1-s.Turn
	return s, []int{s.N}, nil
}
func (stubbornRules) Status(s *stubbornState) session.Status {
	st := session.Status{Phase: "counting", Started: s.N > 0, Over: s.N >= 10}
	if st.Over {
		st.Outcome.Winners = []int{}
	}
	return st
}
func (stubbornRules) Pending(s *stubbornState) []int {
	if s.N >= 10 {
		return nil
	}
	return []int{s.Turn}
}
func (stubbornRules) Project(s *stubbornState, _ int) stubbornState        { return *s }
func (stubbornRules) ProjectEvents(_ *stubbornState, e []int, _ int) []int { return e }
func (stubbornRules) Audience(*stubbornState, int) int                     { return 0 }
func (stubbornRules) Choose(v stubbornState, seat int, _ session.Source) (stubbornMove, bool) {
	if v.Turn != seat || v.N >= 10 {
		return stubbornMove{}, false
	}
	if seat == 1 {
		return stubbornMove{N: v.N + 5}, true
	}
	return stubbornMove{N: v.N + 1}, true
}

// TestAIRefusedStops: an AI whose move the rules refuse three times in a
// row is stopped for the match, with a notice to the room, as a panicking
// one is (it was asked again for ever); with a human seated the match goes
// on (the human may resign). A match whose seats are then all the AI's,
// waiting on the stopped one, ends "stalled".
func TestAIRefusedStops(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		reg := prometheus.NewRegistry()
		mt := NewMetrics(reg)
		m := bubbleManager(t, Config{Games: session.NewRegistry(stubbornGame), Metrics: mt, AIDelay: time.Millisecond})
		created, _ := m.Create(t.Context(), CreateRequest{Game: "stubborn", Name: "Ann"})
		r, _ := m.Get(t.Context(), created.Room)
		c := newFake("ann")
		r.Hello(c, &protocol.Hello{Room: r.Code(), Token: created.Token})
		synctest.Wait()
		sendAct(t, r, c, "ai", protocol.TypeControl, nil, &protocol.Control{Op: protocol.ControlFillWithAI})
		sendAct(t, r, c, "go", protocol.TypeControl, nil, &protocol.Control{Op: protocol.ControlStart})
		sendAct(t, r, c, "one", protocol.TypeCommand, json.RawMessage(`{"n":1}`), nil)
		time.Sleep(time.Second) // the AI's tries, a millisecond apart each
		synctest.Wait()
		if n := testutil.ToFloat64(mt.aiStopped.WithLabelValues("stubborn")); n != 1 {
			t.Fatalf("roomd_ai_stopped_total = %v, want 1", n)
		}
		n := c.last(t, protocol.TypeNotice).Notice
		if n.Code != protocol.CodeEngineThrew || !strings.Contains(n.Message, "the rules refused its move") {
			t.Fatalf("notice %+v", n)
		}
		if ph := r.Info().Phase; ph != protocol.PhaseRunning {
			t.Fatalf("with Ann seated the match is %s, want running", ph)
		}
		rev := r.Stats().Rev
		time.Sleep(time.Second)
		synctest.Wait()
		if got := r.Stats().Rev; got != rev {
			t.Fatalf("the stopped AI was asked again: revision %d → %d", rev, got)
		}
		// Ann leaves: the AI takes her seat, and every seat is the AI's,
		// one waiting on the stopped one: the match ends, stalled.
		w := newFake("watcher")
		r.Hello(w, &protocol.Hello{Room: r.Code(), Watch: true})
		synctest.Wait()
		sendAct(t, r, c, "bye", protocol.TypeLeave, nil, nil)
		time.Sleep(time.Second)
		synctest.Wait()
		if ph := r.Info().Phase; ph != protocol.PhaseEnded {
			t.Fatalf("an all-AI match waiting on a stopped AI is %s, want ended", ph)
		}
		if res := w.last(t, protocol.TypeUpdate).Update.Result; res == nil || res.Status != "stalled" || len(res.Winners) != 0 {
			t.Fatalf("result %+v, want stalled with no winner", res)
		}
	})
}
