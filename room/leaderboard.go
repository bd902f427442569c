package room

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/roomd/roomd/core/session"
	"github.com/roomd/roomd/store"
)

// finished is a match result on its way to the leaderboard.
type finished struct {
	board store.Board
	score store.Score
}

// boardOf names the leaderboard of game's board (a level) of kind, in the
// direction the game ranks; ok is false when the game keeps none.
func boardOf(g session.Game, board, kind string) (store.Board, bool) {
	info := g.Info()
	if info.Ranking == nil || board == "" {
		return store.Board{}, false
	}
	return store.Board{Game: info.ID, Board: board, Kind: kind, Higher: info.Ranking.Higher}, true
}

// rankedValue is what a finished match ranks by: its time or its score.
func rankedValue(r *session.Ranking, timeMs, score float64) float64 {
	if r.By == session.RankScore {
		return score
	}
	return timeMs
}

// finish notes a ranked result of a game with a leaderboard, to be recorded
// once the batch is stored. The time is the host's; what is ranked and in
// which direction is the game's (session.Ranking, session.Outcome).
func (r *Room) finish() {
	res := r.st.Result
	b, ok := boardOf(r.st.game, r.st.setup.Board, store.KindHost)
	if res == nil || !res.Ranked || !ok || len(res.Winners) == 0 {
		return
	}
	var names []string
	for _, w := range res.Winners {
		if w >= 0 && w < len(r.st.Players) {
			names = append(names, r.st.Players[w].Name)
		}
	}
	r.b.finished = append(r.b.finished, finished{board: b, score: store.Score{
		Name: strings.Join(names, " & "), Value: rankedValue(r.st.game.Info().Ranking, res.TimeMs, res.Score),
		Room: r.code, Match: res.Match, At: r.now().UnixMilli()}})
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
		m.cfg.Logger.Warn("leaderboard writer stopped; result dropped", "game", f.board.Game, "board", f.board.Board, "room", f.score.Room)
		return
	default:
	}
	select {
	case m.scores <- f:
	default:
		m.cfg.Logger.Warn("leaderboard queue full; result dropped", "game", f.board.Game, "board", f.board.Board, "room", f.score.Room)
	}
}

// writeScores is the leaderboard writer's loop. It ends when scoresQuit is
// closed, after writing what was already queued.
func (m *Manager) writeScores() {
	defer close(m.scoresDone)
	write := func(f finished) {
		ctx, cancel := context.WithTimeout(context.Background(), m.cfg.StoreTimeout)
		if err := m.cfg.Leaderboards.Record(ctx, f.board, f.score); err != nil {
			m.cfg.Logger.Warn("record leaderboard result", "game", f.board.Game, "board", f.board.Board, "err", err)
		}
		cancel()
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

// Board is a leaderboard: results timed by the host, and offline games
// validated by replay and timed by their client, kept apart. By and Higher
// say what the values are and which way they rank.
type Board struct {
	Game   string        `json:"game"`
	Board  string        `json:"board"`
	By     string        `json:"by"`
	Higher bool          `json:"higher"`
	Host   []store.Score `json:"host"`
	Client []store.Score `json:"client"`
}

// ErrNoLeaderboards is returned when no leaderboard store is configured.
var ErrNoLeaderboards = errors.New("room: no leaderboards configured")

// Leaderboard returns up to limit best results of game's board of each kind.
func (m *Manager) Leaderboard(ctx context.Context, game, board string, limit int) (Board, error) {
	if m.cfg.Leaderboards == nil {
		return Board{}, ErrNoLeaderboards
	}
	g, ok := m.cfg.Games.Lookup(game)
	if !ok {
		return Board{}, fmt.Errorf("%w %q", ErrUnknownGame, game)
	}
	host, ok := boardOf(g, board, store.KindHost)
	if !ok {
		return Board{}, fmt.Errorf("%w %q: it keeps no leaderboards", ErrUnknownGame, game)
	}
	client := host
	client.Kind = store.KindClient
	out := Board{Game: game, Board: board, By: g.Info().Ranking.By, Higher: host.Higher}
	var err error
	if out.Host, err = m.cfg.Leaderboards.Top(ctx, host, limit); err != nil {
		return out, fmt.Errorf("%w: %v", ErrStorage, err)
	}
	if out.Client, err = m.cfg.Leaderboards.Top(ctx, client, limit); err != nil {
		return out, fmt.Errorf("%w: %v", ErrStorage, err)
	}
	if out.Host == nil {
		out.Host = []store.Score{}
	}
	if out.Client == nil {
		out.Client = []store.Score{}
	}
	return out, nil
}

// MaxReplayBytes bounds a submitted replay.
const MaxReplayBytes = session.MaxRecordBytes

// ReplayVerdict is the answer to a submitted replay.
type ReplayVerdict struct {
	session.Verdict
	// Listed is true when the game was put on a leaderboard.
	Listed bool `json:"listed"`
}

// ErrBadReplay wraps a replay that cannot be read.
var ErrBadReplay = errors.New("room: unreadable replay")

// SubmitReplay validates an offline game {game, name, seed, config, log} by
// replay and, when it is a valid ranked result of a game with a
// leaderboard, lists it as client-timed under name.
func (m *Manager) SubmitReplay(ctx context.Context, data []byte) (ReplayVerdict, error) {
	var head struct {
		Game string `json:"game"`
		Name string `json:"name"`
	}
	_ = json.Unmarshal(data, &head)
	if head.Game == "" {
		return ReplayVerdict{}, fmt.Errorf("%w: game is required (see GET /api/games)", ErrBadReplay)
	}
	g, ok := m.cfg.Games.Lookup(head.Game)
	if !ok {
		return ReplayVerdict{}, fmt.Errorf("%w %q", ErrUnknownGame, head.Game)
	}
	rec, err := session.DecodeRecord(data)
	if err != nil {
		return ReplayVerdict{}, fmt.Errorf("%w: %v", ErrBadReplay, err)
	}
	v, match := session.ReplayMatch(g, rec)
	out := ReplayVerdict{Verdict: v}
	if !v.Valid || match == nil || !match.Status().Outcome.Ranked || m.cfg.Leaderboards == nil {
		return out, nil
	}
	setup, err := g.Configure(rec.Config)
	if err != nil {
		return out, nil
	}
	b, ok := boardOf(g, setup.Board, store.KindClient)
	if !ok {
		return out, nil
	}
	score := store.Score{Name: cleanName(head.Name), Value: rankedValue(g.Info().Ranking, v.Time, match.Status().Outcome.Score),
		At: m.cfg.Now().UnixMilli()}
	if err := m.cfg.Leaderboards.Record(ctx, b, score); err != nil {
		return out, fmt.Errorf("%w: %v", ErrStorage, err)
	}
	out.Listed = true
	return out, nil
}
