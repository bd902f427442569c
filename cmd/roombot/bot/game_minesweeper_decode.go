package bot

import (
	"bytes"
	"encoding/json"
	"strings"
	"sync"

	"github.com/roomd/roomd/core/minesweeper"
)

// The hot path of following a Minesweeper match: every update's beats, and
// the views of each match's start and end and of every check's snapshot.
// encoding/json (the game's own decoders) spent about a fifth of the bots'
// CPU on them. What the server writes is the game's canonical form
// (minesweeper.Event.AppendJSON, minesweeper.View.AppendJSON): it is read
// here by hand, and anything else — spaces, another key order, a race's
// view, a negative or long number, a cell off the board — goes to the
// game's decoder, which gives the same result or names the error. The
// tests check both paths agree on real matches' frames.

// decodeMinesweeperBeats reads beats written exactly as AppendJSON writes
// them, each event as its UnmarshalJSON would decode it; ok is false for
// anything else.
func decodeMinesweeperBeats(raw []byte) (evs []minesweeper.Event, ok bool) {
	p := beatParser{b: raw}
	if !p.lit(`[`) {
		return nil, false
	}
	if p.lit(`]`) {
		return []minesweeper.Event{}, p.i == len(p.b)
	}
	for {
		e, good := p.minesweeperEvent()
		if !good {
			return nil, false
		}
		evs = append(evs, e)
		if p.lit(`]`) {
			return evs, p.i == len(p.b)
		}
		if !p.lit(`,`) {
			return nil, false
		}
	}
}

// minesweeperEvent reads one event in its canonical form:
//
//	{"type":T[,"seat":S] and T's fields in AppendJSON's order}
//
// and refuses (ok false) the forms the game's decoder refuses: an explode
// without mines that names no seat, a progress that names none.
func (p *beatParser) minesweeperEvent() (e minesweeper.Event, ok bool) {
	if !p.lit(`{"type":"`) {
		return e, false
	}
	for t := minesweeper.EventReveal; t <= minesweeper.EventProgress; t++ {
		if p.quoted(t.String()) {
			e.Type = t
			break
		}
	}
	if e.Type == 0 {
		return e, false
	}
	if p.lit(`,"seat":`) {
		if e.Seat, ok = p.int(); !ok {
			return e, false
		}
		e.Tagged = true
	}
	switch e.Type {
	case minesweeper.EventReveal:
		if !p.lit(`,"cells":[`) {
			return e, false
		}
		e.Cells = []minesweeper.RevealedCell{}
		for !p.lit(`]`) {
			if len(e.Cells) > 0 && !p.lit(`,`) {
				return e, false
			}
			var c minesweeper.RevealedCell
			if c.R, c.C, ok = p.rc(`{"r":`); !ok || !p.lit(`,"adjacent":`) {
				return e, false
			}
			if c.Adjacent, ok = p.int(); !ok || !p.lit(`}`) {
				return e, false
			}
			e.Cells = append(e.Cells, c)
		}
	case minesweeper.EventFlag:
		if e.R, e.C, ok = p.rc(`,"r":`); !ok || !p.lit(`,"flagged":`) {
			return e, false
		}
		switch {
		case p.lit(`true`):
			e.Flagged = true
		case p.lit(`false`):
		default:
			return e, false
		}
	case minesweeper.EventExplode:
		if e.R, e.C, ok = p.rc(`,"r":`); !ok {
			return e, false
		}
		if p.lit(`,"mines":[`) {
			if e.Mines, ok = p.mines(); !ok {
				return e, false
			}
		} else if !e.Tagged {
			return e, false // the game's decoder wants mines on a single board's explode
		}
	case minesweeper.EventEnd:
		if !p.lit(`,"mines":[`) {
			return e, false
		}
		if e.Mines, ok = p.mines(); !ok {
			return e, false
		}
	case minesweeper.EventProgress:
		if !e.Tagged || !p.lit(`,"phase":`) {
			return e, false
		}
		if e.Phase, ok = p.phase(); !ok || !p.lit(`,"revealed":`) {
			return e, false
		}
		if e.Revealed, ok = p.int(); !ok || !p.lit(`,"safe":`) {
			return e, false
		}
		if e.Safe, ok = p.int(); !ok || !p.lit(`,"flags":`) {
			return e, false
		}
		if e.Flags, ok = p.int(); !ok {
			return e, false
		}
	}
	return e, p.lit(`}`)
}

// rc reads prefix, a row, `,"c":` and a column.
func (p *beatParser) rc(prefix string) (r, c int, ok bool) {
	if !p.lit(prefix) {
		return 0, 0, false
	}
	if r, ok = p.int(); !ok || !p.lit(`,"c":`) {
		return 0, 0, false
	}
	c, ok = p.int()
	return r, c, ok
}

// mines reads the positions of a mines list after its `[`, and its `]`.
func (p *beatParser) mines() ([]minesweeper.Pos, bool) {
	out := []minesweeper.Pos{}
	for !p.lit(`]`) {
		if len(out) > 0 && !p.lit(`,`) {
			return nil, false
		}
		r, c, ok := p.rc(`{"r":`)
		if !ok || !p.lit(`}`) {
			return nil, false
		}
		out = append(out, minesweeper.Pos{R: r, C: c})
	}
	return out, true
}

// phase reads a board phase's name, quoted.
func (p *beatParser) phase() (minesweeper.Phase, bool) {
	if !p.lit(`"`) {
		return 0, false
	}
	for ph := minesweeper.PhaseFresh; ph <= minesweeper.PhaseLost; ph++ {
		if p.quoted(ph.String()) {
			return ph, true
		}
	}
	return 0, false
}

// quoted reads name and the closing quote of a string whose opening quote
// has been read.
func (p *beatParser) quoted(name string) bool {
	if len(p.b)-p.i > len(name) && string(p.b[p.i:p.i+len(name)]) == name && p.b[p.i+len(name)] == '"' {
		p.i += len(name) + 1
		return true
	}
	return false
}

// decodeMinesweeperView reads a solo or co-op view written exactly as
// View.AppendJSON writes it, as View.UnmarshalJSON would decode it; ok is
// false for anything else, a race's view included (the game's decoder
// reads those: a few per match).
func decodeMinesweeperView(raw []byte) (v minesweeper.View, ok bool) {
	p := beatParser{b: raw}
	if !p.lit(`{"config":`) {
		return v, false
	}
	cfgRaw, ok := p.object()
	if !ok {
		return v, false
	}
	cfg, err := msConfig(cfgRaw)
	if err != nil || !p.lit(`,"phase":`) {
		return v, false
	}
	v = minesweeper.View{Config: cfg.Raw(), Rows: cfg.Rows, Cols: cfg.Cols, Mines: cfg.Mines}
	if v.Phase, ok = p.phase(); !ok || !p.lit(`,"cells":[`) {
		return v, false
	}
	// One `{` a cell: the list's length, so that it is allocated once.
	v.Cells = make([]minesweeper.ViewCell, 0, bytes.Count(raw[p.i:], []byte{'{'}))
	for !p.lit(`]`) {
		if len(v.Cells) > 0 && !p.lit(`,`) {
			return v, false
		}
		var c minesweeper.ViewCell
		if c.R, c.C, ok = p.rc(`{"r":`); !ok || !p.lit(`,"status":"`) {
			return v, false
		}
		if c.R >= cfg.Rows || c.C >= cfg.Cols {
			return v, false // off the board: the game's decoder names the error
		}
		switch {
		case p.lit(`revealed","adjacent":`):
			c.Status = minesweeper.Revealed
			if c.Adjacent, ok = p.int(); !ok || !p.lit(`,"mine":`) {
				return v, false
			}
			if c.Mine, ok = p.boolean(); !ok {
				return v, false
			}
		case p.lit(`hidden","mine":`):
			c.Status = minesweeper.Hidden
			if c.Mine, ok = p.boolean(); !ok {
				return v, false
			}
		case p.lit(`flagged"`):
			c.Status = minesweeper.Flagged
		default:
			return v, false
		}
		if !p.lit(`}`) {
			return v, false
		}
		v.Cells = append(v.Cells, c)
	}
	return v, p.lit(`}`) && p.i == len(p.b)
}

// msConfigs are the configs msConfig decoded last, with their bytes: a run
// has few (a view's, with its dimensions, and a result's, with the level),
// and decoding them through encoding/json was half of the fast path's time.
var msConfigs struct {
	mu   sync.Mutex
	next int
	ents [4]struct {
		raw string
		cfg minesweeper.Config
	}
}

// msConfig decodes a config as the game's decoder does, a recent one from
// memory. The decoded config is shared: nothing changes it.
func msConfig(raw []byte) (minesweeper.Config, error) {
	c := &msConfigs
	c.mu.Lock()
	for i := range c.ents {
		if e := &c.ents[i]; e.raw != "" && e.raw == string(raw) {
			cfg := e.cfg
			c.mu.Unlock()
			return cfg, nil
		}
	}
	c.mu.Unlock()
	cfg, err := minesweeper.DecodeConfig(raw)
	if err == nil && len(raw) > 0 {
		c.mu.Lock()
		c.ents[c.next].raw, c.ents[c.next].cfg = string(raw), cfg
		c.next = (c.next + 1) % len(c.ents)
		c.mu.Unlock()
	}
	return cfg, err
}

// boolean reads true or false.
func (p *beatParser) boolean() (bool, bool) {
	switch {
	case p.lit(`true`):
		return true, true
	case p.lit(`false`):
		return false, true
	}
	return false, false
}

// object reads a flat JSON object of plain strings and numbers, as the
// config of a view is written, and returns its bytes.
func (p *beatParser) object() ([]byte, bool) {
	start := p.i
	if !p.lit(`{`) {
		return nil, false
	}
	for p.i < len(p.b) {
		switch c := p.b[p.i]; {
		case c == '}':
			p.i++
			return p.b[start:p.i], true
		case c == '"':
			if _, ok := p.str(); !ok {
				return nil, false
			}
		case c == '{' || c == '[' || c == '\\':
			return nil, false // not the flat form: the game's decoder reads it
		default:
			p.i++
		}
	}
	return nil, false
}

// msLogEntry is what the leak check reads of a result's log entry.
type msLogEntry struct {
	Seat int             `json:"seat"`
	Move json.RawMessage `json:"move"`
}

// decodeMinesweeperLog reads a result's log, valid JSON written as
// json.Marshal writes []session.Entry ({"seat":S,"move":{…},"t":T} with
// seat and tick omitted when zero), as encoding/json would decode it into
// msLogEntry; ok is false for anything else. Every bot of a room reads the
// log of every match it played: through encoding/json it was most of the
// leak check's time.
func decodeMinesweeperLog(raw []byte) (log []msLogEntry, ok bool) {
	p := beatParser{b: raw}
	if !p.lit(`[`) {
		return nil, false
	}
	if p.lit(`]`) {
		return []msLogEntry{}, p.i == len(p.b)
	}
	for {
		var e msLogEntry
		if !p.lit(`{`) {
			return nil, false
		}
		if p.lit(`"seat":`) {
			if e.Seat, ok = p.int(); !ok || !p.lit(`,`) {
				return nil, false
			}
		}
		if !p.lit(`"move":`) {
			return nil, false
		}
		if e.Move, ok = p.object(); !ok || !p.lit(`,"t":`) || !p.number() {
			return nil, false
		}
		if p.lit(`,"tick":`) {
			if _, ok = p.int(); !ok {
				return nil, false
			}
		}
		if !p.lit(`}`) {
			return nil, false
		}
		log = append(log, e)
		if p.lit(`]`) {
			return log, p.i == len(p.b)
		}
		if !p.lit(`,`) {
			return nil, false
		}
	}
}

// number reads the characters of a JSON number (the caller knows the
// JSON is valid).
func (p *beatParser) number() bool {
	start := p.i
	for p.i < len(p.b) && strings.IndexByte("0123456789+-.eE", p.b[p.i]) >= 0 {
		p.i++
	}
	return p.i > start
}
