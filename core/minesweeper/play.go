package minesweeper

import (
	"github.com/roomd/roomd/core/session"
)

// apply plays m for seat (spec §6). Every check comes before the first
// change, so a rejected move leaves s untouched.
func (s *State) apply(seat session.Seat, m Move) ([]Event, error) {
	if seat < 0 || seat >= s.seats {
		return nil, session.Malformed(session.CodeNoSuchSeat, "seat %d is not in this match of %d", seat, s.seats)
	}
	if m.Type < Reveal || m.Type > Chord {
		return nil, session.Malformed(session.CodeUnknownMove, "unknown move type %d", m.Type)
	}
	rows, cols := s.cfg.Rows, s.cfg.Cols
	if m.R < 0 || m.R >= rows || m.C < 0 || m.C >= cols {
		return nil, session.Malformed(session.CodeOutOfBounds, "(%d, %d) is off the %d×%d board", m.R, m.C, rows, cols)
	}
	if s.over {
		return nil, session.Reject(session.CodeGameOver, "the game is over")
	}
	b := s.boardOf(seat)
	if b.phase.Terminal() {
		return nil, session.Reject(CodeRunOver, "seat %d's board is lost; the race goes on without it", seat)
	}
	cells := b.g.Cells()
	k := m.R*cols + m.C
	var events []Event
	switch m.Type {
	case Reveal:
		if st := cells[k].st; st != Hidden {
			return nil, session.Reject(CodeNotHidden, "(%d, %d) is %s", m.R, m.C, st)
		}
		events = s.reveal(b, m.R, m.C)
	case Flag:
		if cells[k].st == Revealed {
			return nil, session.Reject(CodeAlreadyRevealed, "(%d, %d) is revealed", m.R, m.C)
		}
		flagged := cells[k].st == Hidden
		if flagged {
			cells[k].st = Flagged
			b.flags++
		} else {
			cells[k].st = Hidden
			b.flags--
		}
		events = []Event{{Type: EventFlag, R: m.R, C: m.C, Flagged: flagged}}
	case Chord:
		if err := s.checkChord(cells, m.R, m.C); err != nil {
			return nil, err
		}
		events = s.chord(b, m.R, m.C)
	}
	if s.race {
		return s.settleRace(seat, events), nil
	}
	s.over = b.phase.Terminal()
	return events, nil
}

func (s *State) checkChord(cells []cell, r, c int) error {
	cl := cells[r*s.cfg.Cols+c]
	switch {
	case cl.st != Revealed:
		return session.Reject(CodeNotRevealed, "(%d, %d) is %s; only a revealed number chords", r, c, cl.st)
	case cl.adj == 0:
		return session.Reject(CodeChordUnsatisfied, "(%d, %d) has no mine around it", r, c)
	}
	var buf [8]int32
	flags, hidden := 0, 0
	for _, nk := range around(s.cfg.Rows, s.cfg.Cols, r, c, buf[:0]) {
		switch cells[nk].st {
		case Flagged:
			flags++
		case Hidden:
			hidden++
		}
	}
	switch {
	case flags != int(cl.adj):
		return session.Reject(CodeChordUnsatisfied, "(%d, %d) shows %d but has %d flags around it", r, c, cl.adj, flags)
	case hidden == 0:
		return session.Reject(CodeNothingToChord, "(%d, %d) has no hidden neighbour", r, c)
	}
	return nil
}

// reveal opens a hidden cell (spec §6.1), placing the mines first when the
// board has none.
func (s *State) reveal(b *board, r, c int) []Event {
	cells := b.g.Cells()
	if !b.placed {
		place(cells, s.cfg.Rows, s.cfg.Cols, s.cfg.Mines, s.seed.Source(), r, c, nil)
		b.placed = true
	}
	if b.phase == PhaseFresh {
		b.phase = PhaseActive
	}
	k := r*s.cfg.Cols + c
	if cells[k].mine {
		return s.explode(b, k, r, c)
	}
	s.out = s.out[:0]
	s.flood(cells, r, c)
	return s.opened(b)
}

// chord opens the hidden neighbours of a satisfied number (spec §6.4). The
// reference's partial-chord quirk is kept: when a later neighbour is a
// mine, cells opened by earlier floods of the same chord stay revealed but
// are neither reported nor counted.
func (s *State) chord(b *board, r, c int) []Event {
	cells := b.g.Cells()
	cols := s.cfg.Cols
	s.out = s.out[:0]
	var buf [8]int32
	for _, nk := range around(s.cfg.Rows, cols, r, c, buf[:0]) {
		k := int(nk)
		if cells[k].st != Hidden {
			continue
		}
		if cells[k].mine {
			return s.explode(b, k, k/cols, k%cols)
		}
		s.flood(cells, k/cols, k%cols)
	}
	return s.opened(b)
}

// flood reveals (r, c) and, breadth-first, the region a zero opens
// (spec §6.2), appending every cell it opens to s.out.
func (s *State) flood(cells []cell, r, c int) {
	rows, cols := s.cfg.Rows, s.cfg.Cols
	k := r*cols + c
	cells[k].st = Revealed
	s.out = append(s.out, RevealedCell{R: r, C: c, Adjacent: int(cells[k].adj)})
	s.queue = append(s.queue[:0], int32(k))
	for head := 0; head < len(s.queue); head++ {
		x := int(s.queue[head])
		if cells[x].adj != 0 {
			continue
		}
		s.nbuf = around(rows, cols, x/cols, x%cols, s.nbuf[:0])
		for _, nk := range s.nbuf {
			n := &cells[nk]
			if n.st != Hidden {
				continue
			}
			n.st = Revealed
			s.out = append(s.out, RevealedCell{R: int(nk) / cols, C: int(nk) % cols, Adjacent: int(n.adj)})
			if n.adj == 0 {
				s.queue = append(s.queue, nk)
			}
		}
	}
}

// opened counts s.out and returns the reveal event, with a win event
// when every safe cell is open.
func (s *State) opened(b *board) []Event {
	b.revealed += len(s.out)
	won := b.revealed >= s.cfg.Safe()
	n := 0
	if len(s.out) > 0 {
		n++
	}
	if won {
		n++
		b.phase = PhaseWon
	}
	events := make([]Event, 0, n)
	if len(s.out) > 0 {
		events = append(events, Event{Type: EventReveal, Cells: append([]RevealedCell(nil), s.out...)})
	}
	if won {
		events = append(events, Event{Type: EventWin})
	}
	return events
}

func (s *State) explode(b *board, k, r, c int) []Event {
	b.g.Cells()[k].st = Revealed
	b.phase = PhaseLost
	return []Event{{Type: EventExplode, R: r, C: c, Mines: s.mines(b)}}
}

// mines lists b's mines row-major; empty (not nil) before placement.
func (s *State) mines(b *board) []Pos {
	out := make([]Pos, 0, s.cfg.Mines)
	if !b.placed {
		return out
	}
	cols := s.cfg.Cols
	for k, cl := range b.g.Cells() {
		if cl.mine {
			out = append(out, Pos{R: k / cols, C: k % cols})
		}
	}
	return out
}

// settleRace tags seat's events with its seat and ends the race when the
// board was won, or when it was the last board standing and is lost. The
// mines of a lost board stay secret while the race runs (boards from the
// same first click are identical), and every other board's are sent in an
// end event when it stops.
func (s *State) settleRace(seat session.Seat, events []Event) []Event {
	for i := range events {
		events[i].Seat, events[i].Tagged = seat, true
	}
	b := &s.boards[seat]
	switch b.phase {
	case PhaseWon:
		s.over, s.winner = true, seat
	case PhaseLost:
		s.over = true
		for i := range s.boards {
			if s.boards[i].phase != PhaseLost {
				s.over = false
			}
		}
		if !s.over {
			events[len(events)-1].Mines = nil
		}
	}
	if !s.over {
		return events
	}
	for i := range s.boards {
		if i == seat {
			continue
		}
		o := &s.boards[i]
		if o.phase != PhaseWon {
			o.phase = PhaseLost
		}
		events = append(events, Event{Type: EventEnd, Seat: i, Tagged: true, Mines: s.mines(o)})
	}
	return events
}
