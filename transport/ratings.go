package transport

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/roomd/roomd/internal/httpjson"
	"github.com/roomd/roomd/room"
)

// ratings.go: the rating routes (PROTOCOL.md, "Ratings"). The ratings are
// in the store every node shares, so any node answers them.

// maxPlayerID is the longest player id the routes take (a sign-in
// subject, as the ratings store bounds it).
const maxPlayerID = 256

// ratingBoard serves GET /api/ratings/{game}/{mode}?limit=N: the players
// of a rated mode with the highest ratings, provisional players left out.
func (s *Server) ratingBoard(w http.ResponseWriter, r *http.Request) {
	limit, ok := listLimit(w, r)
	if !ok {
		return
	}
	b, err := s.cfg.Rooms.RatingLeaderboard(r.Context(), r.PathValue("game"), r.PathValue("mode"), limit)
	if err != nil {
		ratingError(w, err)
		return
	}
	httpjson.Write(w, http.StatusOK, b)
}

// playerRatings serves GET /api/players/{player}/ratings: the player's
// rating in every rated mode (the default where he has played none).
func (s *Server) playerRatings(w http.ResponseWriter, r *http.Request) {
	player, ok := playerID(w, r)
	if !ok {
		return
	}
	all, err := s.cfg.Rooms.PlayerRatings(r.Context(), player)
	if err != nil {
		ratingError(w, err)
		return
	}
	httpjson.Write(w, http.StatusOK, struct {
		Player  string            `json:"player"`
		Ratings []room.PoolRating `json:"ratings"`
	}{player, all})
}

// playerRating serves GET /api/players/{player}/ratings/{game}/{mode}
// ?limit=N: the player's rating there and his latest N changes.
func (s *Server) playerRating(w http.ResponseWriter, r *http.Request) {
	player, ok := playerID(w, r)
	if !ok {
		return
	}
	limit, ok := listLimit(w, r)
	if !ok {
		return
	}
	pr, err := s.cfg.Rooms.RatingHistory(r.Context(), r.PathValue("game"), r.PathValue("mode"), player, limit)
	if err != nil {
		ratingError(w, err)
		return
	}
	httpjson.Write(w, http.StatusOK, pr)
}

// playerID reads the path's player id: 1 to maxPlayerID bytes.
func playerID(w http.ResponseWriter, r *http.Request) (string, bool) {
	p := r.PathValue("player")
	if p == "" || len(p) > maxPlayerID {
		httpjson.Error(w, http.StatusBadRequest, fmt.Sprintf("a player id is 1 to %d bytes (the site's sign-in subject)", maxPlayerID))
		return "", false
	}
	return p, true
}

func ratingError(w http.ResponseWriter, err error) {
	switch {
	case errors.Is(err, room.ErrNoRatings):
		httpjson.Error(w, http.StatusNotFound, "this server keeps no ratings")
	case errors.Is(err, room.ErrNotRated):
		httpjson.Error(w, http.StatusNotFound, err.Error())
	default:
		roomError(w, "", err)
	}
}
