package bot

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/roomd/roomd/core/baba"
	"github.com/roomd/roomd/core/babagame"
	"github.com/roomd/roomd/core/session"
	"github.com/roomd/roomd/protocol"
)

// babaAdapter plays Baba: every seat steps the same YOU objects in random
// directions, sometimes undoes a step and rarely restarts the level; a
// level where nothing is YOU any more is undone at once (no step can
// change it). The level is --level (a Baba level id; the flag's default,
// a Minesweeper level, means Baba's first level); control is always
// "shared", as roombot has no flag for it.
type babaAdapter struct{}

// The odds of choose's commands: one in babaUndoOdds is an undo, one in
// babaRestartOdds a restart (once a step was played); the rest are steps.
const (
	babaUndoOdds    = 8
	babaRestartOdds = 60
)

// babaDirs are the directions a step may take, as the wire names them.
var babaDirs = []baba.Dir{baba.Up, baba.Down, baba.Left, baba.Right}

func (babaAdapter) info() session.Info { return babagame.Game.Info() }

func (babaAdapter) help() string {
	return "                       players step at random, sometimes undo, rarely restart;\n" +
		"                       1 to 4 seats, shared control\n" +
		"      --level LEVEL    the level: " + strings.Join(babagame.LevelIDs, ", ") + "\n" +
		"                       (default " + babagame.LevelIDs[0] + ")\n"
}

func (babaAdapter) defaultMode() string { return babagame.ModeCoop }

// babaLevel is the level --level names: a Baba level id, or the first
// level for the flag's default (a Minesweeper level) or an empty flag.
func babaLevel(c *config) (string, error) {
	switch {
	case slices.Contains(babagame.LevelIDs, c.Level):
		return c.Level, nil
	case c.Level == "" || c.Level == "beginner":
		return babagame.LevelIDs[0], nil
	}
	return "", fmt.Errorf("--level %q: want one of %s", c.Level, strings.Join(babagame.LevelIDs, ", "))
}

func (babaAdapter) settings(c *config) (json.RawMessage, error) {
	level, err := babaLevel(c)
	if err != nil {
		return nil, err
	}
	// The config has no "mode": coop is the only one.
	return json.Marshal(babagame.Config{Level: level, Control: babagame.ControlShared})
}

func (babaAdapter) describe(c *config, s *scenarioInfo) {
	s.Mode = c.Mode
	s.Level, _ = babaLevel(c)
}

// ineffective: a step just after another seat won the level, and an undo
// or restart just after another seat's restart (or undo of the only step)
// left nothing to revert, are what a view a few milliseconds old explains.
// A step out of turn is expected for every game (session.CodeNotYourTurn).
func (babaAdapter) ineffective(code string) bool {
	return code == babagame.CodeFinished || code == babagame.CodeAtStart
}

func (babaAdapter) decodeView(raw json.RawMessage) (babagame.View, error) {
	var v babagame.View
	err := json.Unmarshal(raw, &v)
	return v, err
}

func (babaAdapter) decodeBeats(raw json.RawMessage) ([]babagame.Event, error) {
	var evs []babagame.Event
	err := json.Unmarshal(raw, &evs)
	return evs, err
}

// clone copies the lists and the turn: Apply replaces them, but a view kept
// for the leak checks must not share them with the followed one.
func (babaAdapter) clone(v babagame.View) babagame.View {
	v.Objects = slices.Clone(v.Objects)
	v.Rules = slices.Clone(v.Rules)
	v.ActiveRules = slices.Clone(v.ActiveRules)
	if v.Turn != nil {
		t := *v.Turn
		v.Turn = &t
	}
	return v
}

func (babaAdapter) apply(v *babagame.View, beats []babagame.Event) error {
	v.Apply(beats)
	return nil
}

// choose steps in a random direction, undoes one step in babaUndoOdds and
// restarts in babaRestartOdds; a lost level (nothing is YOU) is undone.
// Nothing is chosen once the level is won or, in turns control, out of
// turn. The randomness is math/rand/v2's: choose gets no generator, and a
// choice drawn from the view alone would make a lone player bounce
// between two views for ever (a step, then its undo, then the same step).
func (babaAdapter) choose(v babagame.View, seat int) (json.RawMessage, bool) {
	return marshalMove(babaChoice(v, seat, rand.IntN))
}

// babaChoice is choose with its source of randomness: intN(n) returns a
// number in [0, n).
func babaChoice(v babagame.View, seat int, intN func(int) int) (babagame.Move, bool) {
	switch {
	case v.Won, v.Turn != nil && *v.Turn != seat:
		return babagame.Move{}, false
	case v.Moves > 0 && v.Lost:
		return babagame.Move{Type: babagame.MoveUndo}, true
	case v.Moves > 0 && intN(babaRestartOdds) == 0:
		return babagame.Move{Type: babagame.MoveRestart}, true
	case v.Moves > 0 && intN(babaUndoOdds) == 0:
		return babagame.Move{Type: babagame.MoveUndo}, true
	}
	return babagame.Move{Type: babagame.MoveStep, Dir: babaDirs[intN(len(babaDirs))]}, true
}

func (babaAdapter) encode(v babagame.View) []byte {
	b, _ := json.Marshal(v)
	return b
}

func (babaAdapter) quirk(followed, server babagame.View) bool { return false }

// leaks finds nothing: Baba hides nothing, and the seed, which it never
// uses, is looked for in every frame by checkLeaks.
func (babaAdapter) leaks([]frame[babagame.View, babagame.Event], protocol.Result, int) []finding {
	return nil
}
