package babagame

import "github.com/roomd/roomd/core/baba"

// MaxSteps is the most directions a match keeps (baba.md §9): a step
// beyond it is refused; undo and restart still work.
const MaxSteps = 10_000

// CacheEvery is how often the history keeps a clone of the engine: after
// 0, CacheEvery, 2·CacheEvery, … steps. An undo replays fewer than
// CacheEvery steps from the last clone at or before its target.
const CacheEvery = 64

// history is the authoritative state of a level: its accepted directions,
// and the engine they lead to, with cached clones to rebuild from.
type history struct {
	level *Level
	dirs  []baba.Dir
	// cache[i] is the engine after i·CacheEvery steps; cache[0] is the
	// level's start. The clones are never stepped.
	cache []*baba.Baba
	// cur is the engine after every direction in dirs.
	cur *baba.Baba
}

// newHistory starts the level.
func newHistory(l *Level) history {
	return history{level: l, cache: []*baba.Baba{l.start}, cur: l.start.Clone()}
}

// step plays d.
func (h *history) step(d baba.Dir) {
	h.cur.Step(d)
	h.dirs = append(h.dirs, d)
	if len(h.dirs)%CacheEvery == 0 {
		h.cache = append(h.cache, h.cur.Clone())
	}
}

// undo drops the last direction and rebuilds the engine from the last
// cached clone at or before the shorter history.
func (h *history) undo() {
	h.dirs = h.dirs[:len(h.dirs)-1]
	n := len(h.dirs)
	h.cache = h.cache[:n/CacheEvery+1]
	h.cur = h.cache[len(h.cache)-1].Clone()
	for _, d := range h.dirs[(len(h.cache)-1)*CacheEvery:] {
		h.cur.Step(d)
	}
}

// restart drops every direction.
func (h *history) restart() {
	h.dirs = h.dirs[:0]
	h.cache = h.cache[:1]
	h.cur = h.cache[0].Clone()
}
