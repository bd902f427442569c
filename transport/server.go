// Package transport serves roomd over HTTP and WebSockets, and has the Go
// clients: a RemoteTransport that speaks the protocol to a server with
// reconnects, and a LocalTransport that runs a session in process behind the
// same interface.
package transport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
	"golang.org/x/time/rate"

	"github.com/roomd/roomd/internal/httpjson"
	"github.com/roomd/roomd/protocol"
	"github.com/roomd/roomd/room"
)

// Config configures a Server. Every field but Rooms has a working zero value.
type Config struct {
	// Rooms runs the rooms. Required.
	Rooms *room.Manager
	// Logger receives connection logs. Nil means the rooms' logger.
	Logger *slog.Logger
	// Origins are the origins allowed to open WebSockets besides the same
	// origin (an Origin whose host and port are the request's Host):
	// "https://example.com", "https://*.example.com" (any name under
	// example.com), "http://localhost:3000". An entry without a scheme means
	// https. Scheme, host and port must all match, default ports implied.
	// Empty means same-origin only.
	Origins []string
	// PublicHosts are the host names the server answers for besides IP
	// literals and localhost; a request whose Host header names another is
	// refused with 421 (DNS rebinding). Empty means IP literals and
	// localhost only.
	PublicHosts []string
	// ReadLimit is the largest frame accepted, in bytes; a larger one closes
	// the connection with 1009. Zero means 16 KiB.
	ReadLimit int64
	// OutboxSize is how many frames may wait for a slow client before it is
	// closed with 4008 (the socket's own send buffer holds more: see
	// LimitWriteBuffer). Zero means 128.
	OutboxSize int
	// OutboxBytes bounds the bytes waiting for a slow client before it is
	// closed with 4008, whatever the frame count. Zero means 4 MiB.
	OutboxBytes int64
	// WriteTimeout bounds one frame write. Zero means 10 seconds.
	WriteTimeout time.Duration
	// HelloTimeout is how long a new socket may take to send its hello;
	// then it gets a hello-first notice and close 1002. Zero means 10
	// seconds.
	HelloTimeout time.Duration
	// RateLimit and RateBurst are each connection's token bucket for
	// messages. Zero means 20 per second with a burst of 40.
	RateLimit rate.Limit
	RateBurst int
	// AbuseLimit is how many rate-limited messages within ten seconds close
	// the connection with 4029. Zero means 100.
	AbuseLimit int
	// FrameRate and FrameBurst are each socket's budget of frames of every
	// kind (messages, their fragments, pings, pongs, closes), before its
	// hello and after it; a frame past it closes the socket with 4029 at
	// once (budget.go). Zero means five times RateLimit and RateBurst: 100
	// a second, bursts of 200.
	FrameRate  rate.Limit
	FrameBurst int
	// ByteRate and ByteBurst are the same budget in bytes, whole frames
	// counted. Zero means RateLimit × ReadLimit a second (320 KiB: what
	// the message limits let through at most) and bursts of 512 KiB, so
	// that a flood at full speed is closed before a mebibyte has come in.
	ByteRate  int64
	ByteBurst int64
	// MaxInvalid is how many invalid frames close a connection with 1002.
	// Zero means 20.
	MaxInvalid int
	// Web serves everything outside /api, /ws and the probes (the browser
	// client). Nil means 404.
	Web http.Handler
	// Routes are extra routes on the same mux, by pattern: the operator's
	// (package admin: /admin, /api/admin/..., /debug/pprof, /metrics).
	Routes map[string]http.Handler
	// Ready is an extra readiness check (e.g. the store's ping).
	Ready func(context.Context) error
	// Metrics records connection measurements. Nil records nothing.
	Metrics *Metrics
	// Quotas bound what one client address may do (rooms, seats, sockets,
	// replays, code guesses); see Quotas for the defaults.
	Quotas Quotas
	// MaxConns bounds the WebSockets open at once; more are refused with
	// 503 and Retry-After. Zero means 50,000.
	MaxConns int
	// Auth verifies the sign-in tokens of the site that embeds roomd
	// (identity.go). Nil means none: a client that sends one is refused.
	Auth Verifier
	// RequireAuth refuses clients that are not signed in: 401 on the HTTP
	// API's room routes, auth-required and close 4007 on the socket.
	RequireAuth bool
	// Cluster, when set, makes the server one node of several sharing the
	// rooms' store (cluster.go); Rooms must be a manager of the same
	// cluster. Nil: a server alone.
	Cluster *ClusterConfig
	// SocketGoroutines keeps every socket on a reader and a writer
	// goroutine of its own for its whole life, as outside Linux; by
	// default a socket whose hello put it in a room here passes to a
	// poller (poll_linux.go).
	SocketGoroutines bool
}

func (c *Config) setDefaults() error {
	if c.Rooms == nil {
		return errors.New("transport: Config.Rooms is required")
	}
	if c.MaxConns == 0 {
		c.MaxConns = 50_000
	}
	if c.OutboxBytes == 0 {
		c.OutboxBytes = 4 << 20
	}
	if c.Logger == nil {
		c.Logger = c.Rooms.Config().Logger
	}
	if c.ReadLimit == 0 {
		c.ReadLimit = 16 << 10
	}
	if c.OutboxSize == 0 {
		c.OutboxSize = 128
	}
	if c.WriteTimeout == 0 {
		c.WriteTimeout = 10 * time.Second
	}
	if c.HelloTimeout == 0 {
		c.HelloTimeout = 10 * time.Second
	}
	if c.RateLimit == 0 {
		c.RateLimit = 20
	}
	if c.RateBurst == 0 {
		c.RateBurst = 40
	}
	if c.AbuseLimit == 0 {
		c.AbuseLimit = 100
	}
	if c.FrameRate == 0 {
		c.FrameRate = 5 * c.RateLimit
	}
	if c.FrameBurst == 0 {
		c.FrameBurst = 5 * c.RateBurst
	}
	if c.ByteRate == 0 {
		c.ByteRate = int64(float64(c.RateLimit) * float64(c.ReadLimit))
	}
	if c.ByteBurst == 0 {
		c.ByteBurst = 512 << 10
	}
	if c.MaxInvalid == 0 {
		c.MaxInvalid = 20
	}
	return nil
}

// Server is roomd's HTTP and WebSocket front.
type Server struct {
	cfg     Config
	mux     *http.ServeMux
	handler http.Handler
	origins []originPattern
	hosts   publicHosts
	quotas  *quotas
	closing atomic.Bool
	held    polls // rated quick play's polls held (pool.go)

	mu    sync.Mutex
	conns map[*conn]struct{}
	// upgrading counts the upgrades between the MaxConns check and their
	// entry in conns, so that sockets opened at once cannot pass the cap.
	upgrading int
	wg        sync.WaitGroup
	ctx       context.Context
	stop      context.CancelFunc

	cl *cluster // nil for a server alone

	// polls hold the sockets no goroutine of their own reads (nil: none
	// does; see Config.SocketGoroutines).
	polls []*poller

	limits wsLimits  // what a socket's frames may be (budget.go)
	start  time.Time // the monotonic clock's origin (mono)
	closes closeLog  // the connections' close logs (closes.go)
}

// NewServer validates cfg and builds the routes.
func NewServer(cfg Config) (*Server, error) {
	if err := cfg.setDefaults(); err != nil {
		return nil, err
	}
	origins, err := parseOrigins(cfg.Origins)
	if err != nil {
		return nil, err
	}
	hosts, err := parsePublicHosts(cfg.PublicHosts)
	if err != nil {
		return nil, err
	}
	ctx, stop := context.WithCancel(context.Background())
	s := &Server{cfg: cfg, mux: http.NewServeMux(), origins: origins, hosts: hosts,
		conns: map[*conn]struct{}{}, ctx: ctx, stop: stop, start: time.Now()}
	s.limits = newLimits(&s.cfg)
	s.closes.init(cfg.Logger)
	s.quotas = newQuotas(cfg.Quotas, s.now)
	s.quotas.log = cfg.Logger
	if pollSupported && !cfg.SocketGoroutines {
		s.polls = newPollers(s)
	}
	s.routes()
	s.handler = s.checkHost(s.mux)
	if cfg.Cluster != nil {
		cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		s.cl, err = newCluster(cctx, *cfg.Cluster, cfg.Logger)
		cancel()
		if err != nil {
			stop()
			return nil, err
		}
		s.handler = s.checkRelay(s.mux, s.handler)
		cfg.Rooms.SetPoolOpener(s.openRated)
		go s.clusterLoop()
	}
	return s, nil
}

// Handler returns the server's HTTP handler. Serve it with NewHTTPServer's
// timeouts.
func (s *Server) Handler() http.Handler { return s.handler }

func (s *Server) now() time.Time { return s.cfg.Rooms.Config().Now() }

func (s *Server) heartbeat() time.Duration { return s.cfg.Rooms.Config().Heartbeat }

// mono is the server's monotonic clock, in nanoseconds: what the frame
// budgets count in.
func (s *Server) mono() int64 { return int64(time.Since(s.start)) }

func (s *Server) retryAfter() time.Duration { return s.cfg.Rooms.Config().RetryAfter }

func (s *Server) routes() {
	s.mux.HandleFunc("GET "+protocol.SocketPath, s.serveSocket)
	s.mux.HandleFunc("POST /api/rooms", s.createRoom)
	s.mux.HandleFunc("GET /api/rooms", s.listRooms)
	s.mux.HandleFunc("POST /api/quickplay", s.quickPlay)
	s.mux.HandleFunc("GET /api/quickplay/{ticket}", s.pollTicket)
	s.mux.HandleFunc("DELETE /api/quickplay/{ticket}", s.cancelTicket)
	s.mux.HandleFunc("POST "+ratedPath, s.openRatedHere)
	s.mux.HandleFunc("POST /api/rooms/{code}/join", s.joinRoom)
	s.mux.HandleFunc("GET /api/rooms/{code}", s.roomInfo)
	s.mux.HandleFunc("GET /api/rooms/{code}/replay", s.replay)
	s.mux.HandleFunc("GET /api/games", s.games)
	s.mux.HandleFunc("GET /api/protocol.schema.json", s.schema)
	s.mux.HandleFunc("GET /api/leaderboards/{game}/{board}", s.leaderboard)
	s.mux.HandleFunc("GET /api/daily/{game}/{board}", s.daily)
	s.mux.HandleFunc("GET /api/ratings/{game}/{mode}", s.ratingBoard)
	s.mux.HandleFunc("GET /api/players/{player}/ratings", s.playerRatings)
	s.mux.HandleFunc("GET /api/players/{player}/ratings/{game}/{mode}", s.playerRating)
	s.mux.HandleFunc("POST /api/replays", s.submitReplay)
	s.mux.HandleFunc("POST /api/verify", s.verify)
	s.mux.HandleFunc("POST "+adoptPath, s.adoptRooms)
	s.mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok\n") })
	s.mux.HandleFunc("GET /readyz", s.ready)
	s.mux.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) {
		httpjson.Error(w, http.StatusNotFound, "no API route "+r.Method+" "+r.URL.Path)
	})
	for pattern, h := range s.cfg.Routes {
		s.mux.Handle(pattern, h)
	}
	if s.cfg.Web != nil {
		s.mux.Handle("/", s.cfg.Web)
	}
}

func (s *Server) serveSocket(w http.ResponseWriter, r *http.Request) {
	if s.closing.Load() {
		w.Header().Set("Retry-After", "1")
		httpjson.Error(w, http.StatusServiceUnavailable, "server restarting")
		return
	}
	if err := s.checkOrigin(r); err != nil {
		s.cfg.Logger.Info("websocket origin refused", "err", err)
		httpjson.Error(w, http.StatusForbidden, err.Error())
		return
	}
	addr := s.quotas.clientAddr(r)
	s.mu.Lock()
	full := len(s.conns)+s.upgrading >= s.cfg.MaxConns
	if !full {
		s.upgrading++ // a slot held until the socket is in conns, or refused
	}
	s.mu.Unlock()
	if full {
		w.Header().Set("Retry-After", "5")
		httpjson.Error(w, http.StatusServiceUnavailable, fmt.Sprintf("the server holds its %d connections; try again later", s.cfg.MaxConns))
		return
	}
	reserved := true
	defer func() {
		if reserved {
			s.mu.Lock()
			s.upgrading--
			s.mu.Unlock()
		}
	}()
	// A socket relayed from another node was counted there, where the
	// client opened it: with shared quotas, counting it again here would
	// spend two of the client's sockets for one.
	if !isRelayed(r) {
		if wait, ok := s.quotas.spend(r.Context(), addr, qSockets); !ok {
			refuseQuota(w, qSockets, wait)
			return
		}
	}
	if !s.quotas.open(addr) {
		w.Header().Set("Retry-After", "5")
		httpjson.Error(w, http.StatusTooManyRequests, fmt.Sprintf("your address holds its %d open sockets; close one first", s.cfg.Quotas.OpenSockets))
		return
	}
	handedOff := false // to the socket's own goroutine, which releases the quota
	defer func() {
		if !handedOff {
			s.quotas.closed(addr)
		}
	}()
	// The HTTP server's read and write timeouts are for requests; a socket
	// lives on, bound by its own hello timeout, pings and write timer
	// instead. Clear the deadlines the timeouts set on the connection: Go's
	// net/http clears them when Accept hijacks it, but http.Hijacker
	// documents that they may remain, so do not depend on it.
	rc := http.NewResponseController(w)
	if err := errors.Join(rc.SetReadDeadline(time.Time{}), rc.SetWriteDeadline(time.Time{})); err != nil {
		s.cfg.Logger.Debug("cannot clear the connection's deadlines", "err", err)
	}
	// checkOrigin has checked the Origin, scheme included.
	sb := &smallBuffers{ResponseWriter: w}
	ws, err := websocket.Accept(sb, r, &websocket.AcceptOptions{InsecureSkipVerify: true})
	if err != nil {
		s.cfg.Logger.Info("websocket accept refused", "err", err, "origin", r.Header.Get("Origin"))
		return // Accept has written the response
	}
	c := newConn(s, ws)
	c.sock = sb.sock
	c.addr = addr
	c.origin, c.host, c.fromPeer = r.Header.Get("Origin"), r.Host, isRelayed(r)
	s.mu.Lock()
	s.upgrading--
	reserved = false
	if s.closing.Load() {
		s.mu.Unlock()
		// A bye first, as before every 4xxx close (PROTOCOL.md §2.3).
		bye, _ := protocol.Encode(protocol.Bye{Type: protocol.TypeBye, Code: protocol.CloseRestarting, Reason: "server restarting",
			Reconnect: true, RetryAfterMs: int(s.retryAfter() / time.Millisecond)})
		wctx, cancel := context.WithTimeout(context.Background(), s.cfg.WriteTimeout)
		_ = ws.Write(wctx, websocket.MessageText, bye)
		cancel()
		ws.Close(websocket.StatusCode(protocol.CloseRestarting), "server restarting")
		s.cfg.Metrics.closed(whyRestart)
		return
	}
	s.conns[c] = struct{}{}
	s.wg.Add(1)
	s.mu.Unlock()
	s.cfg.Metrics.connOpened()
	// The socket runs on a goroutine of its own, and the HTTP handler's
	// returns: the handler's stack, grown deep by net/http and the
	// upgrade, is not kept for the socket's life (a fresh goroutine's stack
	// starts small and grows only as far as reading frames needs).
	handedOff = true
	c.release = func() {
		c.ended()
		s.mu.Lock()
		delete(s.conns, c)
		s.mu.Unlock()
		s.cfg.Metrics.connClosed()
		s.quotas.closed(addr)
		s.wg.Done()
	}
	go func() {
		if !c.serve(s.ctx) {
			c.release()
		}
	}()
}

// Shutdown stops accepting sockets, stops every room (final snapshots, and
// every client told to come back after RetryAfter), closes the sockets not
// yet in a room, and waits for all connections to finish or ctx to end.
// Call it before http.Server.Shutdown, which does not track WebSockets.
//
// In a cluster with other live nodes it drains instead (cluster.go): each
// room passes to another node and its clients are told where (4009).
func (s *Server) Shutdown(ctx context.Context) error {
	drained := s.cl != nil && s.drain(ctx)
	s.closing.Store(true)
	// After a drain no room is left here: this stops the rest (leases,
	// the leaderboard writer).
	err := s.cfg.Rooms.Shutdown(ctx)
	s.mu.Lock()
	for c := range s.conns {
		if drained || c.up.Load() != nil {
			// Its room runs on another node: the client goes on there.
			c.Moved("", room.MovedRetry)
			continue
		}
		c.close(closeReq{code: protocol.CloseRestarting, reason: "server restarting", retryAfter: s.retryAfter(), why: whyRestart})
	}
	s.mu.Unlock()
	done := make(chan struct{})
	go func() {
		s.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-ctx.Done():
		s.stop() // cut what is left
		<-done
		err = errors.Join(err, ctx.Err())
	}
	s.stop()
	if s.cl != nil {
		<-s.cl.done
		dctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		if derr := s.cl.cfg.Store.Deregister(dctx, s.cl.cfg.Self.ID); derr != nil {
			s.cfg.Logger.Warn("node not deregistered: it expires with its TTL", "err", derr)
		}
		cancel()
	}
	return err
}
