package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"testing"

	"github.com/roomd/roomd/core/grid"
	"github.com/roomd/roomd/core/minesweeper"
	"github.com/roomd/roomd/core/session"
	"github.com/roomd/roomd/protocol"
	"github.com/roomd/roomd/transport/client"
)

var msPin = protocol.GamePin{ID: "minesweeper", RulesVersion: minesweeper.Game.Info().RulesVersion}

// msPlayer follows its Minesweeper view from snapshots and beats only.
type msPlayer struct {
	*tclient
	seat  int
	view  minesweeper.View
	have  bool
	upto  int
	ended bool
}

func (p *msPlayer) follow() {
	p.t.Helper()
	evs := p.snapshotEvents()
	for ; p.upto < len(evs); p.upto++ {
		ev := evs[p.upto]
		switch {
		case ev.Snapshot != nil:
			p.ended = ev.Snapshot.Room.Phase == protocol.PhaseEnded
			p.setView(ev.Snapshot.View)
		case ev.Update != nil:
			p.setView(ev.Update.View)
			if raw, ok := ev.Update.Beats.(json.RawMessage); ok && len(raw) > 0 && p.have {
				var beats []minesweeper.Event
				if err := json.Unmarshal(raw, &beats); err != nil {
					p.t.Fatalf("%s: beats %s: %v", p.name, raw, err)
				}
				if err := p.view.Apply(beats); err != nil {
					p.t.Fatalf("%s: apply %s: %v", p.name, raw, err)
				}
			}
			if ev.Update.Result != nil {
				p.ended = true
			}
		}
	}
}

func (p *msPlayer) setView(v any) {
	raw, _ := v.(json.RawMessage)
	if len(raw) == 0 || string(raw) == "null" {
		return
	}
	p.view = minesweeper.View{}
	if err := json.Unmarshal(raw, &p.view); err != nil {
		p.t.Fatalf("%s: view %s: %v", p.name, raw, err)
	}
	p.have = true
}

// play makes one move chosen by the solver from the player's own view.
func (p *msPlayer) play() protocol.Receipt {
	p.t.Helper()
	mv, ok := minesweeper.Rules{}.Choose(p.view, p.seat, session.IntSeed(7).Source())
	if !ok {
		p.t.Fatalf("%s: solver has no move", p.name)
	}
	b, _ := json.Marshal(mv)
	return p.command(string(b))
}

// joinPlayers creates a room and seats n players (the host first), all
// online, then starts it.
func joinPlayers(t *testing.T, s *testServer, settings string, n int) ([]*msPlayer, string) {
	t.Helper()
	created := s.create("minesweeper", settings, "P0")
	players := []*msPlayer{{tclient: s.dial("p0", client.Config{Room: created.Room, Token: created.Token, Game: msPin}), seat: 0}}
	for i := 1; i < n; i++ {
		// Seats asked for over the socket: the welcome carries the token.
		c := s.dial(fmt.Sprintf("p%d", i), client.Config{Room: created.Room, Name: fmt.Sprintf("P%d", i), Game: msPin})
		c.waitOnline()
		if c.tr.Token() == "" || c.tr.Seat() != i {
			t.Fatalf("p%d got seat %d token %q", i, c.tr.Seat(), c.tr.Token())
		}
		if rc := c.control(protocol.Control{Op: protocol.ControlReady, Ready: true}); !rc.OK {
			t.Fatalf("ready: %+v", rc.Notice)
		}
		players = append(players, &msPlayer{tclient: c, seat: i})
	}
	host := players[0]
	host.waitOnline()
	host.waitFor("everyone seated and ready", func([]client.Event) bool {
		return host.lastSnapshot() != nil && host.recordedRev() >= uint64(2*(n-1))
	})
	if rc := host.control(protocol.Control{Op: protocol.ControlStart}); !rc.OK {
		t.Fatalf("start: %+v", rc.Notice)
	}
	for _, p := range players {
		p.waitFor("a view", func([]client.Event) bool { p.follow(); return p.have })
	}
	return players, created.Room
}

// TestCoopGameWithSpectator: two players sweep one board, taking turns,
// while a spectator watches. Every client's followed view must equal the
// server's final view, and nothing any of them received before the end may
// reveal the hidden board.
func TestCoopGameWithSpectator(t *testing.T) {
	s := startServer(t)
	players, code := joinPlayers(t, s, `{"mode":"coop","level":"beginner"}`, 2)
	spec := &msPlayer{tclient: s.dial("spectator", client.Config{Room: code, Watch: true, Game: msPin}), seat: -1}
	spec.waitOnline()
	for i := 0; ; i++ {
		if i > 400 {
			t.Fatal("the game did not end")
		}
		p := players[i%2]
		p.follow()
		if p.ended {
			break
		}
		rc := p.play()
		if !rc.OK {
			t.Fatalf("%s: move refused: %+v", p.name, rc.Notice)
		}
		for _, q := range players { // both see the move before the next one
			q.waitFor("the move applied", func([]client.Event) bool { return q.recordedRev() >= rc.Rev })
		}
	}
	all := append([]*msPlayer{spec}, players...)
	res := waitResult(t, all)
	t.Logf("co-op game %s in %.0f ms after %d log entries", res.Status, res.TimeMs, bytes.Count(res.Log, []byte(`"move"`)))
	for _, p := range all {
		p.checkContinuity()
		checkHiddenBoard(t, p.tclient, res)
	}
	// Every follower agrees with the server's view after a resync.
	for _, p := range all {
		p.follow()
		followed, _ := json.Marshal(p.view)
		fresh, _ := json.Marshal(p.resync().View)
		if res.Status == "won" && !bytes.Equal(followed, fresh) {
			t.Errorf("%s: followed view differs from the server's:\n%s\n%s", p.name, followed, fresh)
		}
	}
	if res.Status == "won" && (len(res.Winners) != 2) {
		t.Errorf("co-op win should credit both seats: %+v", res.Winners)
	}
}

// waitResult waits until every client has the match result, and checks they
// agree.
func waitResult(t *testing.T, ps []*msPlayer) protocol.Result {
	t.Helper()
	var first *protocol.Result
	for _, p := range ps {
		p.waitFor("result", func([]client.Event) bool { _, ok := p.tr.Result(); return ok })
		res, _ := p.tr.Result()
		if first == nil {
			first = &res
		} else if res.Status != first.Status || res.TimeMs != first.TimeMs || !bytes.Equal(res.Seed, first.Seed) {
			t.Fatalf("%s result %+v differs from %+v", p.name, res, *first)
		}
	}
	return *first
}

var seedKey = regexp.MustCompile(`"seed"`)

// checkHiddenBoard rebuilds the board of each seat from the published result
// (seed and log) and checks every frame c received before the result:
// decoded, no view or beat shows a mine that was not revealed by an
// explosion, no hidden cell appears, and the raw bytes never contain the
// seed as a number nor a "seed" key.
func checkHiddenBoard(t *testing.T, c *tclient, res protocol.Result) {
	t.Helper()
	var cfg minesweeper.Config
	if err := json.Unmarshal(res.Config, &cfg); err != nil {
		t.Fatal(err)
	}
	var log []struct {
		Seat int             `json:"seat"`
		Move json.RawMessage `json:"move"`
	}
	if err := json.Unmarshal(res.Log, &log); err != nil {
		t.Fatal(err)
	}
	layouts := map[int]minesweeper.Layout{}
	for _, e := range log {
		var mv minesweeper.Move
		if json.Unmarshal(e.Move, &mv) != nil || mv.Type != minesweeper.Reveal {
			continue
		}
		key := e.Seat
		if cfg.ModeOrSolo() != minesweeper.ModeRace {
			key = 0
		}
		if _, ok := layouts[key]; !ok {
			l, err := minesweeper.Generate(decodeSeed(t, res.Seed), cfg, mv.R, mv.C)
			if err != nil {
				t.Fatal(err)
			}
			layouts[key] = l
		}
	}
	isMine := func(board, r, c int) bool {
		l, ok := layouts[board]
		return ok && r >= 0 && c >= 0 && r < l.Rows && c < l.Cols && l.Mine[r*l.Cols+c]
	}
	seedNum := seedPattern(res.Seed)
	checked := 0
	for _, ev := range c.snapshotEvents() {
		if ev.Raw == nil {
			continue
		}
		if ev.Update != nil && ev.Update.Result != nil {
			break // the end: the board is public from here on
		}
		checked++
		if seedKey.Match(ev.Raw) || seedNum.Match(ev.Raw) {
			t.Fatalf("%s received the seed before the end: %s", c.name, ev.Raw)
		}
		var views []json.RawMessage
		var beats json.RawMessage
		switch {
		case ev.Snapshot != nil:
			views = append(views, ev.Snapshot.View.(json.RawMessage))
		case ev.Update != nil:
			if v, ok := ev.Update.View.(json.RawMessage); ok {
				views = append(views, v)
			}
			beats, _ = ev.Update.Beats.(json.RawMessage)
		}
		for _, raw := range views {
			if len(raw) == 0 || string(raw) == "null" {
				continue
			}
			var v minesweeper.View
			if err := json.Unmarshal(raw, &v); err != nil {
				t.Fatal(err)
			}
			check := func(board int, cells []minesweeper.ViewCell) {
				for _, cell := range cells {
					if cell.Status == minesweeper.Hidden || cell.Mine || (cell.Status == minesweeper.Revealed && isMine(board, cell.R, cell.C)) {
						t.Fatalf("%s: a view before the end shows hidden board %d cell (%d,%d): %s", c.name, board, cell.R, cell.C, raw)
					}
				}
			}
			check(0, v.Cells)
			for _, b := range v.Boards {
				check(b.Seat, b.Cells)
			}
		}
		if len(beats) > 0 {
			var evs []minesweeper.Event
			if err := json.Unmarshal(beats, &evs); err != nil {
				t.Fatal(err)
			}
			for _, e := range evs {
				board := 0
				if e.Tagged {
					board = e.Seat
				}
				if e.Type == minesweeper.EventExplode || len(e.Mines) > 0 {
					// An explosion ends a race seat's run: its mines may be
					// shown to those who see that board.
					continue
				}
				for _, cell := range e.Cells {
					if isMine(board, cell.R, cell.C) {
						t.Fatalf("%s: a beat reveals the mine at (%d,%d): %s", c.name, cell.R, cell.C, beats)
					}
				}
			}
		}
	}
	if checked < 3 {
		t.Fatalf("%s: only %d frames checked", c.name, checked)
	}
}

// TestRaceWinner: two seats race on boards from one seed, moving in turn;
// a seat whose run is lost stops. The winner must be the seat whose board
// the spectator saw cleared first, and the match ends at that moment.
func TestRaceWinner(t *testing.T) {
	s := startServer(t)
	players, code := joinPlayers(t, s, `{"mode":"race","level":"beginner"}`, 2)
	spec := &msPlayer{tclient: s.dial("spectator", client.Config{Room: code, Watch: true, Game: msPin}), seat: -1}
	spec.waitOnline()
	wonBy := -1
	// Seat 1 moves first: with the same seed and the same solver both boards
	// open alike, so the seat that moves first should clear first — and it
	// is not the host, whom a careless implementation might crown.
	for i := 1; ; i++ {
		if i > 600 {
			t.Fatal("the race did not end")
		}
		p := players[i%2]
		p.follow()
		if p.ended {
			break
		}
		if p.view.Boards[p.seat].Phase.Terminal() {
			continue // this seat's run is over
		}
		rc := p.play()
		if !rc.OK {
			t.Fatalf("%s: move refused: %+v", p.name, rc.Notice)
		}
		spec.waitFor("the move", func([]client.Event) bool { return spec.recordedRev() >= rc.Rev })
		spec.follow()
		for _, b := range spec.view.Boards {
			if b.Phase == minesweeper.PhaseWon && wonBy < 0 {
				wonBy = b.Seat
			}
		}
		for _, q := range players {
			q.waitFor("the move", func([]client.Event) bool { return q.recordedRev() >= rc.Rev })
		}
	}
	res := waitResult(t, append([]*msPlayer{spec}, players...))
	t.Logf("race %s, winners %v (seat %d cleared first)", res.Status, res.Winners, wonBy)
	switch {
	case wonBy >= 0 && (len(res.Winners) != 1 || res.Winners[0] != wonBy):
		t.Fatalf("seat %d cleared its board first, result winners %v", wonBy, res.Winners)
	case wonBy < 0 && len(res.Winners) != 0:
		t.Fatalf("nobody cleared a board, result winners %v", res.Winners)
	}
	// While the race ran, the spectator got progress only: no frame before
	// the end holds a cell of any board (every racer's board comes from one
	// secret: a racer watching its own race must learn nothing). The update
	// that ends the race carries every board.
	before, after := 0, false
	for _, ev := range spec.snapshotEvents() {
		if ev.Raw == nil {
			continue
		}
		if ev.Update != nil && ev.Update.Result != nil {
			var end struct {
				View minesweeper.View `json:"view"`
			}
			if err := json.Unmarshal(ev.Raw, &end); err != nil || len(end.View.Boards) != 2 {
				t.Fatalf("the update that ends the race: %v %s", err, ev.Raw)
			}
			for _, b := range end.View.Boards {
				if !b.Visible || len(b.Cells) == 0 {
					t.Errorf("the end shows the spectator no cells of board %d: %s", b.Seat, ev.Raw)
				}
			}
			after = true
			break
		}
		before++
		for _, cell := range []string{`"cells"`, `"r":`, `"mines"`, `"adjacent"`} {
			if bytes.Contains(ev.Raw, []byte(cell)) {
				t.Fatalf("the spectator got %s while the race ran: %s", cell, ev.Raw)
			}
		}
	}
	if !after || before < 4 {
		t.Fatalf("spectator frames: %d before the end, end seen %v", before, after)
	}
	spec.follow()
	for _, b := range spec.view.Boards {
		if !b.Visible {
			t.Errorf("spectator cannot see board %d after the end", b.Seat)
		}
	}
	for _, p := range players {
		p.checkContinuity()
		checkHiddenBoard(t, p.tclient, res)
		for _, b := range p.view.Boards {
			if b.Seat != p.seat && b.Visible && p.view.Phase != minesweeper.PhaseWon && p.view.Phase != minesweeper.PhaseLost {
				t.Errorf("%s sees board %d while the race runs", p.name, b.Seat)
			}
		}
	}
	checkHiddenBoard(t, spec.tclient, res)
}

// TestDropAndResendAppliesOnce cuts the socket right after each flag
// command. The transport resends unreceipted actions with their ids after
// reconnecting; a flag is a toggle, so any double application would unflag.
func TestDropAndResendAppliesOnce(t *testing.T) {
	s := startServer(t)
	created := s.create("minesweeper", `{"mode":"solo","level":"expert"}`, "Ann")
	p := &msPlayer{tclient: s.dial("ann", client.Config{Room: created.Room, Token: created.Token, Game: msPin})}
	p.waitOnline()
	if rc := p.control(protocol.Control{Op: protocol.ControlStart}); !rc.OK {
		t.Fatalf("start: %+v", rc.Notice)
	}
	var flagged []grid.Coord
	for i := range 20 {
		cell := grid.Coord{i % 16, (i * 7) % 30}
		var id string
		for {
			p.waitOnline()
			var err error
			id, err = p.tr.Send(context.Background(), protocol.Action{Type: protocol.TypeCommand,
				Command: json.RawMessage(fmt.Sprintf(`{"type":"flag","r":%d,"c":%d}`, cell[0], cell[1]))})
			if err == nil {
				break
			}
			if !errors.Is(err, client.ErrOffline) { // the last drop was noticed after the wait
				t.Fatal(err)
			}
		}
		p.tr.Drop()
		if rc := p.receipt(id); !rc.OK {
			t.Fatalf("flag %v: %+v", cell, rc.Notice)
		}
		flagged = append(flagged, cell)
	}
	p.waitOnline()
	p.waitFor("every receipt", func([]client.Event) bool { return p.tr.Pending() == 0 })
	var v minesweeper.View
	b, _ := json.Marshal(p.resync().View)
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	got := map[grid.Coord]bool{}
	for _, c := range v.Cells {
		if c.Status == minesweeper.Flagged {
			got[grid.Coord{c.R, c.C}] = true
		}
	}
	for _, c := range flagged {
		if !got[c] {
			t.Errorf("cell %v lost its flag: a resend was applied twice or not at all", c)
		}
	}
	if len(got) != len(flagged) {
		t.Errorf("%d flags on the board, %d sent", len(got), len(flagged))
	}
	_, rev := p.tr.Position()
	if want := uint64(1 + len(flagged)); rev != want {
		t.Errorf("revision %d, want %d (start + one per flag)", rev, want)
	}
	p.checkContinuity()
	reconnects := 0
	for _, ev := range p.snapshotEvents() {
		if ev.Kind == client.EventState && ev.State == client.StateReconnecting {
			reconnects++
		}
	}
	if reconnects < 10 {
		t.Errorf("only %d reconnects for 20 drops", reconnects)
	}
	_ = http.StatusOK
}
