package room

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/roomd/roomd/core/rating"
	"github.com/roomd/roomd/internal/ids"
	"github.com/roomd/roomd/protocol"
	"github.com/roomd/roomd/store"
)

// rated.go: rated rooms (made by the rated pool, one match between two
// signed-in players whose result changes their Glicko-2 ratings) and the
// ratings the manager reads and applies.
//
// A rated room is unlisted, seats exactly the players it was made for
// (each ready), takes no other seat, no AI, no settings and no rematch,
// and starts its match by itself as soon as every seat is connected (no
// countdown: the players have already said they want to play by
// queueing). A seat not connected within Config.SeatGrace of the room's
// creation closes the room, unrated. A player who leaves a running match
// resigns it (no AI takes a rated seat). A seat with no connection for
// longer than SeatGrace while the match runs is recorded as abandoned
// (a kindAbandon entry, so that a replay reaches the same verdict) and the
// match is not rated.
//
// When the match ends, the rating job is written in the same store write
// as the entry that ended it: as an outbox event (RatingEvent) when the
// manager has an Outbox, which the dispatcher hands to ApplyRatingEvent
// until it succeeds; without one, it goes, once stored, to the manager's
// rating writer (a bounded queue and a goroutine with retries), and again
// whenever the room is loaded from the store (a crash may have lost the
// queue). The store applies a match once by its id (room code, match
// number and the match's seed commitment), so a repeat is harmless.

// RatedPlayer is a signed-in player the rated pool paired: his player id
// (the sign-in subject) and display name.
type RatedPlayer struct {
	Player string `json:"player"`
	Name   string `json:"name"`
}

// RatedRequest asks for a rated room of Game with Settings (whose mode
// must be Mode when Mode is given) for two Players.
type RatedRequest struct {
	Game     string          `json:"game"`
	Mode     string          `json:"mode,omitempty"`
	Settings json.RawMessage `json:"settings,omitempty"`
	Players  []RatedPlayer   `json:"players"`
}

// RatedRoom is a rated room made: its code and each player's seat (in the
// order of RatedRequest.Players).
type RatedRoom struct {
	Code  string       `json:"code"`
	Seats []JoinResult `json:"seats"`
}

// DefaultRatedModes are the game modes that may be rated when
// Config.RatedModes is nil: the two-seat competitive ones.
var DefaultRatedModes = []string{"tictactoe/classic", "nim/classic", "cards/duel", "minesweeper/race"}

// RatedSeats is how many seats a rated match has.
const RatedSeats = 2

// Errors of rated rooms and ratings.
var (
	// ErrNotRated wraps a request for ratings of a game or mode that is not
	// rated, or a rated room that cannot be made as asked.
	ErrNotRated = errors.New("room: not rated")
	// ErrNoRatings is returned when the manager has no ratings store.
	ErrNoRatings = errors.New("room: no ratings configured")
)

// DefaultRating is the rating of a player with none: 1500, RD 350,
// volatility 0.06.
func DefaultRating() Rating {
	d := rating.Default()
	return Rating{Rating: d.Rating, RD: d.RD, Volatility: d.Volatility}
}

// ratedState is what a rated room keeps beyond a room's state.
type ratedState struct {
	// Abandoned are the seats' ids whose player had no connection for
	// longer than the seat grace while the match ran.
	Abandoned []string `json:"abandoned,omitempty"`
}

// kindAbandon records that a seat (Target) of a rated match was abandoned:
// the match will not be rated.
const kindAbandon = "abandon"

// ratedModes returns the rated game modes ("game/mode").
func (m *Manager) ratedModes() []string {
	if m.cfg.RatedModes != nil {
		return m.cfg.RatedModes
	}
	return DefaultRatedModes
}

// ratedMode reports whether game's mode is rated.
func (m *Manager) ratedMode(game, mode string) bool {
	return slices.Contains(m.ratedModes(), game+"/"+mode)
}

// CreateRated makes a rated room for req's players and seats them: each
// gets his seat's token. The players are signed in (their ids are their
// sign-in subjects), two, and different.
func (m *Manager) CreateRated(ctx context.Context, req RatedRequest) (RatedRoom, error) {
	if m.cfg.Ratings == nil {
		return RatedRoom{}, ErrNoRatings
	}
	if len(req.Players) != RatedSeats {
		return RatedRoom{}, fmt.Errorf("%w: a rated match has %d players, not %d", ErrNotRated, RatedSeats, len(req.Players))
	}
	for i, p := range req.Players {
		if err := store.CheckPlayer(p.Player); err != nil {
			return RatedRoom{}, fmt.Errorf("%w: player %d: %v", ErrNotRated, i, err)
		}
	}
	if req.Players[0].Player == req.Players[1].Player {
		return RatedRoom{}, fmt.Errorf("%w: a player cannot play himself", ErrNotRated)
	}
	if len(req.Settings) == 0 || string(req.Settings) == "null" {
		req.Settings = json.RawMessage("{}")
	}
	for range 8 {
		code := ids.Code()
		m.mu.Lock()
		closing, taken, full := m.closing, m.rooms[code] != nil, len(m.rooms) >= m.cfg.MaxRooms
		m.mu.Unlock()
		switch {
		case closing:
			return RatedRoom{}, ErrShuttingDown
		case full:
			return RatedRoom{}, ErrTooManyRooms
		case taken:
			continue
		}
		t := m.cfg.Now().UnixMilli()
		st, err := newState(m.cfg.Games, code, ids.New(), req.Game, req.Settings, t)
		if err != nil {
			return RatedRoom{}, err
		}
		mode := st.setup.Mode.ID
		if req.Mode != "" && req.Mode != mode {
			return RatedRoom{}, fmt.Errorf("%w: the settings are of mode %q, not %q", ErrBadSettings, mode, req.Mode)
		}
		if !m.ratedMode(req.Game, mode) || st.setup.Mode.MinSeats > RatedSeats || st.setup.Mode.MaxSeats < RatedSeats {
			return RatedRoom{}, fmt.Errorf("%w: %s/%s is not a rated mode (rated: %v)", ErrNotRated, req.Game, mode, m.ratedModes())
		}
		out := RatedRoom{Code: code}
		for i, rp := range req.Players {
			token := ids.Token()
			st.Players = append(st.Players, &player{ID: ids.New(), Name: st.uniqueName(cleanName(rp.Name)),
				TokenHash: ids.HashToken(token), Player: rp.Player, Ready: true})
			out.Seats = append(out.Seats, JoinResult{Room: code, Token: token, Seat: i})
		}
		st.Host, st.Rated = st.Players[0].ID, &ratedState{}
		data, keep, err := st.encode()
		if err != nil {
			return RatedRoom{}, err
		}
		snap := store.Snapshot{Rev: 0, Data: data, Keep: keep}
		lease, err := m.createInStore(ctx, code, snap)
		if errors.Is(err, store.ErrExists) {
			continue
		}
		if err != nil {
			return RatedRoom{}, fmt.Errorf("%w: %v", ErrStorage, err)
		}
		r := newRoom(m, st, lease, store.Record{Snapshot: snap})
		m.mu.Lock()
		if m.closing {
			m.mu.Unlock()
			return RatedRoom{}, ErrShuttingDown
		}
		m.rooms[code] = r
		m.start(r)
		m.mu.Unlock()
		m.cfg.Logger.Info("rated room created", "room", code, "room_id", r.id, "game", req.Game, "mode", mode)
		m.hookCreated(ctx, st, t)
		return out, nil
	}
	return RatedRoom{}, errors.New("room: could not find a free room code")
}

// ratedDispatch applies what is particular to rated rooms, before the
// reducer's own cases: done is true when it decided (a refusal, or a
// kindAbandon).
func (s *state) ratedDispatch(e *entry) (eff effect, done bool, err error) {
	if e.Kind == kindAbandon {
		if s.Rated == nil || s.Phase != phaseRunning || s.seatOf(e.Target) < 0 {
			return effect{}, true, refuse(protocol.CodeWrongPhase, "only a seat of a running rated match can be abandoned")
		}
		if !slices.Contains(s.Rated.Abandoned, e.Target) {
			s.Rated.Abandoned = append(s.Rated.Abandoned, e.Target)
		}
		return effect{meta: true}, true, nil
	}
	if s.Rated == nil {
		return effect{}, false, nil
	}
	switch e.Kind {
	case kindJoin:
		return effect{}, true, refuse(protocol.CodeRoomFull, "a rated room's seats are its two players'; watch it instead")
	case kindFill, kindRemove, kindSettings, kindReady, kindRematch, kindAccess:
		return effect{}, true, refuse(protocol.CodeInvalidControl, "a rated room keeps the seats, settings and single match the rated pool gave it")
	}
	return effect{}, false, nil
}

// ratedMatch is the rating job of the room's finished match, or why the
// match is not rated ("" when it is). It reads only the state, so a room
// rebuilt from the store reaches the same verdict.
func (s *state) ratedMatch(rated func(game, mode string) bool) (store.RatedMatch, string) {
	switch {
	case s.Rated == nil:
		return store.RatedMatch{}, "not a rated room"
	case s.Phase != phaseEnded || s.Result == nil || s.sess == nil:
		return store.RatedMatch{}, "no finished match"
	case !rated(s.Game, s.setup.Mode.ID):
		return store.RatedMatch{}, "not a rated mode"
	case len(s.Players) != RatedSeats || len(s.roster) != RatedSeats:
		return store.RatedMatch{}, "not two seats"
	case s.assisted || slices.ContainsFunc(s.Players, func(p *player) bool { return p.AI }):
		return store.RatedMatch{}, "the AI held a seat"
	case len(s.Rated.Abandoned) > 0:
		return store.RatedMatch{}, "abandoned: a seat had no connection for longer than the seat grace"
	}
	switch s.Result.Status {
	case "stalled", "rules-changed":
		return store.RatedMatch{}, "the match did not end in play (" + s.Result.Status + ")"
	case "resigned", "timeout":
		if len(s.sess.Log()) < 2 {
			return store.RatedMatch{}, s.Result.Status + " before the second move"
		}
	}
	m := store.RatedMatch{Pool: store.RatingPool{Game: s.Game, Mode: s.setup.Mode.ID}, At: s.Activity,
		ID: s.Code + "/" + strconv.Itoa(s.Result.Match) + "/" + s.sess.Seed().Commitment(), Score: 0.5}
	for i, p := range s.Players {
		if p.Player == "" {
			return store.RatedMatch{}, "a seat is not signed in"
		}
		m.Players[i], m.Names[i] = p.Player, p.Name
	}
	if m.Players[0] == m.Players[1] {
		return store.RatedMatch{}, "one player in both seats"
	}
	switch w := s.Result.Winners; {
	case len(w) == 1 && w[0] == 0:
		m.Score = 1
	case len(w) == 1 && w[0] == 1:
		m.Score = 0
	}
	return m, ""
}

// rate queues the rating job of the match that just ended, if it is
// rated, in the batch that stores its end (called by finish).
func (r *Room) rate() {
	if r.st.Rated == nil {
		return
	}
	m, why := r.st.ratedMatch(r.m.ratedMode)
	if why != "" {
		r.log.Info("rated room's match not rated", "match", r.st.Match, "why", why)
		return
	}
	if r.m.cfg.Ratings == nil {
		r.log.Warn("rated match with no ratings store; not rated", "match", r.st.Match)
		return
	}
	if r.m.cfg.Outbox == nil {
		r.b.rated = append(r.b.rated, m)
		return
	}
	ev, err := hookEvent(RatingEvent, r.code, r.st.Game, m.At, ratingJobOf(m))
	if err != nil {
		r.log.Error("rating job not encoded", "match", r.st.Match, "err", err)
		return
	}
	r.b.events = append(r.b.events, ev)
}

// RatingEvent is the type of the outbox event that carries a rated match's
// result (Manager.ApplyRatingEvent applies it). It is never sent to a
// webhook receiver.
const RatingEvent = "roomd.rating"

// ratingJob is the data of a RatingEvent.
type ratingJob struct {
	ID      string    `json:"id"`
	Game    string    `json:"game"`
	Mode    string    `json:"mode"`
	Players [2]string `json:"players"`
	Names   [2]string `json:"names"`
	Score   float64   `json:"score"`
	At      int64     `json:"at"`
}

func ratingJobOf(m store.RatedMatch) ratingJob {
	return ratingJob{ID: m.ID, Game: m.Pool.Game, Mode: m.Pool.Mode, Players: m.Players, Names: m.Names, Score: m.Score, At: m.At}
}

// ApplyRatingEvent applies one RatingEvent from the outbox. It is
// idempotent (the store applies a match id once), so the dispatcher
// retries it until it succeeds. An event it cannot read is an error that
// says so.
func (m *Manager) ApplyRatingEvent(ctx context.Context, ev store.Event) error {
	var env struct {
		Type string    `json:"type"`
		Data ratingJob `json:"data"`
	}
	if err := json.Unmarshal(ev.Data, &env); err != nil || env.Type != RatingEvent {
		return fmt.Errorf("room: event %s is not a %s event: %v", ev.ID, RatingEvent, err)
	}
	j := env.Data
	return m.applyRating(ctx, store.RatedMatch{ID: j.ID, Pool: store.RatingPool{Game: j.Game, Mode: j.Mode},
		Players: j.Players, Names: j.Names, Score: j.Score, At: j.At})
}

// applyRating applies a rated match with Glicko-2 (one rating period).
func (m *Manager) applyRating(ctx context.Context, rm store.RatedMatch) error {
	if m.cfg.Ratings == nil {
		return ErrNoRatings
	}
	applied, err := m.cfg.Ratings.ApplyRating(ctx, rm, glicko(rm.Score))
	if err != nil {
		return fmt.Errorf("room: apply rating of %s: %w", rm.ID, err)
	}
	if applied {
		m.cfg.Logger.Info("rating applied", "match", rm.ID, "pool", rm.Pool.String(), "score", rm.Score)
	}
	return nil
}

// glicko is the store's update for a match a's score was score in: a
// player with no rating starts at the default.
func glicko(score float64) store.RatingUpdate {
	return func(a, b store.Rating) (store.Rating, store.Rating) {
		ra, rb := rating.System{}.Match(coreRating(a), coreRating(b), score)
		return Rating{Rating: ra.Rating, RD: ra.RD, Volatility: ra.Volatility},
			Rating{Rating: rb.Rating, RD: rb.RD, Volatility: rb.Volatility}
	}
}

func coreRating(r store.Rating) rating.Rating {
	if r.Matches == 0 {
		return rating.Default()
	}
	return rating.Rating{Rating: r.Rating, RD: r.RD, Volatility: r.Volatility}
}

// The rating writer: without an outbox, the rated matches stored go
// through this queue, applied beside the rooms, with retries.
const (
	ratingQueue      = 1024
	ratingRetryFirst = 100 * time.Millisecond
	ratingRetryMost  = 5 * time.Second
)

// enqueueRating hands a stored rated match to the rating writer without
// waiting. When the queue is full or the writer has stopped, it is
// dropped and logged: the room applies it again when it is next loaded.
func (m *Manager) enqueueRating(rm store.RatedMatch) {
	if m.ratings == nil {
		return
	}
	select {
	case <-m.ratingsQuit:
		m.cfg.Logger.Warn("rating writer stopped; rated match left for the room's next load", "match", rm.ID)
		return
	default:
	}
	select {
	case m.ratings <- rm:
	default:
		m.cfg.Logger.Warn("rating queue full; rated match left for the room's next load", "match", rm.ID)
	}
}

// startRatings starts the rating writer when there are ratings and no
// outbox to carry them.
func (m *Manager) startRatings() {
	m.ratingsQuit, m.ratingsDone = make(chan struct{}), make(chan struct{})
	if m.cfg.Ratings == nil || m.cfg.Outbox != nil {
		close(m.ratingsDone)
		return
	}
	m.ratings = make(chan store.RatedMatch, ratingQueue)
	go m.writeRatings()
}

// stopRatings stops the rating writer and waits for it (or ctx).
func (m *Manager) stopRatings(ctx context.Context) error {
	m.stopRatingsOnce.Do(func() { close(m.ratingsQuit) })
	select {
	case <-m.ratingsDone:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("room: shutdown: rating writer: %w", ctx.Err())
	}
}

// writeRatings applies the queued rated matches, each retried with a
// growing wait until it is applied or the writer stops (what is left is
// applied when its room is next loaded).
func (m *Manager) writeRatings() {
	defer close(m.ratingsDone)
	for {
		select {
		case rm := <-m.ratings:
			wait := ratingRetryFirst
			for {
				ctx, cancel := context.WithTimeout(context.Background(), m.cfg.StoreTimeout)
				err := m.applyRating(ctx, rm)
				cancel()
				if err == nil || errors.Is(err, store.ErrBadRating) {
					if err != nil {
						m.cfg.Logger.Error("rated match refused by the store", "match", rm.ID, "err", err)
					}
					break
				}
				m.cfg.Logger.Warn("apply rating; retrying", "match", rm.ID, "in", wait, "err", err)
				select {
				case <-time.After(wait):
					wait = min(2*wait, ratingRetryMost)
				case <-m.ratingsQuit:
					return
				}
			}
		case <-m.ratingsQuit:
			return
		}
	}
}

// rerate queues again the rating of a rated room's finished match when the
// room is loaded from the store, in case the process that ended it
// stopped before applying it (only without an outbox: the outbox keeps
// its events across crashes).
func (m *Manager) rerate(st *state) {
	if st.Rated == nil || m.cfg.Outbox != nil || m.cfg.Ratings == nil {
		return
	}
	if rm, why := st.ratedMatch(m.ratedMode); why == "" {
		m.enqueueRating(rm)
	}
}

// ratedTurn runs a rated room's own steps after the actor's inputs: it
// starts the match once every seat is connected, closes a room whose seat
// never came, and records a seat abandoned during the match.
func (r *Room) ratedTurn() {
	st := r.st
	if st.Rated == nil || st.Closed || r.closing || r.stopping || r.frozen {
		return
	}
	now := r.now()
	grace := r.m.cfg.SeatGrace
	switch st.Phase {
	case phaseLobby:
		if len(st.Players) == RatedSeats && r.allConnected() {
			e := &entry{Kind: kindStart, By: st.Host, Seed: r.m.cfg.Seeds(), RV: st.game.Info().RulesVersion}
			if err := r.accept(e, pending{}); err != nil {
				r.log.Warn("start the rated match", "err", err)
			}
			return
		}
		if len(st.Players) < RatedSeats || now.Sub(time.UnixMilli(st.Created)) >= grace {
			r.log.Info("rated room closes unrated: a seat did not come", "seats", len(st.Players), "grace", grace)
			r.handle(input{kind: inClose})
		}
	case phaseRunning:
		r.noteGone(now)
		for id, since := range r.gone {
			if now.Sub(since) < grace || slices.Contains(st.Rated.Abandoned, id) {
				continue
			}
			if err := r.accept(&entry{Kind: kindAbandon, Target: id}, pending{}); err != nil {
				r.log.Warn("record an abandoned seat", "player", id, "err", err)
				continue
			}
			r.log.Info("rated match abandoned: it will not be rated", "player", id, "after", grace)
		}
	default:
		clear(r.gone)
	}
}

// ratedDue is when ratedTurn has something to do by the clock (zero:
// nothing): the end of the seat grace in the lobby, or of a seat's absence
// during the match.
func (r *Room) ratedDue() time.Time {
	st := r.st
	if st.Rated == nil || st.Closed {
		return time.Time{}
	}
	grace := r.m.cfg.SeatGrace
	switch st.Phase {
	case phaseLobby:
		return time.UnixMilli(st.Created).Add(grace)
	case phaseRunning:
		var next time.Time
		for id, since := range r.gone {
			if at := since.Add(grace); !slices.Contains(st.Rated.Abandoned, id) && (next.IsZero() || at.Before(next)) {
				next = at
			}
		}
		return next
	}
	return time.Time{}
}

// allConnected reports whether every seat has a connection.
func (r *Room) allConnected() bool {
	here := map[string]bool{}
	for _, mem := range r.members {
		here[mem.player] = true
	}
	for _, p := range r.st.Players {
		if !here[p.ID] {
			return false
		}
	}
	return true
}

// noteGone records, from now, each seat of the running match with no
// connection, and forgets the seats that have one.
func (r *Room) noteGone(now time.Time) {
	if r.gone == nil {
		r.gone = map[string]time.Time{}
	}
	here := map[string]bool{}
	for _, mem := range r.members {
		here[mem.player] = true
	}
	for _, p := range r.st.Players {
		if _, noted := r.gone[p.ID]; !here[p.ID] && !noted {
			r.gone[p.ID] = now
		} else if here[p.ID] {
			delete(r.gone, p.ID)
		}
	}
}

// Rating returns player's rating in game's mode: the default (1500, RD
// 350, volatility 0.06) when he has none.
func (m *Manager) Rating(ctx context.Context, game, mode, player string) (Rating, error) {
	pool, err := m.ratingPool(game, mode)
	if err != nil {
		return Rating{}, err
	}
	if err := store.CheckPlayer(player); err != nil {
		return Rating{}, fmt.Errorf("%w: %v", ErrNotRated, err)
	}
	r, found, err := m.cfg.Ratings.Rating(ctx, pool, player)
	if err != nil {
		return Rating{}, fmt.Errorf("%w: %v", ErrStorage, err)
	}
	if !found {
		return DefaultRating(), nil
	}
	return r, nil
}

// ratingPool checks that game's mode is rated and ratings are kept.
func (m *Manager) ratingPool(game, mode string) (store.RatingPool, error) {
	if m.cfg.Ratings == nil {
		return store.RatingPool{}, ErrNoRatings
	}
	if !m.ratedMode(game, mode) {
		return store.RatingPool{}, fmt.Errorf("%w: %s/%s is not rated (rated: %v)", ErrNotRated, game, mode, m.ratedModes())
	}
	return store.RatingPool{Game: game, Mode: mode}, nil
}

// PoolRating is a player's rating in one game and mode.
type PoolRating struct {
	Game string `json:"game"`
	Mode string `json:"mode"`
	Rating
	// Rated is false when the player has no rated match there (the
	// rating is the default).
	Rated bool `json:"rated"`
	// Provisional is true while the RD is above store.ProvisionalRD: the
	// player is not on the leaderboard yet.
	Provisional bool `json:"provisional"`
}

func poolRating(pool store.RatingPool, r Rating, found bool) PoolRating {
	if !found {
		r = DefaultRating()
	}
	return PoolRating{Game: pool.Game, Mode: pool.Mode, Rating: r, Rated: found, Provisional: !r.Listed()}
}

// PlayerRatings returns player's rating in every rated mode of the games
// this server runs, in the order of the rated modes.
func (m *Manager) PlayerRatings(ctx context.Context, player string) ([]PoolRating, error) {
	if m.cfg.Ratings == nil {
		return nil, ErrNoRatings
	}
	if err := store.CheckPlayer(player); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNotRated, err)
	}
	out := []PoolRating{}
	for _, gm := range m.ratedModes() {
		game, mode, ok := cutPool(gm)
		if _, known := m.cfg.Games.Lookup(game); !ok || !known {
			continue
		}
		pool := store.RatingPool{Game: game, Mode: mode}
		r, found, err := m.cfg.Ratings.Rating(ctx, pool, player)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrStorage, err)
		}
		out = append(out, poolRating(pool, r, found))
	}
	return out, nil
}

func cutPool(gm string) (game, mode string, ok bool) {
	for i := range len(gm) {
		if gm[i] == '/' {
			return gm[:i], gm[i+1:], i > 0 && i < len(gm)-1
		}
	}
	return "", "", false
}

// PlayerRating is a player's rating in one game and mode with his latest
// changes, newest first.
type PlayerRating struct {
	PoolRating
	Player  string         `json:"player"`
	History []RatingChange `json:"history"`
}

// RatingHistory returns player's rating in game's mode and up to limit of
// his latest changes (store.MaxRatingHistory at most).
func (m *Manager) RatingHistory(ctx context.Context, game, mode, player string, limit int) (PlayerRating, error) {
	pool, err := m.ratingPool(game, mode)
	if err != nil {
		return PlayerRating{}, err
	}
	if err := store.CheckPlayer(player); err != nil {
		return PlayerRating{}, fmt.Errorf("%w: %v", ErrNotRated, err)
	}
	r, found, err := m.cfg.Ratings.Rating(ctx, pool, player)
	if err != nil {
		return PlayerRating{}, fmt.Errorf("%w: %v", ErrStorage, err)
	}
	h, err := m.cfg.Ratings.RatingHistory(ctx, pool, player, limit)
	if err != nil {
		return PlayerRating{}, fmt.Errorf("%w: %v", ErrStorage, err)
	}
	if h == nil {
		h = []RatingChange{}
	}
	return PlayerRating{PoolRating: poolRating(pool, r, found), Player: player, History: h}, nil
}

// RatingBoard is a rating leaderboard: the players of a game's mode with
// the highest ratings, provisional players left out.
type RatingBoard struct {
	Game          string        `json:"game"`
	Mode          string        `json:"mode"`
	ProvisionalRD float64       `json:"provisionalRd"`
	Players       []RatingEntry `json:"players"`
}

// RatingLeaderboard returns up to limit players of game's mode with the
// highest ratings (store.MaxRatingTop at most).
func (m *Manager) RatingLeaderboard(ctx context.Context, game, mode string, limit int) (RatingBoard, error) {
	pool, err := m.ratingPool(game, mode)
	if err != nil {
		return RatingBoard{}, err
	}
	top, err := m.cfg.Ratings.TopRatings(ctx, pool, limit)
	if err != nil {
		return RatingBoard{}, fmt.Errorf("%w: %v", ErrStorage, err)
	}
	if top == nil {
		top = []RatingEntry{}
	}
	return RatingBoard{Game: game, Mode: mode, ProvisionalRD: store.ProvisionalRD, Players: top}, nil
}

// RatedModes returns the rated modes of the games this server runs, as
// "game/mode" (none when it keeps no ratings).
func (m *Manager) RatedModes() []string {
	if m.cfg.Ratings == nil {
		return nil
	}
	var out []string
	for _, gm := range m.ratedModes() {
		if game, _, ok := cutPool(gm); ok {
			if _, known := m.cfg.Games.Lookup(game); known {
				out = append(out, gm)
			}
		}
	}
	return out
}
