// Package admin is what an operator reaches over HTTP: the admin page and API
// (list, watch and close live rooms), Go's profiler (Routes), and the
// Prometheus metrics endpoint (MetricsRoutes), which roomd serves on its main
// address or on a separate one. The page, API and profiler answer 404 unless
// a token is configured; the API and profiler need
// "Authorization: Bearer <token>".
//
// The page runs no inline script or style: its Content-Security-Policy
// allows only its own files (admin.js, admin.css) and fetches to roomd.
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

var (
	//go:embed admin.html
	adminPage []byte
	//go:embed admin.js
	adminJS []byte
	//go:embed admin.css
	adminCSS []byte
)

// ContentSecurityPolicy is the admin page's: its own script and style
// files, fetches to the same origin, nothing inline, no framing.
const ContentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; " +
	"img-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"

// Config configures the operator routes.
type Config struct {
	// Rooms are the rooms to list and close. Required for the admin API.
	Rooms *room.Manager
	// Token enables the page, the API and the profiler. Empty disables them.
	Token string
}

// Routes returns the operator routes by pattern, for transport.Config.Routes:
// the page and its files, the admin API and the profiler.
func Routes(cfg Config) map[string]http.Handler {
	a := &api{cfg: cfg}
	return map[string]http.Handler{
		"GET /admin":                         a.file(adminPage, "text/html; charset=utf-8"),
		"GET /admin/admin.js":                a.file(adminJS, "text/javascript; charset=utf-8"),
		"GET /admin/admin.css":               a.file(adminCSS, "text/css; charset=utf-8"),
		"GET /api/admin/rooms":               a.guard(a.rooms),
		"POST /api/admin/rooms/{code}/close": a.guard(a.close),
		"GET /api/admin/reports":             a.guard(a.reports),
		// Go's profiler, for operators chasing CPU or memory.
		"GET /debug/pprof/":        a.guard(pprof.Index),
		"GET /debug/pprof/profile": a.guard(pprof.Profile),
	}
}

// MetricsRoutes returns the route of the Prometheus endpoint, GET /metrics,
// gathering g: for the main address's transport.Config.Routes, or a mux of
// its own on a separate address.
func MetricsRoutes(g prometheus.Gatherer) map[string]http.Handler {
	return map[string]http.Handler{"GET /metrics": promhttp.HandlerFor(g, promhttp.HandlerOpts{})}
}

type api struct{ cfg Config }

// file serves one of the page's files with the page's security headers.
func (a *api) file(body []byte, ctype string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if a.cfg.Token == "" {
			httpjson.Error(w, http.StatusNotFound, "the admin page is disabled; start roomd with --admin-token-file or ROOMD_ADMIN_TOKEN")
			return
		}
		h := w.Header()
		h.Set("Content-Type", ctype)
		h.Set("Cache-Control", "no-store")
		h.Set("Content-Security-Policy", ContentSecurityPolicy)
		h.Set("X-Frame-Options", "DENY")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		w.Write(body)
	}
}

func (a *api) guard(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if a.cfg.Token == "" {
			httpjson.Error(w, http.StatusNotFound, "the admin API is disabled; start roomd with --admin-token-file or ROOMD_ADMIN_TOKEN")
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

// reports lists the chat messages players reported, newest first.
func (a *api) reports(w http.ResponseWriter, r *http.Request) {
	httpjson.Write(w, http.StatusOK, map[string]any{"reports": a.cfg.Rooms.Reports()})
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
