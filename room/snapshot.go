package room

import (
	"encoding/json"
	"fmt"

	"github.com/roomd/roomd/core/session"
	"github.com/roomd/roomd/protocol"
)

// SnapshotVersion is the version of a room snapshot; decoding refuses others.
const SnapshotVersion = 1

type roomSnapshot struct {
	V        int               `json:"v"`
	Code     string            `json:"code"`
	Epoch    string            `json:"epoch"`
	Rev      uint64            `json:"rev"`
	Game     string            `json:"game"`
	Settings json.RawMessage   `json:"settings"`
	Phase    string            `json:"phase"`
	Host     string            `json:"host"`
	Players  []*player         `json:"players"`
	Match    int               `json:"match"`
	MatchRev uint64            `json:"matchRev"`
	MetaRev  uint64            `json:"metaRev"`
	Result   *protocol.Result  `json:"result,omitempty"`
	Created  int64             `json:"created"`
	Activity int64             `json:"activity"`
	Closed   bool              `json:"closed,omitempty"`
	Dedup    map[string]*dedup `json:"dedup"`
	Session  json.RawMessage   `json:"session,omitempty"` // session.Snapshot: seed, config, seats, log
}

func (s *state) encode() ([]byte, error) {
	snap := roomSnapshot{V: SnapshotVersion, Code: s.Code, Epoch: s.Epoch, Rev: s.Rev, Game: s.Game,
		Settings: s.Settings, Phase: s.Phase, Host: s.Host, Players: s.Players, Match: s.Match,
		MatchRev: s.MatchRev, MetaRev: s.MetaRev, Result: s.Result, Created: s.Created,
		Activity: s.Activity, Closed: s.Closed, Dedup: s.Dedup}
	if s.sess != nil {
		b, err := s.sess.Snapshot()
		if err != nil {
			return nil, fmt.Errorf("room %s: snapshot session: %w", s.Code, err)
		}
		snap.Session = b
	}
	return json.Marshal(snap)
}

// decodeState rebuilds a room's state from its snapshot. It refuses unknown
// versions, games and rules versions.
func decodeState(games *session.Registry, data []byte) (*state, error) {
	var snap roomSnapshot
	if err := json.Unmarshal(data, &snap); err != nil {
		return nil, fmt.Errorf("room snapshot: %w", err)
	}
	if snap.V != SnapshotVersion {
		return nil, fmt.Errorf("room snapshot: version %d, this build reads %d", snap.V, SnapshotVersion)
	}
	s := &state{games: games, Code: snap.Code, Epoch: snap.Epoch, Rev: snap.Rev, Game: snap.Game,
		Settings: snap.Settings, Phase: snap.Phase, Host: snap.Host, Players: snap.Players,
		Match: snap.Match, MatchRev: snap.MatchRev, MetaRev: snap.MetaRev, Result: snap.Result,
		Created: snap.Created, Activity: snap.Activity, Closed: snap.Closed, Dedup: snap.Dedup}
	if s.Dedup == nil {
		s.Dedup = map[string]*dedup{}
	}
	if err := s.bind(); err != nil {
		return nil, fmt.Errorf("room snapshot %s: %w", snap.Code, err)
	}
	if len(snap.Session) > 0 {
		sess, err := session.DecodeSnapshot(games, snap.Session, nil)
		if err != nil {
			return nil, fmt.Errorf("room snapshot %s: %w", snap.Code, err)
		}
		s.sess = sess
	}
	return s, nil
}

// rebuild restores a state from a snapshot and the entries after it.
func rebuild(games *session.Registry, snapshot []byte, entries [][]byte) (*state, error) {
	s, err := decodeState(games, snapshot)
	if err != nil {
		return nil, err
	}
	for _, raw := range entries {
		var e entry
		if err := json.Unmarshal(raw, &e); err != nil {
			return nil, fmt.Errorf("room %s: entry after rev %d: %w", s.Code, s.Rev, err)
		}
		if e.Rev <= s.Rev {
			continue // covered by the snapshot
		}
		if _, err := s.apply(&e); err != nil {
			return nil, fmt.Errorf("room %s: replay rev %d (%s): %w", s.Code, e.Rev, e.Kind, err)
		}
	}
	return s, nil
}
