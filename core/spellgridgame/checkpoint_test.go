package spellgridgame

import (
	"encoding/json"
	"testing"

	"github.com/roomd/roomd/core/session"
)

func TestResume(t *testing.T) {
	seed := session.IntSeed(1)
	ok := `{"version":1,"level":"golem","commands":[{"type":"cast","card":"Fireball","target":22},{"type":"cast","card":"Whirlwind"},{"type":"step","dir":"right"}]}`
	m, err := Game.Resume(seed, json.RawMessage(`{"level":"golem"}`), Seats, []byte(ok))
	if err != nil {
		t.Fatal(err)
	}
	if v := m.View(0).(View); v.Moves != 3 || len(v.Minions) != 0 || len(v.Hand) != 0 {
		t.Fatalf("resumed view %s", encode(t, v))
	}
	for _, bad := range []string{
		`{"version":1,"level":"scribe","commands":[]}`, // not the config's level
		`{"version":1,"level":"golem","commands":[{"type":"undo"}]}`,
		`{"version":1,"level":"golem","commands":[{"type":"cast","card":"Fireball","target":1}]}`, // refused
		`{"version":1,"level":"golem","commands":[{"type":"fly"}]}`,
		`{"version":1,"level":"golem","commands":{}}`,
		`[]`,
		`{"version":2,"level":"golem","commands":[]}`,
		`{"level":"golem","commands":[]}`,
	} {
		if _, err := Game.Resume(seed, json.RawMessage(`{"level":"golem"}`), Seats, []byte(bad)); err == nil {
			t.Errorf("Resume(%s) accepted", bad)
		}
	}
}
