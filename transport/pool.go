package transport

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/roomd/roomd/internal/httpjson"
	"github.com/roomd/roomd/room"
)

// pool.go: rated quick play's wire (PROTOCOL.md §2.13). POST /api/quickplay
// with "rated": true puts the signed-in player in a pool and answers 202
// with a ticket; the player waits by long-polling GET /api/quickplay/{ticket}
// (each poll held until the ticket is settled or waitMs pass) and cancels
// with DELETE. The pairing is the room layer's (room/pool.go); this node
// opens a pair's room on the least-loaded node (openRated).

// Long-poll bounds.
const (
	// defaultPollWait and maxPollWait bound how long one poll is held.
	defaultPollWait = 20 * time.Second
	maxPollWait     = 25 * time.Second
	// pollEvery is how often a held poll reads its ticket.
	pollEvery = 250 * time.Millisecond
	// ratedPath is where a node asks another to open a rated room.
	ratedPath = "/api/internal/rated"
)

// minPollGap is the least time between the starts of two polls of one
// ticket (on one node): a client that polls with waitMs 0 in a loop is
// slowed to ten reads a second.
const minPollGap = 100 * time.Millisecond

// polls are the polls of tickets on this node: one held at a time per
// ticket, and the time each ticket's last poll started.
type polls struct {
	mu    sync.Mutex
	held  map[string]bool
	start map[string]time.Time
}

// take starts a poll of ticket at now, or says why not.
func (p *polls) take(ticket string, now time.Time) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.held == nil {
		p.held, p.start = map[string]bool{}, map[string]time.Time{}
	}
	switch {
	case p.held[ticket]:
		return "this ticket is polled already: one poll at a time"
	case now.Sub(p.start[ticket]) < minPollGap:
		return fmt.Sprintf("this ticket was polled less than %v ago: poll with waitMs, and again when it answers", minPollGap)
	}
	if len(p.start) > 4*len(p.held)+1024 {
		for id, at := range p.start {
			if now.Sub(at) >= minPollGap && !p.held[id] {
				delete(p.start, id)
			}
		}
	}
	p.held[ticket], p.start[ticket] = true, now
	return ""
}

func (p *polls) done(ticket string) {
	p.mu.Lock()
	delete(p.held, ticket)
	p.mu.Unlock()
}

// ratedAnswer is a ticket on the wire.
type ratedAnswer struct {
	room.PoolStatus
	Poll string `json:"poll"`
}

func answer(st room.PoolStatus) ratedAnswer {
	return ratedAnswer{PoolStatus: st, Poll: "/api/quickplay/" + st.Ticket}
}

// ratedQuickPlay puts the signed-in player in the pool of the game, mode
// and clock asked: 202 with its ticket.
func (s *Server) ratedQuickPlay(w http.ResponseWriter, r *http.Request, game string, settings json.RawMessage, name string) {
	id, ok := s.httpIdentity(w, r)
	if !ok {
		return
	}
	if id.Subject == "" {
		w.Header().Set("WWW-Authenticate", `Bearer realm="roomd"`)
		httpjson.Error(w, http.StatusUnauthorized, "rated quick play is for signed-in players: send the site's token as Authorization: Bearer <jwt>")
		return
	}
	if !s.quota(w, r, qJoins) {
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), 10*time.Second)
	defer cancel()
	st, err := s.cfg.Rooms.EnterPool(ctx, room.PoolRequest{Game: game, Settings: settings, Player: id.Subject,
		Name: firstNonBlank(id.Name, name)})
	if err != nil {
		poolError(w, err)
		return
	}
	httpjson.Write(w, http.StatusAccepted, answer(st))
}

// pollTicket holds a poll of a ticket until it is settled, it is gone, or
// waitMs pass; the ticket lives on while the poll is held and PoolGone
// after it ends.
func (s *Server) pollTicket(w http.ResponseWriter, r *http.Request) {
	ticket, player, ok := s.ticketOwner(w, r)
	if !ok {
		return
	}
	wait := defaultPollWait
	if v := r.URL.Query().Get("waitMs"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > int(maxPollWait/time.Millisecond) {
			httpjson.Error(w, http.StatusBadRequest, fmt.Sprintf("waitMs must be an integer from 0 to %d", maxPollWait/time.Millisecond))
			return
		}
		wait = time.Duration(n) * time.Millisecond
	}
	if why := s.held.take(ticket, time.Now()); why != "" {
		w.Header().Set("Retry-After", "1")
		httpjson.Error(w, http.StatusTooManyRequests, why)
		return
	}
	defer s.held.done(ticket)
	until := time.NewTimer(wait)
	defer until.Stop()
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	kept := time.Time{}
	for {
		keep := time.Duration(0)
		if now := time.Now(); now.Sub(kept) >= time.Second {
			keep, kept = room.PoolKeep, now
		}
		st, err := s.poolStatus(r.Context(), ticket, player, keep)
		if err != nil {
			if r.Context().Err() == nil {
				poolError(w, err)
			}
			s.leftPoll(ticket, player)
			return
		}
		if st.State == "settled" {
			httpjson.Write(w, http.StatusOK, answer(st))
			return
		}
		select {
		case <-tick.C:
			continue
		case <-until.C:
		case <-r.Context().Done():
		case <-s.ctx.Done():
		}
		s.leftPoll(ticket, player)
		if r.Context().Err() == nil {
			if st, err = s.poolStatus(r.Context(), ticket, player, 0); err != nil {
				poolError(w, err)
				return
			}
			httpjson.Write(w, http.StatusOK, answer(st))
		}
		return
	}
}

// poolStatus reads a ticket within the store's time.
func (s *Server) poolStatus(ctx context.Context, ticket, player string, keep time.Duration) (room.PoolStatus, error) {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	return s.cfg.Rooms.PoolStatus(ctx, ticket, player, keep)
}

// leftPoll gives a ticket whose poll ended PoolGone to poll again.
func (s *Server) leftPoll(ticket, player string) {
	ctx, cancel := context.WithTimeout(s.ctx, 3*time.Second)
	defer cancel()
	_, _ = s.cfg.Rooms.PoolStatus(ctx, ticket, player, room.PoolGone)
}

// cancelTicket takes a ticket out of its pool: 204, or 409 when it is
// paired already.
func (s *Server) cancelTicket(w http.ResponseWriter, r *http.Request) {
	ticket, player, ok := s.ticketOwner(w, r)
	if !ok {
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), 3*time.Second)
	defer cancel()
	if err := s.cfg.Rooms.LeavePool(ctx, ticket, player); err != nil {
		poolError(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// ticketOwner reads the ticket of the path and the signed-in player who
// asks for it.
func (s *Server) ticketOwner(w http.ResponseWriter, r *http.Request) (ticket, player string, ok bool) {
	ticket = r.PathValue("ticket")
	if ticket == "" || len(ticket) > 64 {
		httpjson.Error(w, http.StatusNotFound, "no such ticket")
		return "", "", false
	}
	id, ok := s.httpIdentity(w, r)
	if !ok {
		return "", "", false
	}
	if id.Subject == "" {
		w.Header().Set("WWW-Authenticate", `Bearer realm="roomd"`)
		httpjson.Error(w, http.StatusUnauthorized, "a ticket is its signed-in player's: send the site's token as Authorization: Bearer <jwt>")
		return "", "", false
	}
	return ticket, id.Subject, true
}

// poolError answers an error of rated quick play.
func poolError(w http.ResponseWriter, err error) {
	switch {
	case errors.Is(err, room.ErrNoPool):
		httpjson.Error(w, http.StatusNotImplemented, err.Error())
	case errors.Is(err, room.ErrNotRatedMode):
		httpjson.Error(w, http.StatusBadRequest, err.Error())
	case errors.Is(err, room.ErrQueued), errors.Is(err, room.ErrPaired):
		httpjson.Error(w, http.StatusConflict, err.Error())
	case errors.Is(err, room.ErrPoolFull):
		w.Header().Set("Retry-After", "10")
		httpjson.Error(w, http.StatusServiceUnavailable, err.Error())
	case errors.Is(err, room.ErrNoTicket):
		httpjson.Error(w, http.StatusNotFound, err.Error())
	default:
		roomError(w, "", err)
	}
}

// openRated opens a pair's rated room on the least-loaded node: here, or
// on another node asked over ratedPath.
func (s *Server) openRated(ctx context.Context, req room.RatedRequest) (room.PoolRoom, error) {
	n, elsewhere := s.placement()
	if !elsewhere {
		r, err := s.cfg.Rooms.OpenRated(ctx, req)
		r.Node, r.URL = s.cl.cfg.Self.ID, s.cl.cfg.Self.URL
		return r, err
	}
	body, err := json.Marshal(req)
	if err != nil {
		return room.PoolRoom{}, err
	}
	resp, err := s.PeerRequest(ctx, n.ID, http.MethodPost, ratedPath, http.Header{"Content-Type": {"application/json"}}, body)
	if err != nil {
		return room.PoolRoom{}, fmt.Errorf("node %s: %w", n.ID, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if err != nil {
		return room.PoolRoom{}, fmt.Errorf("node %s: %w", n.ID, err)
	}
	if resp.StatusCode != http.StatusCreated {
		return room.PoolRoom{}, fmt.Errorf("node %s: %s: %s", n.ID, resp.Status, data)
	}
	var r room.PoolRoom
	if err := json.Unmarshal(data, &r); err != nil {
		return room.PoolRoom{}, fmt.Errorf("node %s: %w", n.ID, err)
	}
	r.Node, r.URL = n.ID, n.URL
	return r, nil
}

// openRatedHere opens a rated room another node paired (only another
// node may ask).
func (s *Server) openRatedHere(w http.ResponseWriter, r *http.Request) {
	if s.cl == nil || !isRelayed(r) {
		httpjson.Error(w, http.StatusNotFound, "no API route "+r.Method+" "+r.URL.Path)
		return
	}
	var req room.RatedRequest
	if !decodeBody(w, r, &req) {
		return
	}
	if len(req.Players) != 2 {
		httpjson.Error(w, http.StatusBadRequest, "a rated room seats two players")
		return
	}
	res, err := s.cfg.Rooms.OpenRated(r.Context(), req)
	if err != nil {
		roomError(w, "", err)
		return
	}
	httpjson.Write(w, http.StatusCreated, res)
}
