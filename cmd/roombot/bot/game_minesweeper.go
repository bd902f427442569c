package bot

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/roomd/roomd/core/minesweeper"
	"github.com/roomd/roomd/core/session"
	"github.com/roomd/roomd/protocol"
)

// minesweeperAdapter plays Minesweeper: players choose with the core's
// deducing solver.
type minesweeperAdapter struct{}

func (minesweeperAdapter) info() session.Info { return minesweeper.Game.Info() }

func (minesweeperAdapter) help() string {
	return "                       players choose with the deducing solver\n" +
		"      --level LEVEL    the board: " + levelIDs() + "\n" +
		"                       (default beginner)\n"
}

// levelIDs lists the preset levels' ids.
func levelIDs() string {
	ids := make([]string, len(minesweeper.Levels))
	for i, l := range minesweeper.Levels {
		ids[i] = l.ID
	}
	return strings.Join(ids, ", ")
}

func (minesweeperAdapter) defaultMode() string { return string(minesweeper.ModeCoop) }

func (minesweeperAdapter) settings(c *config) (json.RawMessage, error) {
	if _, ok := minesweeper.LevelByID(c.Level); !ok {
		return nil, fmt.Errorf("--level %q: want one of %s", c.Level, levelIDs())
	}
	return json.Marshal(struct {
		Mode  string `json:"mode"`
		Level string `json:"level"`
	}{c.Mode, c.Level})
}

func (minesweeperAdapter) describe(c *config, s *scenarioInfo) {
	s.Mode, s.Level = c.Mode, c.Level
}

func (minesweeperAdapter) ineffective(code string) bool {
	switch code {
	case minesweeper.CodeNotHidden, minesweeper.CodeAlreadyRevealed, minesweeper.CodeNotRevealed,
		minesweeper.CodeChordUnsatisfied, minesweeper.CodeNothingToChord, minesweeper.CodeRunOver:
		return true
	}
	return false
}

// msView is a Minesweeper view as roombot holds it: one the server sent
// (dense nil), or a followed solo or co-op board once beats have played
// on it (dense set, and then the View's cells and phase are stale: the
// Dense's are the view's). Following a board densely spares each play the
// cell list View.Apply spreads and lists again, and each move the solver's
// loading from that list (BENCHMARKS.md, "roombot's own CPU").
type msView struct {
	minesweeper.View
	dense *minesweeper.Dense
}

// view returns the view, its cells listed.
func (v msView) view() minesweeper.View {
	if v.dense != nil {
		return v.dense.View()
	}
	return v.View
}

// decodeView and decodeBeats read the server's canonical form by hand (see
// game_minesweeper_decode.go) and anything else with the game's decoder.
func (minesweeperAdapter) decodeView(raw json.RawMessage) (msView, error) {
	if v, ok := decodeMinesweeperView(raw); ok {
		return msView{View: v}, nil
	}
	var v minesweeper.View
	err := json.Unmarshal(raw, &v)
	return msView{View: v}, err
}

func (minesweeperAdapter) decodeBeats(raw json.RawMessage) ([]minesweeper.Event, error) {
	if evs, ok := decodeMinesweeperBeats(raw); ok {
		return evs, nil
	}
	var evs []minesweeper.Event
	err := json.Unmarshal(raw, &evs)
	return evs, err
}

// clone copies the race boards and the dense board: Apply changes them in
// place.
func (minesweeperAdapter) clone(v msView) msView {
	v.Boards = slices.Clone(v.Boards)
	if v.dense != nil {
		v.dense = v.dense.Clone()
	}
	return v
}

// apply plays a race's beats with View.Apply, a single board's on a Dense
// (the same view: minesweeper.TestDenseFollowsView), made from the view at
// the first play.
func (minesweeperAdapter) apply(v *msView, beats []minesweeper.Event) error {
	if v.Race {
		return v.View.Apply(beats)
	}
	if v.dense == nil {
		d, err := minesweeper.NewDense(v.View)
		if err != nil {
			return err
		}
		v.dense, v.View.Cells = d, nil
	}
	return v.dense.Apply(beats)
}

// batches: beats on a solo or co-op board may be played several updates
// at once. A Dense plays each event on its board in turn, so one play of
// many events is many plays of one (and so was View.Apply's: it spreads
// the cell list over a dense board, plays each event and lists the board
// again; the list leaves out only hidden cells that are not mines, the
// blank cell that spreading puts back). A race's Apply looks at all its
// events first (does any end the race?): not batched.
func (minesweeperAdapter) batches(v msView) bool { return !v.Race }

func (minesweeperAdapter) choose(v msView, seat int) (json.RawMessage, bool) {
	if v.dense != nil {
		return marshalMove(v.dense.Choose())
	}
	return marshalMove(minesweeper.Rules{}.Choose(v.View, seat, botChoice))
}

func (minesweeperAdapter) encode(v msView) []byte { return v.view().AppendJSON(nil) }

func (minesweeperAdapter) appendEncode(b []byte, v msView) []byte { return v.view().AppendJSON(b) }

// quirk reports whether followed differs from server only by cells that
// the server shows revealed (not mines) and the followed view still shows
// hidden, on boards that are lost: a chord that hit a mine after flooding
// other neighbours reveals those floods in no event.
func (minesweeperAdapter) quirk(fv, sv msView) bool {
	followed, server := fv.view(), sv.view()
	type board struct {
		phase minesweeper.Phase
		cells []minesweeper.ViewCell
	}
	boards := func(v minesweeper.View) []board {
		if !v.Race {
			return []board{{v.Phase, v.Cells}}
		}
		out := make([]board, len(v.Boards))
		for i, b := range v.Boards {
			out[i] = board{b.Phase, b.Cells}
		}
		return out
	}
	fb, sb := boards(followed), boards(server)
	if len(fb) != len(sb) || followed.Phase != server.Phase {
		return false
	}
	extra := 0
	for i := range fb {
		if fb[i].phase != sb[i].phase {
			return false
		}
		key := func(c minesweeper.ViewCell) int { return c.R*1000 + c.C }
		fm := map[int]minesweeper.ViewCell{}
		for _, c := range fb[i].cells {
			fm[key(c)] = c
		}
		for _, c := range sb[i].cells {
			fc, ok := fm[key(c)]
			switch {
			case ok && fc == c:
				delete(fm, key(c))
			case !ok && fb[i].phase == minesweeper.PhaseLost && c.Status == minesweeper.Revealed && !c.Mine:
				extra++
			default:
				return false
			}
		}
		if len(fm) > 0 {
			return false
		}
	}
	return extra > 0
}

// leaks rebuilds each board of the match from the result's seed and the
// first reveal on it, then checks that no frame before the end showed a
// mine that was not exploded, a hidden cell, or, in a race, the cells of a
// board other than the viewer's own (a spectator's: of any board) in a
// view or in a beat other than progress.
func (minesweeperAdapter) leaks(frames []frame[msView, minesweeper.Event], res protocol.Result, seat int) []finding {
	var out []finding
	cfg, err := msConfig(res.Config)
	if err != nil {
		return []finding{{vBadFrame, fmt.Sprintf("result config %s: %v", res.Config, err)}}
	}
	log, ok := []msLogEntry(nil), json.Valid(res.Log)
	if ok {
		log, ok = decodeMinesweeperLog(res.Log)
	}
	if !ok {
		if err := json.Unmarshal(res.Log, &log); err != nil {
			return []finding{{vBadFrame, fmt.Sprintf("result log: %v", err)}}
		}
	}
	race := cfg.ModeOrSolo() == minesweeper.ModeRace
	layouts := map[int]minesweeper.Layout{}
	for _, e := range log {
		// The move's own decoder, as json.Unmarshal would call it: the log
		// is valid JSON, so each move is too.
		var mv minesweeper.Move
		if mv.UnmarshalJSON(e.Move) != nil || mv.Type != minesweeper.Reveal {
			continue
		}
		key := 0
		if race {
			key = e.Seat
		}
		if _, ok := layouts[key]; !ok {
			if l, err := minesweeper.Generate(resultSeed(res), cfg, mv.R, mv.C); err == nil {
				layouts[key] = l
			}
		}
	}
	who := fmt.Sprintf("seat %d", seat)
	if seat < 0 {
		who = "a spectator"
	}
	isMine := func(board, r, c int) bool {
		l, ok := layouts[board]
		return ok && r >= 0 && c >= 0 && r < l.Rows && c < l.Cols && l.Mine[r*l.Cols+c]
	}
	for _, frame := range frames {
		for _, fv := range frame.views {
			v := fv.view()
			check := func(board int, phase minesweeper.Phase, cells []minesweeper.ViewCell) {
				exploded := 0
				for _, c := range cells {
					switch {
					case c.Status == minesweeper.Hidden:
						out = append(out, finding{vLeakMine, fmt.Sprintf("match %d board %d: hidden cell (%d,%d) listed before the end", res.Match, board, c.R, c.C)})
					case c.Status == minesweeper.Revealed && (c.Mine || isMine(board, c.R, c.C)):
						// Only the mine that exploded a lost race board may show.
						exploded++
						if phase != minesweeper.PhaseLost || exploded > 1 || !isMine(board, c.R, c.C) {
							out = append(out, finding{vLeakMine, fmt.Sprintf("match %d board %d: mine (%d,%d) shown before the end", res.Match, board, c.R, c.C)})
						}
					}
				}
			}
			if !v.Race {
				check(0, v.Phase, v.Cells)
				continue
			}
			for _, b := range v.Boards {
				if b.Visible && b.Seat != seat {
					out = append(out, finding{vLeakBoard, fmt.Sprintf("match %d: %s got the cells of seat %d's board", res.Match, who, b.Seat)})
				}
				if b.Visible {
					check(b.Seat, b.Phase, b.Cells)
				}
			}
		}
		for _, e := range frame.beats {
			board := 0
			if e.Tagged {
				board = e.Seat
			}
			if race && board != seat && e.Type != minesweeper.EventProgress {
				out = append(out, finding{vLeakBoard, fmt.Sprintf("match %d: %s got a %v event of seat %d's board", res.Match, who, e.Type, board)})
			}
			if len(e.Mines) > 0 {
				out = append(out, finding{vLeakMine, fmt.Sprintf("match %d board %d: a %v event lists %d mines before the end", res.Match, board, e.Type, len(e.Mines))})
			}
			for _, c := range e.Cells {
				if isMine(board, c.R, c.C) {
					out = append(out, finding{vLeakMine, fmt.Sprintf("match %d board %d: a reveal shows the mine at (%d,%d)", res.Match, board, c.R, c.C)})
				}
			}
		}
	}
	return out
}
