package room

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"testing/synctest"

	"github.com/roomd/roomd/core/session"
	"github.com/roomd/roomd/core/session/sessiontest"
	"github.com/roomd/roomd/store"
	"github.com/roomd/roomd/store/memstore"
)

// failingBoards is a Leaderboards whose Record fails while down.
type failingBoards struct {
	store.Leaderboards
	down bool
}

func (f *failingBoards) Record(ctx context.Context, b store.Board, s store.Score) error {
	if f.down {
		return errors.New("the leaderboards' store is down")
	}
	return f.Leaderboards.Record(ctx, b, s)
}

// TestScoresGoThroughTheOutbox: with an outbox, a ranked match's results
// are stored in the same write as the entry that ended it, as one
// ScoresEvent; nothing is on a list until RecordScores applies it, which
// fails (and leaves the event) while the leaderboards' store is down,
// and records it once it is back; applying it again changes nothing.
func TestScoresGoThroughTheOutbox(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := memstore.New()
		boards := &failingBoards{Leaderboards: st}
		m := bubbleManager(t, Config{Games: session.NewRegistry(sessiontest.Tap), Store: st, Leaderboards: boards, Outbox: st})
		solo := startTap(t, m, `{"board":"short"}`, false, "Ann")
		for range 3 {
			solo.tap(0)
		}
		synctest.Wait()
		evs, err := st.Due(t.Context(), 1<<50, 100)
		if err != nil || len(evs) != 1 {
			t.Fatalf("the outbox holds %d events (%v), want the match's results", len(evs), err)
		}
		var head struct {
			Type string `json:"type"`
		}
		json.Unmarshal(evs[0].Data, &head)
		if head.Type != ScoresEvent {
			t.Fatalf("the event is a %q, want %q", head.Type, ScoresEvent)
		}
		if got := list(t, m, "short", "solo", PeriodAll); got != "" {
			t.Fatalf("on the list before the event was applied: %q", got)
		}
		boards.down = true
		if err := m.RecordScores(t.Context(), evs[0]); err == nil {
			t.Fatal("RecordScores succeeded with the leaderboards down")
		}
		boards.down = false
		for range 2 { // once, then again: idempotent
			if err := m.RecordScores(t.Context(), evs[0]); err != nil {
				t.Fatal(err)
			}
			for _, period := range Periods {
				if got := list(t, m, "short", "solo", period); got != "Ann 2000" {
					t.Fatalf("%s list: %q, want Ann 2000", period, got)
				}
			}
		}
		if err := m.RecordScores(t.Context(), store.Event{ID: "x", Data: []byte(`{"type":"match.ended"}`)}); err == nil {
			t.Fatal("RecordScores took an event of another type")
		}
	})
}
