package room

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/roomd/roomd/core/babagame"
	"github.com/roomd/roomd/core/minesweeper"
	"github.com/roomd/roomd/core/nim"
	"github.com/roomd/roomd/core/session"
	"github.com/roomd/roomd/protocol"
)

// The reducer's lobby rules, table-tested on the pure state: each case
// starts from a fresh room (a host "h" in a co-op Minesweeper lobby unless
// it says otherwise), applies its entries in order and checks the last one's
// refusal code (or acceptance) and the state it leaves.

var testGames = session.NewRegistry(minesweeper.Game, nim.Game, babagame.Game)

func lobby(t *testing.T, game, settings string) *state {
	t.Helper()
	s, err := newState(testGames, "ROOM", "E0", game, json.RawMessage(settings), 1000)
	if err != nil {
		t.Fatal(err)
	}
	s.Players, s.Host = []*player{{ID: "h", Name: "Host"}}, "h"
	return s
}

func joinE(ids ...string) *entry {
	e := &entry{Kind: kindJoin, By: ids[0]}
	for _, id := range ids {
		e.Players = append(e.Players, &player{ID: id, Name: strings.ToUpper(id)})
	}
	return e
}

func names(s *state) string {
	var out []string
	for _, p := range s.Players {
		n := p.Name
		if p.AI {
			n += "(ai)"
		}
		if p.Gone {
			n += "(gone)"
		}
		if p.Ready {
			n += "(ready)"
		}
		out = append(out, n)
	}
	return strings.Join(out, ",")
}

func TestStateApplyLobbyRules(t *testing.T) {
	coop := `{"mode":"coop","level":"beginner"}`
	for _, tc := range []struct {
		name     string
		game     string
		settings string
		entries  []*entry
		refused  string // the last entry's refusal code; "" accepted
		check    func(t *testing.T, s *state)
	}{
		{name: "a join takes the next seat", entries: []*entry{joinE("a")},
			check: func(t *testing.T, s *state) {
				if names(s) != "Host,A" || s.MetaRev != 1 {
					t.Fatalf("seats %s metaRev %d", names(s), s.MetaRev)
				}
			}},
		{name: "a join past the mode's seats is refused", entries: []*entry{joinE("a", "b", "c"), joinE("d")}, refused: protocol.CodeRoomFull},
		{name: "a taken name gets a suffix", entries: []*entry{{Kind: kindJoin, By: "a", Players: []*player{{ID: "a", Name: "Host"}}}},
			check: func(t *testing.T, s *state) {
				if names(s) != "Host,Host (2)" {
					t.Fatalf("seats %s", names(s))
				}
			}},
		{name: "ready needs a seat", entries: []*entry{{Kind: kindReady, By: "x", Ready: true}}, refused: protocol.CodeWrongSeat},
		{name: "settings are the host's", entries: []*entry{joinE("a"), {Kind: kindSettings, By: "a", Settings: json.RawMessage(`{"level":"expert"}`)}}, refused: protocol.CodeNotHost},
		{name: "settings the game refuses", entries: []*entry{{Kind: kindSettings, By: "h", Settings: json.RawMessage(`{"level":"huge"}`)}}, refused: protocol.CodeInvalidSettings},
		{name: "settings for fewer seats than are taken", entries: []*entry{joinE("a"), {Kind: kindSettings, By: "h", Settings: json.RawMessage(`{"mode":"solo"}`)}}, refused: protocol.CodeInvalidSettings},
		{name: "new settings clear every ready", entries: []*entry{joinE("a"), {Kind: kindReady, By: "a", Ready: true}, {Kind: kindSettings, By: "h", Settings: json.RawMessage(`{"mode":"race","level":"expert"}`)}},
			check: func(t *testing.T, s *state) {
				if names(s) != "Host,A" || s.setup.Mode.ID != "race" || s.setup.Board != "expert" {
					t.Fatalf("seats %s mode %s board %s", names(s), s.setup.Mode.ID, s.setup.Board)
				}
			}},
		{name: "fill needs a mode with an AI", settings: `{"mode":"solo"}`, entries: []*entry{{Kind: kindFill, By: "h", Players: []*player{{ID: "ai", AI: true}}}}, refused: protocol.CodeInvalidControl},
		{name: "remove is the host's", entries: []*entry{joinE("a"), joinE("b"), {Kind: kindRemove, By: "a", Target: "b"}}, refused: protocol.CodeNotHost},
		{name: "the host cannot remove their own seat", entries: []*entry{{Kind: kindRemove, By: "h", Target: "h"}}, refused: protocol.CodeInvalidControl},
		{name: "a removal renumbers the seats after it", entries: []*entry{joinE("a"), joinE("b"), {Kind: kindRemove, By: "h", Target: "a"}},
			check: func(t *testing.T, s *state) {
				if names(s) != "Host,B" || s.seatOf("b") != 1 {
					t.Fatalf("seats %s", names(s))
				}
			}},
		{name: "start needs every human ready", entries: []*entry{joinE("a"), {Kind: kindStart, By: "h", Seed: session.IntSeed(1)}}, refused: protocol.CodeNotReady},
		{name: "start needs the mode's seats", game: "nim", settings: `{}`, entries: []*entry{{Kind: kindStart, By: "h", Seed: session.IntSeed(1)}}, refused: protocol.CodeNotReady},
		{name: "start runs a match", entries: []*entry{joinE("a"), {Kind: kindReady, By: "a", Ready: true}, {Kind: kindStart, By: "h", Seed: session.IntSeed(1)}},
			check: func(t *testing.T, s *state) {
				if s.Phase != phaseRunning || s.Match != 1 || s.MatchRev != 3 || s.sess == nil || s.logFrom != 4 || strings.Join(s.roster, ",") != "h,a" {
					t.Fatalf("phase %s match %d matchRev %d logFrom %d roster %v", s.Phase, s.Match, s.MatchRev, s.logFrom, s.roster)
				}
			}},
		{name: "no join once running", entries: []*entry{{Kind: kindStart, By: "h", Seed: session.IntSeed(1)}, joinE("a")}, refused: protocol.CodeWrongPhase},
		{name: "a command in the lobby", entries: []*entry{{Kind: kindCommand, By: "h", Move: json.RawMessage(`{"type":"flag","r":0,"c":0}`)}}, refused: protocol.CodeWrongPhase},
		{name: "a command the game refuses keeps its code", entries: []*entry{{Kind: kindStart, By: "h", Seed: session.IntSeed(1)}, {Kind: kindCommand, By: "h", Move: json.RawMessage(`{"type":"flag","r":99,"c":0}`)}}, refused: session.CodeOutOfBounds},
		{name: "resign ends the match, every other seat wins", game: "nim", settings: `{}`,
			entries: []*entry{joinE("a"), {Kind: kindReady, By: "a", Ready: true}, {Kind: kindStart, By: "h", Seed: session.IntSeed(1)}, {Kind: kindResign, By: "h"}},
			check: func(t *testing.T, s *state) {
				if s.Phase != phaseEnded || s.Result == nil || s.Result.Status != "resigned" || len(s.Result.Winners) != 1 || s.Result.Winners[0] != 1 || s.Result.Ranked {
					t.Fatalf("phase %s result %+v", s.Phase, s.Result)
				}
			}},
		{name: "leaving a running match with an AI hands the seat to it", entries: []*entry{joinE("a"), {Kind: kindReady, By: "a", Ready: true}, {Kind: kindStart, By: "h", Seed: session.IntSeed(1)}, {Kind: kindLeave, By: "h"}},
			check: func(t *testing.T, s *state) {
				if names(s) != "Host(ai)(gone),A(ready)" || s.Host != "a" || s.Phase != phaseRunning || s.Players[0].TokenHash != "" {
					t.Fatalf("seats %s host %s phase %s", names(s), s.Host, s.Phase)
				}
			}},
		{name: "leaving a running match with no AI ends it", settings: `{"mode":"solo"}`, entries: []*entry{{Kind: kindStart, By: "h", Seed: session.IntSeed(1)}, {Kind: kindLeave, By: "h"}},
			check: func(t *testing.T, s *state) {
				if s.Phase != phaseEnded || s.Result.Status != "resigned" || s.Host != "" {
					t.Fatalf("phase %s result %+v host %q", s.Phase, s.Result, s.Host)
				}
			}},
		{name: "a rematch is the host's, after the end, without the seats that left", game: "nim", settings: `{}`,
			entries: []*entry{joinE("a"), joinE("b"), {Kind: kindReady, By: "a", Ready: true}, {Kind: kindReady, By: "b", Ready: true},
				{Kind: kindStart, By: "h", Seed: session.IntSeed(1)}, {Kind: kindLeave, By: "b"}, {Kind: kindResign, By: "a"}, {Kind: kindRematch, By: "h", Seed: session.IntSeed(2)}},
			check: func(t *testing.T, s *state) {
				if names(s) != "Host,A(ready)" || s.Match != 2 || s.Phase != phaseRunning || s.Result != nil {
					t.Fatalf("seats %s match %d phase %s", names(s), s.Match, s.Phase)
				}
			}},
		{name: "a rematch under new settings plays them, and the room keeps them", settings: `{"mode":"coop","level":"beginner"}`,
			entries: []*entry{{Kind: kindStart, By: "h", Seed: session.IntSeed(1)}, {Kind: kindResign, By: "h"},
				{Kind: kindRematch, By: "h", Seed: session.IntSeed(2), Settings: json.RawMessage(`{"mode":"coop","level":"expert"}`)}},
			check: func(t *testing.T, s *state) {
				v, _ := json.Marshal(s.sess.Match().View(0))
				if s.Match != 2 || s.Phase != phaseRunning || !strings.Contains(string(s.Settings), `"expert"`) || !strings.Contains(string(v), `"expert"`) {
					t.Fatalf("match %d phase %s settings %s view %.120s", s.Match, s.Phase, s.Settings, v)
				}
			}},
		{name: "a rematch under settings the game refuses", settings: `{"mode":"coop","level":"beginner"}`,
			entries: []*entry{{Kind: kindStart, By: "h", Seed: session.IntSeed(1)}, {Kind: kindResign, By: "h"},
				{Kind: kindRematch, By: "h", Seed: session.IntSeed(2), Settings: json.RawMessage(`{"mode":"coop","level":"godlike"}`)}},
			refused: protocol.CodeInvalidSettings},
		{name: "a rematch under settings whose mode the seats do not fit", settings: `{"mode":"coop","level":"beginner"}`,
			entries: []*entry{joinE("a"), {Kind: kindReady, By: "a", Ready: true}, {Kind: kindStart, By: "h", Seed: session.IntSeed(1)}, {Kind: kindResign, By: "h"},
				{Kind: kindRematch, By: "h", Seed: session.IntSeed(2), Settings: json.RawMessage(`{"mode":"solo","level":"beginner"}`)}},
			refused: protocol.CodeInvalidSettings},
		{name: "a rematch before the end", entries: []*entry{{Kind: kindStart, By: "h", Seed: session.IntSeed(1)}, {Kind: kindRematch, By: "h", Seed: session.IntSeed(2)}}, refused: protocol.CodeWrongPhase},
		{name: "leaving the lobby frees the seat and passes the host on", entries: []*entry{joinE("a"), {Kind: kindLeave, By: "h"}},
			check: func(t *testing.T, s *state) {
				if names(s) != "A" || s.Host != "a" {
					t.Fatalf("seats %s host %s", names(s), s.Host)
				}
			}},
		{name: "a closed room takes nothing more", entries: []*entry{{Kind: kindClose}, joinE("a")}, refused: protocol.CodeWrongPhase},
		{name: "a new epoch", entries: []*entry{{Kind: kindEpoch, Epoch: "E1"}},
			check: func(t *testing.T, s *state) {
				if s.Epoch != "E1" {
					t.Fatalf("epoch %s", s.Epoch)
				}
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			game, settings := "minesweeper", coop
			if tc.game != "" {
				game = tc.game
			}
			if tc.settings != "" {
				settings = tc.settings
			}
			s := lobby(t, game, settings)
			for i, e := range tc.entries {
				e.Rev, e.T = s.Rev+1, int64(2000+i)
				before := s.Rev
				_, err := s.apply(e)
				last := i == len(tc.entries)-1
				switch {
				case err != nil && !(last && tc.refused != ""):
					t.Fatalf("entry %d (%s) refused: %v", i, e.Kind, err)
				case last && tc.refused != "":
					rf, ok := asRefusal(err)
					if !ok || rf.code != tc.refused {
						t.Fatalf("last entry: %v, want refusal %s", err, tc.refused)
					}
					if s.Rev != before {
						t.Fatal("a refused entry moved the revision")
					}
				}
			}
			if tc.check != nil {
				tc.check(t, s)
			}
		})
	}
}

// TestStateApplyOutOfOrder: an entry that does not follow the last revision
// is an error, not a refusal: the log does not belong to this state.
func TestStateApplyOutOfOrder(t *testing.T) {
	s := lobby(t, "minesweeper", `{}`)
	if _, err := s.apply(&entry{Rev: 5, Kind: kindReady, By: "h"}); err == nil {
		t.Fatal("rev 5 after 0 was applied")
	} else if _, ok := asRefusal(err); ok {
		t.Fatal("an out-of-order entry is a client refusal")
	}
}
