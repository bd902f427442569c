package transport

import (
	"net/http"
	"time"
)

// Default limits of roomd's HTTP server (NewHTTPServer). WebSockets are
// exempt from the read and write timeouts once upgraded: their liveness is
// the hello timeout, the pings and the per-frame write timeout.
const (
	// DefaultReadHeaderTimeout bounds reading a request's headers.
	DefaultReadHeaderTimeout = 10 * time.Second
	// DefaultReadTimeout bounds reading a whole request, body included: a
	// client that trickles a body is cut after it.
	DefaultReadTimeout = 10 * time.Second
	// DefaultWriteTimeout bounds a response, from the end of the request's
	// headers until the answer is written.
	DefaultWriteTimeout = 30 * time.Second
	// DefaultIdleTimeout closes a keep-alive connection that waits this
	// long for its next request.
	DefaultIdleTimeout = 60 * time.Second
)

// HTTPConfig are the HTTP server's timeouts. Zero fields take the defaults
// above; a negative one means no timeout.
type HTTPConfig struct {
	// ReadHeaderTimeout: zero means DefaultReadHeaderTimeout (10 s).
	ReadHeaderTimeout time.Duration
	// ReadTimeout: zero means DefaultReadTimeout (10 s).
	ReadTimeout time.Duration
	// WriteTimeout: zero means DefaultWriteTimeout (30 s).
	WriteTimeout time.Duration
	// IdleTimeout: zero means DefaultIdleTimeout (60 s).
	IdleTimeout time.Duration
}

func orDefault(d, def time.Duration) time.Duration {
	switch {
	case d == 0:
		return def
	case d < 0:
		return 0 // net/http: no timeout
	}
	return d
}

// NewHTTPServer returns an http.Server for h with cfg's timeouts. Server's
// handler clears them on a connection it upgrades to a WebSocket.
func NewHTTPServer(h http.Handler, cfg HTTPConfig) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: orDefault(cfg.ReadHeaderTimeout, DefaultReadHeaderTimeout),
		ReadTimeout:       orDefault(cfg.ReadTimeout, DefaultReadTimeout),
		WriteTimeout:      orDefault(cfg.WriteTimeout, DefaultWriteTimeout),
		IdleTimeout:       orDefault(cfg.IdleTimeout, DefaultIdleTimeout),
	}
}
