package spellgridgame

import (
	"encoding/json"
	"fmt"

	"github.com/roomd/roomd/core/session"
	"github.com/roomd/roomd/core/session/sessiontest"
)

// newSession starts a session of the level (its id; "" for the default)
// whose clock ticks 1000 ms per read.
func newSession(t sessiontest.TB, level string) *session.GameSession {
	config := `{}`
	if level != "" {
		config = fmt.Sprintf(`{"level":%q}`, level)
	}
	return sessiontest.NewSession(t, Game, 1, config, Seats)
}

// view returns the session's view, typed.
func view(s *session.GameSession) View { return s.Match().View(session.Spectator).(View) }

// encode marshals v, failing the test on error.
func encode(t sessiontest.TB, v any) string { return sessiontest.Encode(t, v) }

// Commands in their JSON forms.
func step(dir string) json.RawMessage { return cmd(`{"type":"step","dir":%q}`, dir) }
func cast(card string, target int) json.RawMessage {
	if target == 0 {
		return cmd(`{"type":"cast","card":%q}`, card)
	}
	return cmd(`{"type":"cast","card":%q,"target":%d}`, card, target)
}
func play(card string, x, y int) json.RawMessage {
	return cmd(`{"type":"play","card":%q,"x":%d,"y":%d}`, card, x, y)
}
func undo() json.RawMessage    { return cmd(`{"type":"undo"}`) }
func restart() json.RawMessage { return cmd(`{"type":"restart"}`) }

func cmd(format string, args ...any) json.RawMessage {
	return json.RawMessage(fmt.Sprintf(format, args...))
}

// apply plays command, failing the test when it is refused.
func apply(t sessiontest.TB, s *session.GameSession, command json.RawMessage) session.Step {
	t.Helper()
	st, err := s.Apply(0, command)
	if err != nil {
		t.Fatalf("%s refused: %v", command, err)
	}
	return st
}

// minionAt returns the id of the minion of the view on tile (x, y), or 0.
func minionAt(v View, x, y int) int {
	for _, m := range v.Minions {
		if m.X == x && m.Y == y {
			return int(m.ID)
		}
	}
	return 0
}

// steps repeats a direction n times.
func steps(dir string, n int) []json.RawMessage {
	out := make([]json.RawMessage, n)
	for i := range out {
		out[i] = step(dir)
	}
	return out
}
