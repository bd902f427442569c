package baba

import "fmt"

// Dir is a direction of movement. x grows to the right and y downward.
type Dir uint8

// The four directions.
const (
	Up Dir = iota
	Down
	Left
	Right
)

var dirNames = [...]string{Up: "up", Down: "down", Left: "left", Right: "right"}

// ParseDir reads "up", "down", "left" or "right".
func ParseDir(s string) (Dir, error) {
	for d, name := range dirNames {
		if s == name {
			return Dir(d), nil
		}
	}
	return 0, fmt.Errorf("baba: %q: %w", s, ErrDir)
}

// Valid reports whether d is one of the four directions.
func (d Dir) Valid() bool { return int(d) < len(dirNames) }

func (d Dir) String() string {
	if !d.Valid() {
		return fmt.Sprintf("Dir(%d)", uint8(d))
	}
	return dirNames[d]
}

// MarshalText writes the direction's word.
func (d Dir) MarshalText() ([]byte, error) {
	if !d.Valid() {
		return nil, fmt.Errorf("baba: Dir(%d): %w", uint8(d), ErrDir)
	}
	return []byte(dirNames[d]), nil
}

// UnmarshalText reads a direction's word, as ParseDir.
func (d *Dir) UnmarshalText(b []byte) error {
	v, err := ParseDir(string(b))
	if err != nil {
		return err
	}
	*d = v
	return nil
}

// delta returns the unit vector of d: up (0,-1), down (0,1), left (-1,0),
// right (1,0). It panics for an invalid Dir, a programming error.
func (d Dir) delta() (dx, dy int) {
	switch d {
	case Up:
		return 0, -1
	case Down:
		return 0, 1
	case Left:
		return -1, 0
	case Right:
		return 1, 0
	}
	panic(fmt.Sprintf("baba: invalid direction Dir(%d)", uint8(d)))
}
