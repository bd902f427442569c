package room

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/roomd/roomd/core/session"
	"github.com/roomd/roomd/store"
)

// finished is a match result on its way to the leaderboards: one score for
// each of its lists (all time, the day, the week).
type finished struct {
	boards []store.Board
	score  store.Score
}

// Leaderboard periods: every list exists for all time, for the UTC day
// and for the ISO week in which results were recorded.
const (
	PeriodAll  = "all"
	PeriodDay  = "day"
	PeriodWeek = "week"
)

// Periods lists the periods, the default first.
var Periods = []string{PeriodAll, PeriodDay, PeriodWeek}

// How long a day's or a week's list is kept after its period ends.
const (
	dayListKept  = 7 * 24 * time.Hour
	weekListKept = 28 * 24 * time.Hour
)

// listOf names the list of game's board in mode for the period that
// contains t, in the direction the game ranks; ok is false when the game
// keeps no list for that board (a custom Minesweeper board, a game without
// leaderboards) or the period is unknown. A list's store kind is its mode,
// followed for a period by the period's name ("solo", "race/day/2026-12-01",
// "coop/week/2026-W49"); day and week lists expire some time after their
// period (dayListKept, weekListKept).
func listOf(g session.Game, board, mode, period string, t time.Time) (store.Board, bool) {
	info := g.Info()
	if !info.Ranking.Keeps(board) || !slices.ContainsFunc(info.Modes, func(m session.Mode) bool { return m.ID == mode }) {
		return store.Board{}, false
	}
	b := store.Board{Game: info.ID, Board: board, Kind: mode, Higher: info.Ranking.Higher}
	t = t.UTC()
	switch period {
	case PeriodAll:
	case PeriodDay:
		day := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
		b.Kind += "/day/" + day.Format(time.DateOnly)
		b.Expires = day.AddDate(0, 0, 1).Add(dayListKept).UnixMilli()
	case PeriodWeek:
		y, w := t.ISOWeek()
		monday := time.Date(t.Year(), t.Month(), t.Day()-(int(t.Weekday())+6)%7, 0, 0, 0, 0, time.UTC)
		b.Kind += fmt.Sprintf("/week/%d-W%02d", y, w)
		b.Expires = monday.AddDate(0, 0, 7).Add(weekListKept).UnixMilli()
	default:
		return store.Board{}, false
	}
	return b, true
}

// rankedValue is what a finished match ranks by: its time or its score.
func rankedValue(r *session.Ranking, timeMs, score float64) float64 {
	if r.By == session.RankScore {
		return score
	}
	return timeMs
}

// finish notes a finished match for the leaderboards, to be recorded once
// the batch is stored, when it may rank: the game ranks it (a cleared
// board, say), the board keeps lists, somebody won, and no seat of the
// match was ever the AI's (an AI-assisted match is not ranked). The entry
// names the winners whose human made moves — a co-op player who watched
// is not named — and goes on its mode's lists (a daily's on its day's list
// only). The time is the host's.
func (r *Room) finish() {
	r.rate() // a rated room's match: its rating job (rated.go)
	res, st := r.st.Result, r.st
	if res == nil || !res.Ranked || len(res.Winners) == 0 || st.assisted {
		return
	}
	now := r.now()
	var boards []store.Board
	if st.Daily != nil {
		// A daily ranks on its day's list only, and only within the day:
		// once the day's secret is out, anyone could know the board.
		if _, open := st.sealed(now.UnixMilli()); !open {
			return
		}
		boards = append(boards, dailyList(st.game, st.Daily.Daily))
	} else {
		for _, period := range Periods {
			b, ok := listOf(st.game, st.setup.Board, st.setup.Mode.ID, period, now)
			if !ok {
				return
			}
			boards = append(boards, b)
		}
	}
	var names, players []string
	signedIn := true // every winner named was signed in by the site
	for _, w := range res.Winners {
		if w >= 0 && w < len(st.Players) && w < len(st.movers) && st.movers[w] {
			names = append(names, st.Players[w].Name)
			players = append(players, st.Players[w].Player)
			signedIn = signedIn && st.Players[w].Player != ""
		}
	}
	if len(names) == 0 {
		return
	}
	player := "" // one entry per player id when there is one (store.Score.Who)
	if signedIn {
		player = strings.Join(players, " & ")
	}
	f := finished{boards: boards, score: store.Score{
		Name: strings.Join(names, " & "), Player: player, Value: rankedValue(st.game.Info().Ranking, res.TimeMs, res.Score),
		Room: r.code, Match: res.Match, At: now.UnixMilli()}}
	if r.m.cfg.Outbox == nil || r.m.cfg.Leaderboards == nil {
		r.b.finished = append(r.b.finished, f)
		return
	}
	// The results go in the outbox, in the same write as the entry that
	// ended the match: stored with it or not at all, then applied by
	// Manager.RecordScores until they are (store outages included).
	ev, err := scoresEvent(r.code, st.Game, f)
	if err != nil {
		r.log.Error("leaderboard results not encoded", "match", res.Match, "err", err)
		return
	}
	r.b.events = append(r.b.events, ev)
}

// ScoresEvent is the type of the outbox event that carries a finished
// match's leaderboard results (Manager.RecordScores applies it). It is
// never sent to a webhook receiver.
const ScoresEvent = "roomd.scores"

// scoresJob is the data of a ScoresEvent: the score and the lists it goes
// on.
type scoresJob struct {
	Boards []scoresBoard `json:"boards"`
	Score  store.Score   `json:"score"`
}

type scoresBoard struct {
	Game    string `json:"game"`
	Board   string `json:"board"`
	Kind    string `json:"kind"`
	Higher  bool   `json:"higher,omitempty"`
	Expires int64  `json:"expires,omitempty"`
}

func scoresEvent(room, game string, f finished) (store.Event, error) {
	job := scoresJob{Score: f.score}
	for _, b := range f.boards {
		job.Boards = append(job.Boards, scoresBoard{Game: b.Game, Board: b.Board, Kind: b.Kind, Higher: b.Higher, Expires: b.Expires})
	}
	return hookEvent(ScoresEvent, room, game, f.score.At, job)
}

// RecordScores applies one ScoresEvent from the outbox: the score on each
// of its lists. It is idempotent — a score recorded again changes nothing
// (store.Leaderboards.Record keeps the older of equal scores) — so the
// dispatcher retries it until it succeeds, and a delivery repeated after a
// crash does no harm. An event it cannot read is an error that says so.
func (m *Manager) RecordScores(ctx context.Context, ev store.Event) error {
	if m.cfg.Leaderboards == nil {
		return errors.New("room: no leaderboards to record results on")
	}
	var env struct {
		Type string    `json:"type"`
		Data scoresJob `json:"data"`
	}
	if err := json.Unmarshal(ev.Data, &env); err != nil || env.Type != ScoresEvent {
		return fmt.Errorf("room: event %s is not a %s event: %v", ev.ID, ScoresEvent, err)
	}
	for _, b := range env.Data.Boards {
		board := store.Board{Game: b.Game, Board: b.Board, Kind: b.Kind, Higher: b.Higher, Expires: b.Expires}
		if err := m.cfg.Leaderboards.Record(ctx, board, env.Data.Score); err != nil {
			return fmt.Errorf("room: record %s/%s/%s: %w", b.Game, b.Board, b.Kind, err)
		}
	}
	return nil
}

// record hands a result to the leaderboard writer without waiting: a room
// never waits on the store for a leaderboard. When the queue is full, or the
// writer has stopped, the result is dropped and logged.
func (m *Manager) record(f finished) {
	if m.cfg.Leaderboards == nil {
		return
	}
	select {
	case <-m.scoresQuit:
		m.cfg.Logger.Warn("leaderboard writer stopped; result dropped", "room", f.score.Room, "match", f.score.Match)
		return
	default:
	}
	select {
	case m.scores <- f:
	default:
		m.cfg.Logger.Warn("leaderboard queue full; result dropped", "room", f.score.Room, "match", f.score.Match)
	}
}

// writeScores is the leaderboard writer's loop. It ends when scoresQuit is
// closed, after writing what was already queued.
func (m *Manager) writeScores() {
	defer close(m.scoresDone)
	write := func(f finished) {
		for _, b := range f.boards {
			ctx, cancel := context.WithTimeout(context.Background(), m.cfg.StoreTimeout)
			if err := m.cfg.Leaderboards.Record(ctx, b, f.score); err != nil {
				m.cfg.Logger.Warn("record leaderboard result", "game", b.Game, "board", b.Board, "list", b.Kind, "err", err)
			}
			cancel()
		}
	}
	for {
		select {
		case f := <-m.scores:
			write(f)
		case <-m.scoresQuit:
			for {
				select {
				case f := <-m.scores:
					write(f)
				default:
					return
				}
			}
		}
	}
}

// Board is one ranked list: the best results of live matches of a game's
// board (a level) in one mode and period, timed by the host. By and Higher
// say what the values are and which way they rank.
type Board struct {
	Game   string        `json:"game"`
	Board  string        `json:"board"`
	Mode   string        `json:"mode"`
	Period string        `json:"period"`
	By     string        `json:"by"`
	Higher bool          `json:"higher"`
	Scores []store.Score `json:"scores"`
}

// Errors of Leaderboard.
var (
	// ErrNoLeaderboards is returned when no leaderboard store is configured.
	ErrNoLeaderboards = errors.New("room: no leaderboards configured")
	// ErrNoList wraps a request for a list that does not exist: a board
	// with no lists (a custom one), a mode the game does not have, a
	// period that is not one of Periods.
	ErrNoList = errors.New("room: no such leaderboard")
)

// Leaderboard returns up to limit best results of game's board in mode
// ("" for the game's first mode) for period ("" for all time).
func (m *Manager) Leaderboard(ctx context.Context, game, board, mode, period string, limit int) (Board, error) {
	if m.cfg.Leaderboards == nil {
		return Board{}, ErrNoLeaderboards
	}
	g, ok := m.cfg.Games.Lookup(game)
	if !ok {
		return Board{}, fmt.Errorf("%w %q", ErrUnknownGame, game)
	}
	info := g.Info()
	if info.Ranking == nil {
		return Board{}, fmt.Errorf("%w: %s keeps no leaderboards", ErrNoList, game)
	}
	if mode == "" && len(info.Modes) > 0 {
		mode = info.Modes[0].ID
	}
	if period == "" {
		period = PeriodAll
	}
	b, ok := listOf(g, board, mode, period, m.cfg.Now())
	if !ok {
		var modes []string
		for _, md := range info.Modes {
			modes = append(modes, md.ID)
		}
		boards := "any board"
		if info.Ranking.Boards != nil {
			boards = strings.Join(info.Ranking.Boards, ", ")
		}
		return Board{}, fmt.Errorf("%w: %s has lists for boards %s, modes %s, periods %s; not %s/%s/%s",
			ErrNoList, game, boards, strings.Join(modes, ", "), strings.Join(Periods, ", "), board, mode, period)
	}
	out := Board{Game: game, Board: board, Mode: mode, Period: period, By: info.Ranking.By, Higher: b.Higher}
	var err error
	if out.Scores, err = m.cfg.Leaderboards.Top(ctx, b, limit); err != nil {
		return out, fmt.Errorf("%w: %v", ErrStorage, err)
	}
	if out.Scores == nil {
		out.Scores = []store.Score{}
	}
	return out, nil
}

// MaxReplayBytes bounds a submitted replay: ample for the longest match a
// room allows (10,000 moves of about 60 bytes), and no more.
const MaxReplayBytes = 1 << 20

// MinMoveInterval is the least time a human takes between two moves of one
// seat. Fast Minesweeper players sustain about 10 clicks a second and burst
// to about 20 (50 ms apart); 25 ms — 40 clicks a second — is beyond any
// hand, so a replay with two moves closer than that was not played by one.
const MinMoveInterval = 25 * time.Millisecond

// maxReplaysAtOnce bounds the replays validated at the same time (each may
// hold a megabyte and its decoded form): more wait for a slot.
const maxReplaysAtOnce = 2

// ReplayVerdict is the answer to a submitted replay: whether the moves are
// a valid game of the rules and a plausible human's. Submitted replays are
// never ranked (the client chose the seed and timed it): a ranked result
// is played in a room, where the host draws the secret and keeps the time.
type ReplayVerdict struct {
	session.Verdict
	// Ranked is always false; Note says why.
	Ranked bool   `json:"ranked"`
	Note   string `json:"note"`
}

const replayNote = "replays are checked, never ranked: the client chose the seed and kept the time; play in a room for the leaderboards"

// ErrBadReplay wraps a replay that cannot be read.
var ErrBadReplay = errors.New("room: unreadable replay")

// SubmitReplay validates an offline game {game, seed, config, seats, log}
// by replay and says whether a human could have played it; it records
// nothing. At most maxReplaysAtOnce run at once; others wait for a slot
// (or for ctx).
func (m *Manager) SubmitReplay(ctx context.Context, data []byte) (ReplayVerdict, error) {
	if len(data) > MaxReplayBytes {
		return ReplayVerdict{}, fmt.Errorf("%w: a replay is at most %d bytes", ErrBadReplay, MaxReplayBytes)
	}
	var head struct {
		Game string `json:"game"`
	}
	_ = json.Unmarshal(data, &head)
	if head.Game == "" {
		return ReplayVerdict{}, fmt.Errorf("%w: game is required (see GET /api/games)", ErrBadReplay)
	}
	g, ok := m.cfg.Games.Lookup(head.Game)
	if !ok {
		return ReplayVerdict{}, fmt.Errorf("%w %q", ErrUnknownGame, head.Game)
	}
	select {
	case m.replaySlots <- struct{}{}:
		defer func() { <-m.replaySlots }()
	case <-ctx.Done():
		return ReplayVerdict{}, ctx.Err()
	}
	rec, err := session.DecodeRecord(data)
	if err != nil {
		return ReplayVerdict{}, fmt.Errorf("%w: %v", ErrBadReplay, err)
	}
	if limit := g.Info().MovesCap(); len(rec.Log) > limit {
		return ReplayVerdict{}, fmt.Errorf("%w: %d moves, more than the %d a match may have", ErrBadReplay, len(rec.Log), limit)
	}
	out := ReplayVerdict{Verdict: session.Replay(g, rec), Note: replayNote}
	if why := implausible(rec.Log); out.Valid && why != "" {
		out.Valid, out.Reason = false, &why
	}
	return out, nil
}

// implausible says why a log was not played by human hands, or "": two
// moves of one seat closer than MinMoveInterval.
func implausible(log []session.Entry) string {
	last := map[int]float64{}
	for i, e := range log {
		if t, ok := last[e.Seat]; ok && e.T-t < float64(MinMoveInterval.Milliseconds()) {
			return fmt.Sprintf("implausible: moves of seat %d %v ms apart (entry %d); a human needs at least %v between moves",
				e.Seat, e.T-t, i, MinMoveInterval)
		}
		last[e.Seat] = e.T
	}
	return ""
}
