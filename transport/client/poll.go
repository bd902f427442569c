package client

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
	"time"

	"github.com/roomd/roomd/internal/rawsock"
)

// A Poll reads the sockets of many Remotes in one loop, as roomd's poller
// reads its own: an epoll set of their descriptors, waited on in Go's
// network poller, one read per ready socket, and the messages handled where
// they were read — on the loop's goroutine, through each Remote's Handler.
// A socket read by its own goroutine costs, per message, that goroutine's
// wake-up and a second read that finds nothing (EAGAIN) before it parks
// again (BENCHMARKS.md, "roombot's own CPU"); in a Poll a ready socket is
// read once and, level-triggered, reported again while it has more.
//
// It is for clients that run many sockets in one process (load testers,
// bots): a Handler that blocks holds up every socket of its Poll, and so
// does a write the loop makes (a pong, a resync, the resends after a
// reconnect) into a socket whose send buffer is full, for up to the write
// timeout. A Remote
// uses its Config.Poll only with a Handler set and for plain ws:// (or
// http://) URLs: the upgrade is written and read on the connection itself,
// through PollConfig.Dial, not through Config.HTTPClient (no proxy, no
// TLS). Writes stay where they are asked (Send writes on the caller's
// goroutine). Only Linux has it; NewPoll fails elsewhere.
type Poll struct {
	cfg PollConfig
	poller
}

// PollConfig configures a Poll.
type PollConfig struct {
	// Dial opens the connections of the Poll's sockets. Nil means a
	// net.Dialer's. A connection without a descriptor (not a
	// syscall.Conn) is read by a goroutine of its own, as without a Poll.
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
	// OnRead, when set, is called on the loop with the size of each read
	// (what the servers sent: frame headers included).
	OnRead func(n int)
}

// errPollClosed ends the sockets of a Poll that was closed.
var errPollClosed = errors.New("client: the poll was closed")

// polled is what a sock read by a Poll carries.
type polled struct {
	pl    *Poll
	rc    syscall.RawConn
	onMsg func([]byte) bool // each message, on the loop; false lets the socket go
	ended chan struct{}     // closed by the loop once it has let the socket go

	// The Poll's, under its mu.
	id      int32
	added   bool
	dropped bool
	// The loop's own.
	gone bool
}

// pollFor returns the Poll that reads a socket at socketURL, nil for none.
func (t *Remote) pollFor(socketURL string) *Poll {
	if t.cfg.Poll == nil || t.cfg.Handler == nil {
		return nil
	}
	if !strings.HasPrefix(socketURL, "ws://") && !strings.HasPrefix(socketURL, "http://") {
		return nil
	}
	return t.cfg.Poll
}

// dialSocket opens socketURL's WebSocket on a connection of the Poll's
// Dial: the upgrade asked and its answer read on the connection itself
// (net/http's client would keep the connection to itself). It returns the
// connection, its RawConn (nil when it has no descriptor: then no Poll can
// read it) and what the answer's read took past it.
func (p *Poll) dialSocket(ctx context.Context, socketURL string) (net.Conn, syscall.RawConn, []byte, error) {
	req, key, err := upgradeRequest(ctx, socketURL)
	if err != nil {
		return nil, nil, nil, err
	}
	addr := req.URL.Host
	if req.URL.Port() == "" {
		addr = net.JoinHostPort(req.URL.Hostname(), "80")
	}
	dial := p.cfg.Dial
	if dial == nil {
		dial = func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			return rawsock.Wrap(c), nil
		}
	}
	conn, err := dial(ctx, "tcp", addr)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("websocket: dial: %w", err)
	}
	rest, err := upgrade(ctx, conn, req, key)
	if err != nil {
		conn.Close()
		return nil, nil, nil, err
	}
	var rc syscall.RawConn
	if sc, ok := conn.(syscall.Conn); ok {
		rc, _ = sc.SyscallConn()
	}
	return conn, rc, rest, nil
}

// maxUpgradeAnswer bounds what upgrade reads of the server's answer (a
// few hundred bytes from roomd): a server that sends headers without end
// gets an error, not the client's memory.
const maxUpgradeAnswer = 64 << 10

// upgrade asks conn for a WebSocket with req and reads the answer, within
// ctx; it returns what the answer's read took past it.
func upgrade(ctx context.Context, conn net.Conn, req *http.Request, key string) ([]byte, error) {
	if d, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(d)
	}
	stop := context.AfterFunc(ctx, func() { _ = conn.SetDeadline(time.Unix(1, 0)) })
	rest, err := func() ([]byte, error) {
		if err := req.Write(conn); err != nil {
			return nil, fmt.Errorf("websocket: dial: %w", err)
		}
		lr := &io.LimitedReader{R: conn, N: maxUpgradeAnswer}
		br := bufio.NewReaderSize(lr, 4<<10)
		resp, err := http.ReadResponse(br, req)
		if err != nil {
			if lr.N <= 0 {
				return nil, fmt.Errorf("websocket: dial: the answer to the upgrade is over %d bytes", maxUpgradeAnswer)
			}
			return nil, fmt.Errorf("websocket: dial: %w", err)
		}
		resp.Body.Close()
		if err := checkUpgrade(resp, key); err != nil {
			return nil, err
		}
		rest, _ := br.Peek(br.Buffered())
		return bytes.Clone(rest), nil
	}()
	if !stop() {
		return nil, fmt.Errorf("websocket: dial: %w", context.Cause(ctx))
	}
	if err != nil {
		return nil, err
	}
	return rest, conn.SetDeadline(time.Time{})
}
