package games

import (
	"testing"

	"github.com/roomd/roomd/core/session/sessiontest"
)

// TestGameKit runs the game kit (sessiontest.Run) on every game of this
// build's registry: a game added to the registry is run through it
// without a line here.
func TestGameKit(t *testing.T) {
	reg := Registry()
	for _, info := range reg.Games() {
		g, _ := reg.Lookup(info.ID)
		t.Run(info.ID, func(t *testing.T) {
			t.Parallel()
			sessiontest.Run(t, g)
		})
	}
}
