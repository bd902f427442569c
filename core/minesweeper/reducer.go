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
		d := v.dense(v.Cells)
		for _, e := range events {
			if e.Type == EventProgress || e.Type == EventEnd {
				return fmt.Errorf("minesweeper view: %v event on a single board", e.Type)
			}
			if _, err := v.applyTo(d, &v.Phase, e, true); err != nil {
				return err
			}
		}
		v.Cells = v.sparse(d, nil)
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
			d := v.dense(bv.Cells)
			opened, err := v.applyTo(d, &bv.Phase, e, e.Mines != nil || e.Type == EventWin)
			if err != nil {
				return err
			}
			bv.Revealed += opened
			bv.Flags = 0
			for _, c := range d {
				if c.Status == Flagged {
					bv.Flags++
				}
			}
			bv.Cells = v.sparse(d, nil)
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
func (v *View) applyTo(d []ViewCell, p *Phase, e Event, disclose bool) (int, error) {
	opened := 0
	at := func(r, c int) (*ViewCell, error) {
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
			if cl.Status != Revealed {
				opened++
			}
			*cl = ViewCell{R: rc.R, C: rc.C, Status: Revealed, Adjacent: rc.Adjacent}
		}
		if *p == PhaseFresh {
			*p = PhaseActive
		}
	case EventFlag:
		cl, err := at(e.R, e.C)
		if err != nil {
			return 0, err
		}
		cl.Status, cl.Mine, cl.Adjacent = Hidden, false, 0
		if e.Flagged {
			cl.Status = Flagged
		}
	case EventExplode, EventEnd:
		if e.Type == EventExplode {
			cl, err := at(e.R, e.C)
			if err != nil {
				return 0, err
			}
			*cl = ViewCell{R: e.R, C: e.C, Status: Revealed, Mine: true}
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
			if cl.Status == Hidden {
				cl.Mine = true
			}
		}
	case EventWin:
		// Every safe cell is revealed, so every hidden cell is a mine.
		*p = PhaseWon
		for i := range d {
			if d[i].Status == Hidden {
				d[i].Mine = true
			}
		}
	default:
		return 0, fmt.Errorf("minesweeper view: cannot apply %v", e.Type)
	}
	return opened, nil
}

// dense spreads a cell list over the board; absent cells are hidden.
func (v *View) dense(cells []ViewCell) []ViewCell {
	d := make([]ViewCell, v.Rows*v.Cols)
	for k := range d {
		d[k] = ViewCell{R: k / v.Cols, C: k % v.Cols}
	}
	for _, c := range cells {
		if c.R >= 0 && c.R < v.Rows && c.C >= 0 && c.C < v.Cols {
			d[c.R*v.Cols+c.C] = c
		}
	}
	return d
}

// sparse appends to out, row-major, the cells a projection shows.
func (v *View) sparse(d []ViewCell, out []ViewCell) []ViewCell {
	if out == nil {
		out = make([]ViewCell, 0, len(d)/2)
	}
	for _, c := range d {
		if c.Status != Hidden || c.Mine {
			out = append(out, c)
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
