package connectfour

import (
	"testing"

	"github.com/roomd/roomd/core/session/sessiontest"
)

// TestKit: Connect Four passes roomd's game kit, as every game must.
func TestKit(t *testing.T) { sessiontest.Run(t, Game) }
