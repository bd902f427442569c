package minesweeper

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/roomd/roomd/core/session"
)

// A checkpoint is the state as JSON: per board its phase, whether its mines
// are placed, its revealed-safe counter and its cells as a string of one
// character per cell (row-major) from cellAlphabet, at index
// status·20 + mine·10 + adjacency. An expert board is 480 characters. A
// board's flag count is not stored: Resume counts its flagged cells.
const cellAlphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

type checkpoint struct {
	Boards []boardCheckpoint `json:"boards"`
	Over   bool              `json:"over"`
	Winner int               `json:"winner"`
}

type boardCheckpoint struct {
	Phase    Phase  `json:"phase"`
	Placed   bool   `json:"placed"`
	Revealed int    `json:"revealed"`
	Cells    string `json:"cells"`
}

// Checkpoint implements session.Checkpointer.
func (Rules) Checkpoint(s *State) ([]byte, error) {
	cp := checkpoint{Boards: make([]boardCheckpoint, len(s.boards)), Over: s.over, Winner: s.winner}
	for i := range s.boards {
		b := &s.boards[i]
		cells := b.g.Cells()
		var sb strings.Builder
		sb.Grow(len(cells))
		for _, cl := range cells {
			k := int(cl.st)*20 + int(cl.adj)
			if cl.mine {
				k += 10
			}
			sb.WriteByte(cellAlphabet[k])
		}
		cp.Boards[i] = boardCheckpoint{Phase: b.phase, Placed: b.placed, Revealed: b.revealed, Cells: sb.String()}
	}
	return json.Marshal(cp)
}

// Resume implements session.Checkpointer.
func (Rules) Resume(seed session.Seed, c Config, seats int, data []byte) (*State, error) {
	s, err := NewState(seed, c, seats)
	if err != nil {
		return nil, err
	}
	var cp checkpoint
	if err := json.Unmarshal(data, &cp); err != nil {
		return nil, fmt.Errorf("minesweeper checkpoint: %w", err)
	}
	if len(cp.Boards) != len(s.boards) {
		return nil, fmt.Errorf("minesweeper checkpoint: %d boards, the match has %d", len(cp.Boards), len(s.boards))
	}
	if cp.Winner < -1 || cp.Winner >= seats {
		return nil, fmt.Errorf("minesweeper checkpoint: winner %d of %d seats", cp.Winner, seats)
	}
	for i, bc := range cp.Boards {
		b := &s.boards[i]
		cells := b.g.Cells()
		if len(bc.Cells) != len(cells) {
			return nil, fmt.Errorf("minesweeper checkpoint: board %d has %d cells, want %d", i, len(bc.Cells), len(cells))
		}
		for k := range cells {
			v := strings.IndexByte(cellAlphabet, bc.Cells[k])
			if v < 0 || v%10 > 8 || v/20 > int(Revealed) {
				return nil, fmt.Errorf("minesweeper checkpoint: board %d cell %d is %q", i, k, bc.Cells[k])
			}
			cells[k] = cell{st: CellStatus(v / 20), mine: v%20 >= 10, adj: uint8(v % 10)}
			if cells[k].st == Flagged {
				b.flags++
			}
		}
		b.phase, b.placed, b.revealed = bc.Phase, bc.Placed, bc.Revealed
	}
	s.over, s.winner = cp.Over, cp.Winner
	return s, nil
}
