package transport

import (
	"crypto/subtle"
	_ "embed"
	"net/http"
	"net/http/pprof"
	"sort"
	"strings"

	"github.com/roomd/roomd/room"
)

//go:embed admin.html
var adminPage []byte

// adminRoutes adds the operator API and page. They answer 404 unless
// Config.AdminToken is set; the API needs "Authorization: Bearer <token>".
func (s *Server) adminRoutes() {
	s.mux.HandleFunc("GET /admin", func(w http.ResponseWriter, r *http.Request) {
		if s.cfg.AdminToken == "" {
			writeError(w, http.StatusNotFound, "the admin page is disabled; start roomd with --admin-token")
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		w.Write(adminPage)
	})
	s.mux.HandleFunc("GET /api/admin/rooms", s.admin(s.adminRooms))
	// Go's profiler, for operators chasing CPU or memory (behind the token).
	s.mux.HandleFunc("GET /debug/pprof/", s.admin(pprof.Index))
	s.mux.HandleFunc("GET /debug/pprof/profile", s.admin(pprof.Profile))
	s.mux.HandleFunc("POST /api/admin/rooms/{code}/close", s.admin(s.adminClose))
}

func (s *Server) admin(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if s.cfg.AdminToken == "" {
			writeError(w, http.StatusNotFound, "the admin API is disabled; start roomd with --admin-token")
			return
		}
		got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok || subtle.ConstantTimeCompare([]byte(got), []byte(s.cfg.AdminToken)) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="roomd admin"`)
			writeError(w, http.StatusUnauthorized, "a valid admin bearer token is required")
			return
		}
		h(w, r)
	}
}

func (s *Server) adminRooms(w http.ResponseWriter, r *http.Request) {
	rooms := s.cfg.Rooms.Rooms()
	out := make([]room.Stats, 0, len(rooms))
	for _, rm := range rooms {
		out = append(out, rm.Stats())
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Created.Before(out[j].Created) })
	writeJSON(w, http.StatusOK, map[string]any{"rooms": out})
}

func (s *Server) adminClose(w http.ResponseWriter, r *http.Request) {
	code := r.PathValue("code")
	rm, ok := s.cfg.Rooms.Lookup(code)
	if !ok {
		writeError(w, http.StatusNotFound, "no live room "+code)
		return
	}
	if err := rm.Close(); err != nil {
		roomError(w, code, err)
		return
	}
	select {
	case <-rm.Done():
	case <-r.Context().Done():
	}
	writeJSON(w, http.StatusOK, map[string]string{"closed": rm.Code()})
}
