package room

import (
	"errors"
	"fmt"
	"slices"

	"github.com/roomd/roomd/core/session"
	"github.com/roomd/roomd/protocol"
)

// match.go: the entries of a match (its start, commands and inputs, ticks,
// its end and result) and the match clock. The room's own entries (joins,
// settings, seats, leaving) and the state they change are in state.go.

func (s *state) start(e *entry) (effect, error) {
	if e.Kind == kindStart {
		if err := s.need(phaseLobby); err != nil {
			return effect{}, err
		}
	} else if err := s.need(phaseEnded); err != nil {
		return effect{}, err
	}
	// A quick-play room starts its match itself (quick.go): no host, no
	// ready.
	byRoom := e.Kind == kindStart && e.By == "" && s.Quick
	if err := s.needHost(e.By); err != nil && !byRoom {
		return effect{}, err
	}
	eff := effect{meta: true, started: true}
	players := s.Players
	settings, setup := s.Settings, s.setup
	if e.Kind == kindRematch {
		players = slices.DeleteFunc(slices.Clone(players), func(p *player) bool { return p.Gone })
		if len(players) != len(s.Players) {
			eff.seats, eff.seatsBefore = true, s.seatIDs()
		}
		if len(e.Settings) > 0 { // a rematch under new settings
			var err error
			if setup, err = configure(s.game, e.Settings); err != nil {
				return effect{}, refuse(protocol.CodeInvalidSettings, err.Error())
			}
			settings = setup.Settings
			if !setup.Mode.AI && slices.ContainsFunc(players, func(p *player) bool { return p.AI }) {
				return effect{}, refuse(protocol.CodeInvalidSettings, setup.Mode.Name+" has no AI seats; remove them first")
			}
		}
	}
	n := len(players)
	if (n < setup.Mode.MinSeats || n > setup.Mode.MaxSeats) && len(e.Settings) > 0 && e.Kind == kindRematch {
		return effect{}, refuse(protocol.CodeInvalidSettings,
			fmt.Sprintf("%s takes %d to %d seats, there are %d", setup.Mode.Name, setup.Mode.MinSeats, setup.Mode.MaxSeats, n))
	}
	if n < setup.Mode.MinSeats || n > setup.Mode.MaxSeats {
		return effect{}, refuse(protocol.CodeNotReady,
			fmt.Sprintf("%s needs %d to %d seats, there are %d", setup.Mode.Name, setup.Mode.MinSeats, setup.Mode.MaxSeats, n))
	}
	if e.Kind == kindStart && !byRoom {
		for i, p := range s.Players {
			if !p.AI && !p.Ready && p.ID != s.Host {
				return effect{}, refuse(protocol.CodeNotReady, fmt.Sprintf("seat %d (%s) is not ready", i, p.Name))
			}
		}
	}
	rv := e.RV
	if rv == "" {
		rv = legacyRules[s.Game]
	}
	if current := s.game.Info().RulesVersion; rv != "" && rv != current {
		// A stored match of rules this build does not run (a restart onto
		// new rules): it cannot be replayed; it starts and ends at once.
		s.Players, s.Phase, s.Match, s.MatchRev = players, phaseEnded, s.Match+1, e.Rev
		s.Settings, s.setup = settings, setup
		s.sess, s.roster, s.prefix = nil, nil, 0
		s.endOldRules()
		return eff, nil
	}
	sess, err := session.NewSession(s.game, e.Seed, setup.Config, n, nil)
	if err != nil {
		return effect{}, refuse(protocol.CodeInvalidSettings, err.Error())
	}
	s.Settings, s.setup = settings, setup
	s.oldRules = false
	s.Paused, s.Stopped = 0, 0 // a new match's clock
	s.Players = players
	s.sess, s.logFrom, s.prefix = sess, e.Rev+1, 0
	s.roster = make([]string, len(players))
	s.movers, s.assisted = make([]bool, len(players)), false
	for i, p := range players {
		s.roster[i] = p.ID
		s.assisted = s.assisted || p.AI
	}
	s.Phase = phaseRunning
	s.Match++
	s.MatchRev = e.Rev
	s.Result = nil
	return eff, nil
}

func (s *state) command(e *entry) (effect, error) {
	if err := s.need(phaseRunning); err != nil {
		return effect{}, err
	}
	seat := s.seatOf(e.By)
	if seat < 0 {
		return effect{}, refuse(protocol.CodeWrongSeat, "only a seated player can play")
	}
	if s.stepped() {
		return s.input(e, seat)
	}
	_, wasStarted := s.sess.Started()
	step, err := s.sess.ApplyAt(seat, e.Move, float64(e.T-s.Paused))
	if err != nil {
		return effect{}, commandRefusal(err)
	}
	e.Move = step.Move() // stored and echoed: the canonical form, not the client's bytes
	if !s.Players[seat].AI && !s.byAI(seat) && seat < len(s.movers) {
		s.movers[seat] = true
	}
	eff := effect{step: step}
	if _, started := s.sess.Started(); started && !wasStarted {
		eff.clock = true
	}
	if res, over := s.sess.Result(); over {
		s.Phase = phaseEnded
		s.Result = s.result(res.Status, res.Time, res.Outcome)
		eff.meta, eff.ended = true, true
	}
	return eff, nil
}

// commandRefusal is the refusal of a command the session did not take.
func commandRefusal(err error) error {
	var rej *session.Rejection
	if errors.As(err, &rej) {
		code := rej.Code
		if rej.Malformed && code == session.CodeMalformedInput {
			code = protocol.CodeInvalidCommand
		}
		return refuse(code, rej.Reason)
	}
	return refuse(protocol.CodeInvalidCommand, err.Error())
}

// tick is the current real-time match's tick (0 for other matches).
func (s *state) tick() uint64 {
	if !s.stepped() {
		return 0
	}
	return s.sess.Tick()
}

// stepped reports whether the current match is a real-time one, run on
// its game's fixed step.
func (s *state) stepped() bool { return s.sess != nil && s.sess.Game().Info().Tick != nil }

// input queues a real-time match's input for tick e.Tick, the tick after
// the one the room had run when it took it. Replaying, the ticks before it
// run first: the world at any tick follows from the inputs and their ticks.
func (s *state) input(e *entry, seat int) (effect, error) {
	if e.Tick == 0 {
		return effect{}, fmt.Errorf("room %s: an input of a real-time match without its tick (rev %d)", s.Code, e.Rev)
	}
	if e.Tick <= s.sess.Tick() {
		return effect{}, fmt.Errorf("room %s: an input for tick %d after tick %d ran (rev %d)", s.Code, e.Tick, s.sess.Tick(), e.Rev)
	}
	if err := s.advanceTo(e.Tick - 1); err != nil {
		return effect{}, err
	}
	if s.sess.Status().Over {
		return effect{}, fmt.Errorf("room %s: an input for tick %d of a match over at tick %d (rev %d)", s.Code, e.Tick, s.sess.Tick(), e.Rev)
	}
	if _, err := s.sess.Input(seat, e.Move, float64(e.T-s.Paused)); err != nil {
		return effect{}, commandRefusal(err)
	}
	log := s.sess.Log()
	e.Move = log[len(log)-1].Move // stored: the canonical form, not the client's bytes
	if !s.Players[seat].AI && seat < len(s.movers) {
		s.movers[seat] = true
	}
	return effect{input: true}, nil
}

// advanceTo runs the real-time match's ticks up to tick n. Live, the room
// has run them already; replaying a stored room, they run here. Running
// past the match's end means the entries do not belong to this match.
func (s *state) advanceTo(n uint64) error {
	for s.sess.Tick() < n {
		if s.sess.Status().Over {
			return fmt.Errorf("room %s: the match ended at tick %d, before tick %d", s.Code, s.sess.Tick(), n)
		}
		if _, err := s.sess.Advance(); err != nil {
			return fmt.Errorf("room %s: tick %d: %w", s.Code, s.sess.Tick(), err)
		}
	}
	return nil
}

// ended ends a real-time match at tick e.Tick, where its world ended it.
func (s *state) ended(e *entry) (effect, error) {
	if err := s.need(phaseRunning); err != nil {
		return effect{}, err
	}
	if !s.stepped() || e.Tick < s.sess.Tick() {
		return effect{}, fmt.Errorf("room %s: a tick entry for tick %d (rev %d) does not fit the match", s.Code, e.Tick, e.Rev)
	}
	if err := s.advanceTo(e.Tick); err != nil {
		return effect{}, err
	}
	res, over := s.sess.Result()
	if !over {
		return effect{}, fmt.Errorf("room %s: the match is not over at tick %d (rev %d)", s.Code, e.Tick, e.Rev)
	}
	s.Phase = phaseEnded
	s.Result = s.result(res.Status, res.Time, res.Outcome)
	return effect{meta: true, ended: true}, nil
}

// humanMoved reports whether a human player has made a move this match.
func (s *state) humanMoved() bool { return slices.Contains(s.movers, true) }

// awaitsHuman reports whether the running match waits for its first human
// move: the AI never moves before a human has (it would open the board for
// them, or race ahead while they are still loading the page). A match with
// no human left does not wait.
func (s *state) awaitsHuman() bool {
	if s.Phase != phaseRunning || s.humanMoved() {
		return false
	}
	for _, p := range s.Players {
		if !p.AI {
			return true
		}
	}
	return false
}

// endOldRules ends a match played under rules version rv, which this build
// does not run: its result says so, names no winner and ranks nothing.
func (s *state) endOldRules() {
	s.Phase, s.oldRules = phaseEnded, true
	s.Result = &matchResult{Match: s.Match, Status: "rules-changed", Winners: []int{}, Config: s.Settings}
}

// skipOldRules passes over a stored entry of a match ended for its old
// rules (a move, a resignation): it took its revision, and its action id
// keeps its receipt, but it changes nothing now.
func (s *state) skipOldRules(e *entry) bool {
	if !s.oldRules || e.Rev != s.Rev+1 {
		return false
	}
	switch e.Kind {
	case kindCommand, kindResign:
	default:
		return false
	}
	s.Rev, s.Activity = e.Rev, e.T
	if e.By != "" && e.Aid != "" {
		s.window(e.By).add(dedupEntry{H: actionHash(e.Aid), Rev: e.Rev})
	}
	return true
}

// endMatch ends the match for the room (a resignation, a player who left a
// game with no AI): the winners are given, nothing is ranked.
func (s *state) endMatch(t int64, status string, winners []int) {
	elapsed := 0.0
	if t0, ok := s.sess.Started(); ok {
		elapsed = float64(t-s.Paused) - t0
		if s.stepped() {
			elapsed = s.sess.Elapsed() // ticks, not the host's clock
		}
	}
	s.Phase = phaseEnded
	s.Result = s.result(status, elapsed, session.Outcome{Winners: winners})
}

func (s *state) result(status string, elapsed float64, out session.Outcome) *matchResult {
	winners := out.Winners
	if winners == nil {
		winners = []int{}
	}
	res := &matchResult{Match: s.Match, Status: status, TimeMs: elapsed, Winners: winners, Ranked: out.Ranked,
		Score: out.Score, Seed: s.sess.Seed(), Config: s.sess.Config(), Detail: out.Detail}
	if s.stepped() {
		res.Ticks = s.sess.Tick()
	}
	return res
}

func others(n, seat int) []int {
	out := []int{}
	for i := range n {
		if i != seat {
			out = append(out, i)
		}
	}
	return out
}

// clock is the match clock read at now (ms since the Unix epoch).
type clock struct {
	now       int64
	elapsed   float64
	running   bool
	startedAt float64
}

// clock reads the match clock at now.
func (s *state) clock(now int64) clock {
	c := clock{now: now}
	if s.sess == nil {
		return c
	}
	t0, started := s.sess.Started()
	if !started {
		return c
	}
	c.startedAt = t0
	if s.stepped() {
		// A real-time match's time is its ticks: the room's tick messages
		// carry it, and it stands still while the match is paused.
		c.startedAt, c.elapsed = 0, s.sess.Elapsed()
		return c
	}
	switch {
	case s.Phase == phaseRunning:
		c.running = true
		c.elapsed = float64(now-s.Paused) - t0
		c.startedAt = t0 + float64(s.Paused) // in host time: now − startedAt is the elapsed time
	case s.Result != nil:
		c.elapsed = s.Result.TimeMs
	}
	return c
}
