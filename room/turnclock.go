package room

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/roomd/roomd/core/session"
	"github.com/roomd/roomd/protocol"
)

// turnclock.go: turn clocks (PROTOCOL.md §2.12). A room's settings may hold
// a clock, which the room takes out before the game sees them: a limit per
// move, or a chess clock (a base time per seat and an increment). A seat's
// turn is the stretch of the match it is pending (session.Pending); its
// time runs while it is. The clock is part of the state: every entry that
// changes the match moves it, at the entry's host time less the match's
// credited downtime (state.Paused), so a replay rebuilds it exactly and a
// server's downtime is never charged to anyone. When a running seat's time
// is up the room stores a timeout entry and applies the game's rule
// (session.Info.OnTimeout).

// The bounds of a clock's times, in ms.
const (
	minClockMs       = 1_000
	maxMoveMs        = 3_600_000  // an hour a move
	maxBaseMs        = 10_800_000 // three hours a seat
	maxIncrementMs   = 600_000
	statusTimeout    = "timeout"
	settingsClockKey = "clock"
)

// clockSpec is settings.clock: MoveMs alone (a limit per move), or BaseMs
// and IncrementMs (a chess clock).
type clockSpec struct {
	MoveMs      int64 `json:"moveMs,omitempty"`
	BaseMs      int64 `json:"baseMs,omitempty"`
	IncrementMs int64 `json:"incrementMs,omitempty"`
}

// chess reports whether the clock is a chess clock.
func (c *clockSpec) chess() bool { return c.MoveMs == 0 }

// start is a seat's time at the start of a match.
func (c *clockSpec) start() int64 {
	if c.chess() {
		return c.BaseMs
	}
	return c.MoveMs
}

// appendJSON appends the clock's canonical JSON.
func (c *clockSpec) appendJSON(b []byte) []byte {
	if !c.chess() {
		b = append(b, `{"moveMs":`...)
		return append(strconv.AppendInt(b, c.MoveMs, 10), '}')
	}
	b = append(b, `{"baseMs":`...)
	b = strconv.AppendInt(b, c.BaseMs, 10)
	b = append(b, `,"incrementMs":`...)
	return append(strconv.AppendInt(b, c.IncrementMs, 10), '}')
}

// parseClock decodes and checks settings.clock; null is no clock.
func parseClock(raw json.RawMessage) (*clockSpec, error) {
	if string(bytes.TrimSpace(raw)) == "null" {
		return nil, nil
	}
	var c clockSpec
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return nil, fmt.Errorf(`clock must be {"moveMs":N} or {"baseMs":N,"incrementMs":N}: %v`, err)
	}
	switch {
	case c.MoveMs != 0 && (c.BaseMs != 0 || c.IncrementMs != 0):
		return nil, fmt.Errorf("clock: moveMs (a limit per move) does not go with baseMs or incrementMs (a chess clock)")
	case c.MoveMs != 0:
		if c.MoveMs < minClockMs || c.MoveMs > maxMoveMs {
			return nil, fmt.Errorf("clock: moveMs must be %d to %d, not %d", minClockMs, maxMoveMs, c.MoveMs)
		}
	case c.BaseMs < minClockMs || c.BaseMs > maxBaseMs:
		return nil, fmt.Errorf("clock: baseMs must be %d to %d, not %d", minClockMs, maxBaseMs, c.BaseMs)
	case c.IncrementMs < 0 || c.IncrementMs > maxIncrementMs:
		return nil, fmt.Errorf("clock: incrementMs must be 0 to %d, not %d", maxIncrementMs, c.IncrementMs)
	}
	return &c, nil
}

// roomSetup is what a room learns from its settings: the game's setup from
// them without the clock, the room's clock, and the canonical settings the
// room stores and shows (the game's canonical config with the clock).
type roomSetup struct {
	session.Setup
	Clock    *clockSpec
	Settings json.RawMessage
}

// configure resolves settings for game g. The room takes "clock" out before
// the game validates them: a game that does not declare turn clocks
// refuses one.
func configure(g session.Game, raw json.RawMessage) (roomSetup, error) {
	var clock *clockSpec
	game := raw
	if t := bytes.TrimSpace(raw); len(t) > 0 && t[0] == '{' && bytes.Contains(t, []byte(`"`+settingsClockKey+`"`)) {
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(t, &fields); err == nil {
			if c, ok := fields[settingsClockKey]; ok {
				var err error
				if clock, err = parseClock(c); err != nil {
					return roomSetup{}, err
				}
				delete(fields, settingsClockKey)
				if game, err = json.Marshal(fields); err != nil {
					return roomSetup{}, err
				}
			}
		}
	}
	info := g.Info()
	if clock != nil && (!info.TurnClock || info.Tick != nil) {
		return roomSetup{}, fmt.Errorf("%s has no turn clock: leave settings.clock out", info.Name)
	}
	setup, err := g.Configure(game)
	if err != nil {
		return roomSetup{}, err
	}
	rs := roomSetup{Setup: setup, Clock: clock, Settings: setup.Config}
	if clock != nil {
		cfg := bytes.TrimSpace(setup.Config)
		if len(cfg) < 2 || cfg[0] != '{' || cfg[len(cfg)-1] != '}' {
			return roomSetup{}, fmt.Errorf("%s's settings are not an object: a clock cannot be added", info.Name)
		}
		b := slices.Clone(cfg[:len(cfg)-1])
		if len(bytes.TrimSpace(cfg[1:len(cfg)-1])) > 0 {
			b = append(b, ',')
		}
		b = append(b, `"clock":`...)
		rs.Settings = append(clock.appendJSON(b), '}')
	}
	return rs, nil
}

// turnClock is a running (or the last) match's turn clock, in match time:
// host ms less the match's credited downtime (state.Paused).
type turnClock struct {
	// Left is each seat's time at the start of its current turn (or, when
	// it is not running, what it has for its next one; at the end, what it
	// had left).
	Left []int64 `json:"left"`
	// Since is the match time each running seat's turn started; -1 for a
	// seat whose clock does not run.
	Since []int64 `json:"since"`
	// TimedOut are the seats whose time ran out this match, in order.
	TimedOut []int `json:"timedOut,omitempty"`
	// ByAI marks the seats whose turn the AI plays after a timeout
	// (session.TimeoutAI) until the turn ends.
	ByAI []bool `json:"byAI,omitempty"`
}

// matchTime is host time t in the match's time.
func (s *state) matchTime(t int64) int64 { return t - s.Paused }

// startClock starts a match's turn clock at host time t, if the room has
// one: every seat gets the clock's start time, and the pending seats'
// turns begin.
func (s *state) startClock(t int64) {
	s.TurnClock = nil
	c := s.setup.Clock
	if c == nil || s.sess == nil {
		return
	}
	n := len(s.Players)
	tc := &turnClock{Left: make([]int64, n), Since: make([]int64, n)}
	for i := range n {
		tc.Left[i], tc.Since[i] = c.start(), -1
	}
	s.TurnClock = tc
	s.moveClock(t)
}

// moveClock brings the turn clock to the match as it is after an entry
// at host time t: a seat whose turn ended is charged (a chess clock adds
// its increment; a limit per move starts afresh), a seat now pending
// starts its turn, and at the end of the match every running seat is
// charged and stops.
func (s *state) moveClock(t int64) {
	tc, c := s.TurnClock, s.setup.Clock
	if tc == nil || c == nil || s.sess == nil {
		return
	}
	now := s.matchTime(t)
	pending := s.sess.Match().Pending()
	over := s.Phase != phaseRunning
	for seat := range tc.Left {
		running := tc.Since[seat] >= 0
		turn := !over && slices.Contains(pending, seat)
		switch {
		case running && !turn:
			left := max(tc.Left[seat]-(now-tc.Since[seat]), 0)
			switch {
			case over:
			case c.chess():
				left += c.IncrementMs
			default:
				left = c.MoveMs
			}
			tc.Left[seat], tc.Since[seat] = left, -1
			if !c.chess() || tc.Left[seat] > 0 {
				tc.setByAI(seat, false)
			}
		case !running && turn:
			tc.Since[seat] = now
		}
	}
}

func (tc *turnClock) setByAI(seat int, on bool) {
	if !on && tc.ByAI == nil {
		return
	}
	if tc.ByAI == nil {
		tc.ByAI = make([]bool, len(tc.Left))
	}
	tc.ByAI[seat] = on
}

// byAI reports whether the AI plays seat's turn after a timeout.
func (s *state) byAI(seat int) bool {
	tc := s.TurnClock
	return tc != nil && seat < len(tc.ByAI) && tc.ByAI[seat]
}

// due returns the running seat whose time runs out first and the match
// time it does; ok is false when no clock runs (or every running seat is
// played by the AI already).
func (tc *turnClock) due() (seat int, at int64, ok bool) {
	seat = -1
	for i, since := range tc.Since {
		if since < 0 || (i < len(tc.ByAI) && tc.ByAI[i]) {
			continue
		}
		if end := since + tc.Left[i]; seat < 0 || end < at {
			seat, at = i, end
		}
	}
	return seat, at, seat >= 0
}

// clockDue is the host time the first running seat's time runs out, and
// that seat; ok is false when no turn clock runs.
func (s *state) clockDue() (seat int, at int64, ok bool) {
	if s.TurnClock == nil || s.Phase != phaseRunning {
		return -1, 0, false
	}
	seat, at, ok = s.TurnClock.due()
	return seat, at + s.Paused, ok
}

// timeout applies a timeout entry: e.Target's time ran out at e.T. A
// timeout that is not due (a stored entry that does not fit) is refused.
func (s *state) timeout(e *entry) (effect, error) {
	if err := s.need(phaseRunning); err != nil {
		return effect{}, err
	}
	seat := s.seatOf(e.Target)
	tc := s.TurnClock
	if seat < 0 || tc == nil || seat >= len(tc.Since) || tc.Since[seat] < 0 || s.byAI(seat) {
		return effect{}, refuse(protocol.CodeWrongSeat, "no clock runs for that seat")
	}
	now := s.matchTime(e.T)
	if now < tc.Since[seat]+tc.Left[seat] {
		return effect{}, fmt.Errorf("room %s: a timeout of seat %d at %d before its time ran out at %d (rev %d)",
			s.Code, seat, now, tc.Since[seat]+tc.Left[seat], e.Rev)
	}
	tc.TimedOut = append(tc.TimedOut, seat)
	if s.game.Info().OnTimeout == session.TimeoutAI {
		// The AI plays the seat's turn; its clock runs on (at zero) until
		// the turn ends.
		tc.setByAI(seat, true)
		s.assisted = true
		return effect{meta: true, clock: true}, nil
	}
	p := s.Players[seat]
	if len(s.Players) == 2 || !s.setup.Mode.AI {
		// The seat resigns: the others win.
		s.endMatch(e.T, statusTimeout, others(len(s.Players), seat))
		return effect{meta: true, ended: true}, nil
	}
	// A larger match goes on without the seat: the AI plays it to the end,
	// as for a player who left.
	p.Gone, p.AI, s.assisted = true, true, true
	return effect{meta: true, clock: true}, nil
}

// turnClockWire is the turn clock as clients get it at host time now.
func (s *state) turnClockWire(now int64) *protocol.TurnClock {
	tc := s.TurnClock
	if tc == nil {
		return nil
	}
	m := s.matchTime(now)
	w := &protocol.TurnClock{RemainingMs: make([]int64, len(tc.Left)), Running: []int{}}
	for i, left := range tc.Left {
		if tc.Since[i] >= 0 && s.Phase == phaseRunning {
			w.Running = append(w.Running, i)
			left = max(left-(m-tc.Since[i]), 0)
		}
		w.RemainingMs[i] = left
	}
	if _, at, ok := s.clockDue(); ok {
		w.Deadline = at
	}
	return w
}

// runClock stores a timeout for each running seat whose time is up at now
// (at most one a seat: a timeout ends the match or hands the turn on).
func (r *Room) runClock(now time.Time) {
	for range len(r.st.Players) {
		seat, at, ok := r.st.clockDue()
		if !ok || now.UnixMilli() < at {
			return
		}
		p := r.st.Players[seat]
		if err := r.accept(&entry{Kind: kindTimeout, Target: p.ID}, pending{}); err != nil {
			r.log.Warn("a turn clock ran out but its timeout was refused", "seat", seat, "err", err)
			return
		}
		r.log.Info("a seat's turn clock ran out", "seat", seat, "deadline", at, "late_ms", now.UnixMilli()-at,
			"rule", cmp.Or(r.st.game.Info().OnTimeout, session.TimeoutResign))
		if r.st.Phase != phaseRunning {
			return
		}
	}
}
