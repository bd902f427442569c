package minesweeper

import (
	"fmt"
)

// Apply updates the view with the events of one update, as the server's
// projection changes, so a client that starts from a snapshot view and
// applies every update it receives holds the server's Project.
//
// Two cases cannot be followed from events. The reference's events do not
// carry the partial-chord quirk (spec §6.4): when a chord hits a mine after
// floods of earlier neighbours, those floods' cells are revealed on the
// server but reported in no event. The reducer leaves them hidden; the
// board is lost by then, so a client wanting the exact final board fetches
// a fresh view. And when a race ends, every board becomes visible to
// everyone, but a board seen as progress until then has no cells to start
// from: the events that end the race (everyone gets them all) only move
// its progress, and the update that ends the match carries the view the
// client takes the boards from.
//
// Applying events to the view after them (Project once they happened)
// changes nothing, so a client may apply the beats of an update that also
// carries its view.
func (v *View) Apply(events []Event) error {
	if err := v.dims(); err != nil {
		return err
	}
	if !v.Race {
		d, err := v.dense(v.Cells)
		if err != nil {
			return err
		}
		if err := v.applySingle(d, events); err != nil {
			return err
		}
		v.Cells = v.sparse(d)
		return nil
	}
	// The events that end a race list its mines (explode, end) or a win;
	// only they may tell of a board the viewer sees as progress.
	ending := false
	for _, e := range events {
		ending = ending || e.Type == EventWin || e.Type == EventEnd || (e.Type == EventExplode && e.Mines != nil)
	}
	for _, e := range events {
		if !e.Tagged {
			return fmt.Errorf("minesweeper view: untagged %v event in a race", e.Type)
		}
		bv := v.board(e.Seat)
		if bv == nil {
			return fmt.Errorf("minesweeper view: no board for seat %d", e.Seat)
		}
		switch {
		case e.Type == EventProgress:
			bv.Phase, bv.Revealed, bv.Safe, bv.Flags = e.Phase, e.Revealed, e.Safe, e.Flags
		case !bv.Visible && !ending:
			return fmt.Errorf("minesweeper view: %v event for seat %d's hidden board", e.Type, e.Seat)
		case !bv.Visible:
			if err := progressOf(bv, e); err != nil {
				return err
			}
		default:
			d, err := v.dense(bv.Cells)
			if err != nil {
				return err
			}
			opened, err := v.applyTo(d, &bv.Phase, e, e.Mines != nil || e.Type == EventWin)
			if err != nil {
				return err
			}
			bv.Revealed += opened
			bv.Flags = 0
			for _, c := range d {
				if c.st == Flagged {
					bv.Flags++
				}
			}
			bv.Cells = v.sparse(d)
		}
		v.Phase = raceOutcome(v.Boards)
	}
	return nil
}

// progressOf moves the progress of a board seen without its cells by one
// of its events.
func progressOf(bv *BoardView, e Event) error {
	switch e.Type {
	case EventReveal:
		bv.Revealed += len(e.Cells)
		if bv.Phase == PhaseFresh {
			bv.Phase = PhaseActive
		}
	case EventFlag:
		if e.Flagged {
			bv.Flags++
		} else if bv.Flags > 0 {
			bv.Flags--
		}
	case EventExplode, EventEnd:
		bv.Phase = PhaseLost
	case EventWin:
		bv.Phase = PhaseWon
	default:
		return fmt.Errorf("minesweeper view: cannot apply %v", e.Type)
	}
	return nil
}

// applySingle applies a solo or co-op board's events to its dense cells d
// and to v.Phase.
func (v *View) applySingle(d []cell, events []Event) error {
	for _, e := range events {
		if e.Type == EventProgress || e.Type == EventEnd {
			return fmt.Errorf("minesweeper view: %v event on a single board", e.Type)
		}
		if _, err := v.applyTo(d, &v.Phase, e, true); err != nil {
			return err
		}
	}
	return nil
}

// raceOutcome is the race's phase from its boards' (State.Phase).
func raceOutcome(boards []BoardView) Phase {
	p, lost := PhaseFresh, 0
	for _, b := range boards {
		switch b.Phase {
		case PhaseWon:
			return PhaseWon
		case PhaseLost:
			lost++
		}
		if b.Phase != PhaseFresh {
			p = PhaseActive
		}
	}
	if lost == len(boards) && lost > 0 {
		return PhaseLost
	}
	return p
}

func (v *View) board(seat int) *BoardView {
	for i := range v.Boards {
		if v.Boards[i].Seat == seat {
			return &v.Boards[i]
		}
	}
	return nil
}

// applyTo applies one board event to dense cells d and phase p, and
// returns how many cells it revealed that were not revealed already.
// disclose says the match is over, so a lost or won board shows its hidden
// mines.
func (v *View) applyTo(d []cell, p *Phase, e Event, disclose bool) (int, error) {
	opened := 0
	at := func(r, c int) (*cell, error) {
		if r < 0 || r >= v.Rows || c < 0 || c >= v.Cols {
			return nil, fmt.Errorf("minesweeper view: %v event at (%d, %d) off the board", e.Type, r, c)
		}
		return &d[r*v.Cols+c], nil
	}
	switch e.Type {
	case EventReveal:
		for _, rc := range e.Cells {
			cl, err := at(rc.R, rc.C)
			if err != nil {
				return 0, err
			}
			if rc.Adjacent < 0 || rc.Adjacent > 8 {
				return 0, fmt.Errorf("minesweeper view: reveal of (%d, %d) with %d adjacent mines", rc.R, rc.C, rc.Adjacent)
			}
			if cl.st != Revealed {
				opened++
			}
			*cl = cell{st: Revealed, adj: uint8(rc.Adjacent)}
		}
		if *p == PhaseFresh {
			*p = PhaseActive
		}
	case EventFlag:
		cl, err := at(e.R, e.C)
		if err != nil {
			return 0, err
		}
		*cl = cell{}
		if e.Flagged {
			cl.st = Flagged
		}
	case EventExplode, EventEnd:
		if e.Type == EventExplode {
			cl, err := at(e.R, e.C)
			if err != nil {
				return 0, err
			}
			*cl = cell{st: Revealed, mine: true}
		}
		*p = PhaseLost
		if !disclose {
			return 0, nil
		}
		for _, m := range e.Mines {
			cl, err := at(m.R, m.C)
			if err != nil {
				return 0, err
			}
			if cl.st == Hidden {
				cl.mine = true
			}
		}
	case EventWin:
		// Every safe cell is revealed, so every hidden cell is a mine.
		*p = PhaseWon
		for i := range d {
			if d[i].st == Hidden {
				d[i].mine = true
			}
		}
	default:
		return 0, fmt.Errorf("minesweeper view: cannot apply %v", e.Type)
	}
	return opened, nil
}

// dense spreads a cell list over the board, three bytes a cell (the
// board's own form); absent cells and cells off the board are hidden. A
// status or adjacency count no board holds is an error.
func (v *View) dense(cells []ViewCell) ([]cell, error) {
	d := make([]cell, v.Rows*v.Cols)
	for _, c := range cells {
		if c.R < 0 || c.R >= v.Rows || c.C < 0 || c.C >= v.Cols {
			continue
		}
		if c.Status > Revealed || c.Adjacent < 0 || c.Adjacent > 8 {
			return nil, fmt.Errorf("minesweeper view: cell (%d, %d) is %v with %d adjacent mines", c.R, c.C, c.Status, c.Adjacent)
		}
		d[c.R*v.Cols+c.C] = cell{st: c.Status, adj: uint8(c.Adjacent), mine: c.Mine}
	}
	return d, nil
}

// sparse lists, row-major, the cells of d a projection shows: those not
// hidden, and hidden mines.
func (v *View) sparse(d []cell) []ViewCell {
	n := 0
	for _, c := range d {
		if c.st != Hidden || c.mine {
			n++
		}
	}
	out := make([]ViewCell, n)
	i := 0
	for r := range v.Rows {
		for col, c := range d[r*v.Cols : (r+1)*v.Cols] {
			if c.st != Hidden || c.mine {
				out[i] = ViewCell{R: r, C: col, Status: c.st, Adjacent: int(c.adj), Mine: c.mine}
				i++
			}
		}
	}
	return out
}

// dims fills Rows, Cols and Mines from Config when unset.
func (v *View) dims() error {
	if v.Rows > 0 && v.Cols > 0 {
		return nil
	}
	cfg, err := DecodeConfig(v.Config)
	if err != nil {
		return fmt.Errorf("minesweeper view: %w", err)
	}
	v.Rows, v.Cols, v.Mines = cfg.Rows, cfg.Cols, cfg.Mines
	return nil
}
