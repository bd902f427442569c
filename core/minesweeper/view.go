package minesweeper

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/roomd/roomd/core/session"
)

// ViewCell is a cell a viewer may see. Hidden cells are listed only when
// they are unflagged mines of a finished board (Mine is then true).
type ViewCell struct {
	R, C     int
	Status   CellStatus
	Adjacent int  // revealed cells only
	Mine     bool // revealed cells (the exploded mine) and finished boards' hidden mines
}

// BoardView is one race board as a viewer sees it: its progress always,
// its cells when Visible.
type BoardView struct {
	Seat     int
	Phase    Phase
	Revealed int // the board's revealedSafe
	Safe     int // rows*cols − mines
	Flags    int // flags placed on the board now
	// Visible is true when the viewer may see the cells: a seat's own board
	// while the race runs, every board for everyone once it is over (a
	// spectator sees none before). Cells is then set (possibly empty).
	Visible bool
	Cells   []ViewCell
}

// View is a projection (spec §8). Its JSON in solo and coop is the
// reference's, key order included:
//
//	{"config":{…as given…},"phase":"active","cells":[
//	  {"r":0,"c":0,"status":"revealed","adjacent":1,"mine":false},
//	  {"r":0,"c":1,"status":"flagged"},
//	  {"r":0,"c":2,"status":"hidden","mine":true}]}      (the last form only once finished)
//
// and in a race:
//
//	{"config":{…},"phase":"active","mode":"race","boards":[
//	  {"seat":0,"phase":"active","revealed":12,"safe":71,"flags":2,"cells":[…]},
//	  {"seat":1,"phase":"fresh","revealed":0,"safe":71,"flags":0}]}
//
// where, while the race runs, a seat sees the cells of its own board only
// and a spectator sees no board's cells: every board races from the same
// seed, so another's cells (its first click, where it exploded) would tell
// a racer where the mines are. Once the match is over every viewer sees
// every board, with its mines.
type View struct {
	Config json.RawMessage
	Phase  Phase
	Cells  []ViewCell // solo and coop

	Race   bool
	Boards []BoardView // race, one per seat

	// Rows, Cols and Mines come from Config; they are not encoded.
	Rows, Cols, Mines int
}

// project lists the cells of b a viewer may see; disclose shows the
// unflagged mines of a finished board.
func (s *State) project(b *board, disclose bool) []ViewCell {
	cells, cols := b.g.Cells(), s.cfg.Cols
	n := 0
	for _, cl := range cells {
		if cl.st != Hidden || (disclose && cl.mine) {
			n++
		}
	}
	out := make([]ViewCell, 0, n)
	for k, cl := range cells {
		switch {
		case cl.st == Flagged: // says nothing of the cell, even after the end
			out = append(out, ViewCell{R: k / cols, C: k % cols, Status: Flagged})
		case cl.st == Revealed || (disclose && cl.mine):
			out = append(out, ViewCell{R: k / cols, C: k % cols, Status: cl.st, Adjacent: int(cl.adj), Mine: cl.mine})
		}
	}
	return out
}

// Project returns what viewer sees. Solo and coop viewers all see the same
// board. In a race that runs, a seat sees its own board and the others'
// progress, and a spectator (or any viewer that is not a seat) every
// board's progress only; once it is over, everyone sees every board.
func (s *State) Project(viewer session.Seat) View {
	v := View{Config: s.cfg.Raw(), Phase: s.Phase(), Rows: s.cfg.Rows, Cols: s.cfg.Cols, Mines: s.cfg.Mines}
	if !s.race {
		v.Cells = s.project(&s.boards[0], s.boards[0].phase.Terminal())
		return v
	}
	v.Race = true
	v.Boards = make([]BoardView, len(s.boards))
	for i := range s.boards {
		b := &s.boards[i]
		bv := BoardView{Seat: i, Phase: b.phase, Revealed: b.revealed, Safe: s.cfg.Safe(), Flags: b.flags, Visible: s.over || viewer == i}
		if bv.Visible {
			bv.Cells = s.project(b, s.over)
		}
		v.Boards[i] = bv
	}
	return v
}

// MarshalJSON writes the view in the forms documented on View.
func (v View) MarshalJSON() ([]byte, error) { return v.AppendJSON(nil), nil }

// AppendJSON appends the view's JSON to b.
func (v View) AppendJSON(b []byte) []byte {
	b = append(b, `{"config":`...)
	if len(v.Config) == 0 {
		b = append(b, "null"...)
	} else {
		b = append(b, v.Config...)
	}
	b = append(append(append(b, `,"phase":"`...), phaseNames[v.Phase%4]...), '"')
	if !v.Race {
		return append(appendCells(b, v.Cells), '}')
	}
	b = append(b, `,"mode":"race","boards":[`...)
	for i, bv := range v.Boards {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendInt(append(b, `{"seat":`...), bv.Seat)
		b = append(append(append(b, `,"phase":"`...), phaseNames[bv.Phase%4]...), '"')
		b = appendInt(append(b, `,"revealed":`...), bv.Revealed)
		b = appendInt(append(b, `,"safe":`...), bv.Safe)
		b = appendInt(append(b, `,"flags":`...), bv.Flags)
		if bv.Visible {
			b = appendCells(b, bv.Cells)
		}
		b = append(b, '}')
	}
	return append(b, "]}"...)
}

func appendCells(b []byte, cells []ViewCell) []byte {
	b = append(b, `,"cells":[`...)
	for i, c := range cells {
		if i > 0 {
			b = append(b, ',')
		}
		b = c.AppendJSON(b)
	}
	return append(b, ']')
}

// AppendJSON appends the cell's JSON to b: {"r","c","status"} and, for a
// revealed cell, "adjacent" and "mine"; for a hidden one, "mine".
func (c ViewCell) AppendJSON(b []byte) []byte {
	b = appendInt(append(b, `{"r":`...), c.R)
	b = appendInt(append(b, `,"c":`...), c.C)
	b = append(append(append(b, `,"status":"`...), statusNames[c.Status%3]...), '"')
	switch c.Status {
	case Revealed:
		b = appendInt(append(b, `,"adjacent":`...), c.Adjacent)
		b = appendBool(append(b, `,"mine":`...), c.Mine)
	case Hidden:
		b = appendBool(append(b, `,"mine":`...), c.Mine)
	}
	return append(b, '}')
}

// MarshalJSON writes the cell as a view lists it.
func (c ViewCell) MarshalJSON() ([]byte, error) { return c.AppendJSON(nil), nil }

// UnmarshalJSON decodes a cell as a view lists it.
func (c *ViewCell) UnmarshalJSON(data []byte) error {
	var w wireViewCell
	if err := json.Unmarshal(data, &w); err != nil {
		return fmt.Errorf("minesweeper cell: %w", err)
	}
	if w.R == nil || w.C == nil || w.Status == nil {
		return errors.New("minesweeper cell: a cell needs r, c and status")
	}
	*c = ViewCell{R: *w.R, C: *w.C, Status: *w.Status, Adjacent: w.Adjacent, Mine: w.Mine}
	return nil
}

func appendBool(b []byte, v bool) []byte {
	if v {
		return append(b, "true"...)
	}
	return append(b, "false"...)
}

type wireViewCell struct {
	R        *int        `json:"r"`
	C        *int        `json:"c"`
	Status   *CellStatus `json:"status"`
	Adjacent int         `json:"adjacent"`
	Mine     bool        `json:"mine"`
}

type wireBoard struct {
	Seat     *int            `json:"seat"`
	Phase    *Phase          `json:"phase"`
	Revealed int             `json:"revealed"`
	Safe     int             `json:"safe"`
	Flags    int             `json:"flags"`
	Cells    *[]wireViewCell `json:"cells"`
}

type wireView struct {
	Config json.RawMessage `json:"config"`
	Phase  *Phase          `json:"phase"`
	Mode   string          `json:"mode"`
	Cells  *[]wireViewCell `json:"cells"`
	Boards *[]wireBoard    `json:"boards"`
}

// UnmarshalJSON decodes either form, reading the dimensions from the
// config, and checks every cell is on the board.
func (v *View) UnmarshalJSON(data []byte) error {
	var w wireView
	if err := json.Unmarshal(data, &w); err != nil {
		return fmt.Errorf("minesweeper view: %w", err)
	}
	if bytes.Equal(bytes.TrimSpace(data), []byte("null")) || w.Phase == nil {
		return errors.New("minesweeper view: no phase")
	}
	cfg, err := DecodeConfig(w.Config)
	if err != nil {
		return fmt.Errorf("minesweeper view: %w", err)
	}
	out := View{Config: cfg.Raw(), Phase: *w.Phase, Rows: cfg.Rows, Cols: cfg.Cols, Mines: cfg.Mines}
	cells := func(in []wireViewCell) ([]ViewCell, error) {
		cs := make([]ViewCell, len(in))
		for i, c := range in {
			if c.R == nil || c.C == nil || c.Status == nil {
				return nil, errors.New("minesweeper view: a cell needs r, c and status")
			}
			if *c.R < 0 || *c.R >= cfg.Rows || *c.C < 0 || *c.C >= cfg.Cols {
				return nil, fmt.Errorf("minesweeper view: cell (%d, %d) is off the board", *c.R, *c.C)
			}
			cs[i] = ViewCell{R: *c.R, C: *c.C, Status: *c.Status, Adjacent: c.Adjacent, Mine: c.Mine}
		}
		return cs, nil
	}
	switch w.Mode {
	case "race":
		if w.Boards == nil {
			return errors.New("minesweeper view: a race view needs boards")
		}
		out.Race = true
		out.Boards = make([]BoardView, len(*w.Boards))
		for i, wb := range *w.Boards {
			if wb.Seat == nil || wb.Phase == nil {
				return errors.New("minesweeper view: a board needs seat and phase")
			}
			bv := BoardView{Seat: *wb.Seat, Phase: *wb.Phase, Revealed: wb.Revealed, Safe: wb.Safe, Flags: wb.Flags}
			if wb.Cells != nil {
				bv.Visible = true
				if bv.Cells, err = cells(*wb.Cells); err != nil {
					return err
				}
			}
			out.Boards[i] = bv
		}
	case "":
		if w.Cells == nil {
			return errors.New("minesweeper view: no cells")
		}
		if out.Cells, err = cells(*w.Cells); err != nil {
			return err
		}
	default:
		return fmt.Errorf("minesweeper view: unknown mode %q", clip([]byte(w.Mode)))
	}
	*v = out
	return nil
}
