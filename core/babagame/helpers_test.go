package babagame

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/roomd/roomd/core/session"
	"github.com/roomd/roomd/core/session/sessiontest"
)

// tb is what the helpers need of *testing.T and *rapid.T alike.
type tb = sessiontest.TB

var (
	encode      = sessiontest.Encode
	asRejection = sessiontest.AsRejection
)

// newSession starts a session of Game on a test clock (1000 ms a read).
func newSession(t tb, config string, seats int) *session.GameSession {
	t.Helper()
	return sessiontest.NewSession(t, Game, 1, config, seats)
}

// stateOf returns the typed state of a match of Game.
func stateOf(t tb, m session.Match) *State {
	t.Helper()
	return sessiontest.State[*State](t, m)
}

// everything is the observable state of a match: status, pending seats,
// and every viewer's audience and view, as JSON.
func everything(t tb, m session.Match, seats int) string {
	t.Helper()
	return sessiontest.Everything(t, m, seats)
}

// step is the JSON command stepping in the direction of a letter of
// "udlr".
func step(letter byte) json.RawMessage {
	word := map[byte]string{'u': "up", 'd': "down", 'l': "left", 'r': "right"}[letter]
	return json.RawMessage(fmt.Sprintf(`{"type":"step","dir":%q}`, word))
}

var (
	undo    = json.RawMessage(`{"type":"undo"}`)
	restart = json.RawMessage(`{"type":"restart"}`)
)

// play sends seat's commands, one letter each: "udlr" steps, 'z' undo,
// 'x' restart; it fails on any rejection.
func play(t tb, s *session.GameSession, seat Seat, commands string) {
	t.Helper()
	for i := range len(commands) {
		if _, err := s.Apply(seat, command(commands[i])); err != nil {
			t.Fatalf("command %d (%c) of %q by seat %d: %v", i, commands[i], commands, seat, err)
		}
	}
}

// command is the JSON command of a letter of play.
func command(letter byte) json.RawMessage {
	switch letter {
	case 'z':
		return undo
	case 'x':
		return restart
	}
	if !strings.ContainsRune("udlr", rune(letter)) {
		panic(fmt.Sprintf("no command %q", letter))
	}
	return step(letter)
}

// levelConfig is the config of a level in a control.
func levelConfig(id, control string) string {
	return fmt.Sprintf(`{"level":%q,"control":%q}`, id, control)
}
