package babagame

import (
	"testing"

	"github.com/roomd/roomd/core/session"
)

// recorded is a whole match of Rock Is You as a room would store it, two
// seats in turns: a wrong step, its undo (by the other seat), a restart,
// and the solution.
const recorded = `{"seed":7,"config":{"level":"rock-is-you","control":"turns"},"seats":2,"log":[
 {"seat":0,"move":{"type":"step","dir":"right"},"t":1000},
 {"seat":0,"move":{"type":"undo"},"t":2000},
 {"seat":1,"move":{"type":"step","dir":"up"},"t":3000},
 {"seat":1,"move":{"type":"restart"},"t":4000},
 {"seat":0,"move":{"type":"step","dir":"up"},"t":5000},
 {"seat":1,"move":{"type":"step","dir":"up"},"t":6000},
 {"seat":1,"move":{"type":"step","dir":"left"},"t":6500},
 {"seat":0,"move":{"type":"step","dir":"right"},"t":7000},
 {"seat":1,"move":{"type":"step","dir":"down"},"t":8000},
 {"seat":0,"move":{"type":"step","dir":"down"},"t":9000},
 {"seat":1,"move":{"type":"step","dir":"down"},"t":10000}
]}`

// Replaying a recorded match gives the verdict and the final view of the
// match played live; the step out of turn is skipped as a no-op.
func TestReplay(t *testing.T) {
	rec, err := session.DecodeRecord([]byte(recorded))
	if err != nil {
		t.Fatal(err)
	}
	v := session.Replay(Game, rec)
	if !v.Valid || v.Status != PhaseWon || v.Time != 9000 {
		t.Fatalf("verdict %+v, want valid, won, in 9000 ms", v)
	}

	s := newSession(t, string(rec.Config), 2)
	for i, e := range rec.Log {
		if _, err := s.ApplyAt(e.Seat, e.Move, e.T); err != nil && i != 6 {
			t.Fatalf("entry %d: %v", i, err)
		}
	}
	_, replayed := session.ReplayMatch(Game, rec)
	if got, want := everything(t, replayed, 2), everything(t, s.Match(), 2); got != want {
		t.Fatalf("replayed\n%s\nlive\n%s", got, want)
	}
	if view := replayed.View(session.Spectator).(View); !view.Won || view.Moves != 6 {
		t.Errorf("final view won %v after %d moves", view.Won, view.Moves)
	}
}
