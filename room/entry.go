package room

import (
	"encoding/json"
	"strconv"

	"github.com/roomd/roomd/core/session"
	"github.com/roomd/roomd/protocol"
)

// Entry kinds: every accepted change to a room is one entry, applied by the
// same deterministic reducer live and during recovery.
const (
	kindJoin     = "join"
	kindReady    = "ready"
	kindSettings = "settings"
	kindFill     = "fill"
	kindRemove   = "remove"
	kindStart    = "start"
	kindRematch  = "rematch"
	kindCommand  = "command"
	kindResign   = "resign"
	kindLeave    = "leave"
	kindEpoch    = "epoch"
	kindClose    = "close"
	kindAccess   = "access"
	// kindTick ends a real-time match at its tick: the ticks themselves
	// are not stored (they follow from the inputs), but the end of a match
	// is a change to the room.
	kindTick = "tick"
)

// entry is one accepted change. Everything the reducer needs is in it
// (times, seeds, new players and their token hashes), so replaying entries
// rebuilds the room exactly. It is the stored form of a change (STORAGE.md).
type entry struct {
	Rev      uint64          `json:"rev"`
	Kind     string          `json:"k"`
	By       string          `json:"by,omitempty"`  // player id of the actor; "" for the room
	Aid      string          `json:"aid,omitempty"` // client action id, for dedup
	T        int64           `json:"t"`             // host time, ms since the Unix epoch
	Players  []*player       `json:"players,omitempty"`
	Ready    bool            `json:"ready,omitempty"`
	Settings json.RawMessage `json:"settings,omitempty"`
	Target   string          `json:"target,omitempty"`
	Seed     session.Seed    `json:"seed,omitzero"`
	// RV is the rules version a match starts under (start, rematch).
	// Entries of the first version have none: legacyRules says which.
	RV   string          `json:"rv,omitempty"`
	Move json.RawMessage `json:"move,omitempty"`
	// Tick is, for an input of a real-time match, the tick it takes effect
	// at; for kindTick, the tick the match ended at.
	Tick  uint64 `json:"tick,omitempty"`
	Epoch string `json:"epoch,omitempty"`
	// Access, Invite and WatchLocked are a room's new access (kindAccess).
	Access      string `json:"access,omitempty"`
	Invite      string `json:"invite,omitempty"`
	WatchLocked bool   `json:"watchLocked,omitempty"`
}

// encode is the entry's JSON. A game command, the entry of nearly every
// change, is written by hand; the others go through encoding/json. Both
// decode to the same entry (a test compares them).
func (e *entry) encode() ([]byte, error) {
	if e.Kind != kindCommand || e.Access != "" || e.RV != "" || len(e.Players) > 0 || e.Ready || len(e.Settings) > 0 || e.Target != "" || !e.Seed.IsZero() || e.Epoch != "" || len(e.Move) == 0 {
		return json.Marshal(e)
	}
	b := make([]byte, 0, 96+len(e.By)+len(e.Aid)+len(e.Move))
	b = append(b, `{"rev":`...)
	b = strconv.AppendUint(b, e.Rev, 10)
	b = append(b, `,"k":"command"`...)
	if e.By != "" {
		b = append(b, `,"by":`...)
		b = protocol.AppendString(b, e.By)
	}
	if e.Aid != "" {
		b = append(b, `,"aid":`...)
		b = protocol.AppendString(b, e.Aid)
	}
	b = append(b, `,"t":`...)
	b = strconv.AppendInt(b, e.T, 10)
	if e.Tick != 0 {
		b = append(b, `,"tick":`...)
		b = strconv.AppendUint(b, e.Tick, 10)
	}
	b = append(b, `,"move":`...)
	b = append(b, e.Move...) // valid JSON: the client's frame was parsed
	return append(b, '}'), nil
}

// legacyRules are the rules versions current when entries carried none
// (a start entry without rv started a match under these).
var legacyRules = map[string]string{"minesweeper": "minesweeper/1", "nim": "nim/1"}

// decodeEntry decodes a stored entry.
func decodeEntry(data []byte) (*entry, error) {
	var e entry
	if err := json.Unmarshal(data, &e); err != nil {
		return nil, err
	}
	return &e, nil
}
