package roomd

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"net/url"
	"os"
	"runtime"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/roomd/roomd/room"
	"github.com/roomd/roomd/store"
	"github.com/roomd/roomd/store/boltstore"
	"github.com/roomd/roomd/store/memstore"
	"github.com/roomd/roomd/store/redisstore"
	"github.com/roomd/roomd/transport"
	"github.com/roomd/roomd/transport/admin"
	"github.com/roomd/roomd/transport/auth"
	"github.com/roomd/roomd/transport/webhook"
	"github.com/roomd/roomd/web"
)

// Server is one roomd server: its store, its rooms, its HTTP and WebSocket
// front, listening. New makes one; Run serves until its context ends, then
// shuts down gracefully.
type Server struct {
	o        Options
	log      *slog.Logger
	st       store.Backend
	rooms    *room.Manager
	front    *transport.Server
	hooks    *webhook.Dispatcher
	ln       net.Listener
	scheme   string
	tlsCfg   *tls.Config
	metrics  *prometheus.Registry
	closers  []func() error // released after the store, in reverse (sign-in's keys, shared quotas)
	shutdown bool
}

// New checks o, opens the store, makes the rooms and the front, and
// listens on o.Addr (or takes o.Listener). Nothing is served until Run.
func New(o Options) (s *Server, err error) {
	o, err = o.withDefaults()
	if err != nil {
		return nil, err
	}
	log := o.Logger
	if log == nil {
		log = slog.New(slog.NewJSONHandler(os.Stderr, nil))
	}
	srv := &Server{o: o, log: log, scheme: "http"}
	defer func() {
		if err != nil {
			srv.release() // (s is nil by then)
		}
	}()
	s = srv
	if o.adminTokenArg {
		log.Warn("--admin-token on the command line is visible to every user of this machine (ps, /proc); " +
			"set ROOMD_ADMIN_TOKEN or --admin-token-file instead")
	}
	reg, err := registryOf(o.Games)
	if err != nil {
		return nil, err
	}
	webFiles, err := webGames(o.Games)
	if err != nil {
		return nil, err
	}
	site, err := web.New(webFiles...)
	if err != nil {
		return nil, fmt.Errorf("the browser client: %w", err)
	}
	if err := s.openStore(); err != nil {
		return nil, err
	}
	s.metrics = prometheus.NewRegistry()
	s.metrics.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	s.metrics.MustRegister(storeMetrics(s.st)...)
	// The store's outbox carries every match's leaderboard results (stored
	// with the match's end, applied by the rooms' RecordScores), every rated
	// match's rating job (applied by ApplyRatingEvent) and, with a URL, the
	// webhook events: one dispatcher hands them all on.
	s.hooks, err = webhook.New(webhook.Config{URL: o.Webhooks.URL, Secret: []byte(o.Webhooks.Secret), Outbox: s.st, Logger: log, Registerer: s.metrics,
		Handlers: map[string]webhook.Handler{room.ScoresEvent: func(ctx context.Context, ev store.Event) error {
			return s.rooms.RecordScores(ctx, ev)
		}, room.RatingEvent: func(ctx context.Context, ev store.Event) error {
			return s.rooms.ApplyRatingEvent(ctx, ev)
		}}})
	if err != nil {
		return nil, err
	}
	if o.Webhooks.URL != "" {
		log.Info("webhooks on", "url", redactURL(o.Webhooks.URL))
	}
	var verifier transport.Verifier
	if o.SignIn.Secret != "" || o.SignIn.JWKSURL != "" {
		v, err := auth.New(auth.Config{Secret: []byte(o.SignIn.Secret), JWKSURL: o.SignIn.JWKSURL, Audience: o.SignIn.Audience, Logger: log})
		if err != nil {
			return nil, fmt.Errorf("sign-in: %w", err)
		}
		s.closers = append(s.closers, func() error { v.Close(); return nil })
		verifier = v
		log.Info("sign-in on", "hs256", o.SignIn.Secret != "", "jwks", o.SignIn.JWKSURL, "audience", o.SignIn.Audience, "required", o.SignIn.Require)
	}
	rcfg := room.Config{Games: reg, Store: s.st, Leaderboards: s.st, Ratings: s.st, Claims: s.st, Logger: log, Metrics: room.NewMetrics(s.metrics),
		IdleTimeout: o.Rooms.IdleTimeout, RetryAfter: o.Rooms.RetryAfter, AIDelay: o.Rooms.AIDelay, EndedTTL: o.Rooms.EndedTTL,
		MaxRooms: o.Rooms.MaxRooms, MaxSpectators: o.Rooms.MaxSpectators, MaxMatchMoves: o.Rooms.MaxMatchMoves,
		SeatGrace: o.Rooms.SeatGrace, LobbyTimeout: o.Rooms.LobbyTimeout,
		Outbox: s.st, Webhooks: o.Webhooks.URL != "", HooksQueued: s.hooks.Wake}
	if o.Listener != nil {
		s.ln = o.Listener
	} else if s.ln, err = net.Listen("tcp", o.Addr); err != nil {
		return nil, err
	}
	var cluster *transport.ClusterConfig
	if c, ok := s.st.(store.Cluster); ok && o.Store.RedisURL != "" {
		cluster = o.Node.cluster(c, s.st, s.ln.Addr())
		rcfg.Cluster, rcfg.Node, rcfg.LeaseTTL = c, cluster.Self.ID, o.Node.LeaseTTL
		log.Info("one node of a cluster on Redis", "node", cluster.Self.ID, "publicUrl", cluster.Self.URL, "peerUrl", cluster.Self.PeerURL, "leaseTtl", o.Node.LeaseTTL)
	}
	// Rated quick play's pool: the store's when it has one (Redis: the
	// nodes' shared pool), else this process's.
	if p, ok := s.st.(store.Pool); ok {
		rcfg.Pool = p
	} else {
		rcfg.Pool = memstore.NewPool()
	}
	if s.rooms, err = room.NewManager(rcfg); err != nil {
		return nil, err
	}
	quotas := o.Quotas
	if o.Store.RedisURL != "" && !quotas.Off {
		// The rate quotas are the nodes', counted in Redis; the cap on
		// open sockets stays this node's (transport/quota_shared.go).
		shared, err := openRedisQuotas(o.Store.RedisURL, o.Store.RedisCluster, redisKeyPrefix, transport.DefaultSharedTimeout)
		if err != nil {
			return nil, err
		}
		s.closers = append(s.closers, shared.Close)
		quotas.Shared, quotas.SharedTimeout = shared, transport.DefaultSharedTimeout
	}
	s.metrics.MustRegister(s.rooms.Collector())
	adm := admin.NewAPI(admin.Config{Rooms: s.rooms, Token: o.AdminToken})
	routes := adm.Routes()
	if o.MetricsAddr == "" {
		maps.Copy(routes, admin.MetricsRoutes(s.metrics))
	}
	s.front, err = transport.NewServer(transport.Config{Rooms: s.rooms, Logger: log, Web: site,
		Origins: o.Origins, PublicHosts: o.PublicHosts,
		Metrics: transport.NewMetrics(s.metrics), Routes: routes, Quotas: quotas, MaxConns: o.MaxConns,
		Auth: verifier, RequireAuth: o.SignIn.Require, Cluster: cluster, SocketGoroutines: o.SocketGoroutines})
	if err != nil {
		return nil, err
	}
	if cluster != nil {
		adm.SetCluster(s.front) // the admin API lists and moves rooms across nodes
	}
	if o.TLSCert != "" {
		// Load now, so that a bad certificate fails the start, not the
		// first connection.
		cert, err := tls.LoadX509KeyPair(o.TLSCert, o.TLSKey)
		if err != nil {
			return nil, fmt.Errorf("TLS certificate and key (--tls-cert/--tls-key): %w", err)
		}
		s.tlsCfg = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
		s.scheme = "https"
	}
	return s, nil
}

// openStore opens the store o chooses and says which.
func (s *Server) openStore() error {
	o, log := s.o, s.log
	octx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	st, err := openStore(octx, storeConfig{redisURL: o.Store.RedisURL, redis: redisstore.RedisOptions{Cluster: o.Store.RedisCluster, Prefix: redisKeyPrefix},
		dataDir: o.Store.Dir, memory: o.Store.Memory,
		bolt: boltstore.BoltOptions{NoSync: o.Store.NoFsync, CommitInterval: o.Store.CommitInterval, NoWAL: o.Store.NoWAL, BlockingSync: o.Store.NoIOUring,
			KeepProcs: o.Store.KeepProcs, DefaultProcs: os.Getenv("GOMAXPROCS") == "", CheckpointInterval: o.Store.CheckpointInterval,
			DiscardAfterDamage: o.Store.DiscardAfterDamage, Logger: log}})
	if errors.Is(err, boltstore.ErrWALDamaged) {
		return fmt.Errorf("open store: %w; nothing was changed. Restore the data directory from a backup, "+
			"or start once with --wal-recover=%s (ROOMD_WAL_RECOVER) to keep a copy of the log in the data directory "+
			"and start from the records before the damage, losing what follows (STORAGE.md)", err, walDiscard)
	}
	if err != nil {
		return fmt.Errorf("open store: %w", err)
	}
	s.st = st
	switch {
	case o.Store.Memory:
		log.Warn("rooms are kept in memory only: nothing survives a restart")
	case o.Store.RedisURL != "":
		log.Info("rooms are kept in Redis", "url", redactURL(o.Store.RedisURL))
	default:
		log.Info("rooms are kept in the embedded store", "dir", o.Store.Dir, "fsync", !o.Store.NoFsync)
		blocking := true // the group commits' syncs block a thread
		if b, ok := st.(*boltstore.Bolt); ok {
			bs := b.Stats()
			if bs.RingError != "" {
				log.Warn("the write-ahead log syncs with fdatasync, blocking a thread per sync (no io_uring here)", "err", bs.RingError)
			}
			blocking = !bs.RingSync
		}
		if n := spareProc(!o.Store.NoFsync, blocking, os.Getenv("GOMAXPROCS")); n > 0 {
			log.Info("GOMAXPROCS raised for the store's fsyncs (set GOMAXPROCS to choose)", "gomaxprocs", n)
		}
	}
	return nil
}

// URL is the address a person opens in a browser: http(s)://host:port.
func (s *Server) URL() string { return openURL(s.scheme, s.ln.Addr()) }

// Handler is the server's HTTP handler (the API, the WebSockets, the
// browser client), for a program that serves it itself.
func (s *Server) Handler() http.Handler { return s.front.Handler() }

// Run serves until ctx ends or serving fails, then shuts down gracefully:
// it stops accepting sockets, tells every client to come back, lets the
// rooms write their final snapshots, stops HTTP and closes the store,
// within Options.ShutdownTimeout. A Server runs once.
func (s *Server) Run(ctx context.Context) error {
	o, log := s.o, s.log
	hctx, stopHooks := context.WithCancel(context.Background())
	hooksDone := make(chan struct{})
	go func() {
		defer close(hooksDone)
		s.hooks.Run(hctx) // hands on the store's outbox until the store closes
	}()
	defer func() { stopHooks(); <-hooksDone; s.release() }()
	if o.RestoreAll {
		start := time.Now()
		n, err := s.rooms.RestoreAll(ctx)
		log.Info("restored rooms", "rooms", n, "took", time.Since(start), "err", err)
	}
	errc := make(chan error, 2)
	var metricsSrv *http.Server
	if o.MetricsAddr != "" {
		mln, err := net.Listen("tcp", o.MetricsAddr)
		if err != nil {
			return fmt.Errorf("metrics address: %w", err)
		}
		mux := http.NewServeMux()
		for pattern, h := range admin.MetricsRoutes(s.metrics) {
			mux.Handle(pattern, h)
		}
		metricsSrv = transport.NewHTTPServer(mux, o.HTTP)
		go func() { errc <- metricsSrv.Serve(mln) }()
		log.Info("serving metrics", "addr", mln.Addr().String())
	}
	httpSrv := transport.NewHTTPServer(s.front.Handler(), o.HTTP)
	ln := transport.LimitWriteBuffer(s.ln, o.SocketSendBuffer)
	if s.tlsCfg != nil {
		httpSrv.TLSConfig = s.tlsCfg
		go func() { errc <- httpSrv.ServeTLS(ln, "", "") }()
	} else {
		go func() { errc <- httpSrv.Serve(ln) }()
	}
	fmt.Fprintf(o.Stdout, "roomd is running: open %s\n", s.URL())
	log.Info("listening", "addr", s.ln.Addr().String(), "publicHosts", o.PublicHosts)

	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down", "timeout", o.ShutdownTimeout)
	sctx, cancel := context.WithTimeout(context.Background(), o.ShutdownTimeout)
	defer cancel()
	ferr := s.front.Shutdown(sctx)
	herr := httpSrv.Shutdown(sctx)
	var merr error
	if metricsSrv != nil {
		merr = metricsSrv.Shutdown(sctx)
	}
	stopHooks() // the last events stay in the outbox for the next start
	<-hooksDone
	cerr := s.st.Close()
	s.st = nil
	if err := errors.Join(ferr, herr, merr, cerr); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	log.Info("stopped cleanly")
	return nil
}

// release closes what New opened and Run did not: the store (when Run
// did not close it), the listener, sign-in's keys, the shared quotas.
func (s *Server) release() {
	if s.st != nil {
		ctx, cancel := context.WithTimeout(context.Background(), s.o.ShutdownTimeout)
		switch {
		case s.front != nil:
			s.front.Shutdown(ctx) // the rooms' too
		case s.rooms != nil:
			s.rooms.Shutdown(ctx)
		}
		cancel()
		s.st.Close()
		s.st = nil
	}
	if s.ln != nil {
		s.ln.Close()
	}
	for i := len(s.closers) - 1; i >= 0; i-- {
		s.closers[i]()
	}
	s.closers = nil
}

// redactURL hides a password in a URL for logs.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparsable URL)"
	}
	return u.Redacted()
}

// openURL is the address a person opens in a browser.
func openURL(scheme string, addr net.Addr) string {
	host, port, err := net.SplitHostPort(addr.String())
	if err != nil {
		return scheme + "://" + addr.String()
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "localhost"
	}
	return scheme + "://" + net.JoinHostPort(host, port)
}

// cluster is the transport's configuration of this node: its id (by
// default host name:port), its public URL and the URL its peers use (by
// default the public one, else http://host name:port).
func (n NodeOptions) cluster(c store.Cluster, claims store.Claims, addr net.Addr) *transport.ClusterConfig {
	host, _ := os.Hostname()
	if host == "" {
		host = "localhost"
	}
	_, port, _ := net.SplitHostPort(addr.String())
	ip, _, _ := net.SplitHostPort(addr.String())
	if p := net.ParseIP(ip); p != nil && !p.IsUnspecified() {
		host = ip // listening on one address: that is where peers reach it
	}
	self := store.Node{ID: n.ID, URL: n.PublicURL, PeerURL: n.PeerURL, Started: time.Now().UnixMilli()}
	if self.ID == "" {
		self.ID = net.JoinHostPort(host, port)
	}
	if self.PeerURL == "" {
		self.PeerURL = n.PublicURL
	}
	if self.PeerURL == "" {
		self.PeerURL = "http://" + net.JoinHostPort(host, port)
	}
	return &transport.ClusterConfig{Store: c, Claims: claims, Self: self, TTL: n.LeaseTTL}
}

// spareProc gives the scheduler a second P when the runtime chose one (one
// CPU available, GOMAXPROCS unset) and the embedded store's group commits
// fsync with blocking system calls (no io_uring, or no write-ahead log),
// and returns the new GOMAXPROCS (0 when unchanged). With a single P, every
// such fdatasync — about half a millisecond, hundreds a second under load
// — makes the runtime take the P back for another thread, and keeps its
// monitor thread polling every 20 µs; with a spare P it does neither, and
// the same load cost about 15 % less CPU per move. When the log syncs
// through io_uring no commit blocks a thread (and bbolt's own transactions
// borrow a P while they run: boltstore's procs.go), and a standing second
// P only costs: 15–25 % more CPU per move, each readied goroutine waking
// another thread on the same CPU (BENCHMARKS.md, "The embedded store under
// load"). The Go scheduler runs both Ps on the one CPU.
func spareProc(fsync, blocking bool, env string) int {
	if !fsync || !blocking || env != "" || runtime.GOMAXPROCS(0) != 1 {
		return 0
	}
	runtime.GOMAXPROCS(2)
	return 2
}
