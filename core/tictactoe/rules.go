package tictactoe

import (
	"fmt"
	"slices"

	"github.com/roomd/roomd/core/session"
)

// CodeOccupied refuses a mark on a square already marked. Like a move out
// of turn it is something a genuine client may send (its view a moment
// old), so replay skips it.
const CodeOccupied = "game:Occupied"

// Seats is the number of players: tic-tac-toe is for two.
const Seats = 2

// Phases reported by Status and shown in views.
const (
	PhaseActive = "active"
	PhaseWon    = "won"
	PhaseDraw   = "draw"
)

// Seat is a player seat, as in session.
type Seat = session.Seat

// Empty marks an empty square; seat 0 plays 'X' and seat 1 'O' (see Mark).
const Empty = '.'

// Mark returns the mark seat plays: 'X' for seat 0, 'O' for seat 1.
func Mark(seat Seat) byte {
	if seat == 0 {
		return 'X'
	}
	return 'O'
}

// Cell is one square of the grid.
type Cell struct {
	R int `json:"r"`
	C int `json:"c"`
}

// lines are the eight ways to win, in the order they are looked for:
// rows, columns, then the two diagonals.
var lines = [8][Size]Cell{
	{{0, 0}, {0, 1}, {0, 2}}, {{1, 0}, {1, 1}, {1, 2}}, {{2, 0}, {2, 1}, {2, 2}},
	{{0, 0}, {1, 0}, {2, 0}}, {{0, 1}, {1, 1}, {2, 1}}, {{0, 2}, {1, 2}, {2, 2}},
	{{0, 0}, {1, 1}, {2, 2}}, {{0, 2}, {1, 1}, {2, 0}},
}

// board is the grid: Empty, 'X' or 'O' in each square.
type board [Size][Size]byte

// lineOf returns the first line (in the order of lines) whose three
// squares hold mark.
func (b *board) lineOf(mark byte) ([]Cell, bool) {
	for _, l := range lines {
		if b[l[0].R][l[0].C] == mark && b[l[1].R][l[1].C] == mark && b[l[2].R][l[2].C] == mark {
			return l[:], true
		}
	}
	return nil, false
}

// count returns how many squares hold mark.
func (b *board) count(mark byte) int {
	n := 0
	for _, row := range b {
		for _, m := range row {
			if m == mark {
				n++
			}
		}
	}
	return n
}

// rows returns the grid as its rows, one string each: "X.O".
func (b *board) rows() [Size]string {
	var out [Size]string
	for r := range b {
		out[r] = string(b[r][:])
	}
	return out
}

// State is a match. Only Rules changes it; views share nothing with it.
type State struct {
	board  board
	moves  int    // marks made
	phase  string // PhaseActive, PhaseWon or PhaseDraw
	winner Seat   // when won
	line   []Cell // when won: the winning line
}

// turn is the seat to mark next: X on even moves, O on odd ones.
func (s *State) turn() Seat { return s.moves % Seats }

// judge sets the phase from the board: won when either mark has a line
// (X's looked for first), a draw when the board is full, else active.
func (s *State) judge() {
	s.phase, s.winner, s.line = PhaseActive, 0, nil
	for seat := range Seats {
		if l, ok := s.board.lineOf(Mark(seat)); ok {
			s.phase, s.winner, s.line = PhaseWon, seat, l
			return
		}
	}
	if s.moves == Size*Size {
		s.phase = PhaseDraw
	}
}

// Rules are the rules of tic-tac-toe. The zero value is ready to use.
type Rules struct{}

var (
	_ session.Rules[Config, *State, Move, Event, View] = Rules{}
	_ session.Mover[*State, Move, Event]               = Rules{}
	_ session.Checkpointer[Config, *State]             = Rules{}
	_ session.AI[Move, View]                           = Rules{}
)

// Init returns an empty grid with X to play. Tic-tac-toe draws nothing at
// random, so the seed is not used; a game that does draws everything from
// seed.Source().
func (Rules) Init(_ session.Seed, c Config, seats int) (*State, error) {
	if err := c.Validate(); err != nil {
		return nil, fmt.Errorf("tictactoe config: %w", err)
	}
	if seats != Seats {
		return nil, fmt.Errorf("tictactoe: %d seats, want %d", seats, Seats)
	}
	s := &State{phase: PhaseActive}
	for r := range s.board {
		for c := range s.board[r] {
			s.board[r][c] = Empty
		}
	}
	return s, nil
}

// Apply plays a mark. It refuses, leaving s untouched, a seat that is not
// in the match or a square off the grid (malformed: no genuine client sends
// them), and a mark after the end, out of turn or on a marked square.
func (Rules) Apply(s *State, in session.Input[Move]) (*State, []Event, error) {
	seat, m := in.Seat, in.Move
	switch {
	case seat < 0 || seat >= Seats:
		return s, nil, session.Malformed(session.CodeNoSuchSeat, "seat %d is not in this match of %d", seat, Seats)
	case !m.inside():
		return s, nil, session.Malformed(session.CodeOutOfBounds, "square (%d, %d) is off the %d×%d grid", m.R, m.C, Size, Size)
	case s.phase != PhaseActive:
		return s, nil, session.Reject(session.CodeGameOver, "the game is over")
	case seat != s.turn():
		return s, nil, session.Reject(session.CodeNotYourTurn, "it is %c's turn", Mark(s.turn()))
	case s.board[m.R][m.C] != Empty:
		return s, nil, session.Reject(CodeOccupied, "square (%d, %d) holds %c", m.R, m.C, s.board[m.R][m.C])
	}
	s.board[m.R][m.C] = Mark(seat)
	s.moves++
	s.judge()
	events := []Event{{Type: EventMark, Seat: seat, R: m.R, C: m.C}}
	if s.phase != PhaseActive {
		events = append(events, s.end())
	}
	return s, events, nil
}

// end is the event that closes the match.
func (s *State) end() Event {
	e := Event{Type: EventEnd, Phase: s.phase}
	if s.phase == PhaseWon {
		w := s.winner
		e.Winner, e.Line = &w, slices.Clone(s.line)
	}
	return e
}

// Status is active until a line or a full grid. The game clock starts at
// the first mark. A won match has its winner; a draw has none. Nothing is
// ranked: the game keeps no leaderboard.
func (Rules) Status(s *State) session.Status {
	st := session.Status{Phase: s.phase, Started: s.moves > 0, Over: s.phase != PhaseActive}
	switch s.phase {
	case PhaseWon:
		st.Outcome.Winners = []Seat{s.winner}
	case PhaseDraw:
		st.Outcome.Winners = []Seat{}
	}
	return st
}

// Pending is the seat to mark, or nobody once the game is over.
func (Rules) Pending(s *State) []Seat {
	if s.phase != PhaseActive {
		return []Seat{}
	}
	return []Seat{s.turn()}
}

// Project returns the same view to every viewer: nothing is hidden.
func (Rules) Project(s *State, _ Seat) View {
	v := View{Board: s.board.rows(), Turn: s.turn(), Phase: s.phase}
	if s.phase == PhaseWon {
		w := s.winner
		v.Winner, v.Line = &w, slices.Clone(s.line)
	}
	return v
}

// ProjectEvents shows every viewer every event.
func (Rules) ProjectEvents(_ *State, events []Event, _ Seat) []Event { return events }

// Audience is 0 for everyone: every viewer sees the same, so a room encodes
// each view and each update once.
func (Rules) Audience(*State, Seat) int { return 0 }
