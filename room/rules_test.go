package room

import (
	"encoding/json"
	"testing"
	"testing/synctest"

	"github.com/roomd/roomd/core/nim"
	"github.com/roomd/roomd/core/session"
	"github.com/roomd/roomd/protocol"
	"github.com/roomd/roomd/store/memstore"
)

// newRules is hidden Nim as a later build would ship it, under another
// rules version: the same code, but no stored match of nim/1 may be
// replayed by it.
type newRules struct{ session.Game }

func (g newRules) Info() session.Info {
	info := g.Game.Info()
	info.RulesVersion = "nim/2"
	return info
}

// TestRulesChangedAcrossRestart: a room whose running match was played
// under rules the new build does not run loads with that match ended
// ("rules-changed") instead of failing to load (the old roomd looped its
// clients on 4000) or replaying its moves under the new rules (after a
// kill -9, it did); a client of the old rules is told to update (4003), one
// of the new rules plays a rematch. Both ways a match is stored are
// covered: in a snapshot (a graceful shutdown) and in the log after one (a
// crash).
func TestRulesChangedAcrossRestart(t *testing.T) {
	for _, crash := range []bool{false, true} {
		name := "snapshot"
		if crash {
			name = "log"
		}
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				st := memstore.New()
				defer st.Close()
				m1, err := NewManager(Config{Games: session.NewRegistry(nim.Game), Store: st, AIDelay: -1})
				if err != nil {
					t.Fatal(err)
				}
				created, _ := m1.Create(t.Context(), CreateRequest{Game: "nim", Settings: json.RawMessage(`{"pile":20}`), Name: "Ann"})
				r, _ := m1.Get(t.Context(), created.Room)
				c := newFake("ann")
				r.Hello(c, &protocol.Hello{Room: r.Code(), Token: created.Token})
				synctest.Wait()
				sendAct(t, r, c, "ai", protocol.TypeControl, nil, &protocol.Control{Op: protocol.ControlFillWithAI})
				sendAct(t, r, c, "go", protocol.TypeControl, nil, &protocol.Control{Op: protocol.ControlStart})
				sendAct(t, r, c, "t1", protocol.TypeCommand, json.RawMessage(`{"type":"take","n":2}`), nil)
				synctest.Wait()
				rev := r.Stats().Rev
				if crash {
					m1.mu.Lock()
					m1.rooms = map[string]*Room{} // the process dies: no final snapshot
					m1.mu.Unlock()
				} else if err := m1.Shutdown(t.Context()); err != nil {
					t.Fatal(err)
				}
				m2 := bubbleManager(t, Config{Games: session.NewRegistry(newRules{nim.Game}), Store: st, AIDelay: -1})
				r2, err := m2.Get(t.Context(), created.Room)
				if err != nil {
					t.Fatalf("the room does not load under the new rules: %v", err)
				}
				if info := r2.Info(); info.Phase != protocol.PhaseEnded || info.Game.RulesVersion != "nim/2" || r2.Stats().Rev != rev {
					t.Fatalf("loaded: phase %s rules %s rev %d (was %d)", info.Phase, info.Game.RulesVersion, r2.Stats().Rev, rev)
				}
				old := newFake("old")
				r2.Hello(old, &protocol.Hello{Room: created.Room, Token: created.Token, Game: protocol.GamePin{ID: "nim", RulesVersion: "nim/1"}})
				synctest.Wait()
				if old.closeCode() != protocol.CloseUpdateRequired {
					t.Fatalf("a client of the old rules: close %d, want 4003", old.closeCode())
				}
				now := newFake("new")
				r2.Hello(now, &protocol.Hello{Room: created.Room, Token: created.Token, Game: protocol.GamePin{ID: "nim", RulesVersion: "nim/2"}})
				synctest.Wait()
				if s := now.last(t, protocol.TypeSnapshot).Snapshot; s.Result == nil || s.Result.Status != "rules-changed" {
					t.Fatalf("the new client's snapshot: %+v", s.Result)
				}
				sendAct(t, r2, now, "again", protocol.TypeControl, nil, &protocol.Control{Op: protocol.ControlRematch})
				if rc := now.receipt(t, "again"); !rc.OK || r2.Info().Phase != protocol.PhaseRunning {
					t.Fatalf("a rematch under the new rules: %+v, phase %s", rc, r2.Info().Phase)
				}
				if crash {
					// m1's actor still runs in this bubble: stop it.
					r.Close()
					<-r.Done()
				}
			})
		})
	}
}
