package room

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/roomd/roomd/core/session"
	"github.com/roomd/roomd/protocol"
	"github.com/roomd/roomd/store"
)

// daily.go is the ranked daily challenge (PROTOCOL.md §2.8): one board a
// day for each game, level and one-seat mode, the same for everyone who
// plays it online, drawn from a secret that the server commits to all day
// and discloses when the day (UTC) ends. It is a different board from the
// browser's local daily, whose seed anyone can compute and which is never
// ranked.
//
// The day's secret is HMAC-SHA256 of the daily's name under the server's
// daily key: 32 random bytes claimed once in the store (store.Claims), so
// every node and every restart draws the same secrets, and nothing is kept
// per day. A daily room is an ordinary solo room whose match takes the
// day's secret instead of a fresh one, plays one match, keeps its secret
// sealed from everyone — its player included — until the day is over,
// ranks only on the day's own list and only when it ends within the day.
// One attempt a day — per player id when the site signed the player in,
// else per name and per client address: a player who lost has seen the
// board.

// ErrDailyPlayed is returned when a name or an address has already played
// a day's daily.
var ErrDailyPlayed = errors.New("one attempt a day")

// ErrNoDaily is returned when the server keeps no dailies (no
// Config.Claims) or a game, mode or board has none.
var ErrNoDaily = errors.New("room: no such daily")

// How long a day's claims (who played) and list are kept after the day.
const dailyKept = 30 * 24 * time.Hour

// dailyKeyClaim is the store key of the daily key.
const dailyKeyClaim = "daily/key"

// Daily names one daily challenge: a game, one of its one-seat modes, a
// board that keeps leaderboards, and a UTC day (YYYY-MM-DD).
type Daily struct {
	Game  string `json:"game"`
	Mode  string `json:"mode"`
	Board string `json:"board"`
	Day   string `json:"day"`
}

// dailyState is what a daily room keeps: which daily it plays and the
// secret its match takes (kept with the room like every match's secret).
type dailyState struct {
	Daily
	Seed session.Seed `json:"seed"`
}

// DailyInfo is a daily as GET /api/daily serves it.
type DailyInfo struct {
	Daily
	// Commitment is the hex SHA-256 of the day's secret, published all day:
	// every daily match of the day shows it as its room.commitment.
	Commitment string `json:"commitment"`
	// EndsAt is the end of the day (Unix ms): the secret is disclosed then,
	// and matches still running are no longer ranked.
	EndsAt int64 `json:"endsAt"`
	// Seed is the secret, once the day is over.
	Seed string `json:"seed,omitempty"`
	// By and Higher say what the list ranks; Scores is the day's list.
	By     string        `json:"by"`
	Higher bool          `json:"higher"`
	Scores []store.Score `json:"scores"`
}

// dayOf is the UTC day of t.
func dayOf(t time.Time) string { return t.UTC().Format(time.DateOnly) }

// dayEnd is when day ends, in Unix ms; false for a malformed day.
func dayEnd(day string) (int64, bool) {
	t, err := time.Parse(time.DateOnly, day)
	if err != nil {
		return 0, false
	}
	return t.AddDate(0, 0, 1).UnixMilli(), true
}

// dailyGame checks that d names a daily this server can have — a game
// with leaderboards, a one-seat mode that is not real-time, a ranked board
// and a well-formed day — and returns the game.
func (m *Manager) dailyGame(d Daily) (session.Game, error) {
	if m.cfg.Claims == nil {
		return nil, fmt.Errorf("%w: this server keeps no dailies", ErrNoDaily)
	}
	g, ok := m.cfg.Games.Lookup(d.Game)
	if !ok {
		return nil, fmt.Errorf("%w %q", ErrUnknownGame, d.Game)
	}
	info := g.Info()
	if info.Ranking == nil || info.Tick != nil {
		return nil, fmt.Errorf("%w: %s keeps no daily (it has no leaderboards, or it is real-time)", ErrNoDaily, d.Game)
	}
	if !info.Ranking.Keeps(d.Board) {
		return nil, fmt.Errorf("%w: %s has no daily on board %q", ErrNoDaily, d.Game, d.Board)
	}
	solo := false
	for _, mode := range info.Modes {
		solo = solo || (mode.ID == d.Mode && mode.MaxSeats == 1)
	}
	if !solo {
		return nil, fmt.Errorf("%w: %s has no one-seat mode %q", ErrNoDaily, d.Game, d.Mode)
	}
	if _, ok := dayEnd(d.Day); !ok {
		return nil, fmt.Errorf("%w: %q is not a day (YYYY-MM-DD)", ErrNoDaily, d.Day)
	}
	return g, nil
}

// dailyKey returns the server's daily key, claiming it in the store the
// first time any node asks. It is called from request goroutines, never
// from a room's actor.
func (m *Manager) dailyKey(ctx context.Context) ([]byte, error) {
	m.dailyMu.Lock()
	defer m.dailyMu.Unlock()
	if m.dailyKeyBytes != nil {
		return m.dailyKeyBytes, nil
	}
	var fresh [32]byte
	_, _ = rand.Read(fresh[:])
	ctx, cancel := context.WithTimeout(ctx, m.cfg.StoreTimeout)
	defer cancel()
	key, _, err := m.cfg.Claims.Claim(ctx, dailyKeyClaim, fresh[:], 0)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrStorage, err)
	}
	if len(key) != len(fresh) {
		return nil, fmt.Errorf("%w: the stored daily key has %d bytes, not %d", ErrStorage, len(key), len(fresh))
	}
	m.dailyKeyBytes = key
	return key, nil
}

// dailySeed is d's secret: HMAC-SHA256 of its name under the daily key.
func dailySeed(key []byte, d Daily) session.Seed {
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte("roomd daily/1\x00" + d.Game + "\x00" + d.Mode + "\x00" + d.Board + "\x00" + d.Day))
	var s [session.SeedBytes]byte
	copy(s[:], mac.Sum(nil))
	return session.SecretSeed(s)
}

// dailyList is the leaderboard of d.
func dailyList(g session.Game, d Daily) store.Board {
	end, _ := dayEnd(d.Day)
	return store.Board{Game: d.Game, Board: d.Board, Kind: d.Mode + "/daily/" + d.Day,
		Higher: g.Info().Ranking.Higher, Expires: end + dailyKept.Milliseconds()}
}

// Daily returns a daily's commitment, its list so far, and its secret once
// the day is over; ErrNoDaily for a daily the server does not have or a
// day that has not begun.
// An empty mode is the game's first one-seat mode, an empty day today.
func (m *Manager) Daily(ctx context.Context, d Daily, limit int) (DailyInfo, error) {
	if d.Day == "" {
		d.Day = dayOf(m.cfg.Now())
	}
	if g, ok := m.cfg.Games.Lookup(d.Game); ok && d.Mode == "" {
		for _, mode := range g.Info().Modes {
			if mode.MaxSeats == 1 {
				d.Mode = mode.ID
				break
			}
		}
	}
	g, err := m.dailyGame(d)
	if err != nil {
		return DailyInfo{}, err
	}
	if d.Day > dayOf(m.cfg.Now()) {
		return DailyInfo{}, fmt.Errorf("%w: the daily of %s has not begun", ErrNoDaily, d.Day)
	}
	key, err := m.dailyKey(ctx)
	if err != nil {
		return DailyInfo{}, err
	}
	seed := dailySeed(key, d)
	end, _ := dayEnd(d.Day)
	rk := g.Info().Ranking
	out := DailyInfo{Daily: d, Commitment: seed.Commitment(), EndsAt: end, By: string(rk.By), Higher: rk.Higher, Scores: []store.Score{}}
	if m.cfg.Now().UnixMilli() >= end {
		out.Seed = seed.String()
	}
	if m.cfg.Leaderboards != nil {
		ctx, cancel := context.WithTimeout(ctx, m.cfg.StoreTimeout)
		defer cancel()
		scores, err := m.cfg.Leaderboards.Top(ctx, dailyList(g, d), limit)
		if err != nil {
			return DailyInfo{}, fmt.Errorf("%w: %v", ErrStorage, err)
		}
		if scores != nil {
			out.Scores = scores
		}
	}
	return out, nil
}

// startDaily prepares a daily room for req: today's daily of the settings'
// game, mode and board, once per name and per client address. It returns
// the room's daily state.
func (m *Manager) startDaily(ctx context.Context, req CreateRequest, st *state) (*dailyState, error) {
	d := Daily{Game: st.Game, Mode: st.setup.Mode.ID, Board: st.setup.Board, Day: dayOf(m.cfg.Now())}
	if _, err := m.dailyGame(d); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadSettings, err)
	}
	if strings.TrimSpace(req.Name) == "" {
		return nil, fmt.Errorf("%w: the ranked daily needs a name to rank", ErrBadSettings)
	}
	key, err := m.dailyKey(ctx)
	if err != nil {
		return nil, err
	}
	end, _ := dayEnd(d.Day)
	ttl := time.UnixMilli(end).Sub(m.cfg.Now()) + dailyKept // host time, as the day is
	prefix := "daily/played/" + d.Game + "/" + d.Mode + "/" + d.Board + "/" + d.Day + "/"
	type claim struct{ key, what string }
	var claims []claim
	if req.Player != "" {
		// Signed in: the site vouches for who plays, once.
		claims = append(claims, claim{prefix + "player/" + hashed(req.Player), "You have"})
	} else {
		claims = append(claims, claim{prefix + "name/" + hashed(nameKey(st.Players[0].Name)), "The name " + fmt.Sprintf("%q", st.Players[0].Name) + " has"})
		if req.Client != "" {
			claims = append(claims, claim{prefix + "addr/" + hashed(req.Client), "This address has"})
		}
	}
	for _, c := range claims {
		ctx, cancel := context.WithTimeout(ctx, m.cfg.StoreTimeout)
		_, first, err := m.cfg.Claims.Claim(ctx, c.key, []byte{1}, ttl)
		cancel()
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrStorage, err)
		}
		if !first {
			return nil, fmt.Errorf("%s played the %s daily of %s: %w", c.what, d.Board, d.Day, ErrDailyPlayed)
		}
	}
	return &dailyState{Daily: d, Seed: dailySeed(key, d)}, nil
}

// hashed is the hex SHA-256 of s: what the store keeps of names and
// addresses in claim keys.
func hashed(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:16])
}

// sealed reports whether the daily match's secret is still sealed at host
// time now (ms), and until when.
func (st *state) sealed(now int64) (int64, bool) {
	if st.Daily == nil {
		return 0, false
	}
	end, _ := dayEnd(st.Daily.Day)
	return end, now < end
}

// dailyControl refuses what a daily room does not do: a second match,
// other settings (another board), opening the room to watchers while the
// day runs, or a start once the day is over (its secret is out).
func (r *Room) dailyControl(op string) error {
	st := r.st
	if st.Daily == nil {
		return nil
	}
	switch op {
	case protocol.ControlRematch:
		return refuse(protocol.CodeWrongPhase, "a daily room plays one match: the daily is one attempt a day")
	case protocol.ControlSettings:
		return refuse(protocol.CodeInvalidSettings, "a daily room's settings are the daily's")
	case protocol.ControlAccess, protocol.ControlFillWithAI:
		return refuse(protocol.CodeInvalidControl, "a daily room stays locked to watchers and plays alone while the day runs")
	case protocol.ControlStart:
		if _, open := st.sealed(r.now().UnixMilli()); !open {
			return refuse(protocol.CodeWrongPhase, fmt.Sprintf("the daily of %s is over: its secret is out", st.Daily.Day))
		}
	}
	return nil
}
