package tictactoe

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/roomd/roomd/core/session"
)

// A checkpoint is the grid's rows, as views show them:
// {"board":["X..",".O.","..."]}. Everything else (whose turn, the phase, the
// winner and its line) follows from the grid.
type checkpoint struct {
	Board *[Size]string `json:"board"`
}

// Checkpoint implements session.Checkpointer.
func (Rules) Checkpoint(s *State) ([]byte, error) {
	rows := s.board.rows()
	return json.Marshal(checkpoint{Board: &rows})
}

// Resume implements session.Checkpointer. It refuses a grid that no game
// reaches: a square that is not X, O or '.', more O's than X's or more than
// one X more, or a line for the seat that did not mark last.
func (Rules) Resume(seed session.Seed, c Config, seats int, data []byte) (*State, error) {
	s, err := Rules{}.Init(seed, c, seats)
	if err != nil {
		return nil, err
	}
	var cp checkpoint
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&cp); err != nil {
		return nil, fmt.Errorf("tictactoe checkpoint: %w", err)
	}
	if cp.Board == nil {
		return nil, errors.New(`tictactoe checkpoint: no "board"`)
	}
	for r, row := range cp.Board {
		if len(row) != Size {
			return nil, fmt.Errorf("tictactoe checkpoint: row %d is %q", r, session.Clip(row))
		}
		for c := range Size {
			if m := row[c]; m != Empty && m != Mark(0) && m != Mark(1) {
				return nil, fmt.Errorf("tictactoe checkpoint: square (%d, %d) is %q", r, c, m)
			}
			s.board[r][c] = row[c]
		}
	}
	x, o := s.board.count(Mark(0)), s.board.count(Mark(1))
	if x != o && x != o+1 {
		return nil, fmt.Errorf("tictactoe checkpoint: %d X's and %d O's", x, o)
	}
	s.moves = x + o
	s.judge()
	last := (s.moves + 1) % Seats // the seat that marked last
	_, xLine := s.board.lineOf(Mark(0))
	_, oLine := s.board.lineOf(Mark(1))
	if (xLine && oLine) || (s.phase == PhaseWon && s.winner != last) {
		return nil, errors.New("tictactoe checkpoint: a line for the seat that did not mark last")
	}
	return s, nil
}
