package session

import (
	"encoding/json"
	"fmt"
)

// LegacySnapshotVersion is the version of the session snapshots rooms
// stored before matches were saved as a header and a checkpoint: the whole
// log, replayed from the seed.
const LegacySnapshotVersion = 1

// legacySnapshot is that format: the seed, config, seats and log, from
// which the deterministic rules rebuild the state exactly.
type legacySnapshot struct {
	V int `json:"v"`
	Header
	Log []Entry `json:"log"`
}

// DecodeLegacySnapshot rebuilds a session from a version 1 snapshot, looking
// its game up in reg. It refuses other versions and other rules versions.
func DecodeLegacySnapshot(reg *Registry, data []byte, clock Clock) (*GameSession, error) {
	var snap legacySnapshot
	if err := json.Unmarshal(data, &snap); err != nil {
		return nil, fmt.Errorf("session snapshot: %w", err)
	}
	if snap.V != LegacySnapshotVersion {
		return nil, fmt.Errorf("session snapshot: version %d, this build reads %d", snap.V, LegacySnapshotVersion)
	}
	game, ok := reg.Lookup(snap.Game)
	if !ok {
		return nil, fmt.Errorf("session snapshot: unknown game %q", snap.Game)
	}
	if rv := game.Info().RulesVersion; rv != snap.RulesVersion {
		return nil, fmt.Errorf("session snapshot: %s rules version %q, this build runs %q: %w", snap.Game, snap.RulesVersion, rv, ErrRulesVersion)
	}
	return Restore(game, snap.Header, nil, snap.Log, 0, clock)
}
