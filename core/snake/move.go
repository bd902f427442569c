package snake

import (
	"encoding/json"
	"fmt"

	"github.com/roomd/roomd/core/session"
)

// MoveTurn is the type of the only command.
const MoveTurn = "turn"

// Dir is a direction a snake moves in. The zero value is no direction.
type Dir uint8

// Directions.
const (
	Up Dir = iota + 1
	Down
	Left
	Right
)

var (
	dirNames = [...]string{Up: "up", Down: "down", Left: "left", Right: "right"}
	// dirChars are the letters of a move event's "d".
	dirChars = [...]byte{0: '.', Up: 'u', Down: 'd', Left: 'l', Right: 'r'}
	// dirDelta is the step of each direction: [dr, dc].
	dirDelta = [...][2]int{Up: {-1, 0}, Down: {1, 0}, Left: {0, -1}, Right: {0, 1}}
	reverse  = [...]Dir{Up: Down, Down: Up, Left: Right, Right: Left}
)

// Valid reports whether d is one of the four directions.
func (d Dir) Valid() bool { return d >= Up && d <= Right }

// Reverse returns the opposite direction (none for none).
func (d Dir) Reverse() Dir {
	if !d.Valid() {
		return 0
	}
	return reverse[d]
}

// String returns "up", "down", "left" or "right".
func (d Dir) String() string {
	if !d.Valid() {
		return fmt.Sprintf("Dir(%d)", uint8(d))
	}
	return dirNames[d]
}

// ParseDir returns the direction named s ("up", "down", "left", "right").
func ParseDir(s string) (Dir, bool) {
	for d := Up; d <= Right; d++ {
		if dirNames[d] == s {
			return d, true
		}
	}
	return 0, false
}

// dirOfChar returns the direction of a move event's letter, or 0.
func dirOfChar(c byte) Dir {
	for d := Up; d <= Right; d++ {
		if dirChars[d] == c {
			return d
		}
	}
	return 0
}

// MarshalText writes the direction's name, so that it encodes as a JSON
// string.
func (d Dir) MarshalText() ([]byte, error) {
	if !d.Valid() {
		return nil, fmt.Errorf("snake: no direction %d", uint8(d))
	}
	return []byte(dirNames[d]), nil
}

// UnmarshalText decodes a direction's name.
func (d *Dir) UnmarshalText(text []byte) error {
	v, ok := ParseDir(string(text))
	if !ok {
		return fmt.Errorf("snake: direction %q", session.Clip(string(text)))
	}
	*d = v
	return nil
}

// Move is a command: turn the sender's snake. Its JSON form is
// {"type":"turn","dir":"up"} (or "down", "left", "right").
type Move struct {
	Dir Dir
}

// AppendJSON appends the command's canonical JSON to b.
func (m Move) AppendJSON(b []byte) []byte {
	b = append(b, `{"type":"turn","dir":"`...)
	if m.Dir.Valid() {
		b = append(b, dirNames[m.Dir]...)
	}
	return append(b, `"}`...)
}

// canonicalTurns are the four commands' canonical JSON, by direction.
var canonicalTurns = func() (out [Right + 1]string) {
	for d := Up; d <= Right; d++ {
		out[d] = string(Move{Dir: d}.AppendJSON(nil))
	}
	return out
}()

// ParseCanonical recognises a turn in its canonical form without
// encoding/json (session.CanonicalParser): the form every client sends.
func (m *Move) ParseCanonical(data []byte) bool {
	for d := Up; d <= Right; d++ {
		if string(data) == canonicalTurns[d] {
			m.Dir = d
			return true
		}
	}
	return false
}

// MarshalJSON writes {"type":"turn","dir":D}.
func (m Move) MarshalJSON() ([]byte, error) {
	if !m.Dir.Valid() {
		return nil, fmt.Errorf("snake: a turn with no direction")
	}
	return m.AppendJSON(make([]byte, 0, 32)), nil
}

// UnmarshalJSON decodes a command strictly. Every refusal is a malformed
// *session.Rejection, since no genuine client sends one: an unknown type is
// session.CodeUnknownMove, anything else (not an object, a missing or
// unknown direction, an unknown field, a duplicate key)
// session.CodeMalformedInput.
func (m *Move) UnmarshalJSON(data []byte) error {
	ms, err := session.Members(data)
	if err != nil {
		return session.Malformed(session.CodeMalformedInput, "move: %v", err)
	}
	rawType, ok := session.Lookup(ms, "type")
	if !ok {
		return session.Malformed(session.CodeMalformedInput, `move has no "type"`)
	}
	var typ string
	if err := json.Unmarshal(rawType, &typ); err != nil || len(rawType) == 0 || rawType[0] != '"' {
		return session.Malformed(session.CodeMalformedInput, `move "type" must be a string`)
	}
	if typ != MoveTurn {
		return session.Malformed(session.CodeUnknownMove, "unknown move type %q", session.Clip(typ))
	}
	for _, f := range ms {
		if f.Key != "type" && f.Key != "dir" {
			return session.Malformed(session.CodeMalformedInput, "turn has an unknown field %q", session.Clip(f.Key))
		}
	}
	rawDir, ok := session.Lookup(ms, "dir")
	if !ok {
		return session.Malformed(session.CodeMalformedInput, `turn has no "dir"`)
	}
	var name string
	if err := json.Unmarshal(rawDir, &name); err != nil {
		return session.Malformed(session.CodeMalformedInput, `turn "dir" must be a string, got %s`, session.Clip(string(rawDir)))
	}
	d, ok := ParseDir(name)
	if !ok {
		return session.Malformed(session.CodeMalformedInput, `turn "dir" must be "up", "down", "left" or "right", got %q`, session.Clip(name))
	}
	*m = Move{Dir: d}
	return nil
}
