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
// signed-in players whose result changes their Glicko-2 ratings); the
// ratings the manager applies and reads are in ratings.go.
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
		// It starts as a quick-play room does (quick.go): a short countdown
		// once both seats are connected, shown as room.startsAt.
		st.Host, st.Rated, st.Quick = st.Players[0].ID, &ratedState{}, true
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
			if !st.Quick { // a rated room stored before rated rooms counted down
				e := &entry{Kind: kindStart, By: st.Host, Seed: r.m.cfg.Seeds(), RV: st.game.Info().RulesVersion}
				if err := r.accept(e, pending{}); err != nil {
					r.log.Warn("start the rated match", "err", err)
				}
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
