package transport

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/roomd/roomd/internal/httpjson"
	"github.com/roomd/roomd/room"
)

// rooms_list.go: the public rooms (GET /api/rooms) and quick play (POST
// /api/quickplay). The lobby polls the list; nothing holds a socket per
// lobby visitor.

// listRooms serves a page of the public rooms live in this process.
func (s *Server) listRooms(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	lq := room.ListQuery{Game: q.Get("game"), Mode: q.Get("mode"), Phase: q.Get("phase"), Cursor: q.Get("cursor")}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > room.MaxListLimit {
			httpjson.Error(w, http.StatusBadRequest, fmt.Sprintf("limit must be an integer from 1 to %d", room.MaxListLimit))
			return
		}
		lq.Limit = n
	}
	switch lq.Phase {
	case "", "lobby", "running":
	default:
		httpjson.Error(w, http.StatusBadRequest, fmt.Sprintf("phase must be lobby or running, not %q", lq.Phase))
		return
	}
	page, err := s.cfg.Rooms.ListRooms(lq)
	if err == nil && s.cl != nil && q.Get("local") != "1" {
		page = s.clusterRooms(r, lq, page)
	}
	switch {
	case errors.Is(err, room.ErrBadCursor):
		httpjson.Error(w, http.StatusBadRequest, "cursor is not one this server gave (start again without it)")
		return
	case err != nil:
		roomError(w, "", err)
		return
	}
	// The same for every visitor and rebuilt at most once a second: a
	// cache may keep it that long.
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "public, max-age=1")
	w.WriteHeader(http.StatusOK)
	_ = json.NewEncoder(w).Encode(page)
}

// quotaRefused is a quota spent during quick play.
type quotaRefused struct {
	kind quotaKind
	wait time.Duration
}

func (e *quotaRefused) Error() string { return "too many " + quotaNames[e.kind] }

// quickPlay seats the player in an open public room with the settings
// asked, or makes one: 200 when it joined, 201 when it made the room.
func (s *Server) quickPlay(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Game     string          `json:"game"`
		Settings json.RawMessage `json:"settings"`
		Name     string          `json:"name"`
		// Rated asks for a rated match (pool.go).
		Rated bool `json:"rated"`
	}
	if !decodeBody(w, r, &req) {
		return
	}
	if req.Game == "" {
		httpjson.Error(w, http.StatusBadRequest, "game is required (see GET /api/games)")
		return
	}
	if req.Rated {
		s.ratedQuickPlay(w, r, req.Game, req.Settings, req.Name)
		return
	}
	id, ok := s.httpIdentity(w, r)
	if !ok {
		return
	}
	addr := s.quotas.clientAddr(r)
	ctx, cancel := context.WithTimeout(r.Context(), 10*time.Second)
	defer cancel()
	res, err := s.cfg.Rooms.QuickPlay(ctx, room.QuickPlayRequest{Game: req.Game, Settings: req.Settings,
		Name: firstNonBlank(id.Name, req.Name), Player: id.Subject, Client: addr.String(),
		Spend: func(create bool) error {
			kind := qJoins
			if create {
				kind = qRooms
			}
			if wait, ok := s.quotas.spend(ctx, addr, kind); !ok {
				return &quotaRefused{kind: kind, wait: wait}
			}
			return nil
		}})
	var refused *quotaRefused
	switch {
	case errors.As(err, &refused):
		refuseQuota(w, refused.kind, refused.wait)
	case errors.Is(err, room.ErrSoloQuickPlay):
		httpjson.Error(w, http.StatusBadRequest, err.Error())
	case err != nil:
		roomError(w, "", err)
	case res.Created:
		httpjson.Write(w, http.StatusCreated, res)
	default:
		httpjson.Write(w, http.StatusOK, res)
	}
}

// clusterRooms merges this node's page of public rooms with the other live
// nodes' pages for the same query (asked with local=1, at once, within 2
// s): the page is the first Limit rooms of all of them in the list's order,
// and its cursor works on every node. A node that does not answer in time
// is left out of this page.
func (s *Server) clusterRooms(r *http.Request, lq room.ListQuery, local room.ListPage) room.ListPage {
	q := r.URL.Query()
	q.Set("local", "1")
	path := "/api/rooms?" + q.Encode()
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	var mu sync.Mutex
	var wg sync.WaitGroup
	all, more := append([]room.Listed{}, local.Rooms...), local.Next != ""
	for _, n := range s.Nodes() {
		if n.ID == s.cl.cfg.Self.ID {
			continue
		}
		wg.Go(func() {
			resp, err := s.PeerRequest(ctx, n.ID, http.MethodGet, path, nil, nil)
			if err != nil {
				return
			}
			defer resp.Body.Close()
			var page room.ListPage
			if resp.StatusCode != http.StatusOK || json.NewDecoder(io.LimitReader(resp.Body, 4<<20)).Decode(&page) != nil {
				return
			}
			mu.Lock()
			all, more = append(all, page.Rooms...), more || page.Next != ""
			mu.Unlock()
		})
	}
	wg.Wait()
	slices.SortFunc(all, room.CompareListed)
	limit := lq.Limit
	if limit == 0 {
		limit = room.DefaultListLimit
	}
	out := room.ListPage{Rooms: all[:min(limit, len(all))]}
	if len(all) > limit || (more && len(out.Rooms) > 0) {
		out.Next = room.ListCursor(out.Rooms[len(out.Rooms)-1])
	}
	return out
}
