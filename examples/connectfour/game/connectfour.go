// Package connectfour is Connect Four on roomd: two seats drop discs in
// turn into a grid of 7 columns and 6 rows, each disc falling to the lowest
// free cell of its column; four of a seat's discs in a row — across, down
// or on a diagonal — win, and a full grid without is a draw. Nothing is
// hidden and nothing is random but the AI's choice, which draws from the
// match's AI source.
//
// It is roomd's example of a game brought from outside its tree (GAMES.md):
// this package is the rules, the AI and, under web/, the page module and
// its words; ../main.go serves it beside roomd's own games.
package connectfour

import (
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"

	"github.com/roomd/roomd/core/session"
)

// The grid's size, and how many in a row win.
const (
	Cols  = 7
	Rows  = 6
	Four  = 4
	Seats = 2
)

// Phases of a match.
const (
	PhaseActive = "active"
	PhaseWon    = "won"
	PhaseDraw   = "draw"
)

var classic = session.Mode{ID: "classic", Name: "Classic", MinSeats: Seats, MaxSeats: Seats, AI: true}

// Game is Connect Four for a roomd server (roomd.Game's Rules).
var Game = session.Define(session.Definition[Config, *State, Move, Event, View]{
	Info: session.Info{
		ID:           "connectfour",
		Name:         "Connect Four",
		RulesVersion: "connectfour/1",
		Modes:        []session.Mode{classic},
		// A view: 6 rows of 7 characters, the turn, the phase, a winner
		// and a line of four: under 200 bytes. A step's events: a drop
		// and the end: under 200 bytes.
		MaxViewBytes:  256,
		MaxEventBytes: 256,
		ConfigSchema:  json.RawMessage(`{"type":"object","properties":{"mode":{"const":"classic"}},"additionalProperties":false}`),
		CommandSchema: json.RawMessage(`{"type":"object","properties":{"type":{"const":"drop"},"col":{"type":"integer","minimum":0,"maximum":6}},"required":["type","col"],"additionalProperties":false}`),
	},
	Rules: Rules{},
	Setup: func(Config) (session.Setup, error) { return session.Setup{Mode: classic}, nil },
})

// Web holds the page module (connectfour.js) and its words (i18n/en.json,
// i18n/ja.json): what roomd's browser client loads for the game.
//
//go:embed web
var web embed.FS

// Web returns the game's browser files (roomd.Game's Web).
func Web() fs.FS {
	sub, _ := fs.Sub(web, "web")
	return sub
}

// Config is a match's settings: only the mode, {"mode":"classic"}.
type Config struct {
	Mode string `json:"mode,omitempty"`
}

// Validate accepts the one mode, and writes it, so that every config of
// it has one canonical form.
func (c *Config) Validate() error {
	if c.Mode != "" && c.Mode != classic.ID {
		return fmt.Errorf(`mode must be "classic", got %q`, session.Clip(c.Mode))
	}
	c.Mode = classic.ID
	return nil
}

// Move is a command: {"type":"drop","col":C}, a disc into column C.
type Move struct {
	Type string `json:"type"`
	Col  int    `json:"col"`
}

// Validate refuses what no genuine client sends: another type, a column
// off the grid.
func (m *Move) Validate() error {
	switch {
	case m.Type != "drop":
		return session.Malformed(session.CodeUnknownMove, "unknown move type %q", session.Clip(m.Type))
	case m.Col < 0 || m.Col >= Cols:
		return session.Malformed(session.CodeOutOfBounds, "column %d is off the grid (0 to %d)", m.Col, Cols-1)
	}
	return nil
}

// Event is a delta: {"type":"drop","seat":S,"col":C,"row":R}, a disc that
// landed, or {"type":"end","phase":P,"winner":W,"line":[[r,c],…]}.
type Event struct {
	Type   string   `json:"type"`
	Seat   int      `json:"seat"`
	Col    int      `json:"col"`
	Row    int      `json:"row"`
	Phase  string   `json:"phase,omitempty"`
	Winner *int     `json:"winner,omitempty"`
	Line   [][2]int `json:"line,omitempty"`
}

// View is what everyone sees (nothing is hidden): the grid top row first,
// "." empty, "0" and "1" the seats' discs; whose turn; the phase; once won,
// the winner and the line of four.
type View struct {
	Grid   [Rows]string `json:"grid"`
	Turn   int          `json:"turn"`
	Phase  string       `json:"phase"`
	Winner *int         `json:"winner,omitempty"`
	Line   [][2]int     `json:"line,omitempty"`
}

// Apply plays events on a view, as a client does: roomd's Follower and the
// page (through the WebAssembly core) use it instead of a copy in
// JavaScript.
func (v *View) Apply(events []Event) {
	for _, e := range events {
		switch e.Type {
		case "drop":
			if e.Row >= 0 && e.Row < Rows && e.Col >= 0 && e.Col < Cols && (e.Seat == 0 || e.Seat == 1) {
				row := []byte(v.Grid[e.Row])
				if len(row) == Cols {
					row[e.Col] = byte('0' + e.Seat)
					v.Grid[e.Row] = string(row)
				}
			}
			v.Turn = 1 - e.Seat
		case "end":
			v.Phase, v.Winner, v.Line = e.Phase, e.Winner, e.Line
		}
	}
}

// State is a match.
type State struct {
	grid   [Rows][Cols]byte // '.', '0' or '1'; row 0 at the top
	turn   int
	phase  string
	winner int
	line   [][2]int
	moves  int
}

// Rules are Connect Four's rules.
type Rules struct{}

var (
	_ session.Rules[Config, *State, Move, Event, View] = Rules{}
	_ session.Mover[*State, Move, Event]               = Rules{}
	_ session.AI[Move, View]                           = Rules{}
)

// Init is an empty grid, seat 0 to drop first.
func (Rules) Init(_ session.Seed, _ Config, seats int) (*State, error) {
	if seats != Seats {
		return nil, fmt.Errorf("connect four is for %d seats, not %d", Seats, seats)
	}
	s := &State{phase: PhaseActive, winner: -1}
	for r := range s.grid {
		for c := range s.grid[r] {
			s.grid[r][c] = '.'
		}
	}
	return s, nil
}

// Apply drops seat's disc into the move's column.
func (Rules) Apply(s *State, in session.Input[Move]) (*State, []Event, error) {
	switch {
	case in.Seat < 0 || in.Seat >= Seats:
		return s, nil, session.Malformed(session.CodeNoSuchSeat, "seat %d is not in this match", in.Seat)
	case s.phase != PhaseActive:
		return s, nil, session.Reject(session.CodeGameOver, "the match is over")
	case in.Seat != s.turn:
		return s, nil, session.Reject(session.CodeNotYourTurn, "it is seat %d's turn", s.turn)
	case s.grid[0][in.Move.Col] != '.':
		return s, nil, session.Reject("game:ColumnFull", "column %d is full", in.Move.Col)
	}
	row := Rows - 1
	for s.grid[row][in.Move.Col] != '.' {
		row--
	}
	s.grid[row][in.Move.Col] = byte('0' + in.Seat)
	s.moves++
	events := []Event{{Type: "drop", Seat: in.Seat, Col: in.Move.Col, Row: row}}
	if line := s.four(row, in.Move.Col); line != nil {
		s.phase, s.winner, s.line = PhaseWon, in.Seat, line
	} else if s.moves == Rows*Cols {
		s.phase = PhaseDraw
	}
	s.turn = 1 - in.Seat
	if s.phase != PhaseActive {
		end := Event{Type: "end", Phase: s.phase, Line: s.line}
		if s.winner >= 0 {
			w := s.winner
			end.Winner = &w
		}
		events = append(events, end)
	}
	return s, events, nil
}

// four returns a line of four through (r, c) of the disc there, or nil.
func (s *State) four(r, c int) [][2]int {
	disc := s.grid[r][c]
	for _, d := range [4][2]int{{0, 1}, {1, 0}, {1, 1}, {1, -1}} {
		line := [][2]int{{r, c}}
		for _, sign := range []int{1, -1} {
			for k := 1; k < Four; k++ {
				rr, cc := r+sign*k*d[0], c+sign*k*d[1]
				if rr < 0 || rr >= Rows || cc < 0 || cc >= Cols || s.grid[rr][cc] != disc {
					break
				}
				line = append(line, [2]int{rr, cc})
			}
		}
		if len(line) >= Four {
			return line[:Four]
		}
	}
	return nil
}

// Status: started at the first drop; over when won or drawn.
func (Rules) Status(s *State) session.Status {
	st := session.Status{Phase: s.phase, Started: s.moves > 0, Over: s.phase != PhaseActive}
	if st.Over {
		st.Outcome.Winners = []int{}
		if s.winner >= 0 {
			st.Outcome.Winners = []int{s.winner}
		}
	}
	return st
}

// Pending is the seat to drop while the match runs.
func (Rules) Pending(s *State) []int {
	if s.phase != PhaseActive {
		return nil
	}
	return []int{s.turn}
}

// Project is the same view for everyone.
func (Rules) Project(s *State, _ int) View {
	v := View{Turn: s.turn, Phase: s.phase}
	for r := range s.grid {
		v.Grid[r] = string(s.grid[r][:])
	}
	if s.winner >= 0 {
		w := s.winner
		v.Winner, v.Line = &w, s.line
	}
	return v
}

// ProjectEvents shows every event to everyone.
func (Rules) ProjectEvents(_ *State, events []Event, _ int) []Event { return events }

// Audience is one for all: everyone sees the same.
func (Rules) Audience(*State, int) int { return 0 }
