package roomd

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"
	"time"

	"github.com/roomd/roomd/transport"
)

// Options configure a Server. The zero value serves the built-in games on
// :8080 from the embedded store in ./roomd-data, as `roomd` with no flag
// does; every field documents its default. ParseFlags maps roomd's flags
// and ROOMD_* variables onto them.
type Options struct {
	// Games are the games served. Nil means BuiltinGames(); a program that
	// adds its own passes append(roomd.BuiltinGames(), mine...).
	Games []Game
	// Addr is the address to listen on. Empty means ":8080".
	Addr string
	// Listener, when set, is served instead of listening on Addr (a test's
	// 127.0.0.1:0, a socket handed over by systemd).
	Listener net.Listener
	// Logger receives the server's logs. Nil means JSON on standard error
	// at level info.
	Logger *slog.Logger
	// Stdout receives the line a person reads first ("roomd is running:
	// open http://…"). Nil means none.
	Stdout io.Writer

	// Store is where rooms, leaderboards and the outbox are kept.
	Store StoreOptions
	// Rooms are the room layer's bounds and timings.
	Rooms RoomOptions
	// Quotas are the per-address limits (transport.Quotas; its zero value
	// is the defaults, Off turns them off for load tests).
	Quotas transport.Quotas
	// MaxConns bounds the WebSockets open at once. Zero means 50,000.
	MaxConns int
	// HTTP are the HTTP server's timeouts (zero: transport's defaults).
	HTTP transport.HTTPConfig
	// Origins are the origins allowed to open WebSockets besides the same
	// origin (https://example.com, https://*.example.com,
	// http://localhost:3000). Nil means the same origin only.
	Origins []string
	// PublicHosts are the host names clients reach roomd by, besides IP
	// literals and localhost; a request for any other Host gets 421.
	PublicHosts []string
	// MetricsAddr serves /metrics on this address only. Empty serves it on
	// Addr.
	MetricsAddr string
	// AdminToken is the bearer token of the operator API and page. Empty
	// disables them.
	AdminToken string
	// SignIn is the embedding site's sign-in (PROTOCOL.md §2.9). Zero means
	// none: players are anonymous.
	SignIn SignInOptions
	// Webhooks POSTs room and match events to the site (PROTOCOL.md §6).
	// Zero means none.
	Webhooks WebhookOptions
	// TLSCert and TLSKey serve HTTPS and wss:// with this certificate
	// (PEM files); both or neither.
	TLSCert, TLSKey string
	// Node makes the server one node of several on one Redis (Store's
	// RedisURL); ignored without it.
	Node NodeOptions
	// ShutdownTimeout bounds a graceful shutdown. Zero means 20 s.
	ShutdownTimeout time.Duration
	// RestoreAll restores every live room at start instead of on its first
	// join.
	RestoreAll bool
	// SocketSendBuffer is each client socket's kernel send buffer, so that
	// a client that stops reading is found slow soon. Zero means 64 KiB;
	// negative keeps the kernel's default.
	SocketSendBuffer int
	// SocketGoroutines reads and writes each socket from goroutines of its
	// own instead of the epoll loop shared by many (Linux).
	SocketGoroutines bool

	cpuprofile    string // ParseFlags: --cpuprofile (Command runs it)
	adminTokenArg bool   // ParseFlags: the admin token came on the command line
}

// StoreOptions choose and configure the store.
type StoreOptions struct {
	// Memory keeps rooms in memory only: nothing survives a restart (demos,
	// load tests). Not with RedisURL.
	Memory bool
	// RedisURL keeps rooms in Redis (redis://[user:pass@]host:port/db).
	// Empty means the embedded store.
	RedisURL string
	// RedisCluster says RedisURL names a Redis Cluster
	// (redis://host:port?addr=host2:port2&addr=host3:port3).
	RedisCluster bool
	// Dir is the embedded store's directory. Empty means ./roomd-data.
	Dir string
	// NoFsync skips the embedded store's fsync of each group commit: it
	// then survives a crash of roomd, not of the machine.
	NoFsync bool
	// CommitInterval is the embedded store's least time between group
	// commits under load. Zero means boltstore's default; negative, back
	// to back.
	CommitInterval time.Duration
	// NoWAL commits each group straight to bbolt (two fsyncs) instead of
	// logging it in the write-ahead log.
	NoWAL bool
	// NoIOUring syncs the write-ahead log with fdatasync instead of
	// io_uring.
	NoIOUring bool
	// KeepProcs keeps GOMAXPROCS 1 as it is while bbolt's transactions
	// fsync (by default they raise it to 2 meanwhile).
	KeepProcs bool
	// CheckpointInterval is how long writes may stay in the write-ahead log
	// only. Zero means boltstore's default.
	CheckpointInterval time.Duration
	// DiscardAfterDamage accepts the loss when the write-ahead log is
	// damaged: a copy of it is kept, the server starts from the records
	// before the damage and every live room moves to a new epoch
	// (STORAGE.md). By default a damaged log refuses the start.
	DiscardAfterDamage bool
}

// RoomOptions are the room layer's bounds and timings; zero means the
// default each names.
type RoomOptions struct {
	// IdleTimeout closes a room after this long without a change or a
	// connection (30 min).
	IdleTimeout time.Duration
	// RetryAfter is how long clients wait before reconnecting to a
	// restarting server (1 s).
	RetryAfter time.Duration
	// AIDelay is how long an AI seat thinks before it moves (400 ms).
	AIDelay time.Duration
	// EndedTTL is how long a closed room stays in the store (24 h).
	EndedTTL time.Duration
	// SeatGrace is how long a lobby seat may have no connection (30 s).
	SeatGrace time.Duration
	// LobbyTimeout closes a lobby nobody is connected to (2 min).
	LobbyTimeout time.Duration
	// MaxRooms bounds the rooms held in memory (100,000).
	MaxRooms int
	// MaxSpectators bounds one room's spectators (1,000).
	MaxSpectators int
	// MaxMatchMoves bounds the moves of one match (each game's own bound).
	MaxMatchMoves int
}

// SignInOptions are the embedding site's sign-in: tokens it gives its
// players, signed with Secret (HS256) or a key of JWKSURL (RS256, ES256).
type SignInOptions struct {
	Secret   string // at least 32 bytes
	JWKSURL  string
	Audience string // the aud a token must carry; empty checks none
	Require  bool   // refuse players who are not signed in
}

// WebhookOptions POST room and match events to URL, signed with Secret.
type WebhookOptions struct {
	URL, Secret string
}

// NodeOptions describe this node among the roomd nodes on one Redis.
type NodeOptions struct {
	// ID is this node's id (at most 128 bytes). Empty means host name:port.
	ID string
	// PublicURL is the base URL clients reach this node at.
	PublicURL string
	// PeerURL is the base URL other nodes reach this node at. Empty means
	// PublicURL, else http://host name:port.
	PeerURL string
	// LeaseTTL is how long a node's ownership of a room lasts without
	// renewal (10 s; at least 300 ms).
	LeaseTTL time.Duration
}

// defaultDataDir is where the embedded store keeps its files by default.
const defaultDataDir = "./roomd-data"

// withDefaults returns o with its defaults applied, or an error naming
// what does not go together.
func (o Options) withDefaults() (Options, error) {
	def := func(v *time.Duration, d time.Duration) {
		if *v == 0 {
			*v = d
		}
	}
	if o.Games == nil {
		o.Games = BuiltinGames()
	}
	if o.Addr == "" {
		o.Addr = ":8080"
	}
	if o.Stdout == nil {
		o.Stdout = io.Discard
	}
	if o.Store.Dir == "" {
		o.Store.Dir = defaultDataDir
	}
	if o.MaxConns == 0 {
		o.MaxConns = 50_000
	}
	def(&o.ShutdownTimeout, 20*time.Second)
	def(&o.Node.LeaseTTL, 10*time.Second)
	switch {
	case o.SocketSendBuffer == 0:
		o.SocketSendBuffer = 64 << 10
	case o.SocketSendBuffer < 0:
		o.SocketSendBuffer = 0 // the kernel's
	}
	switch {
	case o.Store.Memory && o.Store.RedisURL != "":
		return o, errors.New("the memory store and Redis are exclusive")
	case o.Store.RedisCluster && o.Store.RedisURL == "":
		return o, errors.New("a Redis Cluster needs a Redis URL")
	case o.SignIn.Require && o.SignIn.Secret == "" && o.SignIn.JWKSURL == "":
		return o, errors.New("requiring sign-in needs a JWT secret or a JWKS URL: nobody could sign in")
	case (o.Webhooks.URL == "") != (o.Webhooks.Secret == ""):
		return o, errors.New("a webhook URL and its secret go together")
	case (o.TLSCert == "") != (o.TLSKey == ""):
		return o, errors.New("a TLS certificate and its key go together")
	case o.Node.LeaseTTL < 300*time.Millisecond:
		return o, errors.New("a node's lease TTL must be at least 300ms")
	case o.MaxConns < 1 || o.Rooms.MaxRooms < 0 || o.Rooms.MaxSpectators < 0 || o.Rooms.MaxMatchMoves < 0:
		return o, errors.New("MaxConns must be at least 1; MaxRooms, MaxSpectators and MaxMatchMoves not negative")
	}
	for _, u := range []struct{ what, v string }{{"the public URL", o.Node.PublicURL}, {"the peer URL", o.Node.PeerURL}} {
		if err := checkURL(u.v); err != nil {
			return o, fmt.Errorf("%s %q: %w", u.what, u.v, err)
		}
	}
	return o, nil
}

// checkURL accepts "" and http(s) URLs with a host.
func checkURL(v string) error {
	if v == "" {
		return nil
	}
	if p, err := url.Parse(v); err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
		return errors.New("want an http(s) URL")
	}
	return nil
}
