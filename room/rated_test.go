package room

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/roomd/roomd/core/nim"
	"github.com/roomd/roomd/core/session"
	"github.com/roomd/roomd/core/tictactoe"
	"github.com/roomd/roomd/protocol"
	"github.com/roomd/roomd/store"
	"github.com/roomd/roomd/store/memstore"
)

// ratedSetup is a manager of rated rooms over a memory store.
type ratedSetup struct {
	m  *Manager
	ms *memstore.Memory
}

// newRatedManager starts a manager of tic-tac-toe and Nim rooms on ms (nil:
// a fresh one), with ratings there, with the store's outbox when outbox is
// set, and the seat grace given; edit changes the Config last.
func newRatedManager(t *testing.T, ms *memstore.Memory, outbox bool, grace time.Duration, edit func(*Config)) ratedSetup {
	t.Helper()
	if ms == nil {
		ms = memstore.New()
	}
	cfg := Config{Games: session.NewRegistry(tictactoe.Game, nim.Game), Store: ms, Ratings: ms, AIDelay: -1, QuickStart: 50 * time.Millisecond,
		PresenceInterval: time.Millisecond, SeatGrace: grace}
	if outbox {
		cfg.Outbox = ms
	}
	if edit != nil {
		edit(&cfg)
	}
	m, err := NewManager(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := m.Shutdown(ctx); err != nil {
			t.Error(err)
		}
	})
	return ratedSetup{m: m, ms: ms}
}

var alice, bob = RatedPlayer{Player: "auth0|alice", Name: "Alice"}, RatedPlayer{Player: "auth0|bob", Name: "Bob"}

// ratedTTT makes a rated tic-tac-toe room for Alice and Bob, connects both
// seats and waits for the match the room starts by itself.
func ratedTTT(t *testing.T, m *Manager) (*Room, []*fakeClient) {
	t.Helper()
	r, cs := ratedLobby(t, m)
	for i, c := range cs {
		if err := r.Hello(c, &protocol.Hello{Room: r.Code(), Token: c.id}); err != nil {
			t.Fatal(err)
		}
		c.last(t, protocol.TypeWelcome)
		if i == 0 && r.Info().Phase != protocol.PhaseLobby {
			t.Fatalf("the match started with one seat connected: %s", r.Info().Phase)
		}
	}
	waitFor(t, "the rated match to start by itself", func() bool { return r.Info().Phase == protocol.PhaseRunning })
	return r, cs
}

// ratedLobby makes the rated room, nobody connected; each fake client's id
// is its seat's token.
func ratedLobby(t *testing.T, m *Manager) (*Room, []*fakeClient) {
	t.Helper()
	ctx := context.Background()
	rr, err := m.CreateRated(ctx, RatedRequest{Game: "tictactoe", Mode: "classic", Players: []RatedPlayer{alice, bob}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rr.Seats) != 2 || rr.Seats[0].Seat != 0 || rr.Seats[1].Seat != 1 || rr.Seats[0].Token == "" || rr.Seats[0].Room != rr.Code {
		t.Fatalf("rated room = %+v", rr)
	}
	r, err := m.Get(ctx, rr.Code)
	if err != nil {
		t.Fatal(err)
	}
	info := r.Info()
	if !info.Rated || info.Access != protocol.AccessUnlisted || len(info.Seats) != 2 ||
		info.Seats[0].Player != alice.Player || info.Seats[1].Player != bob.Player || info.Seats[1].Name != "Bob" {
		t.Fatalf("rated room's info = %+v", info)
	}
	return r, []*fakeClient{newFake(rr.Seats[0].Token), newFake(rr.Seats[1].Token)}
}

func mark(r, c int) json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{"type":"mark","r":%d,"c":%d}`, r, c))
}

// play makes the moves, seat 0 first, then in turn.
func play(t *testing.T, r *Room, cs []*fakeClient, moves [][2]int) {
	t.Helper()
	for i, mv := range moves {
		c := cs[i%2]
		rc := act(t, r, c, fmt.Sprintf("m%d-%d", i, time.Now().UnixNano()), protocol.TypeCommand, mark(mv[0], mv[1]), nil)
		if !rc.OK {
			t.Fatalf("move %d %v refused: %+v", i, mv, rc.Notice)
		}
		waitFor(t, "both to see the move", func() bool { return currentRev(t, cs[0]) >= rc.Rev && currentRev(t, cs[1]) >= rc.Rev })
	}
}

// seat0Wins is a top row for X (seat 0).
var seat0Wins = [][2]int{{0, 0}, {1, 0}, {0, 1}, {1, 1}, {0, 2}}

// ratingEvents are the rating jobs in the store's outbox.
func ratingEvents(t *testing.T, ms *memstore.Memory) []store.Event {
	t.Helper()
	due, err := ms.Due(context.Background(), math.MaxInt64, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []store.Event
	for _, ev := range due {
		if strings.Contains(string(ev.Data), `"type":"`+RatingEvent+`"`) {
			out = append(out, ev)
		}
	}
	return out
}

func ratingOf(t *testing.T, m *Manager, player string) Rating {
	t.Helper()
	r, err := m.Rating(context.Background(), "tictactoe", "classic", player)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestRatedMatch: a rated room starts its match once both seats are
// connected; when it ends, the rating writer applies Glicko-2 (one rating
// period from the defaults: about ±162) and both histories have it.
func TestRatedMatch(t *testing.T) {
	t.Parallel()
	s := newRatedManager(t, nil, false, 0, nil)
	if got := ratingOf(t, s.m, alice.Player); got != DefaultRating() {
		t.Fatalf("rating before any match = %+v, want the default", got)
	}
	r, cs := ratedTTT(t, s.m)
	play(t, r, cs, seat0Wins)
	waitFor(t, "the ratings to be applied", func() bool { return ratingOf(t, s.m, bob.Player).Matches == 1 })
	a, b := ratingOf(t, s.m, alice.Player), ratingOf(t, s.m, bob.Player)
	if math.Abs(a.Rating-1662.31) > 0.01 || math.Abs(b.Rating-1337.69) > 0.01 || math.Abs(a.RD-290.32) > 0.01 || a.Name != "Alice" || a.Matches != 1 {
		t.Fatalf("after Alice beat Bob: Alice %+v, Bob %+v; want 1662.31 and 1337.69, RD 290.32", a, b)
	}
	h, err := s.m.RatingHistory(context.Background(), "tictactoe", "classic", bob.Player, 0)
	if err != nil || len(h.History) != 1 || h.History[0].Opponent != alice.Player || h.History[0].Score != 0 ||
		!strings.HasPrefix(h.History[0].Match, r.Code()+"/1/") || h.History[0].Before.Matches != 0 || !h.Provisional || !h.Rated {
		t.Fatalf("Bob's history = %+v, %v", h, err)
	}
	if ms := cs[0].messages(t); r.Info().Phase != protocol.PhaseEnded || len(ms) == 0 {
		t.Fatalf("phase %s after the match", r.Info().Phase)
	}
	// No rematch, no AI, no new settings in a rated room.
	for _, ctl := range []*protocol.Control{{Op: protocol.ControlRematch}, {Op: protocol.ControlFillWithAI}} {
		if rc := act(t, r, cs[0], "ctl-"+ctl.Op, protocol.TypeControl, nil, ctl); rc.OK {
			t.Fatalf("%s accepted in a rated room", ctl.Op)
		}
	}
	all, err := s.m.PlayerRatings(context.Background(), alice.Player)
	if err != nil || len(all) != 2 || all[0].Game != "tictactoe" || !all[0].Rated || all[1].Game != "nim" || all[1].Rated || all[1].Rating.Rating != 1500 {
		t.Fatalf("Alice's ratings = %+v, %v", all, err)
	}
}

// TestRatedOutbox: with an outbox the rating job is stored with the
// match's end, as an event; applying it twice (a redelivery) changes the
// ratings once.
func TestRatedOutbox(t *testing.T) {
	t.Parallel()
	s := newRatedManager(t, nil, true, 0, nil)
	r, cs := ratedTTT(t, s.m)
	play(t, r, cs, [][2]int{{1, 1}, {0, 0}, {2, 2}, {0, 2}, {0, 1}, {2, 1}, {1, 0}, {1, 2}, {2, 0}}) // a draw
	waitFor(t, "the match's end", func() bool { return r.Info().Phase == protocol.PhaseEnded })
	evs := ratingEvents(t, s.ms)
	if len(evs) != 1 {
		t.Fatalf("%d rating events in the outbox, want 1", len(evs))
	}
	for range 2 {
		if err := s.m.ApplyRatingEvent(context.Background(), evs[0]); err != nil {
			t.Fatal(err)
		}
	}
	a, b := ratingOf(t, s.m, alice.Player), ratingOf(t, s.m, bob.Player)
	if a.Matches != 1 || b.Matches != 1 || math.Abs(a.Rating-1500) > 1e-9 || math.Abs(b.Rating-1500) > 1e-9 || a.RD >= 350 {
		t.Fatalf("after a draw applied twice: %+v, %+v; want one match each, 1500, a smaller RD", a, b)
	}
	if err := s.m.ApplyRatingEvent(context.Background(), store.Event{ID: "x", Data: []byte(`{"type":"roomd.scores"}`)}); err == nil {
		t.Fatal("an event of another type was applied")
	}
}

// TestRatedNotRated: a resignation before the second move, a match with a
// seat abandoned past the seat grace, and a room whose seat never came are
// not rated; a player who leaves a running match resigns it (no AI takes
// the seat) and, after two moves, that counts.
func TestRatedNotRated(t *testing.T) {
	t.Parallel()
	const grace = 300 * time.Millisecond
	t.Run("ResignFirstMove", func(t *testing.T) {
		t.Parallel()
		s := newRatedManager(t, nil, true, grace, nil)
		r, cs := ratedTTT(t, s.m)
		play(t, r, cs, [][2]int{{1, 1}})
		act(t, r, cs[1], "resign", protocol.TypeResign, nil, nil)
		waitFor(t, "the match's end", func() bool { return r.Info().Phase == protocol.PhaseEnded })
		if evs := ratingEvents(t, s.ms); len(evs) != 0 {
			t.Fatalf("a resignation before the second move made %d rating events", len(evs))
		}
	})
	t.Run("LeaveAfterTwoMoves", func(t *testing.T) {
		t.Parallel()
		s := newRatedManager(t, nil, true, grace, nil)
		r, cs := ratedTTT(t, s.m)
		play(t, r, cs, [][2]int{{1, 1}, {0, 0}})
		act(t, r, cs[1], "leave", protocol.TypeLeave, nil, nil)
		waitFor(t, "the match's end", func() bool { return r.Info().Phase == protocol.PhaseEnded })
		if info := r.Info(); info.Seats[1].AI {
			t.Fatal("the AI took the rated seat of a player who left")
		}
		evs := ratingEvents(t, s.ms)
		if len(evs) != 1 || !strings.Contains(string(evs[0].Data), `"score":1`) {
			t.Fatalf("rating events after a leave = %d %v, want one with Alice's win", len(evs), evs)
		}
	})
	t.Run("Abandoned", func(t *testing.T) {
		t.Parallel()
		s := newRatedManager(t, nil, true, grace, nil)
		r, cs := ratedTTT(t, s.m)
		play(t, r, cs, [][2]int{{1, 1}, {0, 0}})
		r.Drop(cs[1])
		time.Sleep(2 * grace) // the absence must outlast the grace: no sooner event to wait on
		bob2 := newFake(cs[1].id)
		if err := r.Hello(bob2, &protocol.Hello{Room: r.Code(), Token: cs[1].id}); err != nil {
			t.Fatal(err)
		}
		bob2.last(t, protocol.TypeWelcome)
		play(t, r, []*fakeClient{cs[0], bob2}, [][2]int{{2, 2}, {0, 2}, {0, 1}, {2, 1}, {1, 0}, {1, 2}, {2, 0}})
		waitFor(t, "the match's end", func() bool { return r.Info().Phase == protocol.PhaseEnded })
		if evs := ratingEvents(t, s.ms); len(evs) != 0 {
			t.Fatalf("an abandoned match made %d rating events", len(evs))
		}
		// The verdict is in the stored entries: a rebuild reaches it too.
		_, rec, err := s.ms.Open(context.Background(), r.Code())
		if err != nil {
			t.Fatal(err)
		}
		st, err := rebuild(s.m.cfg.Games, rec.Snapshot.Data, rec.Entries)
		if err != nil {
			t.Fatal(err)
		}
		if _, why := st.ratedMatch(s.m.ratedMode); !strings.HasPrefix(why, "abandoned") || len(st.Rated.Abandoned) != 1 {
			t.Fatalf("rebuilt verdict = %q, abandoned %v", why, st.Rated.Abandoned)
		}
	})
	t.Run("SeatNeverCame", func(t *testing.T) {
		t.Parallel()
		s := newRatedManager(t, nil, true, grace, nil)
		r, cs := ratedLobby(t, s.m)
		if err := r.Hello(cs[0], &protocol.Hello{Room: r.Code(), Token: cs[0].id}); err != nil {
			t.Fatal(err)
		}
		select {
		case <-r.Done():
		case <-time.After(10 * time.Second):
			t.Fatal("the rated room with a seat that never came did not close")
		}
		if code := cs[0].closeCode(); code != protocol.CloseRoomClosed {
			t.Fatalf("the connected seat was closed with %d, want %d", code, protocol.CloseRoomClosed)
		}
		if _, err := s.m.Get(context.Background(), r.Code()); !errors.Is(err, ErrNoRoom) {
			t.Fatalf("get the closed rated room: %v", err)
		}
	})
}

// TestRatedNoAI: the AI never holds a rated seat — the host of a rated
// lobby cannot fill a seat with it — and a finished match the AI had held
// a seat of (were it ever to happen) is not rated.
func TestRatedNoAI(t *testing.T) {
	t.Parallel()
	s := newRatedManager(t, nil, true, time.Minute, nil)
	r, cs := ratedLobby(t, s.m)
	if err := r.Hello(cs[0], &protocol.Hello{Room: r.Code(), Token: cs[0].id}); err != nil {
		t.Fatal(err)
	}
	cs[0].last(t, protocol.TypeWelcome)
	for _, ctl := range []*protocol.Control{{Op: protocol.ControlFillWithAI}, {Op: protocol.ControlSettings, Settings: json.RawMessage(`{}`)},
		{Op: protocol.ControlRemoveSeat, Seat: new(int)}, {Op: protocol.ControlAccess, Access: protocol.AccessPublic}} {
		if rc := act(t, r, cs[0], "ctl-"+ctl.Op, protocol.TypeControl, nil, ctl); rc.OK {
			t.Fatalf("%s accepted in a rated lobby", ctl.Op)
		}
	}
	if info := r.Info(); len(info.Seats) != 2 || info.Seats[0].AI || info.Seats[1].AI || info.Access != protocol.AccessUnlisted {
		t.Fatalf("the rated lobby changed: %+v", info)
	}
	// Both seats: the match starts and ends with a win; its verdict with
	// an AI-held seat is "not rated".
	if err := r.Hello(cs[1], &protocol.Hello{Room: r.Code(), Token: cs[1].id}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the rated match to start", func() bool { return r.Info().Phase == protocol.PhaseRunning })
	play(t, r, cs, seat0Wins)
	waitFor(t, "the match's end", func() bool { return r.Info().Phase == protocol.PhaseEnded })
	_, rec, err := s.ms.Open(context.Background(), r.Code())
	if err != nil {
		t.Fatal(err)
	}
	st, err := rebuild(s.m.cfg.Games, rec.Snapshot.Data, rec.Entries)
	if err != nil {
		t.Fatal(err)
	}
	if _, why := st.ratedMatch(s.m.ratedMode); why != "" {
		t.Fatalf("the played match is not rated: %s", why)
	}
	st.assisted = true
	if _, why := st.ratedMatch(s.m.ratedMode); why != "the AI held a seat" {
		t.Fatalf("with an AI-held seat the verdict is %q", why)
	}
}

// TestCreateRatedRefused: what CreateRated refuses, each with an error
// that says why.
func TestCreateRatedRefused(t *testing.T) {
	t.Parallel()
	s := newRatedManager(t, nil, false, 0, func(c *Config) { c.RatedModes = []string{"tictactoe/classic"} })
	ctx := context.Background()
	for name, req := range map[string]RatedRequest{
		"one player":     {Game: "tictactoe", Players: []RatedPlayer{alice}},
		"three players":  {Game: "tictactoe", Players: []RatedPlayer{alice, bob, {Player: "c"}}},
		"same player":    {Game: "tictactoe", Players: []RatedPlayer{alice, alice}},
		"anonymous":      {Game: "tictactoe", Players: []RatedPlayer{alice, {Name: "Guest"}}},
		"long id":        {Game: "tictactoe", Players: []RatedPlayer{alice, {Player: strings.Repeat("x", 257)}}},
		"mode not rated": {Game: "nim", Settings: json.RawMessage(`{"pile":10}`), Players: []RatedPlayer{alice, bob}},
	} {
		if _, err := s.m.CreateRated(ctx, req); !errors.Is(err, ErrNotRated) {
			t.Errorf("%s: err = %v, want ErrNotRated", name, err)
		}
	}
	if _, err := s.m.CreateRated(ctx, RatedRequest{Game: "tictactoe", Mode: "other", Players: []RatedPlayer{alice, bob}}); !errors.Is(err, ErrBadSettings) {
		t.Errorf("a mode other than the settings': err = %v", err)
	}
	if _, err := s.m.CreateRated(ctx, RatedRequest{Game: "chess", Players: []RatedPlayer{alice, bob}}); !errors.Is(err, ErrUnknownGame) {
		t.Errorf("an unknown game: err = %v", err)
	}
	if _, err := s.m.Rating(ctx, "nim", "classic", alice.Player); !errors.Is(err, ErrNotRated) {
		t.Errorf("the rating of a mode not rated: err = %v", err)
	}
	none := newRatedManager(t, nil, false, 0, func(c *Config) { c.Ratings = nil })
	if _, err := none.m.CreateRated(ctx, RatedRequest{Game: "tictactoe", Players: []RatedPlayer{alice, bob}}); !errors.Is(err, ErrNoRatings) {
		t.Errorf("without ratings: err = %v", err)
	}
}

// failingRatings fails every ApplyRating while fail is set.
type failingRatings struct {
	store.Ratings
	fail  atomic.Bool
	tries atomic.Int64
}

func (f *failingRatings) ApplyRating(ctx context.Context, m store.RatedMatch, up store.RatingUpdate) (bool, error) {
	f.tries.Add(1)
	if f.fail.Load() {
		return false, errors.New("ratings down")
	}
	return f.Ratings.ApplyRating(ctx, m, up)
}

// TestRatedAppliedOnLoad: without an outbox, a rated result the writer
// could not apply before the process stopped is applied when the room is
// loaded by the next one.
func TestRatedAppliedOnLoad(t *testing.T) {
	t.Parallel()
	ms := memstore.New()
	down := &failingRatings{Ratings: ms}
	down.fail.Store(true)
	first, err := NewManager(Config{Games: session.NewRegistry(tictactoe.Game), Store: ms, Ratings: down, AIDelay: -1, PresenceInterval: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	r, cs := ratedTTT(t, first)
	play(t, r, cs, seat0Wins)
	waitFor(t, "the writer to try", func() bool { return down.tries.Load() >= 2 })
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := first.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if _, found, _ := ms.Rating(ctx, store.RatingPool{Game: "tictactoe", Mode: "classic"}, alice.Player); found {
		t.Fatal("rated while the ratings were down")
	}
	s := newRatedManager(t, ms, false, 0, nil)
	if _, err := s.m.Get(ctx, r.Code()); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the rating applied on load", func() bool { return ratingOf(t, s.m, alice.Player).Matches == 1 })
	// Loading it again applies nothing twice.
	if _, err := s.m.RestoreAll(ctx); err != nil {
		t.Fatal(err)
	}
	if a := ratingOf(t, s.m, alice.Player); a.Matches != 1 || a.Rating <= 1500 {
		t.Fatalf("Alice after the reload = %+v", a)
	}
}

// TestRatingLeaderboard: the board lists only players past their
// provisional matches.
func TestRatingLeaderboard(t *testing.T) {
	t.Parallel()
	s := newRatedManager(t, nil, false, 0, nil)
	ctx := context.Background()
	for i := range 16 { // alternating wins bring both RDs under ProvisionalRD
		m := store.RatedMatch{ID: fmt.Sprint("m", i), Pool: store.RatingPool{Game: "tictactoe", Mode: "classic"},
			Players: [2]string{alice.Player, bob.Player}, Names: [2]string{"Alice", "Bob"}, Score: float64(i % 2), At: int64(i)}
		if err := s.m.applyRating(ctx, m); err != nil {
			t.Fatal(err)
		}
		board, err := s.m.RatingLeaderboard(ctx, "tictactoe", "classic", 10)
		if err != nil {
			t.Fatal(err)
		}
		a := ratingOf(t, s.m, alice.Player)
		if listed := len(board.Players) == 2; listed != (a.RD <= store.ProvisionalRD) {
			t.Fatalf("after %d matches (RD %.1f) the board lists %d players", i+1, a.RD, len(board.Players))
		}
	}
	board, err := s.m.RatingLeaderboard(ctx, "tictactoe", "classic", 1)
	if err != nil || len(board.Players) != 1 || board.Players[0].Rating.Rating < 1500 {
		t.Fatalf("top 1 = %+v, %v", board, err)
	}
	if _, err := s.m.RatingLeaderboard(ctx, "nim", "misere", 1); !errors.Is(err, ErrNotRated) {
		t.Fatalf("a board of a mode not rated: %v", err)
	}
}
