package transport

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/roomd/roomd/internal/httpjson"
	"github.com/roomd/roomd/protocol"
	"github.com/roomd/roomd/room"
)

// maxBody bounds a JSON request body.
const maxBody = 64 << 10

// requireJSON answers 415 unless the request says its body is JSON
// ("application/json", with at most a charset of utf-8). A cross-site HTML
// form can only send text/plain, urlencoded or multipart bodies, so it can
// reach none of the JSON endpoints.
func requireJSON(w http.ResponseWriter, r *http.Request) bool {
	ct := r.Header.Get("Content-Type")
	mt, params, err := mime.ParseMediaType(ct)
	if err == nil && mt == "application/json" {
		if cs, ok := params["charset"]; !ok || strings.EqualFold(cs, "utf-8") {
			return true
		}
	}
	got := "the request has none"
	if ct != "" {
		got = fmt.Sprintf("not %q", ct)
	}
	httpjson.Error(w, http.StatusUnsupportedMediaType, "the body must be JSON sent with Content-Type: application/json; "+got)
	return false
}

// decodeBody reads a JSON body into v, answering 415, 400 or 413 itself.
func decodeBody(w http.ResponseWriter, r *http.Request, v any) bool {
	if !requireJSON(w, r) {
		return false
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxBody)
	dec := json.NewDecoder(r.Body)
	if err := dec.Decode(v); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			httpjson.Error(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("body larger than %d bytes", maxBody))
			return false
		}
		httpjson.Error(w, http.StatusBadRequest, "invalid JSON body: "+err.Error())
		return false
	}
	return true
}

// firstNonBlank is the first of names that is not blank (a sign-in's name
// claim before the name typed).
func firstNonBlank(names ...string) string {
	for _, n := range names {
		if strings.TrimSpace(n) != "" {
			return n
		}
	}
	return ""
}

// roomError maps room errors to HTTP answers.
func roomError(w http.ResponseWriter, code string, err error) {
	switch {
	case errors.Is(err, room.ErrNoRoom), errors.Is(err, room.ErrClosed):
		httpjson.Error(w, http.StatusNotFound, fmt.Sprintf("no room %q", code))
	case errors.Is(err, room.ErrUnknownGame), errors.Is(err, room.ErrBadSettings):
		httpjson.Error(w, http.StatusBadRequest, err.Error())
	case errors.Is(err, room.ErrLocked):
		httpjson.Error(w, http.StatusForbidden, "this room is locked: its invite is needed to join")
	case errors.Is(err, room.ErrTooManyRooms):
		w.Header().Set("Retry-After", "60")
		httpjson.Error(w, http.StatusServiceUnavailable, err.Error())
	case errors.Is(err, room.ErrNoDaily):
		httpjson.Error(w, http.StatusNotFound, err.Error())
	case errors.Is(err, room.ErrRoomFull), errors.Is(err, room.ErrNotLobby), errors.Is(err, room.ErrDailyPlayed):
		httpjson.Error(w, http.StatusConflict, err.Error())
	case errors.Is(err, room.ErrShuttingDown), errors.Is(err, room.ErrStorage), errors.Is(err, room.ErrBusy), errors.Is(err, room.ErrOwned),
		errors.Is(err, context.DeadlineExceeded):
		w.Header().Set("Retry-After", "1")
		httpjson.Error(w, http.StatusServiceUnavailable, err.Error())
	default:
		httpjson.Error(w, http.StatusInternalServerError, err.Error())
	}
}

// lookup finds the room a request names, spending the client's quota of
// unknown codes on a miss, so that guessing codes is slow.
func (s *Server) lookup(w http.ResponseWriter, r *http.Request) (*room.Room, bool) {
	code := r.PathValue("code")
	addr := s.quotas.clientAddr(r)
	if wait, spent := s.quotas.exhausted(r.Context(), addr, qLookups); spent {
		refuseQuota(w, qLookups, wait)
		return nil, false
	}
	rm, err := s.cfg.Rooms.Get(r.Context(), code)
	if errors.Is(err, room.ErrNoRoom) {
		s.quotas.spend(r.Context(), addr, qLookups)
	}
	if err != nil {
		roomError(w, code, err)
		return nil, false
	}
	return rm, true
}

// quota spends one of the client's tokens of kind, answering 429 when there
// is none.
func (s *Server) quota(w http.ResponseWriter, r *http.Request, kind quotaKind) bool {
	wait, ok := s.quotas.spend(r.Context(), s.quotas.clientAddr(r), kind)
	if !ok {
		refuseQuota(w, kind, wait)
	}
	return ok
}

func (s *Server) createRoom(w http.ResponseWriter, r *http.Request) {
	if n, elsewhere := s.placement(); elsewhere && !isRelayed(r) {
		s.proxy(w, r, n) // a less loaded node creates it (cluster.go)
		return
	}
	var req room.CreateRequest
	if !decodeBody(w, r, &req) {
		return
	}
	if req.Game == "" {
		httpjson.Error(w, http.StatusBadRequest, "game is required (see GET /api/games)")
		return
	}
	id, ok := s.httpIdentity(w, r)
	if !ok || !s.quota(w, r, qRooms) {
		return
	}
	req.Client = s.quotas.clientAddr(r).String() // a daily is played once per address
	req.Player, req.Name = id.Subject, firstNonBlank(id.Name, req.Name)
	res, err := s.cfg.Rooms.Create(r.Context(), req)
	if err != nil {
		roomError(w, "", err)
		return
	}
	httpjson.Write(w, http.StatusCreated, res)
}

func (s *Server) joinRoom(w http.ResponseWriter, r *http.Request) {
	code := r.PathValue("code")
	if s.proxied(w, r, code) {
		return
	}
	var req struct {
		Name   string `json:"name"`
		Invite string `json:"invite"`
	}
	if !decodeBody(w, r, &req) {
		return
	}
	id, ok := s.httpIdentity(w, r)
	if !ok {
		return
	}
	rm, ok := s.lookup(w, r)
	if !ok || !s.quota(w, r, qJoins) {
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), 10*time.Second)
	defer cancel()
	res, err := rm.Join(ctx, firstNonBlank(id.Name, req.Name), req.Invite, id.Subject)
	if err != nil {
		roomError(w, code, err)
		return
	}
	httpjson.Write(w, http.StatusOK, res)
}

func (s *Server) roomInfo(w http.ResponseWriter, r *http.Request) {
	if s.proxied(w, r, r.PathValue("code")) {
		return
	}
	if rm, ok := s.lookup(w, r); ok {
		if s.cl != nil {
			w.Header().Set("X-Roomd-Node", s.cl.cfg.Self.ID) // the room's node: this one
		}
		httpjson.Write(w, http.StatusOK, rm.Info())
	}
}

// replay serves a room's last finished match with its moves.
func (s *Server) replay(w http.ResponseWriter, r *http.Request) {
	code := r.PathValue("code")
	if s.proxied(w, r, code) {
		return
	}
	rm, ok := s.lookup(w, r)
	if !ok {
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), 10*time.Second)
	defer cancel()
	rp, err := rm.Replay(ctx)
	if errors.Is(err, room.ErrNoReplay) {
		httpjson.Error(w, http.StatusNotFound, fmt.Sprintf("room %q has no finished match to replay", code))
		return
	}
	if err != nil {
		roomError(w, code, err)
		return
	}
	httpjson.Write(w, http.StatusOK, rp)
}

func (s *Server) games(w http.ResponseWriter, r *http.Request) {
	httpjson.Write(w, http.StatusOK, struct {
		Protocol int `json:"protocol"`
		Games    any `json:"games"`
		// Rated are the rated modes, "game/mode" (PROTOCOL.md, "Ratings").
		Rated []string `json:"rated,omitempty"`
	}{protocol.Version, s.cfg.Rooms.Games().Games(), s.cfg.Rooms.RatedModes()})
}

func (s *Server) schema(w http.ResponseWriter, r *http.Request) {
	b, err := protocol.Schema()
	if err != nil {
		httpjson.Error(w, http.StatusInternalServerError, err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/schema+json")
	w.Write(b)
}

func (s *Server) ready(w http.ResponseWriter, r *http.Request) {
	status := map[string]string{"status": "ready"}
	code := http.StatusOK
	if s.closing.Load() {
		status["status"], code = "shutting down", http.StatusServiceUnavailable
	}
	if s.cl != nil && s.cl.draining.Load() {
		status["status"], code = "draining", http.StatusServiceUnavailable
	}
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	if err := s.cfg.Rooms.PingStore(ctx); err != nil {
		status["status"], status["store"], code = "degraded", err.Error(), http.StatusServiceUnavailable
	} else if err := s.cfg.Rooms.StoreHealth(); err != nil {
		// The store answers pings yet refuses writes (a full disk): what
		// counts is whether the rooms' appends land.
		status["status"], status["store"], code = "degraded", err.Error(), http.StatusServiceUnavailable
	}
	if s.cfg.Ready != nil {
		if err := s.cfg.Ready(ctx); err != nil {
			status["status"], status["check"], code = "degraded", err.Error(), http.StatusServiceUnavailable
		}
	}
	httpjson.Write(w, code, status)
}

func (s *Server) leaderboard(w http.ResponseWriter, r *http.Request) {
	limit, ok := listLimit(w, r)
	if !ok {
		return
	}
	q := r.URL.Query()
	b, err := s.cfg.Rooms.Leaderboard(r.Context(), r.PathValue("game"), r.PathValue("board"), q.Get("mode"), q.Get("period"), limit)
	switch {
	case errors.Is(err, room.ErrUnknownGame), errors.Is(err, room.ErrNoList):
		httpjson.Error(w, http.StatusNotFound, err.Error())
	case errors.Is(err, room.ErrNoLeaderboards):
		httpjson.Error(w, http.StatusNotFound, "this server keeps no leaderboards")
	case err != nil:
		roomError(w, "", err)
	default:
		httpjson.Write(w, http.StatusOK, b)
	}
}

// daily serves a ranked daily: its commitment, its list so far and, once
// its day is over, its secret.
func (s *Server) daily(w http.ResponseWriter, r *http.Request) {
	limit, ok := listLimit(w, r)
	if !ok {
		return
	}
	q := r.URL.Query()
	d, err := s.cfg.Rooms.Daily(r.Context(), room.Daily{Game: r.PathValue("game"), Board: r.PathValue("board"), Mode: q.Get("mode"), Day: q.Get("day")}, limit)
	switch {
	case errors.Is(err, room.ErrUnknownGame):
		httpjson.Error(w, http.StatusNotFound, err.Error())
	case err != nil:
		roomError(w, "", err)
	default:
		httpjson.Write(w, http.StatusOK, d)
	}
}

// listLimit reads a list's ?limit= (1 to 100, default 10).
func listLimit(w http.ResponseWriter, r *http.Request) (int, bool) {
	v := r.URL.Query().Get("limit")
	if v == "" {
		return 10, true
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > 100 {
		httpjson.Error(w, http.StatusBadRequest, "limit must be an integer from 1 to 100")
		return 0, false
	}
	return n, true
}

// submitReplay validates an offline game {game, seed, config, log} by
// replay and says whether a human could have played it. It ranks nothing.
func (s *Server) submitReplay(w http.ResponseWriter, r *http.Request) {
	data, ok := s.readRecord(w, r)
	if !ok {
		return
	}
	v, err := s.cfg.Rooms.SubmitReplay(r.Context(), data)
	switch {
	case errors.Is(err, room.ErrBadReplay), errors.Is(err, room.ErrUnknownGame):
		httpjson.Error(w, http.StatusBadRequest, err.Error())
	case err != nil && r.Context().Err() != nil:
		return // the client has gone
	case err != nil:
		roomError(w, "", err)
	default:
		httpjson.Write(w, http.StatusOK, v)
	}
}

// verify checks a finished match's record (GET /api/rooms/{code}/replay's
// answer, with the commitment the player saw): what `roomd verify` does,
// for players without the binary.
func (s *Server) verify(w http.ResponseWriter, r *http.Request) {
	data, ok := s.readRecord(w, r)
	if !ok {
		return
	}
	v, err := room.Verify(s.cfg.Rooms.Config().Games, data)
	switch {
	case errors.Is(err, room.ErrBadRecord), errors.Is(err, room.ErrUnknownGame):
		httpjson.Error(w, http.StatusBadRequest, err.Error())
	case err != nil:
		roomError(w, "", err)
	default:
		httpjson.Write(w, http.StatusOK, v)
	}
}

// readRecord reads a JSON request body of at most room.MaxReplayBytes,
// within the address's replay quota; false when it answered already.
func (s *Server) readRecord(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	if !requireJSON(w, r) || !s.quota(w, r, qReplays) {
		return nil, false
	}
	r.Body = http.MaxBytesReader(w, r.Body, room.MaxReplayBytes)
	data, err := io.ReadAll(r.Body)
	if err != nil {
		httpjson.Error(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("a record is at most %d bytes", room.MaxReplayBytes))
		return nil, false
	}
	return data, true
}
