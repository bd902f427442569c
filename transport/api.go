package transport

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/roomd/roomd/core/session"
	"github.com/roomd/roomd/protocol"
	"github.com/roomd/roomd/room"
)

// maxBody bounds a JSON request body.
const maxBody = 64 << 10

type errorBody struct {
	Error string `json:"error"`
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, errorBody{Error: msg})
}

// decodeBody reads a JSON body into v, answering 400 or 413 itself.
func decodeBody(w http.ResponseWriter, r *http.Request, v any) bool {
	r.Body = http.MaxBytesReader(w, r.Body, maxBody)
	dec := json.NewDecoder(r.Body)
	if err := dec.Decode(v); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			writeError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("body larger than %d bytes", maxBody))
			return false
		}
		writeError(w, http.StatusBadRequest, "invalid JSON body: "+err.Error())
		return false
	}
	return true
}

// roomError maps room errors to HTTP answers.
func roomError(w http.ResponseWriter, code string, err error) {
	switch {
	case errors.Is(err, room.ErrNoRoom), errors.Is(err, room.ErrClosed):
		writeError(w, http.StatusNotFound, fmt.Sprintf("no room %q", code))
	case errors.Is(err, room.ErrUnknownGame), errors.Is(err, room.ErrBadSettings):
		writeError(w, http.StatusBadRequest, err.Error())
	case errors.Is(err, room.ErrRoomFull), errors.Is(err, room.ErrNotLobby):
		writeError(w, http.StatusConflict, err.Error())
	case errors.Is(err, room.ErrShuttingDown), errors.Is(err, room.ErrStorage), errors.Is(err, room.ErrBusy),
		errors.Is(err, context.DeadlineExceeded):
		w.Header().Set("Retry-After", "1")
		writeError(w, http.StatusServiceUnavailable, err.Error())
	default:
		writeError(w, http.StatusInternalServerError, err.Error())
	}
}

func (s *Server) createRoom(w http.ResponseWriter, r *http.Request) {
	var req room.CreateRequest
	if !decodeBody(w, r, &req) {
		return
	}
	if req.Game == "" {
		writeError(w, http.StatusBadRequest, "game is required (see GET /api/games)")
		return
	}
	res, err := s.cfg.Rooms.Create(r.Context(), req)
	if err != nil {
		roomError(w, "", err)
		return
	}
	writeJSON(w, http.StatusCreated, res)
}

func (s *Server) joinRoom(w http.ResponseWriter, r *http.Request) {
	code := r.PathValue("code")
	var req struct {
		Name string `json:"name"`
	}
	if !decodeBody(w, r, &req) {
		return
	}
	rm, err := s.cfg.Rooms.Get(r.Context(), code)
	if err != nil {
		roomError(w, code, err)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), 10*time.Second)
	defer cancel()
	res, err := rm.Join(ctx, req.Name)
	if err != nil {
		roomError(w, code, err)
		return
	}
	writeJSON(w, http.StatusOK, res)
}

func (s *Server) roomInfo(w http.ResponseWriter, r *http.Request) {
	code := r.PathValue("code")
	rm, err := s.cfg.Rooms.Get(r.Context(), code)
	if err != nil {
		roomError(w, code, err)
		return
	}
	writeJSON(w, http.StatusOK, rm.Info())
}

func (s *Server) games(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, struct {
		Protocol int `json:"protocol"`
		Games    any `json:"games"`
	}{protocol.Version, s.cfg.Rooms.Games().Games()})
}

func (s *Server) schema(w http.ResponseWriter, r *http.Request) {
	b, err := protocol.Schema()
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
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
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	if err := s.cfg.Rooms.Config().Store.Ping(ctx); err != nil {
		status["status"], status["store"], code = "degraded", err.Error(), http.StatusServiceUnavailable
	}
	if s.cfg.Ready != nil {
		if err := s.cfg.Ready(ctx); err != nil {
			status["status"], status["check"], code = "degraded", err.Error(), http.StatusServiceUnavailable
		}
	}
	writeJSON(w, code, status)
}

func (s *Server) leaderboard(w http.ResponseWriter, r *http.Request) {
	limit := 10
	if v := r.URL.Query().Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 100 {
			writeError(w, http.StatusBadRequest, "limit must be an integer from 1 to 100")
			return
		}
		limit = n
	}
	b, err := s.cfg.Rooms.Leaderboard(r.Context(), r.PathValue("game"), r.PathValue("board"), limit)
	switch {
	case errors.Is(err, room.ErrUnknownGame):
		writeError(w, http.StatusNotFound, err.Error())
	case errors.Is(err, room.ErrNoLeaderboards):
		writeError(w, http.StatusNotFound, "this server keeps no leaderboards")
	case err != nil:
		roomError(w, "", err)
	default:
		writeJSON(w, http.StatusOK, b)
	}
}

// submitReplay validates an offline game {game?, name, seed, config, log}
// by replay and lists a valid win as client-timed.
func (s *Server) submitReplay(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, session.MaxRecordBytes)
	data, err := io.ReadAll(r.Body)
	if err != nil {
		writeError(w, http.StatusRequestEntityTooLarge, "replay too large")
		return
	}
	var head struct {
		Game string `json:"game"`
		Name string `json:"name"`
	}
	_ = json.Unmarshal(data, &head)
	if head.Game == "" {
		head.Game = "minesweeper"
	}
	rec, err := session.DecodeRecord(data)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	v, listed, err := s.cfg.Rooms.SubmitReplay(r.Context(), head.Game, rec, head.Name)
	if err != nil {
		roomError(w, "", err)
		return
	}
	writeJSON(w, http.StatusOK, struct {
		session.Verdict
		Listed bool `json:"listed"`
	}{v, listed})
}
