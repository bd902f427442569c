package room

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/roomd/roomd/core/cardgame"
	"github.com/roomd/roomd/core/session"
	"github.com/roomd/roomd/core/session/sessiontest"
	"github.com/roomd/roomd/protocol"
	"github.com/roomd/roomd/store"
	"github.com/roomd/roomd/store/memstore"
)

// tapMatch is a room of the Tap test game with its players connected.
type tapMatch struct {
	t       *testing.T
	r       *Room
	clients []*fakeClient
}

// startTap creates a Tap room for settings, seats the named humans (the
// first is the host) and, when ai, one AI seat, and starts the match.
func startTap(t *testing.T, m *Manager, settings string, ai bool, names ...string) *tapMatch {
	t.Helper()
	created, err := m.Create(t.Context(), CreateRequest{Game: "tap", Settings: json.RawMessage(settings), Name: names[0]})
	if err != nil {
		t.Fatal(err)
	}
	r, _ := m.Get(t.Context(), created.Room)
	tm := &tapMatch{t: t, r: r}
	host := newFake(names[0])
	r.Hello(host, &protocol.Hello{Room: r.Code(), Token: created.Token})
	tm.clients = append(tm.clients, host)
	for i, name := range names[1:] {
		c := newFake(name)
		r.Hello(c, &protocol.Hello{Room: r.Code(), Name: name})
		synctest.Wait()
		sendAct(t, r, c, fmt.Sprint("ready", i), protocol.TypeControl, nil, &protocol.Control{Op: protocol.ControlReady, Ready: true})
		tm.clients = append(tm.clients, c)
	}
	synctest.Wait()
	if ai {
		sendAct(t, r, host, "ai", protocol.TypeControl, nil, &protocol.Control{Op: protocol.ControlFillWithAI})
	}
	sendAct(t, r, host, "start", protocol.TypeControl, nil, &protocol.Control{Op: protocol.ControlStart})
	if ph := r.Info().Phase; ph != protocol.PhaseRunning {
		t.Fatalf("phase %s after start", ph)
	}
	return tm
}

// tap makes seat's human tap, a second after the last move.
func (tm *tapMatch) tap(seat int) {
	tm.t.Helper()
	time.Sleep(time.Second)
	c := tm.clients[seat]
	id := fmt.Sprintf("tap-%d", time.Now().UnixNano())
	sendAct(tm.t, tm.r, c, id, protocol.TypeCommand, json.RawMessage(`{"tap":true}`), nil)
	if rc := c.receipt(tm.t, id); !rc.OK {
		tm.t.Fatalf("tap refused: %+v", rc.Notice)
	}
}

// list reads a leaderboard as GET /api/leaderboards answers it, as
// "name value" pairs.
func list(t *testing.T, m *Manager, board, mode, period string) string {
	t.Helper()
	synctest.Wait() // the leaderboard writer has written what it was given
	b, err := m.Leaderboard(t.Context(), "tap", board, mode, period, 100)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, s := range b.Scores {
		out = append(out, fmt.Sprintf("%s %v", s.Name, s.Value))
	}
	return strings.Join(out, ", ")
}

// TestLeaderboardsRankOnlyHumanPlay: a match goes on its mode's lists (all
// time, the day, the week) with the host's time, under the names of the
// humans who moved; one entry per name; an AI-assisted match, and a board
// that keeps no lists, are on none — and the AI waits for a human's first
// move.
func TestLeaderboardsRankOnlyHumanPlay(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := memstore.New()
		m := bubbleManager(t, Config{Games: session.NewRegistry(sessiontest.Tap), Store: st, Leaderboards: st,
			AIDelay: 100 * time.Millisecond})

		// Solo: three taps a second apart: 2 s from the first.
		solo := startTap(t, m, `{"board":"short"}`, false, "Ann")
		for range 3 {
			solo.tap(0)
		}
		for _, period := range Periods {
			if got := list(t, m, "short", "solo", period); got != "Ann 2000" {
				t.Fatalf("solo %s list: %q, want Ann 2000", period, got)
			}
		}
		if got := list(t, m, "short", "", ""); got != "Ann 2000" {
			t.Fatalf("the default list (solo, all time): %q", got)
		}
		// A slower win by the same name does not add an entry.
		slower := startTap(t, m, `{"board":"short"}`, false, "Ann")
		for range 3 {
			slower.tap(0)
			time.Sleep(time.Second)
		}
		if got := list(t, m, "short", "solo", PeriodAll); got != "Ann 2000" {
			t.Fatalf("after a slower win: %q", got)
		}

		// Co-op: only the human who moved is named.
		coop := startTap(t, m, `{"board":"short","mode":"coop"}`, false, "Cleo", "Dan")
		for range 3 {
			coop.tap(1)
		}
		if got := list(t, m, "short", "coop", PeriodAll); got != "Dan 2000" {
			t.Fatalf("co-op list: %q, want Dan only", got)
		}
		if got := list(t, m, "short", "solo", PeriodAll); got != "Ann 2000" {
			t.Fatalf("the co-op match reached the solo list: %q", got)
		}

		// With an AI seat: the AI waits for the human's first move, then
		// finishes the board; the match is on no list.
		assisted := startTap(t, m, `{"board":"short","mode":"coop"}`, true, "Eve")
		rev := assisted.r.Stats().Rev
		time.Sleep(time.Minute)
		synctest.Wait()
		if got := assisted.r.Stats().Rev; got != rev {
			t.Fatalf("the AI moved before any human: rev %d → %d", rev, got)
		}
		assisted.tap(0)
		time.Sleep(time.Second)
		synctest.Wait()
		if ph := assisted.r.Info().Phase; ph != protocol.PhaseEnded {
			t.Fatalf("the AI did not play after the human's move: phase %s", ph)
		}
		if got := list(t, m, "short", "coop", PeriodAll); got != "Dan 2000" {
			t.Fatalf("an AI-assisted match was listed: %q", got)
		}

		// A board the game keeps no lists for creates none.
		custom := startTap(t, m, `{"board":"marathon"}`, false, "Fay")
		for range 4 {
			custom.tap(0)
		}
		synctest.Wait()
		if ph := custom.r.Info().Phase; ph != protocol.PhaseEnded {
			t.Fatalf("the custom match did not end: %s", ph)
		}
		if _, err := m.Leaderboard(t.Context(), "tap", "marathon", "solo", "", 10); !errors.Is(err, ErrNoList) {
			t.Fatalf("a custom board's list: %v, want ErrNoList", err)
		}
		for _, kind := range []string{"solo", "host"} {
			if top, err := st.Top(context.Background(), store.Board{Game: "tap", Board: "marathon", Kind: kind}, 0); err != nil || len(top) != 0 {
				t.Fatalf("the store holds a %s list for the custom board: %v, %v", kind, top, err)
			}
		}
		if _, err := m.Leaderboard(t.Context(), "tap", "short", "solo", "year", 10); !errors.Is(err, ErrNoList) {
			t.Fatalf("an unknown period: %v", err)
		}
		if _, err := m.Leaderboard(t.Context(), "tap", "short", "race", "", 10); !errors.Is(err, ErrNoList) {
			t.Fatalf("an unknown mode: %v", err)
		}
	})
}

// A day's list is named by its UTC day and a week's by its ISO week, and
// both expire after their period.
func TestListPeriods(t *testing.T) {
	at := time.Date(2026, 12, 1, 23, 30, 0, 0, time.UTC) // a Tuesday, ISO week 49
	day, ok := listOf(sessiontest.Tap, "short", "coop", PeriodDay, at)
	if !ok || day.Kind != "coop/day/2026-12-01" || day.Expires != time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC).Add(dayListKept).UnixMilli() {
		t.Fatalf("day list %+v", day)
	}
	week, ok := listOf(sessiontest.Tap, "short", "coop", PeriodWeek, at)
	if !ok || week.Kind != "coop/week/2026-W49" || week.Expires != time.Date(2026, 12, 7, 0, 0, 0, 0, time.UTC).Add(weekListKept).UnixMilli() {
		t.Fatalf("week list %+v", week)
	}
	all, ok := listOf(sessiontest.Tap, "short", "coop", PeriodAll, at)
	if !ok || all.Kind != "coop" || all.Expires != 0 {
		t.Fatalf("all-time list %+v", all)
	}
	if _, ok := listOf(sessiontest.Tap, "marathon", "coop", PeriodAll, at); ok {
		t.Fatal("a list for a board the game keeps none for")
	}
}

// TestAIOpensWhenOnlyItMayMove: the AI waits for a human's first move only
// while a human may move. A card duel whose seed gives the AI's seat the
// first turn starts with the AI's turn, played without any human move.
func TestAIOpensWhenOnlyItMayMove(t *testing.T) {
	seed := int64(-1)
	for n := range int64(64) {
		s := sessiontest.NewSession(t, cardgame.Game, n, `{}`, cardgame.Seats)
		if s.Match().View(0).(cardgame.View).First == 1 {
			seed = n
			break
		}
	}
	if seed < 0 {
		t.Fatal("no seed of 64 gives seat 1 the first turn")
	}
	synctest.Test(t, func(t *testing.T) {
		m := bubbleManager(t, Config{Games: session.NewRegistry(cardgame.Game), AIDelay: 100 * time.Millisecond,
			Seeds: func() session.Seed { return session.IntSeed(seed) }})
		created, err := m.Create(t.Context(), CreateRequest{Game: "cards", Settings: json.RawMessage(`{}`), Name: "Ann"})
		if err != nil {
			t.Fatal(err)
		}
		r, _ := m.Get(t.Context(), created.Room)
		host := newFake("Ann")
		r.Hello(host, &protocol.Hello{Room: r.Code(), Token: created.Token})
		synctest.Wait()
		sendAct(t, r, host, "ai", protocol.TypeControl, nil, &protocol.Control{Op: protocol.ControlFillWithAI})
		sendAct(t, r, host, "start", protocol.TypeControl, nil, &protocol.Control{Op: protocol.ControlStart})
		rev := r.Stats().Rev
		time.Sleep(time.Minute)
		synctest.Wait()
		if got := r.Stats().Rev; got <= rev {
			t.Fatalf("the AI, first to play, has not moved in a minute: rev %d → %d", rev, got)
		}
		if pending := r.st.sess.Match().Pending(); len(pending) != 1 || pending[0] != 0 {
			t.Fatalf("after the AI's opening turn, pending seats %v, want the human's", pending)
		}
	})
}

// TestLeaderboardsOnePerPlayer: entries of players the site signed in are
// kept one per player id, whatever name they played under (the best, with
// its name), apart from anonymous entries of the same name.
func TestLeaderboardsOnePerPlayer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := memstore.New()
		m := bubbleManager(t, Config{Games: session.NewRegistry(sessiontest.Tap), Store: st, Leaderboards: st})
		play := func(player, name string, pause time.Duration) {
			created, err := m.Create(t.Context(), CreateRequest{Game: "tap", Settings: json.RawMessage(`{"board":"short"}`), Name: name, Player: player})
			if err != nil {
				t.Fatal(err)
			}
			r, _ := m.Get(t.Context(), created.Room)
			c := newFake(name)
			r.Hello(c, &protocol.Hello{Room: r.Code(), Token: created.Token})
			synctest.Wait()
			sendAct(t, r, c, "start", protocol.TypeControl, nil, &protocol.Control{Op: protocol.ControlStart})
			tm := &tapMatch{t: t, r: r, clients: []*fakeClient{c}}
			for range 3 {
				tm.tap(0)
				time.Sleep(pause)
			}
		}
		play("user-1", "Ann", 0)           // 2 s
		play("user-1", "Annie", 0)         // 2 s, later: not better
		play("user-1", "A.", -1)           // the same
		play("", "Ann", time.Second)       // anonymous Ann, 4 s
		play("user-2", "Ann", time.Second) // another player named Ann
		got := list(t, m, "short", "solo", PeriodAll)
		if got != "Ann 2000, Ann 4000, Ann 4000" {
			t.Fatalf("list: %q, want user-1's best and the two other Anns", got)
		}
		b, err := m.Leaderboard(t.Context(), "tap", "short", "solo", PeriodAll, 10)
		if err != nil {
			t.Fatal(err)
		}
		if p := b.Scores[0].Player; p != "user-1" {
			t.Fatalf("the best entry's player %q", p)
		}
	})
}
