package bot

import (
	"bytes"

	"github.com/roomd/roomd/protocol"
)

// A bot's leak checks: the frames it received during each match, kept until
// the match's result publishes its seed, then checked against it.

// maxMatchBytes bounds the frames one bot keeps for one match's leak check.
const maxMatchBytes = 8 << 20

// matchFrames are the snapshot and update frames a bot received during one
// match, before its end, kept until the match's seed is published; of a
// real-time game's frames, only their runs of hex digits (see bot.record).
type matchFrames struct {
	match     int
	frames    []matchFrame
	bytes     int
	truncated bool
	runs      map[string]bool // the hex runs kept of a real-time game's frames
}

// addRuns keeps a frame's runs of hex digits (see hexRuns) as a frame of
// their own, each run once a match.
func (m *matchFrames) addRuns(raw []byte) {
	var runs []byte
	for _, run := range hexRuns(raw) {
		if !m.runs[string(run)] {
			if m.runs == nil {
				m.runs = map[string]bool{}
			}
			m.runs[string(run)] = true
			runs = append(append(runs, ' '), run...)
		}
	}
	if len(runs) > 0 {
		m.add(matchFrame{raw: append(runs, ' ')})
	}
}

func (m *matchFrames) add(f matchFrame) {
	if m.bytes+len(f.raw) > maxMatchBytes {
		m.truncated = true
		return
	}
	m.frames = append(m.frames, f)
	m.bytes += len(f.raw)
}

// endMatch checks the frames of the match that res ends.
func (b *bot) endMatch(res protocol.Result) {
	if b.cur != nil && b.cur.match == res.Match {
		b.checkFrames(b.cur, res)
		b.cur = nil
	}
}

// parkMatch keeps the current match's frames until its result is known.
func (b *bot) parkMatch() {
	if b.cur != nil {
		if res, ok := b.room.led.result(b.cur.match); ok {
			b.checkFrames(b.cur, res)
		} else {
			b.parked = append(b.parked, b.cur)
		}
		b.cur = nil
	}
}

// addResult records a match's result in the room's ledger; the first bot
// of the room to see it (in an update or, back from a lost socket, in a
// snapshot) counts the match as ended.
func (b *bot) addResult(res protocol.Result) {
	if b.room.led.addResult(res) {
		b.sc.st.count("matches/ended/"+res.Status, 1)
	}
}

func (b *bot) checkFrames(m *matchFrames, res protocol.Result) {
	st := b.sc.st
	if len(res.Log) == 0 {
		// Seen only in a snapshot: the match's moves come from the room's
		// replay (GET /api/rooms/{code}/replay), fetched once per room.
		if rp, err := b.sc.replay(b.ctx, b.node, b.room.code); err == nil && rp.Result.Match == res.Match {
			res.Log = rp.Log
			b.room.led.addResult(res)
			st.count("checks/replays-fetched", 1)
		}
	}
	if len(res.Log) == 0 {
		// The match ended while this bot was away, and the room has
		// played another since (its replay is the last match's only):
		// its moves, which the checks rebuild the hidden state from, are
		// gone. Counted, not checked — not a fault of the server.
		st.count("checks/leak-no-log", 1)
		return
	}
	st.count("checks/leak-matches", 1)
	if !b.sc.play.game.realtime { // a real-time game's are counted as they come (see record)
		st.count("checks/leak-frames", int64(len(m.frames)))
	}
	if m.truncated {
		st.count("checks/leak-truncated", 1)
	}
	seat := b.seat
	if b.role == roleSpectator {
		seat = -1
	}
	for _, f := range b.sc.play.game.checkLeaks(m.frames, res, seat) {
		b.sc.viol.add(f.kind, "%s (%s, room %s): %s", b.name, b.role, b.room.code, f.detail)
	}
}

// record keeps a snapshot or update of the running match for its leak
// checks. A turn-based game's frames are kept whole until the match's
// seed is published. A real-time game's are far more (a snapshot of every
// check, for minutes): what they may not show whatever the result is
// checked at once, and of each only its runs of hex digits are kept for
// the seed check (see hexRuns), each run once a match.
func (b *bot) record(f matchFrame) {
	g := b.sc.play.game
	if !g.realtime {
		b.cur.add(f)
		return
	}
	b.sc.st.rtLeakFrames.Add(1)
	seat := b.seat
	if b.role == roleSpectator {
		seat = -1
	}
	// Without the result's seed, checkLeaks looks for a "seed" key only.
	for _, fd := range g.checkLeaks([]matchFrame{f}, protocol.Result{Match: b.cur.match}, seat) {
		b.sc.viol.add(fd.kind, "%s (%s, room %s): %s", b.name, b.role, b.room.code, fd.detail)
	}
	b.cur.addRuns(f.raw)
}

// hexRuns returns a frame's runs of at least 7 hex digits, lowercased:
// where the seed check (seedFinder) can find a seed, the shortest it looks
// for being 7 digits.
func hexRuns(raw []byte) [][]byte {
	var out [][]byte
	start := -1
	for i := 0; i <= len(raw); i++ {
		hex := i < len(raw) && (raw[i] >= '0' && raw[i] <= '9' || raw[i] >= 'a' && raw[i] <= 'f' || raw[i] >= 'A' && raw[i] <= 'F')
		switch {
		case hex && start < 0:
			start = i
		case !hex && start >= 0:
			if i-start >= 7 {
				out = append(out, bytes.ToLower(raw[start:i]))
			}
			start = -1
		}
	}
	return out
}
