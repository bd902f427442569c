package spellgridgame

import (
	"errors"

	"github.com/roomd/roomd/core/session"
	"github.com/roomd/roomd/core/spellgrid"
)

// Phases of a match (Status.Phase).
const (
	PhasePlaying = "playing"
	PhaseWon     = "won"
)

// Codes of the refusals of this game; the shared ones are session's.
const (
	CodeNotInHand     = "game:NotInHand"
	CodeNotASpell     = "game:NotASpell"
	CodeNotAMinion    = "game:NotAMinion"
	CodeInvalidTarget = "game:InvalidTarget"
	CodeTileNotFree   = "game:TileNotFree"
	CodeNothingToUndo = "game:NothingToUndo"
)

// CacheEvery is how many commands apart the state keeps a copy of the
// engine, so that an undo replays fewer than CacheEvery commands.
const CacheEvery = 32

// State is a match: the level and the commands accepted since it started
// (or since the last restart), less the undone ones. The engine is a pure
// function of both; the state keeps it, and a copy of it after every
// CacheEvery commands, so that undo rebuilds it quickly by replay.
type State struct {
	level    Level
	commands []Move                 // steps, casts and plays, in order
	grid     *spellgrid.SpellGrid   // after commands
	cache    []*spellgrid.SpellGrid // cache[k]: after commands[:k*CacheEvery]
}

// Rules are SpellGrid's rules on session's contract.
type Rules struct{}

var (
	_ session.Rules[Config, *State, Move, Event, View] = Rules{}
	_ session.Mover[*State, Move, Event]               = Rules{}
	_ session.Checkpointer[Config, *State]             = Rules{}
)

// Init builds the config's level. The seed is not used: SpellGrid draws
// nothing at random.
func (Rules) Init(_ session.Seed, c Config, seats int) (*State, error) {
	if seats != Seats {
		return nil, errors.New("spellgrid is played by exactly 1 seat")
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	l, _ := level(c.levelID())
	g, err := spellgrid.New(l.Level, nil)
	if err != nil {
		return nil, err
	}
	return &State{level: l, grid: g, cache: []*spellgrid.SpellGrid{g.Clone()}}, nil
}

// Apply plays one command: a step, cast or play is run on the engine and
// added to the commands; undo drops the last command and restart all of
// them. Its one event is the delta from the view before to the view after.
func (r Rules) Apply(s *State, in session.Input[Move]) (*State, []Event, error) {
	if in.Seat != 0 {
		return s, nil, session.Malformed(session.CodeNoSuchSeat, "seat %d is not in this match", in.Seat)
	}
	before := r.Project(s, in.Seat)
	switch m := in.Move; m.Type {
	case MoveUndo:
		if len(s.commands) == 0 {
			return s, nil, session.Reject(CodeNothingToUndo, "no command to undo")
		}
		s.rebuild(len(s.commands) - 1)
	case MoveRestart:
		if len(s.commands) == 0 {
			return s, nil, session.Reject(CodeNothingToUndo, "the level is as it started")
		}
		s.rebuild(0)
	default:
		if err := s.check(m); err != nil {
			return s, nil, err
		}
		if err := run(s.grid, m); err != nil {
			return s, nil, refusal(err) // the engine leaves the grid as it was
		}
		s.commands = append(s.commands, m)
		if len(s.commands)%CacheEvery == 0 {
			s.cache = append(s.cache, s.grid.Clone())
		}
	}
	return s, []Event{diff(before, r.Project(s, in.Seat))}, nil
}

// check returns why the engine would refuse m, or nil.
func (s *State) check(m Move) error {
	if s.grid.Won() {
		return session.Reject(session.CodeGameOver, "the level is won: undo or restart")
	}
	switch m.Type {
	case MoveStep:
		if !m.Dir.Valid() {
			return session.Malformed(session.CodeMalformedInput, "no direction %d", m.Dir)
		}
	case MoveCast:
		if err := s.grid.CheckCast(m.Card, m.Target); err != nil {
			return refusal(err)
		}
	case MovePlay:
		if w, h := s.grid.Size(); m.X < 0 || m.X >= w || m.Y < 0 || m.Y >= h {
			return session.Malformed(session.CodeOutOfBounds, "tile (%d, %d) is off the %d×%d level", m.X, m.Y, w, h)
		}
		if err := s.grid.CheckPlay(m.Card, m.X, m.Y); err != nil {
			return refusal(err)
		}
	default:
		return session.Malformed(session.CodeUnknownMove, "unknown move type %q", session.Clip(m.Type))
	}
	return nil
}

// run plays a step, cast or play on g.
func run(g *spellgrid.SpellGrid, m Move) error {
	switch m.Type {
	case MoveStep:
		return g.Step(m.Dir)
	case MoveCast:
		return g.Cast(m.Card, m.Target)
	case MovePlay:
		_, err := g.Play(m.Card, m.X, m.Y)
		return err
	}
	return errors.New("not a command of the engine")
}

// rebuild keeps the first n commands and replays them from the latest
// copy of the engine at or before n. Replaying accepted commands on the
// engine that accepted them cannot fail: it is deterministic.
func (s *State) rebuild(n int) {
	s.commands = s.commands[:n]
	k := n / CacheEvery
	s.cache = s.cache[:k+1]
	s.grid = s.cache[k].Clone()
	for _, m := range s.commands[k*CacheEvery:] {
		if err := run(s.grid, m); err != nil {
			panic("spellgridgame: an accepted command fails on replay: " + err.Error())
		}
	}
}

// refusal turns an engine's error into a rejection whose code names it.
func refusal(err error) *session.Rejection {
	switch {
	case errors.Is(err, spellgrid.ErrNotInHand):
		return session.Reject(CodeNotInHand, "%v", err)
	case errors.Is(err, spellgrid.ErrNotASpell):
		return session.Reject(CodeNotASpell, "%v", err)
	case errors.Is(err, spellgrid.ErrNotAMinion):
		return session.Reject(CodeNotAMinion, "%v", err)
	case errors.Is(err, spellgrid.ErrTarget):
		return session.Reject(CodeInvalidTarget, "%v", err)
	case errors.Is(err, spellgrid.ErrTile):
		return session.Reject(CodeTileNotFree, "%v", err)
	}
	return session.Reject(session.CodeInvalidMove, "%v", err)
}

// Status is "won" once a step has won the level, else "playing". Only a
// win is terminal: a lost level (no YOU) may still be undone or restarted.
// The match has started once a command stands.
func (Rules) Status(s *State) session.Status {
	if s.grid.Won() {
		return session.Status{Phase: PhaseWon, Started: true, Over: true, Outcome: session.Outcome{Winners: []session.Seat{0}}}
	}
	return session.Status{Phase: PhasePlaying, Started: len(s.commands) > 0}
}

// Pending is the one seat while the level is not won.
func (r Rules) Pending(s *State) []session.Seat {
	if s.grid.Won() {
		return nil
	}
	return []session.Seat{0}
}

// ProjectEvents returns the events unchanged: nothing is hidden.
func (Rules) ProjectEvents(_ *State, events []Event, _ session.Seat) []Event { return events }

// Audience is 0 for every viewer: all see the same.
func (Rules) Audience(*State, session.Seat) int { return 0 }
