package roomd

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/lmittmann/tint"

	"github.com/roomd/roomd/store/boltstore"
	"github.com/roomd/roomd/transport"
)

// The values of --wal-recover.
const (
	walRefuse  = "refuse"
	walDiscard = "discard-after-damage"
)

// ParseFlags maps roomd's serve flags (`roomd -h`), each of which a
// ROOMD_* variable sets too, onto Options: what a program on roomd as a
// library offers its own command line, the same as roomd's. Its Logger
// logs as --log-format and --log-level say to standard error. -h prints
// the usage to stderr and returns flag.ErrHelp.
func ParseFlags(args []string, stderr io.Writer) (Options, error) {
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
		return Options{}, ef.err
	}
	if err := fs.Parse(args); err != nil {
		return Options{}, err
	}
	if fs.NArg() > 0 {
		return Options{}, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	o := Options{Addr: *addr, Origins: splitList(*origins), PublicHosts: splitList(*publicHosts), MetricsAddr: *metricsAddr,
		HTTP:  transport.HTTPConfig{ReadTimeout: *readTimeout, WriteTimeout: *writeTimeout, IdleTimeout: *httpIdle},
		Rooms: RoomOptions{IdleTimeout: *idle, RetryAfter: *retry, AIDelay: *aiDelay, EndedTTL: *endedTTL, SeatGrace: *seatGrace, LobbyTimeout: *lobbyTimeout},
		Store: StoreOptions{Memory: *memory, RedisURL: *redisURL, RedisCluster: *redisCluster, Dir: *dataDir, NoFsync: !*fsync,
			CommitInterval: *commitInterval, NoWAL: !*wal, NoIOUring: !*ioUring, KeepProcs: !*spareSyncProc, CheckpointInterval: *checkpoint,
			DiscardAfterDamage: *walRecover == walDiscard},
		ShutdownTimeout: *shutdown, AdminToken: *adminToken, RestoreAll: *restoreAll, SocketSendBuffer: *sndbuf, SocketGoroutines: !*poller,
		SignIn:   SignInOptions{Secret: *jwtSecret, JWKSURL: *jwksURL, Audience: *jwtAudience, Require: *requireAuth},
		Webhooks: WebhookOptions{URL: *hookURL, Secret: *hookSecret},
		TLSCert:  *tlsCert, TLSKey: *tlsKey,
		Node:       NodeOptions{ID: *nodeID, PublicURL: strings.TrimSuffix(*publicURL, "/"), PeerURL: strings.TrimSuffix(*peerURL, "/"), LeaseTTL: *leaseTTL},
		cpuprofile: *cpuprofile}
	if *sndbuf == 0 {
		o.SocketSendBuffer = -1 // the flag's 0 is the kernel's default
	}
	fs.Visit(func(f *flag.Flag) { o.adminTokenArg = o.adminTokenArg || f.Name == "admin-token" })
	if *walRecover != walRefuse && *walRecover != walDiscard {
		return Options{}, fmt.Errorf("--wal-recover %q: want %s or %s", *walRecover, walRefuse, walDiscard)
	}
	switch *quotas {
	case "on":
	case "off":
		o.Quotas.Off = true
	default:
		return Options{}, fmt.Errorf("--quotas %q: want on or off", *quotas)
	}
	tp, err := transport.ParseProxies(*proxies)
	if err != nil {
		return Options{}, fmt.Errorf("--trusted-proxies: %w", err)
	}
	o.Quotas.TrustedProxies = tp
	for _, q := range []struct {
		name string
		n    int
		dst  *transport.Limit
	}{{"rooms", *qRooms, &o.Quotas.Rooms}, {"joins", *qJoins, &o.Quotas.Joins}, {"sockets", *qSockets, &o.Quotas.Sockets},
		{"replays", *qReplays, &o.Quotas.Replays}, {"lookups", *qLookups, &o.Quotas.Lookups}} {
		if q.n < 1 {
			return Options{}, fmt.Errorf("--quota-%s must be at least 1 (use --quotas=off to turn quotas off)", q.name)
		}
		q.dst.PerMinute = float64(q.n)
	}
	if *qOpen < 1 || *maxConns < 1 || *maxRooms < 1 || *maxSpectators < 0 || *maxMoves < 0 {
		return Options{}, errors.New("--quota-open-sockets, --max-conns and --max-rooms must be at least 1; --max-spectators and --max-match-moves not negative")
	}
	o.Quotas.OpenSockets, o.MaxConns = *qOpen, *maxConns
	o.Rooms.MaxRooms, o.Rooms.MaxSpectators, o.Rooms.MaxMatchMoves = *maxRooms, *maxSpectators, *maxMoves
	if o.SignIn.Require && o.SignIn.Secret == "" && o.SignIn.JWKSURL == "" {
		return Options{}, errors.New("--require-auth needs --jwt-secret or --jwks-url: nobody could sign in")
	}
	if (o.Webhooks.URL == "") != (o.Webhooks.Secret == "") {
		return Options{}, errors.New("--webhook-url and --webhook-secret go together")
	}
	if *leaseTTL < 300*time.Millisecond {
		return Options{}, errors.New("--lease-ttl must be at least 300ms")
	}
	if o.Store.RedisCluster && o.Store.RedisURL == "" {
		return Options{}, errors.New("--redis-cluster needs --redis")
	}
	if o.Store.Memory && o.Store.RedisURL != "" {
		return Options{}, errors.New("--memory and --redis are exclusive")
	}
	if (o.TLSCert == "") != (o.TLSKey == "") {
		return Options{}, errors.New("--tls-cert and --tls-key go together")
	}
	for _, u := range []struct{ flag, v string }{{"--public-url", o.Node.PublicURL}, {"--peer-url", o.Node.PeerURL}} {
		if err := checkURL(u.v); err != nil {
			return Options{}, fmt.Errorf("%s %q: %w", u.flag, u.v, err)
		}
	}
	if *adminTokenFile != "" {
		if o.AdminToken != "" {
			return Options{}, errors.New("both an admin token (--admin-token or ROOMD_ADMIN_TOKEN) and --admin-token-file are set; use one")
		}
		tok, err := readTokenFile(*adminTokenFile)
		if err != nil {
			return Options{}, err
		}
		o.AdminToken = tok
	}
	log, err := newLogger(*logFormat, *logLevel, os.Stderr)
	if err != nil {
		return Options{}, err
	}
	o.Logger = log
	return o, nil
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
