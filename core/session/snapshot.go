package session

import (
	"encoding/json"
	"fmt"
)

// SnapshotVersion is the version of the encoding written by Snapshot.
// DecodeSnapshot refuses any other.
const SnapshotVersion = 1

// snapshot stores the commands, not the world: the seed, config, seats and
// the log, from which the deterministic rules rebuild the state exactly.
type snapshot struct {
	V            int             `json:"v"`
	Game         string          `json:"game"`
	RulesVersion string          `json:"rulesVersion"`
	Seed         int64           `json:"seed"`
	Config       json.RawMessage `json:"config"`
	Seats        int             `json:"seats"`
	Log          []Entry         `json:"log"`
}

// Snapshot encodes the session in a versioned form.
func (s *GameSession) Snapshot() ([]byte, error) {
	info := s.game.Info()
	log := s.log
	if log == nil {
		log = []Entry{}
	}
	return json.Marshal(snapshot{V: SnapshotVersion, Game: info.ID, RulesVersion: info.RulesVersion,
		Seed: s.seed, Config: s.config, Seats: s.seats, Log: log})
}

// DecodeSnapshot rebuilds a session from Snapshot's encoding, looking its
// game up in reg. It refuses unknown versions and other rules versions.
func DecodeSnapshot(reg *Registry, data []byte, clock Clock) (*GameSession, error) {
	var snap snapshot
	if err := json.Unmarshal(data, &snap); err != nil {
		return nil, fmt.Errorf("session snapshot: %w", err)
	}
	if snap.V != SnapshotVersion {
		return nil, fmt.Errorf("session snapshot: version %d, this build reads %d", snap.V, SnapshotVersion)
	}
	game, ok := reg.Lookup(snap.Game)
	if !ok {
		return nil, fmt.Errorf("session snapshot: unknown game %q", snap.Game)
	}
	if rv := game.Info().RulesVersion; rv != snap.RulesVersion {
		return nil, fmt.Errorf("session snapshot: %s rules version %q, this build runs %q", snap.Game, snap.RulesVersion, rv)
	}
	return Restore(game, snap.Seed, snap.Config, snap.Seats, snap.Log, clock)
}
