package room

import (
	"bytes"
	"encoding/json"
	"math"
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
	kindMute     = "mute" // the host mutes (or unmutes) a seat's chat
	kindChat     = "chat" // the host lets spectators chat, or not
	// kindResume credits a running match with the time the server was
	// stopped (a graceful restart): its clock leaves it out.
	kindResume = "resume"
	// kindStall ends a match that cannot go on: its seats are all the
	// AI's, and one it waits on stopped (its moves kept failing).
	kindStall = "stall"
	// kindTick ends a real-time match at its tick: the ticks themselves
	// are not stored (they follow from the inputs), but the end of a match
	// is a change to the room.
	kindTick = "tick"
	// kindTimeout is a seat's turn clock running out (turnclock.go):
	// Target is its player.
	kindTimeout = "timeout"
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
	// Pause is the downtime a kindResume credits, in ms.
	Pause int64 `json:"pause,omitempty"`
	// Muted (kindMute) and SpectatorChat (kindChat).
	Muted         bool `json:"muted,omitempty"`
	SpectatorChat bool `json:"spectatorChat,omitempty"`
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

// decodeEntry decodes a stored entry: a game command in the form encode
// writes by a scan of that one form (a restore reads every entry of a
// match, and encoding/json took most of a long match's restore), anything
// else — and a command in any other form — with encoding/json.
func decodeEntry(data []byte) (*entry, error) {
	if e, ok := decodeCommandEntry(data); ok {
		return e, nil
	}
	var e entry
	if err := json.Unmarshal(data, &e); err != nil {
		return nil, err
	}
	return &e, nil
}

// decodeCommandEntry decodes a command entry exactly as encode writes it:
// {"rev":N,"k":"command"[,"by":S][,"aid":S],"t":N[,"tick":N],"move":{…}},
// strings without escapes. ok is false for anything else.
func decodeCommandEntry(data []byte) (*entry, bool) {
	e := entry{Kind: kindCommand}
	rest, ok := bytes.CutPrefix(data, []byte(`{"rev":`))
	if !ok {
		return nil, false
	}
	if e.Rev, rest, ok = cutUint(rest); !ok {
		return nil, false
	}
	if rest, ok = bytes.CutPrefix(rest, []byte(`,"k":"command"`)); !ok {
		return nil, false
	}
	if r, found := bytes.CutPrefix(rest, []byte(`,"by":"`)); found {
		if e.By, rest, ok = cutPlainString(r); !ok {
			return nil, false
		}
	}
	if r, found := bytes.CutPrefix(rest, []byte(`,"aid":"`)); found {
		if e.Aid, rest, ok = cutPlainString(r); !ok {
			return nil, false
		}
	}
	if rest, ok = bytes.CutPrefix(rest, []byte(`,"t":`)); !ok {
		return nil, false
	}
	t, rest, ok := cutUint(rest)
	if !ok || t > math.MaxInt64 {
		return nil, false
	}
	e.T = int64(t)
	if r, found := bytes.CutPrefix(rest, []byte(`,"tick":`)); found {
		if e.Tick, rest, ok = cutUint(r); !ok {
			return nil, false
		}
	}
	if rest, ok = bytes.CutPrefix(rest, []byte(`,"move":`)); !ok {
		return nil, false
	}
	// The move is the rest but the entry's closing brace: an object.
	if n := len(rest); n < 3 || rest[0] != '{' || rest[n-2] != '}' || rest[n-1] != '}' {
		return nil, false
	}
	e.Move = bytes.Clone(rest[:len(rest)-1])
	return &e, true
}

// cutUint reads the decimal digits at the start of b.
func cutUint(b []byte) (n uint64, rest []byte, ok bool) {
	i := 0
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	if i == 0 || i > 19 || (i > 1 && b[0] == '0') {
		return 0, nil, false
	}
	n, err := strconv.ParseUint(string(b[:i]), 10, 64)
	return n, b[i:], err == nil
}

// cutPlainString reads a string's bytes up to its closing quote, b being
// what follows the opening one; a string with an escape or a control
// character is not plain.
func cutPlainString(b []byte) (s string, rest []byte, ok bool) {
	for i, c := range b {
		switch {
		case c == '"':
			return string(b[:i]), b[i+1:], true
		case c == '\\' || c < 0x20:
			return "", nil, false
		}
	}
	return "", nil, false
}
