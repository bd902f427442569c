package main

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/lmittmann/tint"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/roomd/roomd/internal/profile"
	"github.com/roomd/roomd/room"
	"github.com/roomd/roomd/store"
	"github.com/roomd/roomd/store/boltstore"
	"github.com/roomd/roomd/store/redisstore"
	"github.com/roomd/roomd/transport"
	"github.com/roomd/roomd/transport/admin"
	"github.com/roomd/roomd/transport/auth"
	"github.com/roomd/roomd/transport/webhook"
	"github.com/roomd/roomd/web"
)

type serveConfig struct {
	addr            string
	origins         string
	publicHosts     string
	metricsAddr     string
	http            transport.HTTPConfig
	logFormat       string
	logLevel        string
	idleTimeout     time.Duration
	retryAfter      time.Duration
	shutdownTimeout time.Duration
	aiDelay         time.Duration
	adminToken      string
	adminTokenArg   bool // --admin-token was given on the command line
	dataDir         string
	redisURL        string
	memory          bool
	fsync           bool
	commitInterval  time.Duration
	wal             bool
	ioUring         bool
	spareSyncProc   bool
	checkpoint      time.Duration
	walRecover      string
	restoreAll      bool
	endedTTL        time.Duration
	sndbuf          int
	poller          bool
	cpuprofile      string
	quotas          transport.Quotas
	maxConns        int
	limits          roomLimits
	auth            authConfig
	hooks           hookConfig
	tlsCert, tlsKey string
	node            nodeConfig
}

// The values of --wal-recover.
const (
	walRefuse  = "refuse"
	walDiscard = "discard-after-damage"
)

// nodeConfig makes roomd one node of several on one Redis (issue: scale
// out; transport/cluster.go).
type nodeConfig struct {
	id, publicURL, peerURL string
	leaseTTL               time.Duration
	redisCluster           bool
}

// authConfig is the site's sign-in (PROTOCOL.md §2.9).
type authConfig struct {
	secret, jwksURL, audience string
	require                   bool
}

// hookConfig is the site's webhook (PROTOCOL.md §6).
type hookConfig struct {
	url, secret string
}

// roomLimits are the room layer's bounds.
type roomLimits struct {
	maxRooms, maxSpectators, maxMatchMoves int
	seatGrace, lobbyTimeout                time.Duration
}

func parseServe(args []string, stderr io.Writer) (serveConfig, error) {
	fs := flag.NewFlagSet("roomd", flag.ContinueOnError)
	fs.SetOutput(stderr)
	ef := &envFlags{fs: fs}
	addr := ef.String("addr", "", ":8080", "listen address")
	origins := ef.String("origins", "", "", "comma-separated origins allowed to open WebSockets besides the same origin, e.g. https://example.com,https://*.example.com,http://localhost:3000; scheme, host and port must match, and an entry without a scheme means https; empty means same-origin only")
	publicHosts := ef.String("public-host", "", "", "comma-separated host names clients reach roomd by (its public name, a service name), besides IP literals and localhost; a request for any other Host gets 421 (DNS rebinding protection)")
	metricsAddr := ef.String("metrics-addr", "", "", "serve /metrics on this address only (e.g. 127.0.0.1:9090 or a private network's); empty serves it on --addr")
	readTimeout := ef.Duration("http-read-timeout", "", transport.DefaultReadTimeout, "how long a client may take to send a whole HTTP request, body included (WebSockets are exempt once open)")
	writeTimeout := ef.Duration("http-write-timeout", "", transport.DefaultWriteTimeout, "how long an HTTP response may take, from the end of the request's headers (WebSockets are exempt once open)")
	httpIdle := ef.Duration("http-idle-timeout", "", transport.DefaultIdleTimeout, "close a keep-alive HTTP connection idle this long")
	logFormat := ef.String("log-format", "", "auto", "log format: auto (coloured text on a terminal, JSON otherwise), text or json")
	logLevel := ef.String("log-level", "", "info", "log level: debug, info, warn or error")
	idle := ef.Duration("idle-timeout", "", 30*time.Minute, "close a room after this long without a change or a connection")
	retry := ef.Duration("retry-after", "", time.Second, "how long clients are told to wait before reconnecting when the server restarts")
	shutdown := ef.Duration("shutdown-timeout", "", 20*time.Second, "how long a SIGTERM/SIGINT shutdown may take before connections are cut")
	aiDelay := ef.Duration("ai-delay", "", 400*time.Millisecond, "how long an AI seat thinks before it moves")
	adminToken := ef.String("admin-token", "", "", "bearer token of the operator API (/api/admin/...) and page (/admin); empty disables them. On the command line it is visible in ps: prefer the variable or --admin-token-file")
	adminTokenFile := ef.String("admin-token-file", "", "", "read the admin token from this file (surrounding white space trimmed), instead of --admin-token")
	dataDir := ef.String("data", "", defaultDataDir, "directory of the embedded store (bbolt), used when --redis is not set")
	redisURL := ef.String("redis", "ROOMD_REDIS_URL", "", "Redis URL (redis://host:port/db) to keep rooms in Redis instead of the embedded store")
	memory := ef.Bool("memory", "", false, "keep rooms in memory only: nothing survives a restart (demos, load tests)")
	fsync := ef.Bool("fsync", "", true, "fsync the embedded store on every group commit; false survives a crash of roomd but not of the machine")
	commitInterval := ef.Duration("commit-interval", "", boltstore.DefaultCommitInterval, "the embedded store's least time between group commits under load: what arrives meanwhile shares one commit and its fsyncs (negative: back to back)")
	wal := ef.Bool("wal", "", true, "log the embedded store's appends in its write-ahead log (one fsync per group commit) and carry them into bbolt in batches; false commits each group to bbolt (two fsyncs)")
	ioUring := ef.Bool("io-uring", "", true, "the write-ahead log's fsyncs go through io_uring (Linux), so that none holds a thread of the Go runtime while the disk works; false calls fdatasync")
	spareSyncProc := ef.Bool("spare-sync-proc", "", true, "with GOMAXPROCS 1 (set or chosen), the embedded store's bbolt transactions raise it to 2 while they run, so that their blocking fsyncs stall no socket or room; false keeps GOMAXPROCS as it is")
	checkpoint := ef.Duration("checkpoint-interval", "", boltstore.DefaultCheckpointInterval, "how long the embedded store's appends and snapshots may stay in its write-ahead log only before a background checkpoint carries them into bbolt")
	walRecover := ef.String("wal-recover", "", walRefuse, "what to do at start when the embedded store's write-ahead log is damaged (not just its last record torn by a crash): refuse (exit 1, changing nothing) or discard-after-damage (keep a copy of the log in the data directory, start from the records before the damage, and move every live room to a new epoch); set it for the one start that accepts the loss")
	restoreAll := ef.Bool("restore-all", "", false, "restore every live room at start instead of on its first join")
	endedTTL := ef.Duration("ended-ttl", "", 24*time.Hour, "how long a closed room stays in the store")
	cpuprofile := ef.String("cpuprofile", "", "", "write a pprof CPU profile of the whole run to this file (for load tests)")
	sndbuf := ef.Int("socket-sndbuf", "", 64<<10, "kernel send buffer of each client socket in bytes, so a client that stops reading is found slow soon (0 keeps the kernel's default)")
	poller := ef.Bool("poller", "", true, "after its hello, read and write each plain-TCP socket from an epoll loop shared by many (Linux) instead of a reader and a writer goroutine of its own")
	quotas := ef.String("quotas", "", "on", "per-address quotas: on, or off for load tests from one machine (the global caps stay); with --redis the per-minute quotas are counted in Redis, once for all nodes")
	proxies := ef.String("trusted-proxies", "", "", "comma-separated addresses or CIDR prefixes of proxies whose X-Forwarded-For names the client (quotas count that address); empty trusts none")
	qRooms := ef.Int("quota-rooms", "", 10, "rooms one address may create per minute (bursts of half as many)")
	qJoins := ef.Int("quota-joins", "", 30, "seats one address may take per minute, over HTTP or in hellos")
	qSockets := ef.Int("quota-sockets", "", 60, "WebSockets one address may open per minute")
	qOpen := ef.Int("quota-open-sockets", "", 64, "WebSockets one address may hold open at once on this node (with --redis too: held sockets are counted per node)")
	qReplays := ef.Int("quota-replays", "", 6, "replays one address may submit per minute")
	qLookups := ef.Int("quota-lookups", "", 20, "room codes that name no room one address may try per minute")
	maxConns := ef.Int("max-conns", "", 50_000, "WebSockets open at once on this server; more are refused with 503")
	maxRooms := ef.Int("max-rooms", "", 100_000, "rooms held in memory; more creations are refused with 503")
	maxSpectators := ef.Int("max-spectators", "", 1000, "spectators of one room; more are refused (close 4013)")
	maxMoves := ef.Int("max-match-moves", "", 0, "moves one match may log; more are refused with match-full (0: each game's own bound, 10,000 unless it says)")
	seatGrace := ef.Duration("seat-grace", "", 30*time.Second, "how long a lobby seat may have no connection before the room gives it up")
	lobbyTimeout := ef.Duration("lobby-timeout", "", 2*time.Minute, "close a lobby nobody is connected to after this long")
	jwtSecret := ef.String("jwt-secret", "", "", "HS256 secret (at least 32 bytes) of the sign-in tokens the embedding site gives its players; prefer the variable to the command line")
	jwksURL := ef.String("jwks-url", "", "", "URL of the site's JWKS: RS256/ES256 keys of its sign-in tokens")
	jwtAudience := ef.String("jwt-audience", "", "", "the aud a sign-in token must carry; empty checks none")
	requireAuth := ef.Bool("require-auth", "", false, "refuse clients that are not signed in by the site (401 on the API, close 4007 on the socket)")
	hookURL := ef.String("webhook-url", "", "", "POST room and match events to this http(s) URL (signed with --webhook-secret)")
	hookSecret := ef.String("webhook-secret", "", "", "HMAC-SHA256 key of the webhooks' X-Roomd-Signature; required with --webhook-url")
	tlsCert := ef.String("tls-cert", "", "", "serve HTTPS and wss:// with this certificate (PEM; with --tls-key)")
	tlsKey := ef.String("tls-key", "", "", "the private key of --tls-cert (PEM)")
	nodeID := ef.String("node-id", "", "", "this node's id among the roomd nodes sharing one Redis (at most 128 bytes); empty means host name:port. A restarted node with the same id takes its rooms back at once")
	publicURL := ef.String("public-url", "", "", "the base URL clients reach this node at (e.g. https://roomd.example.com, or this node's own address): told to clients whose room moved here")
	peerURL := ef.String("peer-url", "", "", "the base URL other roomd nodes reach this node at (e.g. http://10.0.0.5:8080); empty means --public-url, else http://host name:port")
	leaseTTL := ef.Duration("lease-ttl", "", 10*time.Second, "with --redis: how long a node's ownership of a room lasts without renewal (renewed every third of it); a dead node's rooms are taken over after it")
	redisCluster := ef.Bool("redis-cluster", "", false, "--redis names a Redis Cluster: redis://host:port?addr=host2:port2&addr=host3:port3 (any of its masters)")
	fs.Usage = func() {
		fmt.Fprint(stderr, usageHeader())
		fmt.Fprintln(stderr, "\nServe flags:")
		fs.PrintDefaults()
	}
	if ef.err != nil {
		return serveConfig{}, ef.err
	}
	if err := fs.Parse(args); err != nil {
		return serveConfig{}, err
	}
	if fs.NArg() > 0 {
		return serveConfig{}, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	cfg := serveConfig{addr: *addr, origins: *origins, publicHosts: *publicHosts, metricsAddr: *metricsAddr,
		http:      transport.HTTPConfig{ReadTimeout: *readTimeout, WriteTimeout: *writeTimeout, IdleTimeout: *httpIdle},
		logFormat: *logFormat, logLevel: *logLevel,
		idleTimeout: *idle, retryAfter: *retry, shutdownTimeout: *shutdown, aiDelay: *aiDelay, adminToken: *adminToken,
		dataDir: *dataDir, redisURL: *redisURL, memory: *memory, fsync: *fsync, commitInterval: *commitInterval, wal: *wal, ioUring: *ioUring, spareSyncProc: *spareSyncProc, checkpoint: *checkpoint, walRecover: *walRecover, restoreAll: *restoreAll, endedTTL: *endedTTL, sndbuf: *sndbuf, poller: *poller, cpuprofile: *cpuprofile}
	fs.Visit(func(f *flag.Flag) { cfg.adminTokenArg = cfg.adminTokenArg || f.Name == "admin-token" })
	if cfg.walRecover != walRefuse && cfg.walRecover != walDiscard {
		return serveConfig{}, fmt.Errorf("--wal-recover %q: want %s or %s", cfg.walRecover, walRefuse, walDiscard)
	}
	switch *quotas {
	case "on":
	case "off":
		cfg.quotas.Off = true
	default:
		return serveConfig{}, fmt.Errorf("--quotas %q: want on or off", *quotas)
	}
	tp, perr := transport.ParseProxies(*proxies)
	err := perr
	if err != nil {
		return serveConfig{}, fmt.Errorf("--trusted-proxies: %w", err)
	}
	cfg.quotas.TrustedProxies = tp
	for _, q := range []struct {
		name string
		n    int
		dst  *transport.Limit
	}{{"rooms", *qRooms, &cfg.quotas.Rooms}, {"joins", *qJoins, &cfg.quotas.Joins}, {"sockets", *qSockets, &cfg.quotas.Sockets},
		{"replays", *qReplays, &cfg.quotas.Replays}, {"lookups", *qLookups, &cfg.quotas.Lookups}} {
		if q.n < 1 {
			return serveConfig{}, fmt.Errorf("--quota-%s must be at least 1 (use --quotas=off to turn quotas off)", q.name)
		}
		q.dst.PerMinute = float64(q.n)
	}
	if *qOpen < 1 || *maxConns < 1 || *maxRooms < 1 || *maxSpectators < 0 || *maxMoves < 0 {
		return serveConfig{}, errors.New("--quota-open-sockets, --max-conns and --max-rooms must be at least 1; --max-spectators and --max-match-moves not negative")
	}
	cfg.quotas.OpenSockets, cfg.maxConns = *qOpen, *maxConns
	cfg.limits = roomLimits{maxRooms: *maxRooms, maxSpectators: *maxSpectators, maxMatchMoves: *maxMoves, seatGrace: *seatGrace, lobbyTimeout: *lobbyTimeout}
	cfg.auth = authConfig{secret: *jwtSecret, jwksURL: *jwksURL, audience: *jwtAudience, require: *requireAuth}
	if cfg.auth.require && cfg.auth.secret == "" && cfg.auth.jwksURL == "" {
		return serveConfig{}, errors.New("--require-auth needs --jwt-secret or --jwks-url: nobody could sign in")
	}
	cfg.hooks = hookConfig{url: *hookURL, secret: *hookSecret}
	if (cfg.hooks.url == "") != (cfg.hooks.secret == "") {
		return serveConfig{}, errors.New("--webhook-url and --webhook-secret go together")
	}
	cfg.tlsCert, cfg.tlsKey = *tlsCert, *tlsKey
	cfg.node = nodeConfig{id: *nodeID, publicURL: strings.TrimSuffix(*publicURL, "/"), peerURL: strings.TrimSuffix(*peerURL, "/"),
		leaseTTL: *leaseTTL, redisCluster: *redisCluster}
	if *leaseTTL < 300*time.Millisecond {
		return serveConfig{}, errors.New("--lease-ttl must be at least 300ms")
	}
	for _, u := range []struct{ flag, v string }{{"--public-url", cfg.node.publicURL}, {"--peer-url", cfg.node.peerURL}} {
		if u.v == "" {
			continue
		}
		if p, err := url.Parse(u.v); err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
			return serveConfig{}, fmt.Errorf("%s %q: want an http(s) URL", u.flag, u.v)
		}
	}
	if cfg.node.redisCluster && cfg.redisURL == "" {
		return serveConfig{}, errors.New("--redis-cluster needs --redis")
	}
	if (cfg.tlsCert == "") != (cfg.tlsKey == "") {
		return serveConfig{}, errors.New("--tls-cert and --tls-key go together")
	}
	if *adminTokenFile != "" {
		if cfg.adminToken != "" {
			return serveConfig{}, errors.New("both an admin token (--admin-token or ROOMD_ADMIN_TOKEN) and --admin-token-file are set; use one")
		}
		tok, err := readTokenFile(*adminTokenFile)
		if err != nil {
			return serveConfig{}, err
		}
		cfg.adminToken = tok
	}
	return cfg, nil
}

// readTokenFile reads a secret from a file, without surrounding white space
// (a mounted secret often ends with a newline).
func readTokenFile(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("admin token file: %w", err)
	}
	tok := strings.TrimSpace(string(b))
	if tok == "" {
		return "", fmt.Errorf("admin token file %s is empty", path)
	}
	return tok, nil
}

// splitList splits a comma-separated flag value, dropping empty entries.
func splitList(v string) []string {
	var out []string
	for _, e := range strings.Split(v, ",") {
		if e = strings.TrimSpace(e); e != "" {
			out = append(out, e)
		}
	}
	return out
}

func newLogger(format, level string, w *os.File) (*slog.Logger, error) {
	var lvl slog.Level
	if err := lvl.UnmarshalText([]byte(level)); err != nil {
		return nil, fmt.Errorf("log level %q: %v", level, err)
	}
	if format == "auto" {
		format = "json"
		if fi, err := w.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			format = "tint"
		}
	}
	switch format {
	case "tint":
		return slog.New(tint.NewHandler(w, &tint.Options{Level: lvl, TimeFormat: time.TimeOnly})), nil
	case "text":
		return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: lvl})), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: lvl})), nil
	}
	return nil, fmt.Errorf("log format %q: want auto, text or json", format)
}

func serveMain(args []string, stdout, stderr io.Writer) int {
	cfg, err := parseServe(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "roomd: %v\n", err)
		return 2
	}
	log, err := newLogger(cfg.logFormat, cfg.logLevel, os.Stderr)
	if err != nil {
		fmt.Fprintf(stderr, "roomd: %v\n", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	if cfg.cpuprofile != "" {
		stop, err := profile.StartCPU(cfg.cpuprofile)
		if err != nil {
			fmt.Fprintf(stderr, "roomd: %v\n", err)
			return 2
		}
		defer stop()
	}
	if err := serve(ctx, cfg, log, stdout); err != nil {
		log.Error("roomd stopped", "err", err)
		return 1
	}
	return 0
}

func serve(ctx context.Context, cfg serveConfig, log *slog.Logger, stdout io.Writer) error {
	if cfg.adminTokenArg {
		log.Warn("--admin-token on the command line is visible to every user of this machine (ps, /proc); " +
			"set ROOMD_ADMIN_TOKEN or --admin-token-file instead")
	}
	octx, cancel := context.WithTimeout(ctx, 10*time.Second)
	st, err := openStore(octx, storeConfig{redisURL: cfg.redisURL, redis: redisstore.RedisOptions{Cluster: cfg.node.redisCluster, Prefix: redisKeyPrefix}, dataDir: cfg.dataDir, memory: cfg.memory,
		bolt: boltstore.BoltOptions{NoSync: !cfg.fsync, CommitInterval: cfg.commitInterval, NoWAL: !cfg.wal, BlockingSync: !cfg.ioUring, KeepProcs: !cfg.spareSyncProc,
			DefaultProcs: os.Getenv("GOMAXPROCS") == "", CheckpointInterval: cfg.checkpoint,
			DiscardAfterDamage: cfg.walRecover == walDiscard, Logger: log}})
	cancel()
	if errors.Is(err, boltstore.ErrWALDamaged) {
		return fmt.Errorf("open store: %w; nothing was changed. Restore the data directory from a backup, "+
			"or start once with --wal-recover=%s (ROOMD_WAL_RECOVER) to keep a copy of the log in the data directory "+
			"and start from the records before the damage, losing what follows (STORAGE.md)", err, walDiscard)
	}
	if err != nil {
		return fmt.Errorf("open store: %w", err)
	}
	switch {
	case cfg.memory:
		log.Warn("rooms are kept in memory only: nothing survives a restart")
	case cfg.redisURL != "":
		log.Info("rooms are kept in Redis", "url", redactURL(cfg.redisURL))
	default:
		log.Info("rooms are kept in the embedded store", "dir", cfg.dataDir, "fsync", cfg.fsync)
		blocking := true // the group commits' syncs block a thread
		if b, ok := st.(*boltstore.Bolt); ok {
			bs := b.Stats()
			if bs.RingError != "" {
				log.Warn("the write-ahead log syncs with fdatasync, blocking a thread per sync (no io_uring here)", "err", bs.RingError)
			}
			blocking = !bs.RingSync
		}
		if n := spareProc(cfg.fsync, blocking, os.Getenv("GOMAXPROCS")); n > 0 {
			log.Info("GOMAXPROCS raised for the store's fsyncs (set GOMAXPROCS to choose)", "gomaxprocs", n)
		}
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	reg.MustRegister(storeMetrics(st)...)
	// The store's outbox carries every match's leaderboard results (stored
	// with the match's end, applied by the rooms' RecordScores) and, with a
	// URL, the webhook events: one dispatcher hands both on.
	var rooms *room.Manager
	hooks, err := webhook.New(webhook.Config{URL: cfg.hooks.url, Secret: []byte(cfg.hooks.secret), Outbox: st, Logger: log, Registerer: reg,
		Handlers: map[string]webhook.Handler{room.ScoresEvent: func(ctx context.Context, ev store.Event) error {
			return rooms.RecordScores(ctx, ev)
		}}})
	if err != nil {
		st.Close()
		return err
	}
	if cfg.hooks.url != "" {
		log.Info("webhooks on", "url", redactURL(cfg.hooks.url))
	}
	var verifier transport.Verifier
	if cfg.auth.secret != "" || cfg.auth.jwksURL != "" {
		v, err := auth.New(auth.Config{Secret: []byte(cfg.auth.secret), JWKSURL: cfg.auth.jwksURL, Audience: cfg.auth.audience, Logger: log})
		if err != nil {
			st.Close()
			return fmt.Errorf("sign-in: %w", err)
		}
		defer v.Close()
		verifier = v
		log.Info("sign-in on", "hs256", cfg.auth.secret != "", "jwks", cfg.auth.jwksURL, "audience", cfg.auth.audience, "required", cfg.auth.require)
	}
	rcfg := room.Config{Games: registry(), Store: st, Leaderboards: st, Claims: st, Logger: log, Metrics: room.NewMetrics(reg),
		IdleTimeout: cfg.idleTimeout, RetryAfter: cfg.retryAfter, AIDelay: cfg.aiDelay, EndedTTL: cfg.endedTTL,
		MaxRooms: cfg.limits.maxRooms, MaxSpectators: cfg.limits.maxSpectators, MaxMatchMoves: cfg.limits.maxMatchMoves,
		SeatGrace: cfg.limits.seatGrace, LobbyTimeout: cfg.limits.lobbyTimeout}
	rcfg.Outbox, rcfg.Webhooks, rcfg.HooksQueued = st, cfg.hooks.url != "", hooks.Wake
	ln, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		st.Close()
		return err
	}
	var cluster *transport.ClusterConfig
	if c, ok := st.(store.Cluster); ok && cfg.redisURL != "" {
		cluster = cfg.node.cluster(c, st, ln.Addr())
		rcfg.Cluster, rcfg.Node, rcfg.LeaseTTL = c, cluster.Self.ID, cfg.node.leaseTTL
		log.Info("one node of a cluster on Redis", "node", cluster.Self.ID, "publicUrl", cluster.Self.URL, "peerUrl", cluster.Self.PeerURL, "leaseTtl", cfg.node.leaseTTL)
	}
	rooms, err = room.NewManager(rcfg)
	if err != nil {
		ln.Close()
		st.Close()
		return err
	}
	quotas := cfg.quotas
	if cfg.redisURL != "" && !quotas.Off {
		// The rate quotas are the nodes', counted in Redis; the cap on
		// open sockets stays this node's (transport/quota_shared.go).
		shared, err := openRedisQuotas(cfg.redisURL, cfg.node.redisCluster, redisKeyPrefix, transport.DefaultSharedTimeout)
		if err != nil {
			ln.Close()
			st.Close()
			return err
		}
		defer shared.Close()
		quotas.Shared, quotas.SharedTimeout = shared, transport.DefaultSharedTimeout
	}
	hctx, stopHooks := context.WithCancel(context.Background())
	hooksDone := make(chan struct{})
	go func() {
		defer close(hooksDone)
		hooks.Run(hctx) // hands on the store's outbox until the store closes
	}()
	defer func() { stopHooks(); <-hooksDone }()
	reg.MustRegister(rooms.Collector())
	if cfg.restoreAll {
		start := time.Now()
		n, err := rooms.RestoreAll(ctx)
		log.Info("restored rooms", "rooms", n, "took", time.Since(start), "err", err)
	}
	adm := admin.NewAPI(admin.Config{Rooms: rooms, Token: cfg.adminToken})
	routes := adm.Routes()
	if cfg.metricsAddr == "" {
		maps.Copy(routes, admin.MetricsRoutes(reg))
	}
	front, err := transport.NewServer(transport.Config{Rooms: rooms, Logger: log, Web: web.Handler(),
		Origins: splitList(cfg.origins), PublicHosts: splitList(cfg.publicHosts),
		Metrics: transport.NewMetrics(reg), Routes: routes, Quotas: quotas, MaxConns: cfg.maxConns,
		Auth: verifier, RequireAuth: cfg.auth.require, Cluster: cluster, SocketGoroutines: !cfg.poller})
	if err != nil {
		ln.Close()
		return err
	}
	if cluster != nil {
		adm.SetCluster(front) // the admin API lists and moves rooms across nodes
	}
	errc := make(chan error, 2)
	var metricsSrv *http.Server
	if cfg.metricsAddr != "" {
		mln, err := net.Listen("tcp", cfg.metricsAddr)
		if err != nil {
			ln.Close()
			return fmt.Errorf("metrics address: %w", err)
		}
		mux := http.NewServeMux()
		for pattern, h := range admin.MetricsRoutes(reg) {
			mux.Handle(pattern, h)
		}
		metricsSrv = transport.NewHTTPServer(mux, cfg.http)
		go func() { errc <- metricsSrv.Serve(mln) }()
		log.Info("serving metrics", "addr", mln.Addr().String())
	}
	httpSrv := transport.NewHTTPServer(front.Handler(), cfg.http)
	scheme := "http"
	if cfg.tlsCert != "" {
		// Load now, so that a bad certificate fails the start, not the
		// first connection.
		cert, err := tls.LoadX509KeyPair(cfg.tlsCert, cfg.tlsKey)
		if err != nil {
			ln.Close()
			return fmt.Errorf("--tls-cert/--tls-key: %w", err)
		}
		httpSrv.TLSConfig = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
		scheme = "https"
		go func() { errc <- httpSrv.ServeTLS(transport.LimitWriteBuffer(ln, cfg.sndbuf), "", "") }()
	} else {
		go func() { errc <- httpSrv.Serve(transport.LimitWriteBuffer(ln, cfg.sndbuf)) }()
	}
	fmt.Fprintf(stdout, "roomd is running: open %s\n", openURL(scheme, ln.Addr()))
	log.Info("listening", "addr", ln.Addr().String(), "publicHosts", cfg.publicHosts)

	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down", "timeout", cfg.shutdownTimeout)
	sctx, cancel := context.WithTimeout(context.Background(), cfg.shutdownTimeout)
	defer cancel()
	// Stop accepting sockets, tell every client to come back, let the room
	// actors write their final snapshots, then stop HTTP.
	ferr := front.Shutdown(sctx)
	herr := httpSrv.Shutdown(sctx)
	var merr error
	if metricsSrv != nil {
		merr = metricsSrv.Shutdown(sctx)
	}
	stopHooks() // the last events stay in the outbox for the next start
	<-hooksDone
	cerr := st.Close()
	if err := errors.Join(ferr, herr, merr, cerr); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	log.Info("stopped cleanly")
	return nil
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
func (n nodeConfig) cluster(c store.Cluster, claims store.Claims, addr net.Addr) *transport.ClusterConfig {
	host, _ := os.Hostname()
	if host == "" {
		host = "localhost"
	}
	_, port, _ := net.SplitHostPort(addr.String())
	ip, _, _ := net.SplitHostPort(addr.String())
	if p := net.ParseIP(ip); p != nil && !p.IsUnspecified() {
		host = ip // listening on one address: that is where peers reach it
	}
	self := store.Node{ID: n.id, URL: n.publicURL, PeerURL: n.peerURL, Started: time.Now().UnixMilli()}
	if self.ID == "" {
		self.ID = net.JoinHostPort(host, port)
	}
	if self.PeerURL == "" {
		self.PeerURL = n.publicURL
	}
	if self.PeerURL == "" {
		self.PeerURL = "http://" + net.JoinHostPort(host, port)
	}
	return &transport.ClusterConfig{Store: c, Claims: claims, Self: self, TTL: n.leaseTTL}
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
