package room

import (
	"context"
)

// pool_rated.go: what rated quick play needs of the ratings, behind two
// small interfaces that tests fill with their own: the rating a player
// enters a pool with (Manager.Rating's), and the rooms of pairs
// (Manager.CreateRated).

// RatedRooms makes rated rooms (Manager.CreateRated).
type RatedRooms interface {
	CreateRated(ctx context.Context, req RatedRequest) (RatedRoom, error)
}

// PoolRater looks up the rating a player enters a pool with.
type PoolRater interface {
	PoolRating(ctx context.Context, game, mode, player string) (float64, error)
}

// rater is Config.Rater, or the manager's ratings.
func (m *Manager) rater() PoolRater {
	if m.cfg.Rater != nil {
		return m.cfg.Rater
	}
	return managerRater{m}
}

// ratedRooms is Config.RatedRooms, or the manager's own.
func (m *Manager) ratedRooms() RatedRooms {
	if m.cfg.RatedRooms != nil {
		return m.cfg.RatedRooms
	}
	return m
}

type managerRater struct{ m *Manager }

func (r managerRater) PoolRating(ctx context.Context, game, mode, player string) (float64, error) {
	rt, err := r.m.Rating(ctx, game, mode, player)
	return rt.Rating, err
}
