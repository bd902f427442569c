package main

import (
	"context"
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
	"strings"
	"syscall"
	"time"

	"github.com/lmittmann/tint"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/roomd/roomd/internal/profile"
	"github.com/roomd/roomd/room"
	"github.com/roomd/roomd/store/boltstore"
	"github.com/roomd/roomd/transport"
	"github.com/roomd/roomd/transport/admin"
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
	restoreAll      bool
	endedTTL        time.Duration
	sndbuf          int
	cpuprofile      string
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
	restoreAll := ef.Bool("restore-all", "", false, "restore every live room at start instead of on its first join")
	endedTTL := ef.Duration("ended-ttl", "", 24*time.Hour, "how long a closed room stays in the store")
	cpuprofile := ef.String("cpuprofile", "", "", "write a pprof CPU profile of the whole run to this file (for load tests)")
	sndbuf := ef.Int("socket-sndbuf", "", 64<<10, "kernel send buffer of each client socket in bytes, so a client that stops reading is found slow soon (0 keeps the kernel's default)")
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
		dataDir: *dataDir, redisURL: *redisURL, memory: *memory, fsync: *fsync, restoreAll: *restoreAll, endedTTL: *endedTTL, sndbuf: *sndbuf, cpuprofile: *cpuprofile}
	fs.Visit(func(f *flag.Flag) { cfg.adminTokenArg = cfg.adminTokenArg || f.Name == "admin-token" })
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
	st, err := openStore(octx, storeConfig{redisURL: cfg.redisURL, dataDir: cfg.dataDir, memory: cfg.memory,
		bolt: boltstore.BoltOptions{NoSync: !cfg.fsync}})
	cancel()
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
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	rooms, err := room.NewManager(room.Config{Games: registry(), Store: st, Leaderboards: st, Logger: log, Metrics: room.NewMetrics(reg),
		IdleTimeout: cfg.idleTimeout, RetryAfter: cfg.retryAfter, AIDelay: cfg.aiDelay, EndedTTL: cfg.endedTTL})
	if err != nil {
		st.Close()
		return err
	}
	reg.MustRegister(rooms.Collector())
	if cfg.restoreAll {
		start := time.Now()
		n, err := rooms.RestoreAll(ctx)
		log.Info("restored rooms", "rooms", n, "took", time.Since(start), "err", err)
	}
	routes := admin.Routes(admin.Config{Rooms: rooms, Token: cfg.adminToken})
	if cfg.metricsAddr == "" {
		maps.Copy(routes, admin.MetricsRoutes(reg))
	}
	front, err := transport.NewServer(transport.Config{Rooms: rooms, Logger: log, Web: web.Handler(),
		Origins: splitList(cfg.origins), PublicHosts: splitList(cfg.publicHosts),
		Metrics: transport.NewMetrics(reg), Routes: routes})
	if err != nil {
		return err
	}
	errc := make(chan error, 2)
	var metricsSrv *http.Server
	if cfg.metricsAddr != "" {
		mln, err := net.Listen("tcp", cfg.metricsAddr)
		if err != nil {
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
	ln, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		if metricsSrv != nil {
			metricsSrv.Close()
		}
		return err
	}
	httpSrv := transport.NewHTTPServer(front.Handler(), cfg.http)
	go func() { errc <- httpSrv.Serve(transport.LimitWriteBuffer(ln, cfg.sndbuf)) }()
	fmt.Fprintf(stdout, "roomd is running: open %s\n", openURL(ln.Addr()))
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
func openURL(addr net.Addr) string {
	host, port, err := net.SplitHostPort(addr.String())
	if err != nil {
		return "http://" + addr.String()
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "localhost"
	}
	return "http://" + net.JoinHostPort(host, port)
}
