package snake

import "github.com/roomd/roomd/core/session"

// Step runs one tick: it queues the tick's inputs (in arrival order),
// ends the countdown at tick Countdown, moves every live snake at each
// move tick (Countdown + k·movesEvery, k ≥ 1), and ends the match when at
// most one snake is alive after a move (a one-seat match: when its snake
// dies) or after the last tick's move. Its events are turn events first,
// then go, move, die (by seat), food and over; a tick where nothing
// happens has none, and so does every tick once over.
//
// The events returned are a buffer of s, valid until the next Step. Step
// never fails and, once its buffers have grown, never allocates.
func (Rules) Step(s *State, tick uint64, inputs []session.Input[Move]) (*State, []Event) {
	s.events, s.turned = s.events[:0], 0
	if s.phase == PhaseOver {
		return s, s.events
	}
	s.tick = tick
	for _, in := range inputs {
		s.turn(in.Seat, in.Move.Dir)
	}
	if s.phase == PhaseCountdown && tick >= Countdown {
		s.phase = PhaseRunning
		s.events = append(s.events, Event{Type: EventGo})
	}
	if tick > Countdown && (tick-Countdown)%uint64(s.movesEvery) == 0 {
		s.move()
	}
	if s.phase != PhaseOver && tick >= s.end {
		s.timeUp()
	}
	return s, s.events
}

// turn queues a turn of seat's snake: ignored when the seat is not in the
// match or its snake is dead, when the direction is the one the snake will
// already have (its last queued turn, or its direction) or the reverse of
// it, and when the queue is full.
func (s *State) turn(seat Seat, d Dir) {
	if seat < 0 || seat >= len(s.snakes) || !d.Valid() {
		return
	}
	sn := &s.snakes[seat]
	if last := sn.last(); !sn.alive || d == last || d == last.Reverse() || sn.queued == QueueLen {
		return
	}
	sn.queue[sn.queued] = d
	sn.queued++
	s.turned |= 1 << seat
	s.events = append(s.events, Event{Type: EventTurn, Seat: seat, Dir: d})
}

// move moves every live snake at once:
//
//  1. each takes its first queued turn, if any; a new head outside the
//     arena dies (wall);
//  2. a snake eats when its new head holds food;
//  3. the tails of the snakes that do not eat are vacated;
//  4. a new head on a body as the bodies stand now (the new heads not yet
//     placed, the bodies of snakes dying at this move included) dies
//     (body); new heads on the same cell, and two snakes that swap heads,
//     die (head) — head before body when both hold;
//  5. the dead are removed from the board, with their queues (their
//     direction and score stay as they were); the others move, and those
//     that eat grow by their tail and score a point;
//  6. a new food is placed for each food eaten, in seat order.
func (s *State) move() {
	cells := s.g.Cells()
	for i := range s.snakes {
		sn, m := &s.snakes[i], &s.moving[i]
		*m = moveScratch{next: -1}
		if !sn.alive {
			continue
		}
		m.moves = true
		d := sn.dir
		if sn.queued > 0 {
			d = sn.queue[0]
		}
		h := s.cellOf(sn.at(0))
		m.at = Cell{h[0] + dirDelta[d][0], h[1] + dirDelta[d][1]}
		if !s.g.InBounds(m.at[0], m.at[1]) {
			m.why = WhyWall
			continue
		}
		m.next = s.key(m.at)
		m.eats = cells[m.next] == cellFood
	}
	for i := range s.snakes {
		if sn, m := &s.snakes[i], &s.moving[i]; m.moves && !m.eats {
			cells[sn.tail()] = cellEmpty
			sn.n--
		}
	}
	for i := range s.snakes {
		m := &s.moving[i]
		if !m.moves || m.why != "" {
			continue
		}
		for j := range s.snakes {
			o := &s.moving[j]
			if j == i || !o.moves {
				continue
			}
			if o.next == m.next || (o.next == s.snakes[i].at(0) && m.next == s.snakes[j].at(0)) {
				m.why = WhyHead
				break
			}
		}
		if m.why == "" && cells[m.next] >= cellBody {
			m.why = WhyBody
		}
	}

	ev := Event{Type: EventMove, Moves: Moves{N: len(s.snakes)}}
	alive, deaths := 0, 0
	for i := range s.snakes {
		sn, m := &s.snakes[i], &s.moving[i]
		ev.Moves.D[i] = '.'
		switch {
		case !m.moves:
		case m.why != "":
			for j := range sn.n {
				cells[sn.at(j)] = cellEmpty
			}
			sn.n, sn.alive, sn.queue, sn.queued = 0, false, [QueueLen]Dir{}, 0
			deaths++
		default:
			sn.pop()
			sn.push(m.next)
			cells[m.next] = cellBody + cell(i)
			if m.eats {
				sn.score++
			}
			ev.Moves.D[i] = dirChars[sn.dir]
			alive++
		}
	}
	s.events = append(s.events, ev)
	if deaths > 0 {
		for i := range s.snakes {
			if m := &s.moving[i]; m.moves && m.why != "" {
				s.events = append(s.events, Event{Type: EventDie, Seat: i, At: m.at, Why: m.why})
			}
		}
	}
	for i := range s.snakes {
		if m := &s.moving[i]; m.moves && m.why == "" && m.eats {
			if at, ok := s.placeFood(); ok {
				s.events = append(s.events, Event{Type: EventFood, At: at})
			}
		}
	}

	switch {
	case len(s.snakes) == 1 && alive == 0:
		s.over(WhyDead)
	case len(s.snakes) >= 2 && alive == 1:
		for i := range s.snakes {
			if s.snakes[i].alive {
				s.winners = append(s.winners, i)
			}
		}
		s.over(WhyLast)
	case len(s.snakes) >= 2 && alive == 0:
		// The last snakes died together: the best of them win.
		s.best(func(i int) bool { m := &s.moving[i]; return m.moves && m.why != "" })
		why := WhyLast
		if len(s.winners) > 1 {
			why = WhyDraw
		}
		s.over(why)
	}
}

// timeUp ends the match on time: the live snakes with the highest score
// win.
func (s *State) timeUp() {
	s.best(func(i int) bool { return s.snakes[i].alive })
	s.over(WhyTime)
}

// best sets the winners to the snakes among which with the highest score.
func (s *State) best(among func(i int) bool) {
	top := -1
	for i := range s.snakes {
		if among(i) {
			top = max(top, s.snakes[i].score)
		}
	}
	s.winners = s.winners[:0]
	for i := range s.snakes {
		if among(i) && s.snakes[i].score == top {
			s.winners = append(s.winners, i)
		}
	}
}

// over ends the match with the winners set: every queue is dropped and the
// over event closes the step.
func (s *State) over(why string) {
	s.phase, s.why = PhaseOver, why
	if s.winners == nil {
		s.winners = []Seat{}
	}
	for i := range s.snakes {
		s.snakes[i].queue, s.snakes[i].queued = [QueueLen]Dir{}, 0
	}
	s.events = append(s.events, Event{Type: EventOver, Winners: s.winners, Why: why})
}
