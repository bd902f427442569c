package room

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/roomd/roomd/core/minesweeper"
	"github.com/roomd/roomd/core/nim"
	"github.com/roomd/roomd/core/session"
	"github.com/roomd/roomd/core/tictactoe"
	"github.com/roomd/roomd/protocol"
)

// The size of what a room sends for one hello or resync is bounded, and the
// bound is checked here at each game's worst case: the largest board fully
// shown, the longest match, the longest names. README "Limits" states them.
const (
	maxRoomInfoBytes = 4 << 10  // seats, names, settings, clocks
	maxBoardBytes    = 1 << 20  // one 100×100 Minesweeper board, every cell shown
	maxSnapshotBytes = 64 << 10 // any other game's view, and a long match's
)

// worst plays a match in a room and returns a spectator's snapshot frame.
func worst(t *testing.T, game session.Game, settings string, seats int, play func(r *Room, c []*fakeClient)) (info, snap []byte) {
	t.Helper()
	m := bubbleManager(t, Config{Games: session.NewRegistry(game), AIDelay: -1, MaxMatchMoves: 100_000})
	long := strings.Repeat("𝕎", MaxNameRunes+10) // 4 bytes a rune, past the bound
	created, err := m.Create(t.Context(), CreateRequest{Game: game.Info().ID, Settings: json.RawMessage(settings), Name: long, Access: protocol.AccessLocked})
	if err != nil {
		t.Fatal(err)
	}
	r, _ := m.Get(t.Context(), created.Room)
	clients := []*fakeClient{newFake("0")}
	r.Hello(clients[0], &protocol.Hello{Room: r.Code(), Token: created.Token})
	for i := 1; i < seats; i++ {
		c := newFake(fmt.Sprint(i))
		r.Hello(c, &protocol.Hello{Room: r.Code(), Name: long, Invite: created.Invite})
		synctest.Wait()
		sendAct(t, r, c, "ready", protocol.TypeControl, nil, &protocol.Control{Op: protocol.ControlReady, Ready: true})
		clients = append(clients, c)
	}
	synctest.Wait()
	sendAct(t, r, clients[0], "start", protocol.TypeControl, nil, &protocol.Control{Op: protocol.ControlStart})
	play(r, clients)
	synctest.Wait()
	spec := newFake("spectator")
	r.Hello(spec, &protocol.Hello{Room: r.Code(), Watch: true})
	synctest.Wait()
	info, _ = json.Marshal(r.Info())
	spec.mu.Lock()
	defer spec.mu.Unlock()
	for _, f := range spec.frames {
		if m, _ := protocol.DecodeServer(f); m.Snapshot != nil {
			snap = f
		}
	}
	return info, snap
}

func TestSizeBounds(t *testing.T) {
	for _, tc := range []struct {
		name     string
		game     session.Game
		settings string
		seats    int
		play     func(t *testing.T, r *Room, c []*fakeClient)
		bound    int
	}{
		{"minesweeper 100×100, every cell shown", minesweeper.Game, `{"mode":"coop","level":"custom","rows":100,"cols":100,"mines":0}`, 4,
			func(t *testing.T, r *Room, c []*fakeClient) {
				sendAct(t, r, c[0], "open", protocol.TypeCommand, json.RawMessage(`{"type":"reveal","r":50,"c":50}`), nil)
			}, maxBoardBytes},
		{"minesweeper nightmare race, four boards", minesweeper.Game, `{"mode":"race","level":"nightmare"}`, 4,
			func(t *testing.T, r *Room, c []*fakeClient) {
				for i, p := range c {
					sendAct(t, r, p, "open", protocol.TypeCommand, json.RawMessage(fmt.Sprintf(`{"type":"reveal","r":%d,"c":%d}`, 5*i, 7*i)), nil)
				}
			}, maxSnapshotBytes},
		{"minesweeper expert, 5,000 moves", minesweeper.Game, `{"mode":"solo","level":"expert"}`, 1,
			func(t *testing.T, r *Room, c []*fakeClient) {
				sendAct(t, r, c[0], "open", protocol.TypeCommand, json.RawMessage(`{"type":"reveal","r":8,"c":15}`), nil)
				for i := range 5000 {
					r.Act(c[0], &protocol.Action{Type: protocol.TypeCommand, ID: fmt.Sprint("f", i), Rev: uint64(2 + i),
						Command: json.RawMessage(`{"type":"flag","r":0,"c":0}`)})
					if i%100 == 0 {
						synctest.Wait()
					}
				}
				synctest.Wait()
				sendAct(t, r, c[0], "quit", protocol.TypeResign, nil, nil)
			}, maxSnapshotBytes},
		{"hidden nim, a pile of 1,000 played out", nim.Game, `{"pile":1000}`, 2,
			func(t *testing.T, r *Room, c []*fakeClient) {
				for i := 0; r.Info().Phase == protocol.PhaseRunning && i < 1000; i++ {
					seat := i % 2
					sendAct(t, r, c[seat], fmt.Sprint("t", i), protocol.TypeCommand, json.RawMessage(`{"type":"take","n":1}`), nil)
				}
			}, maxSnapshotBytes},
		{"tic-tac-toe", tictactoe.Game, `{}`, 2,
			func(t *testing.T, r *Room, c []*fakeClient) {
				for i, cell := range [][2]int{{0, 0}, {1, 0}, {0, 1}, {1, 1}, {0, 2}} {
					sendAct(t, r, c[i%2], fmt.Sprint("m", i), protocol.TypeCommand, json.RawMessage(fmt.Sprintf(`{"type":"mark","r":%d,"c":%d}`, cell[0], cell[1])), nil)
				}
			}, maxSnapshotBytes},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				info, snap := worst(t, tc.game, tc.settings, tc.seats, func(r *Room, c []*fakeClient) { tc.play(t, r, c) })
				t.Logf("room info %d bytes, spectator snapshot %d bytes", len(info), len(snap))
				if len(snap) == 0 {
					t.Fatal("no snapshot")
				}
				if len(info) > maxRoomInfoBytes {
					t.Fatalf("room info is %d bytes, bound %d", len(info), maxRoomInfoBytes)
				}
				if len(snap) > tc.bound {
					t.Fatalf("snapshot is %d bytes, bound %d", len(snap), tc.bound)
				}
			})
		})
	}
}
