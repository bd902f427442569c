package minesweeper

import (
	"encoding/json"
	"fmt"

	"github.com/roomd/roomd/core/session"
	"pgregory.net/rapid"
)

// A random game for property tests: a small board in a random mode, played
// through a real GameSession with non-decreasing timestamps (often equal).

type randomGame struct {
	sess   *clocked
	config string
	cfg    Config
	seed   int64
	seats  int
	// start and end are the log indices of the entries that started and
	// ended the game, or -1.
	start, end int
}

// played is one accepted move, with what it did.
type played struct {
	seat   session.Seat
	move   Move
	events []Event // every event of the move, as its seat sees them
	step   session.Step
	before *State // a deep copy of the state before the move
}

func drawGame(t *rapid.T) *randomGame {
	rows := rapid.IntRange(1, 8).Draw(t, "rows")
	cols := rapid.IntRange(1, 8).Draw(t, "cols")
	n := rows * cols
	mines := rapid.IntRange(0, n-1).Draw(t, "mines")
	if rapid.Bool().Draw(t, "sparse") {
		mines = rapid.IntRange(0, max(0, min(n-1, n/5))).Draw(t, "fewMines")
	}
	mode := rapid.SampledFrom([]Mode{ModeSolo, ModeCoop, ModeRace}).Draw(t, "mode")
	lo, hi := seatRange(mode)
	seats := rapid.IntRange(lo, hi).Draw(t, "seats")
	config := fmt.Sprintf(`{"rows":%d,"cols":%d,"mines":%d,"mode":"%s","name":"prop"}`, rows, cols, mines, mode)
	seed := rapid.Int64().Draw(t, "seed")
	g := &randomGame{config: config, seed: seed, seats: seats, start: -1, end: -1}
	g.cfg, _ = DecodeConfig([]byte(config))
	g.sess = newClocked(t, seed, config, seats)
	g.sess.now = float64(rapid.IntRange(-5, 5).Draw(t, "t0"))
	return g
}

// drawMove draws a move for seat that the rules accept. With knowsMines
// the player mostly picks safe cells and true mines, so games get won.
func drawMove(t *rapid.T, s *State, seat session.Seat) Move {
	b := s.boardOf(seat)
	cells := b.g.Cells()
	cols := s.cfg.Cols
	var hidden, safe, unrevealed, mines, chords []int
	for k, cl := range cells {
		switch cl.st {
		case Hidden:
			hidden = append(hidden, k)
			if b.placed && !cl.mine {
				safe = append(safe, k)
			}
			fallthrough
		case Flagged:
			unrevealed = append(unrevealed, k)
			if cl.mine {
				mines = append(mines, k)
			}
		case Revealed:
			if s.checkChord(cells, k/cols, k%cols) == nil {
				chords = append(chords, k)
			}
		}
	}
	at := func(typ MoveType, k int) Move { return Move{Type: typ, R: k / cols, C: k % cols} }
	for {
		switch rapid.IntRange(0, 9).Draw(t, "kind") {
		case 0, 1, 2:
			if len(safe) > 0 {
				return at(Reveal, rapid.SampledFrom(safe).Draw(t, "safe"))
			}
		case 3, 4:
			if len(hidden) > 0 {
				return at(Reveal, rapid.SampledFrom(hidden).Draw(t, "hidden"))
			}
		case 5:
			if len(mines) > 0 && b.placed {
				return at(Flag, rapid.SampledFrom(mines).Draw(t, "mine"))
			}
		case 6, 7:
			if len(unrevealed) > 0 {
				return at(Flag, rapid.SampledFrom(unrevealed).Draw(t, "flag"))
			}
		default:
			if len(chords) > 0 {
				return at(Chord, rapid.SampledFrom(chords).Draw(t, "chord"))
			}
		}
	}
}

// drawBadMove draws any move on or near the board; the rules may refuse it.
func drawBadMove(t *rapid.T, s *State) json.RawMessage {
	r := rapid.IntRange(-1, s.cfg.Rows).Draw(t, "badR")
	c := rapid.IntRange(-1, s.cfg.Cols).Draw(t, "badC")
	typ := rapid.SampledFrom([]string{"reveal", "flag", "chord", "dig"}).Draw(t, "badType")
	return json.RawMessage(fmt.Sprintf(`{"type":%q,"r":%d,"c":%d}`, typ, r, c))
}

// play plays up to maxMoves accepted moves, calling each after every one.
// Between them it tries refused moves and checks they change nothing.
func (g *randomGame) play(t *rapid.T, maxMoves int, each func(p played)) {
	moves := rapid.IntRange(0, maxMoves).Draw(t, "moves")
	for range moves {
		pending := g.sess.Match().Pending()
		if len(pending) == 0 {
			break
		}
		s := g.sess.state(t)
		seat := rapid.SampledFrom(pending).Draw(t, "seat")
		raw := drawMove(t, s, seat).AppendJSON(nil)
		bad := rapid.IntRange(0, 9).Draw(t, "tryBad") == 0
		if bad {
			seat = rapid.IntRange(-1, g.seats).Draw(t, "badSeat")
			raw = drawBadMove(t, s)
		}
		before, snapBefore, prevNow := s.Clone(), snap(t, g.sess), g.sess.now
		g.sess.now += float64(rapid.SampledFrom([]int{0, 0, 1, 7}).Draw(t, "dt"))
		step, err := g.sess.Apply(seat, raw)
		if err != nil {
			if !bad {
				t.Fatalf("seat %d %s refused: %v", seat, raw, err)
			}
			rejection(t, err)
			g.sess.now = prevNow // a refused move is not logged: time stays
			if after := snap(t, g.sess); !after.equal(snapBefore) {
				t.Fatalf("refused move %s changed the match", raw)
			}
			continue
		}
		g.mark()
		var m Move
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatal(err)
		}
		// The mover sees every event of its move: a race's other boards
		// change only when it ends, and then everyone sees everything.
		each(played{seat: seat, move: m, events: stepEvents(t, step, seat), step: step, before: before})
	}
}

// mark records the log indices that started and ended the game.
func (g *randomGame) mark() {
	st := g.sess.Status()
	n := len(g.sess.Log()) - 1
	if st.Started && g.start < 0 {
		g.start = n
	}
	if st.Over && g.end < 0 {
		g.end = n
	}
}

func (g *randomGame) record() session.Record {
	return session.Record{Seed: session.IntSeed(g.seed), Config: json.RawMessage(g.config), Seats: g.seats, Log: append([]session.Entry(nil), g.sess.Log()...)}
}
