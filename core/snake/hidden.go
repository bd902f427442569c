package snake

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"

	"github.com/roomd/roomd/core/session"
)

// The arena is public; two things are not. The food key, from which every
// food to come is drawn, is hidden from everyone for good: the host, not
// the game, discloses the seed it came from, and may keep it sealed after
// the match (a daily's seed is shared by every match of the day). A seat's
// queued turns are its own until its snake moves: only its view and its
// turn events show them.

var _ session.Hider[*State] = Rules{}

// Secrets lists what viewer must not learn, same for every viewer but for
// its own queue:
//
//   - the food key, three times, with the encodings a leak would most
//     likely use: hex (the checkpoint's "key"), base64 (encoding/json's
//     form of a []byte) and a JSON array of numbers (its form of the
//     [32]byte the state holds);
//   - while the match runs, the cell the next food would be drawn on were
//     it placed now, told by the food event that would place it (it is an
//     empty cell, so no event of the step that led here names it);
//   - every other seat's queued turns: each told by the turn event that
//     queued it, and the queue as a whole by the snake's JSON with it, as a
//     view that showed another seat's queue would hold it (the body makes
//     it that snake's alone).
//
// Once over, only the key is left: there is no food to come and no queue.
func (Rules) Secrets(s *State, viewer Seat) []session.Secret {
	key := s.secret[:]
	nums := []byte{'['}
	for i, c := range key {
		if i > 0 {
			nums = append(nums, ',')
		}
		nums = strconv.AppendUint(nums, uint64(c), 10)
	}
	nums = append(nums, ']')
	out := []session.Secret{
		{What: fmt.Sprintf("the food key %x, in hex", key), Tell: hex.EncodeToString(key)},
		{What: fmt.Sprintf("the food key %x, in base64", key), Tell: base64.StdEncoding.EncodeToString(key)},
		{What: fmt.Sprintf("the food key %x, as numbers", key), Tell: string(nums)},
	}
	if s.phase == PhaseOver {
		return out
	}
	if at, ok := s.nextFood(); ok {
		e := Event{Type: EventFood, At: at}
		out = append(out, session.Secret{What: fmt.Sprintf("the next food, on %v", at), Tell: string(e.AppendJSON(nil))})
	}
	for j := range s.snakes {
		sn := &s.snakes[j]
		if j == viewer || sn.queued == 0 {
			continue
		}
		queue := sn.queue[:sn.queued]
		for q, d := range queue {
			e := Event{Type: EventTurn, Seat: j, Dir: d}
			out = append(out, session.Secret{What: fmt.Sprintf("seat %d's queued turn %d, %v", j, q+1, d), Tell: string(e.AppendJSON(nil))})
		}
		vs := ViewSnake{Body: s.body(j), Dir: sn.dir, Alive: sn.alive, Score: sn.score, Queue: queue}
		out = append(out, session.Secret{What: fmt.Sprintf("seat %d's queue %v", j, queue), Tell: string(vs.appendJSON(nil))})
	}
	return out
}

// Resample returns a copy of s with a new food key drawn from src (its
// eight next outputs, as Init draws the key from the seed) and the draws
// made kept, so the food on the board stays and the food to come is drawn
// from the new key. While the match runs, every other live seat's queue is
// drawn again: 0 to QueueLen turns, each one of the two ways the rules
// allow after the one before (a turn, neither the way the snake will go
// nor its reverse). viewer's own queue is kept; a spectator has none.
func (Rules) Resample(s *State, viewer Seat, src session.Source) *State {
	c := s.clone()
	c.secret = drawKey(src)
	if c.phase == PhaseOver {
		return c
	}
	for j := range c.snakes {
		sn := &c.snakes[j]
		if j == viewer || !sn.alive {
			continue
		}
		sn.queue, sn.queued = [QueueLen]Dir{}, session.Intn(src, QueueLen+1)
		last := sn.dir
		for q := range sn.queued {
			last = turnsFrom(last)[session.Intn(src, 2)]
			sn.queue[q] = last
		}
	}
	return c
}

// drawKey draws a food key: eight outputs of src, little-endian.
func drawKey(src session.Source) [32]byte {
	var key [32]byte
	for i := 0; i < len(key); i += 4 {
		binary.LittleEndian.PutUint32(key[i:], src.Uint32())
	}
	return key
}

// turnsFrom returns the two turns a snake going d may queue.
func turnsFrom(d Dir) [2]Dir {
	if d == Up || d == Down {
		return [2]Dir{Left, Right}
	}
	return [2]Dir{Up, Down}
}

// clone returns a copy of s that shares nothing with it: its own arena,
// bodies and winners, and empty buffers (the copy has run no step).
func (s *State) clone() *State {
	c := *s
	c.g = s.g.Clone()
	c.snakes = slices.Clone(s.snakes)
	size := s.rows * s.cols
	ring := make([]int32, len(s.snakes)*size)
	for i := range c.snakes {
		r := ring[i*size : (i+1)*size : (i+1)*size]
		copy(r, s.snakes[i].ring)
		c.snakes[i].ring = r
	}
	c.winners = slices.Clone(s.winners)
	c.events = make([]Event, 0, cap(s.events))
	c.turned = 0
	c.proj = [MaxSeats][]Event{}
	return &c
}
