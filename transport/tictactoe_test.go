package transport

import (
	"encoding/json"
	"net/http"
	"slices"
	"testing"

	"github.com/roomd/roomd/core/tictactoe"
	"github.com/roomd/roomd/protocol"
	"github.com/roomd/roomd/room"
	"github.com/roomd/roomd/transport/client"
)

var tttPin = protocol.GamePin{ID: "tictactoe", RulesVersion: tictactoe.RulesVersion}

// withTicTacToe makes the test server run tic-tac-toe too.
func withTicTacToe(rc *room.Config, _ *Config) { rc.Games.Register(tictactoe.Game) }

// tttFollower follows a client's view from its snapshots and beats, as the
// page module and roombot do.
type tttFollower struct {
	*tclient
	view  tictactoe.View
	have  bool
	upto  int // events consumed
	ended bool
}

func (f *tttFollower) follow() {
	f.t.Helper()
	evs := f.snapshotEvents()
	for ; f.upto < len(evs); f.upto++ {
		ev := evs[f.upto]
		var view, beats json.RawMessage
		switch {
		case ev.Snapshot != nil:
			view, _ = ev.Snapshot.View.(json.RawMessage)
		case ev.Update != nil:
			view, _ = ev.Update.View.(json.RawMessage)
			beats, _ = ev.Update.Beats.(json.RawMessage)
			f.ended = f.ended || ev.Update.Result != nil
		}
		if len(view) > 0 && string(view) != "null" {
			f.view = tictactoe.View{}
			if err := json.Unmarshal(view, &f.view); err != nil {
				f.t.Fatalf("%s: view %s: %v", f.name, view, err)
			}
			f.have = true
		}
		if len(beats) > 0 && f.have {
			var evs []tictactoe.Event
			if err := json.Unmarshal(beats, &evs); err != nil {
				f.t.Fatalf("%s: beats %s: %v", f.name, beats, err)
			}
			f.view.Apply(evs)
		}
	}
}

// TestTicTacToeOverSockets: two people play tic-tac-toe over real
// WebSockets on loopback, X winning the top row, while a spectator
// watches. Everyone, a spectator who arrives after the end included, ends
// with the same view, and the room's result is X's win.
func TestTicTacToeOverSockets(t *testing.T) {
	s := startServer(t, withTicTacToe)
	created := s.create("tictactoe", `{}`, "Ann")
	var joined struct {
		Room, Token string
		Seat        int
	}
	if st := s.post("/api/rooms/"+created.Room+"/join", map[string]string{"name": "Bob"}, &joined); st != http.StatusOK || joined.Seat != 1 {
		t.Fatalf("join: %d %+v", st, joined)
	}
	x := &tttFollower{tclient: s.dial("ann", client.Config{Room: created.Room, Token: created.Token, Game: tttPin})}
	o := &tttFollower{tclient: s.dial("bob", client.Config{Room: created.Room, Token: joined.Token, Game: tttPin})}
	spec := &tttFollower{tclient: s.dial("spectator", client.Config{Room: created.Room, Watch: true, Game: tttPin})}
	x.waitOnline()
	o.waitOnline()
	spec.waitOnline()
	if rc := o.control(protocol.Control{Op: protocol.ControlReady, Ready: true}); !rc.OK {
		t.Fatalf("ready: %+v", rc.Notice)
	}
	x.waitFor("Bob ready", func([]client.Event) bool { return x.recordedRev() == o.recordedRev() })
	if rc := x.control(protocol.Control{Op: protocol.ControlStart}); !rc.OK {
		t.Fatalf("start: %+v", rc.Notice)
	}

	players := []*tttFollower{x, o}
	marks := []tictactoe.Move{{R: 0, C: 0}, {R: 1, C: 0}, {R: 0, C: 1}, {R: 1, C: 1}, {R: 0, C: 2}}
	for i, m := range marks {
		p := players[i%2]
		p.waitFor("my turn", func([]client.Event) bool {
			p.follow()
			return p.have && p.view.Phase == tictactoe.PhaseActive && p.view.Turn == i%2
		})
		cmd, _ := json.Marshal(m)
		if rc := p.command(string(cmd)); !rc.OK {
			t.Fatalf("%s: %s refused: %+v", p.name, cmd, rc.Notice)
		}
	}
	// A mark after the end is refused by the room, whose match has ended,
	// before the game sees it.
	if rc := o.command(`{"type":"mark","r":2,"c":2}`); rc.OK || rc.Notice == nil || rc.Notice.Code != protocol.CodeWrongPhase {
		t.Errorf("a mark after the end: %+v", rc)
	}

	const final = `{"board":["XXX","OO.","..."],"turn":1,"phase":"won","winner":0,` +
		`"line":[{"r":0,"c":0},{"r":0,"c":1},{"r":0,"c":2}]}`
	for _, f := range []*tttFollower{x, o, spec} {
		f.waitFor("the end", func([]client.Event) bool { f.follow(); return f.ended })
		if got, _ := json.Marshal(f.view); string(got) != final {
			t.Errorf("%s holds\n %s\nwant\n %s", f.name, got, final)
		}
		res, ok := f.tr.Result()
		if !ok || res.Status != tictactoe.PhaseWon || !slices.Equal(res.Winners, []int{0}) {
			t.Errorf("%s: result %+v, %v; want won by seat 0", f.name, res, ok)
		}
		f.checkContinuity()
	}

	// A spectator who comes after the end gets the same view in its snapshot.
	late := &tttFollower{tclient: s.dial("late", client.Config{Room: created.Room, Watch: true, Game: tttPin})}
	late.waitFor("a snapshot", func([]client.Event) bool { late.follow(); return late.have })
	if got, _ := json.Marshal(late.view); string(got) != final {
		t.Errorf("the late spectator's snapshot holds %s", got)
	}
}
