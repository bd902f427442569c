package client

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/roomd/roomd/internal/wsframe"
)

// DefaultWriteTimeout is Config.WriteTimeout's default.
const DefaultWriteTimeout = 5 * time.Second

// The client's socket is the connection net/http upgrades (its dialer, its
// proxy and TLS settings: Config.HTTPClient's), read and written with
// internal/wsframe's RFC 6455 frames: one read system call and one copy per
// message, and a frame written in one call, on the goroutine that asks
// (BENCHMARKS.md, "roombot's own CPU": coder/websocket's reader read each
// header byte by byte and its writer framed through a buffer of its own).
// Close errors are coder/websocket's CloseError, so websocket.CloseStatus
// reads them as before.

// dialSocket opens socketURL's WebSocket through hc.
func dialSocket(ctx context.Context, hc *http.Client, socketURL string) (io.ReadWriteCloser, error) {
	req, key, err := upgradeRequest(ctx, socketURL)
	if err != nil {
		return nil, err
	}
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("websocket: dial: %w", err)
	}
	rwc, ok := resp.Body.(io.ReadWriteCloser)
	if err = checkUpgrade(resp, key); err == nil && !ok {
		err = fmt.Errorf("websocket: dial: the upgraded body is a %T, not a connection", resp.Body)
	}
	if err != nil {
		resp.Body.Close()
		return nil, err
	}
	return rwc, nil
}

// upgradeRequest is the GET that asks socketURL for a WebSocket, with its
// key.
func upgradeRequest(ctx context.Context, socketURL string) (*http.Request, string, error) {
	u, err := url.Parse(socketURL)
	if err != nil {
		return nil, "", err
	}
	switch u.Scheme {
	case "ws":
		u.Scheme = "http"
	case "wss":
		u.Scheme = "https"
	case "http", "https":
	default:
		return nil, "", fmt.Errorf("websocket: URL scheme %q", u.Scheme)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, "", err
	}
	key := wsframe.Key()
	req.Header.Set("Connection", "Upgrade")
	req.Header.Set("Upgrade", "websocket")
	req.Header.Set("Sec-WebSocket-Version", "13")
	req.Header.Set("Sec-WebSocket-Key", key)
	return req, key, nil
}

// checkUpgrade checks the server's answer to an upgrade asked with key.
func checkUpgrade(resp *http.Response, key string) error {
	switch {
	case resp.StatusCode != http.StatusSwitchingProtocols:
		return fmt.Errorf("websocket: dial: the server answered %s", resp.Status)
	case !headerHas(resp.Header, "Connection", "upgrade") || !headerHas(resp.Header, "Upgrade", "websocket"):
		return errors.New("websocket: dial: the answer is not an upgrade to websocket")
	case resp.Header.Get("Sec-WebSocket-Accept") != wsframe.Accept(key):
		return errors.New("websocket: dial: the answer's Sec-WebSocket-Accept does not match the key")
	case resp.Header.Get("Sec-WebSocket-Extensions") != "" || resp.Header.Get("Sec-WebSocket-Protocol") != "":
		return errors.New("websocket: dial: the server chose an extension or subprotocol the client did not offer")
	}
	return nil
}

// headerHas reports whether a comma-separated header lists token (in any
// case).
func headerHas(h http.Header, name, token string) bool {
	for _, v := range h.Values(name) {
		for t := range strings.SplitSeq(v, ",") {
			if strings.EqualFold(strings.TrimSpace(t), token) {
				return true
			}
		}
	}
	return false
}

// sock is one connection's socket with the bound on its writes: one timer
// per connection rather than a context with a deadline for each write (a
// timer, a goroutine hand-off and a few allocations per frame —
// BENCHMARKS.md, "roombot's own CPU"). The timer is not moved per write
// either: armed by the first write, it checks when it fires whether writes
// have been under way for the whole timeout, and arms itself again for
// what is left of it while they have not.
type sock struct {
	rwc     io.ReadWriteCloser
	timeout time.Duration
	mu      sync.Mutex
	writing int         // writes under way
	busy    time.Time   // since when, without a pause
	armed   bool        // stall will fire
	stall   *time.Timer // runs stalled

	wmu  sync.Mutex // one frame written at a time
	wbuf []byte

	// The reader's (one goroutine, or a Poll's loop): what read has
	// parsed and not yet returned, and how the socket ended once it has.
	msg   wsframe.Message
	rbuf  []byte
	inbox [][]byte // from head on
	head  int
	err   error

	// A socket a Poll reads (nil pl: its own goroutine reads it).
	polled

	// Its server's silence (heartbeat.go).
	beat heartbeat

	// The close handshake: once a close frame went out (closeSent, under
	// mu) nothing more is written; down is closed once the connection is.
	closeSent bool
	down      chan struct{}
	downOnce  sync.Once
}

// sockReadBuffer is one read's buffer; a longer message gathers in the
// frame reader's carry.
const sockReadBuffer = 4 << 10

func newSock(rwc io.ReadWriteCloser, timeout time.Duration, readLimit int64) *sock {
	s := &sock{rwc: rwc, timeout: timeout, msg: wsframe.Message{Limit: int(min(readLimit, 1<<31-1))}, down: make(chan struct{})}
	s.beat.born = time.Now()
	s.stall = time.AfterFunc(time.Hour, s.stalled)
	s.stall.Stop()
	return s
}

// stalled is the write timer's: it closes the socket when writes have been
// under way for the whole timeout, else waits for the rest of it (or, with
// none under way, for the next write to arm it).
func (s *sock) stalled() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.writing == 0 {
		s.armed = false
		return
	}
	if left := s.timeout - time.Since(s.busy); left > 0 {
		s.stall.Reset(left)
		return
	}
	s.armed = false
	s.shut()
}

// write writes one text frame. ctx is checked before the write begins; once
// it has, the write ends with the frame written, the socket closed, or
// the write timeout after the oldest write under way began — never later.
func (s *sock) write(ctx context.Context, frame []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return s.writeFrame(wsframe.OpText, frame)
}

// errCloseSent refuses a write after the socket's close frame (RFC 6455
// §5.5.1: nothing follows it).
var errCloseSent = errors.New("websocket: the close frame was sent")

// writeFrame writes one frame; after a close frame, nothing (errCloseSent).
func (s *sock) writeFrame(op byte, payload []byte) error {
	s.mu.Lock()
	if s.closeSent {
		s.mu.Unlock()
		return errCloseSent
	}
	if op == wsframe.OpClose {
		s.closeSent = true
	}
	if s.writing++; s.writing == 1 {
		s.busy = time.Now()
		if !s.armed {
			s.armed = true
			s.stall.Reset(s.timeout)
		}
	}
	s.mu.Unlock()
	s.wmu.Lock()
	s.wbuf = wsframe.AppendClientFrame(s.wbuf[:0], op, payload)
	_, err := s.rwc.Write(s.wbuf)
	if cap(s.wbuf) > maxKeptBuffer {
		s.wbuf = nil
	}
	s.wmu.Unlock()
	s.mu.Lock()
	s.writing--
	s.mu.Unlock()
	return err
}

// maxKeptBuffer is the largest write buffer a socket keeps for its next
// frame.
const maxKeptBuffer = 64 << 10

// read returns the next message's bytes, the caller's own. Pings are
// answered on the way; a close frame from the server ends the reading with
// a websocket.CloseError carrying its code (after the messages before it).
// Reads have no deadline of their own: the heartbeat closes a socket
// whose server went silent (heartbeat.go), the transport's end one it no
// longer needs.
func (s *sock) read() ([]byte, error) {
	for s.head == len(s.inbox) {
		if s.err != nil {
			return nil, s.err
		}
		if s.rbuf == nil {
			s.rbuf = make([]byte, sockReadBuffer)
		}
		s.beat.waiting.Store(true)
		n, err := s.rwc.Read(s.rbuf)
		s.beat.waiting.Store(false)
		s.got(s.rbuf[:n], err)
	}
	return s.next(), nil
}

// got takes what one read returned: the messages it completes go to the
// inbox, a ping is answered, and a close, a broken frame or err ends the
// reading (s.err). A server's close is answered (wsframe.CloseReply: its
// own code, or 1000, 1002 or 1007; never 1005 or 1006), unless it is the
// answer to the client's own.
func (s *sock) got(b []byte, err error) {
	if len(b) > 0 {
		s.heardNow()
		closed, closing, ferr := s.msg.Feed(b, s.take, s.pong)
		switch {
		case ferr != nil:
			code := 1002 // protocol error
			if errors.Is(ferr, wsframe.ErrTooBig) {
				code = 1009
			}
			_ = s.writeFrame(wsframe.OpClose, wsframe.ClosePayload(code, ""))
			s.shut()
			s.err = ferr
		case closed:
			code, reason := wsframe.CloseCode(closing)
			_ = s.writeFrame(wsframe.OpClose, wsframe.ClosePayload(wsframe.CloseReply(closing), ""))
			s.shut()
			s.err = websocket.CloseError{Code: websocket.StatusCode(code), Reason: reason}
		}
	}
	if err != nil && s.err == nil {
		s.err = s.lost(err)
	}
}

// next takes the inbox's first message.
func (s *sock) next() []byte {
	m := s.inbox[s.head]
	s.inbox[s.head] = nil
	if s.head++; s.head == len(s.inbox) {
		s.inbox, s.head = s.inbox[:0], 0
	}
	return m
}

// take keeps a message the frame reader completed (its bytes are the read
// buffer's: copied once, at its size).
func (s *sock) take(m []byte) { s.inbox = append(s.inbox, bytes.Clone(m)) }

// pong answers a ping.
func (s *sock) pong(p []byte) { _ = s.writeFrame(wsframe.OpPong, p) }

func (s *sock) close() {
	s.stall.Stop()
	s.shut()
}

// goAway ends the socket with the close handshake: a close frame with
// code, then a wait of up to wait for the server's (the reader, reading
// it, shuts the socket), then the connection closed in any case. Not on
// the socket's reader: it waits for it.
func (s *sock) goAway(code int, wait time.Duration) {
	if err := s.writeFrame(wsframe.OpClose, wsframe.ClosePayload(code, "")); err == nil {
		t := time.NewTimer(wait)
		select {
		case <-s.down:
		case <-t.C:
		}
		t.Stop()
	}
	s.close()
}

// shut closes the connection; a Poll that reads it lets it go.
func (s *sock) shut() {
	s.stopBeat()
	if s.pl != nil {
		s.pl.drop(s)
	}
	s.rwc.Close()
	s.downOnce.Do(func() { close(s.down) })
}
