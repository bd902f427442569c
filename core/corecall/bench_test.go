package corecall

import (
	"fmt"
	"testing"

	"github.com/roomd/roomd/core/games"
)

// BenchmarkFlagToggle is a Minesweeper flag toggle through Call, the
// native twin of what the browser's local core answers (TestLocalCoreInBrowser).
func BenchmarkFlagToggle(b *testing.B) {
	c := New(games.Registry())
	c.Call([]byte(`{"op":"new","game":"minesweeper","seed":5,"config":{"mode":"solo","level":"beginner"},"seats":1}`))
	c.Call([]byte(`{"op":"apply","session":1,"seat":0,"command":{"type":"reveal","r":4,"c":4},"t":0,"viewers":[0]}`))
	i := 0
	for b.Loop() {
		c.Call(fmt.Appendf(nil, `{"op":"apply","session":1,"seat":0,"command":{"type":"flag","r":0,"c":%d},"t":%d,"viewers":[0]}`, i%2, 1+i))
		i++
	}
}
