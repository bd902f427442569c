// Package admin is what an operator reaches over HTTP: the admin page and API
// (list, watch and close live rooms), Go's profiler (Routes), and the
// Prometheus metrics endpoint (MetricsRoutes), which roomd serves on its main
// address or on a separate one. The page, API and profiler answer 404 unless
// a token is configured; the API and profiler need
// "Authorization: Bearer <token>".
//
// The page runs no inline script or style: its Content-Security-Policy
// allows only its own files (admin.js, admin.css) and fetches to roomd.
//
// When roomd runs as several nodes (Config.Cluster, cluster.go), any node's
// admin API answers for all of them: it lists every node's rooms, and moves
// or closes a room on whichever node runs it. Every node must then have the
// same admin token: a node passes the caller's Authorization on.
package admin

import (
	"crypto/subtle"
	_ "embed"
	"net/http"
	"net/http/pprof"
	"sort"
	"strings"
	"sync/atomic"
	"time"

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
	// Cluster is the cluster this node is one of (cluster.go). Nil, or one
	// whose NodeID is empty, means a server alone. When it exists only
	// after the routes (a transport.Server is built with them), set it
	// later with API.SetCluster.
	Cluster Cluster
	// PeerTimeout bounds the requests to the other nodes when listing
	// every node's rooms: a node that has not answered by then is listed
	// with an error. Zero means 3 seconds.
	PeerTimeout time.Duration
}

// API is the admin API of one node, serving the routes Routes returns.
type API struct {
	cfg     Config
	cluster atomic.Pointer[Cluster]
}

// NewAPI returns the admin API for cfg.
func NewAPI(cfg Config) *API {
	if cfg.PeerTimeout == 0 {
		cfg.PeerTimeout = 3 * time.Second
	}
	a := &API{cfg: cfg}
	a.SetCluster(cfg.Cluster)
	return a
}

// SetCluster makes the API a cluster node's (nil: a server alone's). It
// may be called at any time, once the routes serve too.
func (a *API) SetCluster(c Cluster) {
	if c == nil {
		a.cluster.Store(nil)
		return
	}
	a.cluster.Store(&c)
}

// Routes returns the operator routes by pattern, for transport.Config.Routes:
// the page and its files, the admin API and the profiler. It is
// NewAPI(cfg).Routes(), for a configuration complete from the start.
func Routes(cfg Config) map[string]http.Handler { return NewAPI(cfg).Routes() }

// Routes returns the API's routes by pattern, for transport.Config.Routes.
func (a *API) Routes() map[string]http.Handler {
	return map[string]http.Handler{
		"GET /admin":                         a.file(adminPage, "text/html; charset=utf-8"),
		"GET /admin/admin.js":                a.file(adminJS, "text/javascript; charset=utf-8"),
		"GET /admin/admin.css":               a.file(adminCSS, "text/css; charset=utf-8"),
		"GET /api/admin/rooms":               a.guard(a.rooms),
		"GET /api/admin/nodes":               a.guard(a.nodes),
		"POST /api/admin/rooms/{code}/close": a.guard(a.close),
		"POST /api/admin/rooms/{code}/move":  a.guard(a.move),
		"GET /api/admin/reports":             a.guard(a.reports),
		// Go's profiler, for operators chasing CPU or memory.
		"GET /debug/pprof/":        a.guard(pprof.Index),
		"GET /debug/pprof/profile": a.guard(pprof.Profile),
		"GET /debug/pprof/trace":   a.guard(pprof.Trace), // the scheduler's view: what waited, and on what
	}
}

// MetricsRoutes returns the route of the Prometheus endpoint, GET /metrics,
// gathering g: for the main address's transport.Config.Routes, or a mux of
// its own on a separate address.
func MetricsRoutes(g prometheus.Gatherer) map[string]http.Handler {
	return map[string]http.Handler{"GET /metrics": promhttp.HandlerFor(g, promhttp.HandlerOpts{})}
}

// file serves one of the page's files with the page's security headers.
func (a *API) file(body []byte, ctype string) http.HandlerFunc {
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

func (a *API) guard(h http.HandlerFunc) http.HandlerFunc {
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

// rooms lists the live rooms: this node's, and with a cluster every other
// node's too unless ?local=1 asks for this node's alone (cluster.go).
func (a *API) rooms(w http.ResponseWriter, r *http.Request) {
	local, ok := flag(w, r, "local")
	if !ok {
		return
	}
	c := a.clusterOf()
	if c == nil {
		httpjson.Write(w, http.StatusOK, map[string]any{"rooms": a.localRooms("")})
		return
	}
	if local {
		httpjson.Write(w, http.StatusOK, roomList{Node: c.NodeID(), Rooms: a.localRooms(c.NodeID())})
		return
	}
	httpjson.Write(w, http.StatusOK, a.allRooms(r, c))
}

// localRooms returns the rooms of this node, named node, oldest first.
func (a *API) localRooms(node string) []roomRow {
	rooms := a.cfg.Rooms.Rooms()
	out := make([]roomRow, 0, len(rooms))
	for _, rm := range rooms {
		out = append(out, roomRow{Stats: rm.Stats(), Node: node})
	}
	sortRooms(out)
	return out
}

// roomRow is a room of the list: its operator view and, in a cluster, the
// node that runs it.
type roomRow struct {
	room.Stats
	Node string `json:"node,omitempty"`
}

func sortRooms(rows []roomRow) {
	sort.Slice(rows, func(i, j int) bool {
		if !rows[i].Created.Equal(rows[j].Created) {
			return rows[i].Created.Before(rows[j].Created)
		}
		return rows[i].Node+" "+rows[i].Code < rows[j].Node+" "+rows[j].Code
	})
}

// reports lists the chat messages players reported, newest first.
func (a *API) reports(w http.ResponseWriter, r *http.Request) {
	httpjson.Write(w, http.StatusOK, map[string]any{"reports": a.cfg.Rooms.Reports()})
}

// close closes a live room: here, or in a cluster on the node that runs it
// (cluster.go).
func (a *API) close(w http.ResponseWriter, r *http.Request) {
	code := room.NormalizeCode(r.PathValue("code"))
	rm, ok := a.cfg.Rooms.Lookup(code)
	if !ok {
		a.elsewhere(w, r, code)
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
	answer := map[string]string{"closed": rm.Code()}
	if c := a.clusterOf(); c != nil {
		answer["node"] = c.NodeID()
	}
	httpjson.Write(w, http.StatusOK, answer)
}
