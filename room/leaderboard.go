package room

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/roomd/roomd/core/session"
	"github.com/roomd/roomd/store"
)

// finished is a match result on its way to the leaderboard.
type finished struct {
	game, board string
	score       store.Score
}

// finish notes a won match of a game with a leaderboard, to be recorded
// once the batch is stored. The time is the host's.
func (r *Room) finish() {
	res := r.st.Result
	if res == nil || res.Status != "won" || r.st.setup.Board == "" || len(res.Winners) == 0 {
		return
	}
	var names []string
	for _, w := range res.Winners {
		if w >= 0 && w < len(r.st.Players) {
			names = append(names, r.st.Players[w].Name)
		}
	}
	r.finished = append(r.finished, finished{game: r.st.Game, board: r.st.setup.Board, score: store.Score{
		Name: strings.Join(names, " & "), Value: res.TimeMs, Room: r.code, Match: res.Match, At: r.now().UnixMilli()}})
}

// record hands a result to the leaderboard writer without waiting: a room
// never waits on the store for a leaderboard. When the queue is full the
// result is dropped and logged.
func (m *Manager) record(f finished) {
	if m.cfg.Leaderboards == nil {
		return
	}
	select {
	case m.scores <- f:
	default:
		m.cfg.Logger.Warn("leaderboard queue full; result dropped", "game", f.game, "board", f.board, "room", f.score.Room)
	}
}

// writeScores is the leaderboard writer's loop; it ends when scores closes.
func (m *Manager) writeScores() {
	defer close(m.scoresDone)
	for f := range m.scores {
		ctx, cancel := context.WithTimeout(context.Background(), m.cfg.StoreTimeout)
		if err := m.cfg.Leaderboards.Record(ctx, timeBoard(f.game, f.board, store.KindHost), f.score); err != nil {
			m.cfg.Logger.Warn("record leaderboard result", "game", f.game, "board", f.board, "err", err)
		}
		cancel()
	}
}

// timeBoard names a leaderboard of times: the score's Value is the time in
// ms, lower is better.
func timeBoard(game, board, kind string) store.Board {
	return store.Board{Game: game, Board: board, Kind: kind}
}

// Board is a leaderboard: results timed by the host, and offline games
// validated by replay and timed by their client, kept apart.
type Board struct {
	Game   string        `json:"game"`
	Board  string        `json:"board"`
	Host   []store.Score `json:"host"`
	Client []store.Score `json:"client"`
}

// ErrNoLeaderboards is returned when no leaderboard store is configured.
var ErrNoLeaderboards = errors.New("room: no leaderboards configured")

// Leaderboard returns up to limit best times of game's board of each kind.
func (m *Manager) Leaderboard(ctx context.Context, game, board string, limit int) (Board, error) {
	if m.cfg.Leaderboards == nil {
		return Board{}, ErrNoLeaderboards
	}
	if _, ok := m.cfg.Games.Lookup(game); !ok {
		return Board{}, fmt.Errorf("%w %q", ErrUnknownGame, game)
	}
	out := Board{Game: game, Board: board}
	var err error
	if out.Host, err = m.cfg.Leaderboards.Top(ctx, timeBoard(game, board, store.KindHost), limit); err != nil {
		return out, fmt.Errorf("%w: %v", ErrStorage, err)
	}
	if out.Client, err = m.cfg.Leaderboards.Top(ctx, timeBoard(game, board, store.KindClient), limit); err != nil {
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

// SubmitReplay validates an offline game by replay and, when it is a valid
// win of a game with a leaderboard, lists it as client-timed under name.
// It returns the verdict and whether the game was listed.
func (m *Manager) SubmitReplay(ctx context.Context, game string, rec session.Record, name string) (session.Verdict, bool, error) {
	g, ok := m.cfg.Games.Lookup(game)
	if !ok {
		return session.Verdict{}, false, fmt.Errorf("%w %q", ErrUnknownGame, game)
	}
	v := session.Replay(g, rec)
	if !v.Valid || v.Status != "won" || m.cfg.Leaderboards == nil {
		return v, false, nil
	}
	setup, err := g.Configure(rec.Config)
	if err != nil || setup.Board == "" {
		return v, false, nil
	}
	score := store.Score{Name: cleanName(name), Value: v.Time, At: m.cfg.Now().UnixMilli()}
	if err := m.cfg.Leaderboards.Record(ctx, timeBoard(game, setup.Board, store.KindClient), score); err != nil {
		return v, false, fmt.Errorf("%w: %v", ErrStorage, err)
	}
	return v, true, nil
}
