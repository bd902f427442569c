// Package admin is what an operator reaches over HTTP: the admin page and API
// (list, watch and close live rooms), Go's profiler, and the Prometheus
// metrics endpoint. The page, API and profiler answer 404 unless a token is
// configured, and need "Authorization: Bearer <token>".
package admin

import (
	"crypto/subtle"
	_ "embed"
	"net/http"
	"net/http/pprof"
	"sort"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/roomd/roomd/internal/httpjson"
	"github.com/roomd/roomd/room"
)

//go:embed admin.html
var adminPage []byte

// Config configures the operator routes.
type Config struct {
	// Rooms are the rooms to list and close. Required for the admin API.
	Rooms *room.Manager
	// Token enables the page, the API and the profiler. Empty disables them.
	Token string
	// Metrics is gathered at GET /metrics. Nil serves no metrics.
	Metrics prometheus.Gatherer
}

// Routes returns the operator routes by pattern, for transport.Config.Routes.
func Routes(cfg Config) map[string]http.Handler {
	a := &api{cfg: cfg}
	routes := map[string]http.Handler{
		"GET /admin":                         http.HandlerFunc(a.page),
		"GET /api/admin/rooms":               a.guard(a.rooms),
		"POST /api/admin/rooms/{code}/close": a.guard(a.close),
		// Go's profiler, for operators chasing CPU or memory.
		"GET /debug/pprof/":        a.guard(pprof.Index),
		"GET /debug/pprof/profile": a.guard(pprof.Profile),
	}
	if cfg.Metrics != nil {
		routes["GET /metrics"] = promhttp.HandlerFor(cfg.Metrics, promhttp.HandlerOpts{})
	}
	return routes
}

type api struct{ cfg Config }

func (a *api) page(w http.ResponseWriter, r *http.Request) {
	if a.cfg.Token == "" {
		httpjson.Error(w, http.StatusNotFound, "the admin page is disabled; start roomd with --admin-token")
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Write(adminPage)
}

func (a *api) guard(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if a.cfg.Token == "" {
			httpjson.Error(w, http.StatusNotFound, "the admin API is disabled; start roomd with --admin-token")
			return
		}
		got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok || subtle.ConstantTimeCompare([]byte(got), []byte(a.cfg.Token)) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="roomd admin"`)
			httpjson.Error(w, http.StatusUnauthorized, "a valid admin bearer token is required")
			return
		}
		h(w, r)
	}
}

func (a *api) rooms(w http.ResponseWriter, r *http.Request) {
	rooms := a.cfg.Rooms.Rooms()
	out := make([]room.Stats, 0, len(rooms))
	for _, rm := range rooms {
		out = append(out, rm.Stats())
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Created.Before(out[j].Created) })
	httpjson.Write(w, http.StatusOK, map[string]any{"rooms": out})
}

func (a *api) close(w http.ResponseWriter, r *http.Request) {
	code := r.PathValue("code")
	rm, ok := a.cfg.Rooms.Lookup(code)
	if !ok {
		httpjson.Error(w, http.StatusNotFound, "no live room "+code)
		return
	}
	if err := rm.Close(); err != nil {
		httpjson.Error(w, http.StatusServiceUnavailable, err.Error())
		return
	}
	select {
	case <-rm.Done():
	case <-r.Context().Done():
	}
	httpjson.Write(w, http.StatusOK, map[string]string{"closed": rm.Code()})
}
