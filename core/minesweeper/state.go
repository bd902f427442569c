package minesweeper

import (
	"fmt"

	"github.com/roomd/roomd/core/grid"
	"github.com/roomd/roomd/core/session"
)

// Phase is where a board, or a match, is.
type Phase uint8

// Phases. A board is fresh until its first effective reveal places the
// mines, then active until it is won or lost. A race match is fresh until
// any seat reveals, won when a seat wins and lost when every seat has lost.
const (
	PhaseFresh Phase = iota
	PhaseActive
	PhaseWon
	PhaseLost
)

var phaseNames = [...]string{"fresh", "active", "won", "lost"}

func (p Phase) String() string {
	if int(p) < len(phaseNames) {
		return phaseNames[p]
	}
	return fmt.Sprintf("Phase(%d)", p)
}

// Terminal reports whether p is won or lost.
func (p Phase) Terminal() bool { return p == PhaseWon || p == PhaseLost }

// MarshalText encodes the phase's name.
func (p Phase) MarshalText() ([]byte, error) {
	if int(p) >= len(phaseNames) {
		return nil, fmt.Errorf("minesweeper: invalid phase %d", p)
	}
	return []byte(phaseNames[p]), nil
}

// UnmarshalText decodes a phase's name.
func (p *Phase) UnmarshalText(b []byte) error {
	for i, n := range phaseNames {
		if string(b) == n {
			*p = Phase(i)
			return nil
		}
	}
	return fmt.Errorf("minesweeper: unknown phase %q", clip(b))
}

// CellStatus is what the player has done to a cell.
type CellStatus uint8

// Cell statuses.
const (
	Hidden CellStatus = iota
	Flagged
	Revealed
)

var statusNames = [...]string{"hidden", "flagged", "revealed"}

func (s CellStatus) String() string {
	if int(s) < len(statusNames) {
		return statusNames[s]
	}
	return fmt.Sprintf("CellStatus(%d)", s)
}

// MarshalText encodes the status's name.
func (s CellStatus) MarshalText() ([]byte, error) {
	if int(s) >= len(statusNames) {
		return nil, fmt.Errorf("minesweeper: invalid cell status %d", s)
	}
	return []byte(statusNames[s]), nil
}

// UnmarshalText decodes a status's name.
func (s *CellStatus) UnmarshalText(b []byte) error {
	for i, n := range statusNames {
		if string(b) == n {
			*s = CellStatus(i)
			return nil
		}
	}
	return fmt.Errorf("minesweeper: unknown cell status %q", clip(b))
}

// cell is one square: three bytes, so a nightmare board is 1.8 kB.
type cell struct {
	mine bool
	adj  uint8
	st   CellStatus
}

// board is one playing surface: the reference's state minus seed and config.
type board struct {
	g        *grid.Grid[cell]
	phase    Phase
	placed   bool
	revealed int // the reference's revealedSafe counter
	flags    int // flagged cells: a race's progress shows it
}

// State is a match: one board, or one per seat in a race. Apply updates it
// in place.
type State struct {
	cfg    Config
	seed   session.Seed
	seats  int
	race   bool
	boards []board
	over   bool // the match has ended
	winner int  // the race's winning seat, or -1

	// Scratch reused by Apply; not part of the game.
	queue []int32
	nbuf  []int32
	out   []RevealedCell
}

// seatRange returns the seat limits of mode.
func seatRange(m Mode) (lo, hi int) {
	switch m {
	case ModeCoop:
		return 1, 4
	case ModeRace:
		return 2, maxRaceSeats
	default:
		return 1, 1
	}
}

// NewState is Rules.Init: a fresh match of seats seats.
func NewState(seed session.Seed, cfg Config, seats int) (*State, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	mode := cfg.ModeOrSolo()
	if lo, hi := seatRange(mode); seats < lo || seats > hi {
		return nil, configError("%s takes %d to %d seats, got %d", mode, lo, hi, seats)
	}
	s := &State{cfg: cfg, seed: seed, seats: seats, race: mode == ModeRace, winner: -1}
	n := 1
	if s.race {
		n = seats
	}
	s.boards = make([]board, n)
	for i := range s.boards {
		s.boards[i].g = grid.New[cell](cfg.Rows, cfg.Cols, nil)
	}
	return s, nil
}

// Config returns the match's config.
func (s *State) Config() Config { return s.cfg }

// Seats returns the number of seats.
func (s *State) Seats() int { return s.seats }

// Seed returns the seed as given.
func (s *State) Seed() session.Seed { return s.seed }

// Phase is the match's phase.
func (s *State) Phase() Phase {
	switch {
	case s.over && s.race:
		if s.winner >= 0 {
			return PhaseWon
		}
		return PhaseLost
	case !s.race:
		return s.boards[0].phase
	}
	for i := range s.boards {
		if s.boards[i].phase != PhaseFresh {
			return PhaseActive
		}
	}
	return PhaseFresh
}

// BoardPhase is the phase of the board seat plays on.
func (s *State) BoardPhase(seat session.Seat) Phase { return s.boardOf(seat).phase }

// RevealedSafe is the reference's revealedSafe counter of seat's board.
func (s *State) RevealedSafe(seat session.Seat) int { return s.boardOf(seat).revealed }

// Layout returns the layout of seat's board once its mines are placed
// (Rows, Cols, Mines, Mine and Adjacent; the generation fields are not
// kept), for storing it as the reference's decision 0003 suggests.
func (s *State) Layout(seat session.Seat) (Layout, bool) {
	b := s.boardOf(seat)
	if !b.placed {
		return Layout{}, false
	}
	cells := b.g.Cells()
	l := Layout{Rows: s.cfg.Rows, Cols: s.cfg.Cols, Mines: s.cfg.Mines, Mine: make([]bool, len(cells)), Adjacent: make([]int, len(cells))}
	for k, cl := range cells {
		l.Mine[k], l.Adjacent[k] = cl.mine, int(cl.adj)
	}
	return l, true
}

// CellStatuses returns the status of every cell of seat's board, row-major.
func (s *State) CellStatuses(seat session.Seat) []CellStatus {
	cells := s.boardOf(seat).g.Cells()
	out := make([]CellStatus, len(cells))
	for k, cl := range cells {
		out[k] = cl.st
	}
	return out
}

func (s *State) boardOf(seat session.Seat) *board {
	if s.race && seat >= 0 && seat < len(s.boards) {
		return &s.boards[seat]
	}
	return &s.boards[0]
}

// Clone returns a deep copy that shares nothing with s.
func (s *State) Clone() *State {
	c := *s
	c.boards = make([]board, len(s.boards))
	for i, b := range s.boards {
		b.g = b.g.Clone()
		c.boards[i] = b
	}
	c.queue, c.nbuf, c.out = nil, nil, nil
	return &c
}
