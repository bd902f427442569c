package room

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/roomd/roomd/protocol"
)

// pool_rated.go: what rated quick play needs of the ratings (the "rating"
// branch: room/rated.go, Manager.Rating and Manager.CreateRated), behind
// two small interfaces, and stand-ins until that branch is merged. When
// it is: delete RatedRequest, RatedPlayer and RatedRoom here (rated.go
// declares them), and make ratedRooms return m and rater return
// managerRater{m} (below, commented out).

// RatedPlayer is one player of a rated room.
type RatedPlayer struct {
	Player, Name string
}

// RatedRequest asks for a rated room with its players seated in order.
type RatedRequest struct {
	Game, Mode string
	Settings   json.RawMessage
	Players    []RatedPlayer
}

// RatedRoom is a rated room made for its players: their seats, in the
// request's order.
type RatedRoom struct {
	Code  string
	Seats []JoinResult
}

// RatedRooms makes rated rooms (Manager.CreateRated).
type RatedRooms interface {
	CreateRated(ctx context.Context, req RatedRequest) (RatedRoom, error)
}

// PoolRater looks up the rating a player enters a pool with
// (Manager.Rating's rating).
type PoolRater interface {
	PoolRating(ctx context.Context, game, mode, player string) (float64, error)
}

// DefaultPoolRating is a rating nobody has yet (Glicko-2's start).
const DefaultPoolRating = 1500

// rater is Config.Rater, or everyone at DefaultPoolRating.
func (m *Manager) rater() PoolRater {
	if m.cfg.Rater != nil {
		return m.cfg.Rater
	}
	return defaultRater{} // once merged: managerRater{m}
}

// ratedRooms is Config.RatedRooms, or plainRooms.
func (m *Manager) ratedRooms() RatedRooms {
	if m.cfg.RatedRooms != nil {
		return m.cfg.RatedRooms
	}
	return plainRooms{m} // once merged: m
}

type defaultRater struct{}

func (defaultRater) PoolRating(context.Context, string, string, string) (float64, error) {
	return DefaultPoolRating, nil
}

// Once merged:
//
//	type managerRater struct{ m *Manager }
//
//	func (r managerRater) PoolRating(ctx context.Context, game, mode, player string) (float64, error) {
//		rt, err := r.m.Rating(ctx, game, mode, player)
//		return rt.Rating, err // the rating's value, whatever store.Rating names it
//	}

// plainRooms stands in for Manager.CreateRated: a locked room (no third
// player joins) with the players seated in order, not marked rated, and
// without the clock (which rooms do not take out of the settings before
// the turn clocks land: a game refuses the key).
type plainRooms struct{ m *Manager }

func (p plainRooms) CreateRated(ctx context.Context, req RatedRequest) (RatedRoom, error) {
	if len(req.Players) == 0 {
		return RatedRoom{}, fmt.Errorf("%w: a rated room needs players", ErrBadSettings)
	}
	settings, _, err := splitClock(req.Settings)
	if err != nil {
		return RatedRoom{}, fmt.Errorf("%w: %v", ErrBadSettings, err)
	}
	host, err := p.m.Create(ctx, CreateRequest{Game: req.Game, Settings: settings, Name: req.Players[0].Name,
		Access: protocol.AccessLocked, Player: req.Players[0].Player})
	if err != nil {
		return RatedRoom{}, err
	}
	out := RatedRoom{Code: host.Room, Seats: []JoinResult{host}}
	r, ok := p.m.Lookup(host.Room)
	if !ok {
		return RatedRoom{}, ErrNoRoom
	}
	for _, pl := range req.Players[1:] {
		res, err := r.Join(ctx, pl.Name, host.Invite, pl.Player)
		if err != nil {
			return RatedRoom{}, err
		}
		out.Seats = append(out.Seats, res)
	}
	for i := range out.Seats {
		out.Seats[i].Invite = ""
	}
	return out, nil
}
