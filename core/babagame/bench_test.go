package babagame

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/roomd/roomd/core/session"
)

// longCheckpoint is a checkpoint of Baba Is You with MaxSteps steps that
// walk baba about without winning.
func longCheckpoint(tb testing.TB) []byte {
	steps := strings.Repeat("uddu", MaxSteps/4)
	cp := `{"level":"baba-is-you","steps":"` + steps + `","played":` + "10000" + `}`
	if _, err := Game.Resume(session.IntSeed(1), nil, 1, []byte(cp)); err != nil {
		tb.Fatal(err)
	}
	return []byte(cp)
}

// BenchmarkRestore10k measures restoring a room whose level holds
// MaxSteps steps: Resume replays them all from the level's start, caching
// a clone every CacheEvery steps.
func BenchmarkRestore10k(b *testing.B) {
	cp := longCheckpoint(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Game.Resume(session.IntSeed(1), json.RawMessage(`{}`), 1, cp); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkUndo10k measures an undo at the end of MaxSteps steps: a
// rebuild from the last cached clone.
func BenchmarkUndo10k(b *testing.B) {
	m, err := Game.Resume(session.IntSeed(1), nil, 1, longCheckpoint(b))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := m.Apply(session.Command{Move: undo}); err != nil {
			b.Fatal(err)
		}
		if _, err := m.Apply(session.Command{Move: step('u')}); err != nil {
			b.Fatal(err)
		}
	}
}
