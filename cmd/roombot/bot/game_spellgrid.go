package bot

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"slices"
	"strings"

	"github.com/roomd/roomd/core/baba"
	"github.com/roomd/roomd/core/cards"
	"github.com/roomd/roomd/core/session"
	"github.com/roomd/roomd/core/spellgridgame"
	"github.com/roomd/roomd/protocol"
)

// spellgridAdapter plays SpellGrid, a one-seat puzzle: the player wanders
// (mostly steps), now and then casts a spell of the hand on a minion of
// the grid (or with no target, when the spell takes none), plays a minion
// onto a free tile, undoes or restarts. Every choice is one the view says
// the rules accept; it is a function of the view, so the same view gives
// the same command, and the next view (whose move count has changed) most
// likely another.
type spellgridAdapter struct{}

// spellgridCards are the card definitions of every SpellGrid game, by
// name: whether a card is a spell or a minion, and what a spell targets.
var spellgridCards = func() map[string]cards.CardDef {
	m := map[string]cards.CardDef{}
	for _, d := range cards.Library() {
		m[d.Name] = d
	}
	return m
}()

func (spellgridAdapter) info() session.Info { return spellgridgame.Game.Info() }

func (spellgridAdapter) help() string {
	return "                       1 seat: the player steps, casts spells on minions, plays\n" +
		"                       minions on free tiles, undoes and restarts at random\n" +
		"      --level LEVEL    the level: " + strings.Join(spellgridgame.Levels(), ", ") + "\n" +
		"                       (the flag's default, beginner, means the first)\n"
}

func (spellgridAdapter) defaultMode() string { return spellgridgame.ModeSolo }

// spellgridLevel is the level of --level: the first for the flag's
// default (a Minesweeper level).
func spellgridLevel(c *config) (string, error) {
	if c.Level == "" || c.Level == "beginner" {
		return spellgridgame.Levels()[0], nil
	}
	if !slices.Contains(spellgridgame.Levels(), c.Level) {
		return "", fmt.Errorf("--level %q: want one of %s", c.Level, strings.Join(spellgridgame.Levels(), ", "))
	}
	return c.Level, nil
}

func (spellgridAdapter) settings(c *config) (json.RawMessage, error) {
	level, err := spellgridLevel(c)
	if err != nil {
		return nil, err
	}
	return json.Marshal(spellgridgame.Config{Level: level})
}

func (spellgridAdapter) describe(c *config, s *scenarioInfo) {
	s.Mode = c.Mode
	s.Level, _ = spellgridLevel(c)
}

// ineffective: a card cast or played just before (the open loop sends
// again before its last update came back) is no longer in hand, its
// target may have died, its tile may have filled, and an undo may find
// nothing left to undo.
func (spellgridAdapter) ineffective(code string) bool {
	switch code {
	case spellgridgame.CodeNotInHand, spellgridgame.CodeInvalidTarget, spellgridgame.CodeTileNotFree, spellgridgame.CodeNothingToUndo:
		return true
	}
	return false
}

func (spellgridAdapter) decodeView(raw json.RawMessage) (spellgridgame.View, error) {
	var v spellgridgame.View
	err := json.Unmarshal(raw, &v)
	return v, err
}

func (spellgridAdapter) decodeBeats(raw json.RawMessage) ([]spellgridgame.Event, error) {
	var evs []spellgridgame.Event
	err := json.Unmarshal(raw, &evs)
	return evs, err
}

// clone copies every list: View.Apply edits them in place.
func (spellgridAdapter) clone(v spellgridgame.View) spellgridgame.View {
	v.Objects = slices.Clone(v.Objects)
	v.Rules = slices.Clone(v.Rules)
	v.ActiveRules = slices.Clone(v.ActiveRules)
	v.Hand = slices.Clone(v.Hand)
	v.Minions = slices.Clone(v.Minions)
	return v
}

func (spellgridAdapter) apply(v *spellgridgame.View, beats []spellgridgame.Event) error {
	v.Apply(beats)
	return nil
}

// choose picks, from a hash of the view: an undo (most of the time) or a
// restart when nothing IS YOU; else an undo 6% and a restart 2% of the
// time once a command stands, a card 22%, and a step otherwise. Nothing
// once the level is won.
func (spellgridAdapter) choose(v spellgridgame.View, seat int) (json.RawMessage, bool) {
	if seat != 0 || v.Won {
		return nil, false
	}
	h := fnv.New64a()
	b, _ := json.Marshal(v)
	h.Write(b)
	r := h.Sum64()
	roll := r % 100
	r /= 100
	move := func(m spellgridgame.Move) (json.RawMessage, bool) { return marshalMove(m, true) }
	switch {
	case v.Moves > 0 && v.Lost:
		if roll < 80 {
			return move(spellgridgame.Move{Type: spellgridgame.MoveUndo})
		}
		return move(spellgridgame.Move{Type: spellgridgame.MoveRestart})
	case v.Moves > 0 && roll < 6:
		return move(spellgridgame.Move{Type: spellgridgame.MoveUndo})
	case v.Moves > 0 && roll < 8:
		return move(spellgridgame.Move{Type: spellgridgame.MoveRestart})
	case roll < 30:
		if cands := spellgridCardMoves(v); len(cands) > 0 {
			return move(cands[r%uint64(len(cands))])
		}
	}
	return move(spellgridgame.Move{Type: spellgridgame.MoveStep, Dir: baba.Dir(r % 4)})
}

// spellgridCardMoves lists the casts and plays the view allows: each
// spell of the hand on each minion in play (or with no target, for a
// spell that takes none), and each minion of the hand on each free tile.
func spellgridCardMoves(v spellgridgame.View) []spellgridgame.Move {
	taken := map[[2]int]bool{}
	for _, o := range v.Objects {
		taken[[2]int{o.X, o.Y}] = true
	}
	var out []spellgridgame.Move
	seen := map[string]bool{}
	for _, name := range v.Hand {
		d, ok := spellgridCards[name]
		if !ok || seen[name] {
			continue
		}
		seen[name] = true
		switch {
		case d.Type == cards.Minion:
			for y := range v.Height {
				for x := range v.Width {
					if !taken[[2]int{x, y}] {
						out = append(out, spellgridgame.Move{Type: spellgridgame.MovePlay, Card: name, X: x, Y: y})
					}
				}
			}
		case d.Target == cards.NoTargetKind:
			out = append(out, spellgridgame.Move{Type: spellgridgame.MoveCast, Card: name})
		default:
			for _, m := range v.Minions {
				out = append(out, spellgridgame.Move{Type: spellgridgame.MoveCast, Card: name, Target: m.ID})
			}
		}
	}
	return out
}

func (spellgridAdapter) encode(v spellgridgame.View) []byte {
	b, _ := json.Marshal(v)
	return b
}

func (spellgridAdapter) quirk(followed, server spellgridgame.View) bool { return false }

// leaks finds nothing: SpellGrid hides nothing (its deck is empty, its
// hand and every card are in everybody's view), and the seed, which it
// never uses, is looked for in every frame by checkLeaks.
func (spellgridAdapter) leaks([]frame[spellgridgame.View, spellgridgame.Event], protocol.Result, int) []finding {
	return nil
}
