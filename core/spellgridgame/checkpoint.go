package spellgridgame

import (
	"encoding/json"
	"fmt"

	"github.com/roomd/roomd/core/session"
)

// checkpointVersion is the version of a checkpoint's form; Resume refuses
// any other.
const checkpointVersion = 1

// checkpoint is a checkpoint's JSON form: its version, the level and the
// commands that stand, from which the state is rebuilt by replay (baba.md
// §9):
//
//	{"version":1,"level":"scribe","commands":[{"type":"play","card":"Rune Scribe","x":2,"y":2}]}
type checkpoint struct {
	Version  int    `json:"version"`
	Level    string `json:"level"`
	Commands []Move `json:"commands"`
}

// Checkpoint encodes the level and the commands that stand.
func (Rules) Checkpoint(s *State) ([]byte, error) {
	return json.Marshal(checkpoint{Version: checkpointVersion, Level: s.level.ID, Commands: nonNil(s.commands)})
}

// Resume rebuilds a match from a checkpoint: its version must be this
// one, its level the config's, and every command must be a step, cast or play the engine
// accepts in turn.
func (r Rules) Resume(seed session.Seed, c Config, seats int, data []byte) (*State, error) {
	var cp checkpoint
	if err := json.Unmarshal(data, &cp); err != nil {
		return nil, err
	}
	if cp.Version != checkpointVersion {
		return nil, fmt.Errorf("version %d, this game's is %d", cp.Version, checkpointVersion)
	}
	if cp.Level != c.levelID() {
		return nil, fmt.Errorf("level %q, the config's is %q", session.Clip(cp.Level), c.levelID())
	}
	s, err := r.Init(seed, c, seats)
	if err != nil {
		return nil, err
	}
	for i, m := range cp.Commands {
		if m.Type == MoveUndo || m.Type == MoveRestart {
			return nil, fmt.Errorf("command %d is %s", i, m.Type)
		}
		if s, _, err = r.Apply(s, session.Input[Move]{Move: m}); err != nil {
			return nil, fmt.Errorf("command %d: %w", i, err)
		}
	}
	return s, nil
}
