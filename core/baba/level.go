package baba

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/roomd/roomd/core/session"
)

// Limits of a level (§4).
const (
	// MaxSide is the largest width and height of a level.
	MaxSide = 64
	// MaxObjects is the most objects that may be alive at any time.
	MaxObjects = 4096
)

// LevelDef is a level (§4): its size and the objects on it at the start.
// Its JSON form is
//
//	{"width": 7, "height": 5, "objects": [{"kind": "baba", "x": 3, "y": 2}]}
//
// with "objects" optional; "title" and "note" are free text, "cards" and
// "hand" belong to Part III's SpellGrid (a plain Baba refuses a level that
// has any), and any other field is refused.
type LevelDef struct {
	Width   int           `json:"width"`
	Height  int           `json:"height"`
	Objects []LevelObject `json:"objects"`
	// Cards and Hand are Part III's (card-engine.md §9); New refuses a
	// level with any.
	Cards []LevelCard `json:"cards,omitempty"`
	Hand  []string    `json:"hand,omitempty"`
	// Title and Note are free text for level authors; the engine ignores
	// them.
	Title string `json:"title,omitempty"`
	Note  string `json:"note,omitempty"`
}

// LevelObject is one object of a level: a kind and its tile.
type LevelObject struct {
	Kind string `json:"kind"`
	X    int    `json:"x"`
	Y    int    `json:"y"`
}

// LevelCard is a minion in play at the start of a SpellGrid level (Part III).
type LevelCard struct {
	Card string `json:"card"`
	X    int    `json:"x"`
	Y    int    `json:"y"`
}

// UnmarshalJSON reads a level strictly: width and height are required
// whole numbers, every member has its JSON type, an unknown or repeated
// field is an error naming it. The values themselves (sizes, kinds, tiles)
// are checked by New.
func (l *LevelDef) UnmarshalJSON(data []byte) error {
	ms, err := session.Members(data)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrLevel, err)
	}
	var def LevelDef
	var haveWidth, haveHeight bool
	for _, m := range ms {
		switch m.Key {
		case "width":
			def.Width, err = wholeField(m.Key, m.Value)
			haveWidth = true
		case "height":
			def.Height, err = wholeField(m.Key, m.Value)
			haveHeight = true
		case "objects":
			def.Objects, err = decodeEntries(m.Value, m.Key, "kind", func(o *LevelObject) (*string, *int, *int) { return &o.Kind, &o.X, &o.Y })
		case "cards":
			def.Cards, err = decodeEntries(m.Value, m.Key, "card", func(c *LevelCard) (*string, *int, *int) { return &c.Card, &c.X, &c.Y })
		case "hand":
			if json.Unmarshal(m.Value, &def.Hand) != nil {
				err = fmt.Errorf("hand: not an array of strings")
			} else if len(def.Hand) == 0 {
				def.Hand = nil
			}
		case "title":
			err = stringField(m.Key, m.Value, &def.Title)
		case "note":
			err = stringField(m.Key, m.Value, &def.Note)
		default:
			return fmt.Errorf("%w: unknown field %q", ErrLevel, session.Clip(m.Key))
		}
		if err != nil {
			return fmt.Errorf("%w: %v", ErrLevel, err)
		}
	}
	if !haveWidth {
		return fmt.Errorf("%w: width is missing", ErrLevel)
	}
	if !haveHeight {
		return fmt.Errorf("%w: height is missing", ErrLevel)
	}
	*l = def
	return nil
}

// decodeEntries reads the array key of {name: string, "x": int, "y": int}
// objects; null and [] are nil. fields points into an entry. Errors
// name the entry and its field: "objects[2].x: not an integer: 1.5".
func decodeEntries[T any](raw json.RawMessage, key, name string, fields func(*T) (*string, *int, *int)) ([]T, error) {
	var items []json.RawMessage
	if json.Unmarshal(raw, &items) != nil {
		return nil, fmt.Errorf("%s: not an array", key)
	}
	if len(items) == 0 {
		return nil, nil
	}
	out := make([]T, len(items))
	for i, item := range items {
		at := fmt.Sprintf("%s[%d]", key, i)
		ms, err := session.Members(item)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", at, err)
		}
		s, x, y := fields(&out[i])
		var have [3]bool
		for _, m := range ms {
			field := at + "." + m.Key
			switch m.Key {
			case name:
				err = stringField(field, m.Value, s)
				have[0] = true
			case "x":
				*x, err = wholeField(field, m.Value)
				have[1] = true
			case "y":
				*y, err = wholeField(field, m.Value)
				have[2] = true
			default:
				return nil, fmt.Errorf("%s: unknown field %q", at, session.Clip(m.Key))
			}
			if err != nil {
				return nil, err
			}
		}
		for k, f := range [3]string{name, "x", "y"} {
			if !have[k] {
				return nil, fmt.Errorf("%s: %s is missing", at, f)
			}
		}
	}
	return out, nil
}

// wholeField reads the field what, a whole JSON number (2 or 2.0) that
// fits an int32.
func wholeField(what string, raw json.RawMessage) (int, error) {
	v, ok := session.Whole(raw)
	if !ok || v < math.MinInt32 || v > math.MaxInt32 {
		return 0, fmt.Errorf("%s: not an integer: %s", what, session.Clip(string(raw)))
	}
	return int(v), nil
}

// stringField reads the field what, a JSON string (not null), into s.
func stringField(what string, raw json.RawMessage, s *string) error {
	if len(raw) == 0 || raw[0] != '"' || json.Unmarshal(raw, s) != nil {
		return fmt.Errorf("%s: not a string: %s", what, session.Clip(string(raw)))
	}
	return nil
}

// check validates a level against §4, naming the offending entry.
func (l *LevelDef) check() error { return l.checkWith(parseKind) }

// checkWith is check with the kinds read by parse.
func (l *LevelDef) checkWith(parse func(string) (kind, bool)) error {
	if l.Width < 1 || l.Width > MaxSide || l.Height < 1 || l.Height > MaxSide {
		return fmt.Errorf("%w: %d×%d: width and height must lie in 1..%d", ErrLevel, l.Width, l.Height, MaxSide)
	}
	if len(l.Cards) > 0 || len(l.Hand) > 0 {
		return fmt.Errorf("%w: cards and hand belong to a SpellGrid, not a plain Baba", ErrLevel)
	}
	if len(l.Objects) > MaxObjects {
		return fmt.Errorf("%w: %d objects: %w (at most %d)", ErrLevel, len(l.Objects), ErrTooMany, MaxObjects)
	}
	for i, o := range l.Objects {
		if _, ok := parse(o.Kind); !ok {
			return fmt.Errorf("%w: objects[%d]: kind %q: %w", ErrLevel, i, session.Clip(o.Kind), ErrKind)
		}
		if o.X < 0 || o.X >= l.Width || o.Y < 0 || o.Y >= l.Height {
			return fmt.Errorf("%w: objects[%d]: (%d, %d): %w %d×%d", ErrLevel, i, o.X, o.Y, ErrOutside, l.Width, l.Height)
		}
	}
	return nil
}
