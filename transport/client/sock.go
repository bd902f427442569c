package client

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha1"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/gobwas/ws"
	"github.com/gobwas/ws/wsutil"
	"github.com/roomd/roomd/protocol"
)

// DefaultWriteTimeout is Config.WriteTimeout's default.
const DefaultWriteTimeout = 5 * time.Second

// DefaultReadLimit is Config.ReadLimit's default: the largest message (and
// frame) a socket takes.
const DefaultReadLimit = 4 << 20

// The client's socket is the connection net/http upgrades (its dialer, its
// proxy and TLS settings: Config.HTTPClient's), read by a goroutine of its
// own and written by the goroutine that asks. gobwas/ws parses and masks
// the frames, joins fragments, checks the frame limits and the UTF-8 of
// text; what the client answers to a server's ping or close is its own
// (closeReply), so that it never echoes what RFC 6455 forbids.

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
	var k [16]byte
	_, _ = rand.Read(k[:])
	key := base64.StdEncoding.EncodeToString(k[:])
	req.Header.Set("Connection", "Upgrade")
	req.Header.Set("Upgrade", "websocket")
	req.Header.Set("Sec-WebSocket-Version", "13")
	req.Header.Set("Sec-WebSocket-Key", key)
	return req, key, nil
}

// checkUpgrade checks the server's answer to an upgrade asked with key.
func checkUpgrade(resp *http.Response, key string) error {
	accept := sha1.Sum([]byte(key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11")) // RFC 6455 §4.2.2
	switch {
	case resp.StatusCode != http.StatusSwitchingProtocols:
		return fmt.Errorf("websocket: dial: the server answered %s", resp.Status)
	case !headerHas(resp.Header, "Connection", "upgrade") || !headerHas(resp.Header, "Upgrade", "websocket"):
		return errors.New("websocket: dial: the answer is not an upgrade to websocket")
	case resp.Header.Get("Sec-WebSocket-Accept") != base64.StdEncoding.EncodeToString(accept[:]):
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
// per connection, armed by the first write, that checks when it fires
// whether writes have been under way for the whole timeout, and arms
// itself again for what is left of it while they have not.
type sock struct {
	rwc     io.ReadWriteCloser
	timeout time.Duration
	mu      sync.Mutex
	writing int         // writes under way
	busy    time.Time   // since when, without a pause
	armed   bool        // stall will fire
	stall   *time.Timer // runs stalled

	wmu  sync.Mutex // one frame written at a time
	wbuf bytes.Buffer

	// The reader's (one goroutine): the frame reader, a control frame's
	// payload, and how the socket ended once it has.
	rd  wsutil.Reader
	ctl [125]byte
	err error

	// Its server's silence (heartbeat.go).
	beat heartbeat

	// The close handshake: once a close frame went out (closeSent, under
	// mu) nothing more is written; down is closed once the connection is.
	closeSent bool
	down      chan struct{}
	downOnce  sync.Once
}

// sockReadBuffer is the read buffer under the frame reader.
const sockReadBuffer = 4 << 10

func newSock(rwc io.ReadWriteCloser, timeout time.Duration, readLimit int64) *sock {
	s := &sock{rwc: rwc, timeout: timeout, down: make(chan struct{})}
	s.rd = wsutil.Reader{
		Source:         bufio.NewReaderSize(heardReader{s}, sockReadBuffer),
		State:          ws.StateClientSide,
		CheckUTF8:      true,
		MaxFrameSize:   readLimit,
		MaxMessageSize: readLimit,
		OnIntermediate: s.control,
	}
	s.beat.born = time.Now()
	s.stall = time.AfterFunc(time.Hour, s.stalled)
	s.stall.Stop()
	return s
}

// heardReader reads the connection for the frame reader, and tells the
// heartbeat when the reader waits in a read and when it read something.
type heardReader struct{ s *sock }

func (h heardReader) Read(p []byte) (int, error) {
	h.s.beat.waiting.Store(true)
	n, err := h.s.rwc.Read(p)
	h.s.beat.waiting.Store(false)
	if n > 0 {
		h.s.heardNow()
	}
	return n, err
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
	return s.writeFrame(ws.OpText, frame)
}

// errCloseSent refuses a write after the socket's close frame (RFC 6455
// §5.5.1: nothing follows it).
var errCloseSent = errors.New("websocket: the close frame was sent")

// writeFrame writes one masked frame; after a close frame, nothing
// (errCloseSent).
func (s *sock) writeFrame(op ws.OpCode, payload []byte) error {
	s.mu.Lock()
	if s.closeSent {
		s.mu.Unlock()
		return errCloseSent
	}
	if op == ws.OpClose {
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
	h := ws.Header{Fin: true, OpCode: op, Masked: true, Mask: ws.NewMask(), Length: int64(len(payload))}
	s.wmu.Lock()
	s.wbuf.Reset()
	err := ws.WriteHeader(&s.wbuf, h)
	if err == nil {
		start := s.wbuf.Len()
		s.wbuf.Write(payload)
		ws.Cipher(s.wbuf.Bytes()[start:], h.Mask, 0)
		_, err = s.rwc.Write(s.wbuf.Bytes())
	}
	if s.wbuf.Cap() > maxKeptBuffer {
		s.wbuf = bytes.Buffer{}
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
// a wsutil.ClosedError carrying its code (closeStatus reads it). A frame
// the client may not take — a protocol error, a message over the read
// limit, text that is not UTF-8 — is answered with a close frame (1002,
// 1009, 1007) and ends the reading. Reads have no deadline of their own:
// the heartbeat closes a socket whose server went silent (heartbeat.go),
// the transport's end one it no longer needs.
func (s *sock) read() ([]byte, error) {
	if s.err != nil {
		return nil, s.err
	}
	msg, err := s.message()
	if err != nil {
		s.err = s.fail(err)
		return nil, s.err
	}
	return msg, nil
}

// message reads frames until a data message is whole.
func (s *sock) message() ([]byte, error) {
	for {
		h, err := s.rd.NextFrame()
		if err != nil {
			return nil, err
		}
		if h.OpCode.IsControl() {
			if err := s.control(h, &s.rd); err != nil {
				return nil, err
			}
			continue
		}
		// The first frame's size is most messages' size: one allocation.
		msg := make([]byte, 0, h.Length)
		for {
			if len(msg) == cap(msg) {
				msg = append(msg, 0)[:len(msg)]
			}
			n, err := s.rd.Read(msg[len(msg):cap(msg)])
			msg = msg[:len(msg)+n]
			if err == io.EOF {
				return msg, nil
			}
			if err != nil {
				return nil, err
			}
		}
	}
}

// control handles a control frame: a ping is answered with a pong, a pong
// was heard (heardReader), a close is answered (closeReply) and ends the
// reading.
func (s *sock) control(h ws.Header, r io.Reader) error {
	p := s.ctl[:h.Length] // ws.CheckHeader: at most 125 bytes
	if _, err := io.ReadFull(r, p); err != nil {
		return err
	}
	switch h.OpCode {
	case ws.OpPing:
		_ = s.writeFrame(ws.OpPong, p)
	case ws.OpClose:
		code, reason := parseClose(p)
		_ = s.writeFrame(ws.OpClose, closePayload(closeReply(p)))
		s.shut()
		return wsutil.ClosedError{Code: ws.StatusCode(code), Reason: reason}
	}
	return nil
}

// fail ends the reading on err: a frame the client may not take is
// answered with a close frame and the connection closed; a close from the
// server is kept as it is; the connection's own end is lost's.
func (s *sock) fail(err error) error {
	var closed wsutil.ClosedError
	var perr ws.ProtocolError
	code := 0
	switch {
	case errors.As(err, &closed):
		return err
	case errors.Is(err, wsutil.ErrFrameTooLarge), errors.Is(err, wsutil.ErrMessageTooLarge):
		code = 1009
	case errors.Is(err, wsutil.ErrInvalidUTF8):
		code = 1007
	case errors.As(err, &perr):
		code = 1002
	default:
		return s.lost(err)
	}
	_ = s.writeFrame(ws.OpClose, closePayload(code))
	s.shut()
	return err
}

// closeStatus is the code of the server's close that ended a socket's
// reading, -1 when no close did.
func closeStatus(err error) int {
	var closed wsutil.ClosedError
	if errors.As(err, &closed) {
		return int(closed.Code)
	}
	return -1
}

// closePayload is a close frame's payload with code and no reason; empty
// for a code no endpoint may send (protocol.ValidCloseCode).
func closePayload(code int) []byte {
	if !protocol.ValidCloseCode(code) {
		return []byte{}
	}
	return binary.BigEndian.AppendUint16(make([]byte, 0, 2), uint16(code))
}

// parseClose reads a close frame's payload: its status code and reason;
// 1005 (no status) for an empty one, 1002 (a protocol error) for a
// payload of one byte.
func parseClose(payload []byte) (code int, reason string) {
	switch len(payload) {
	case 0:
		return 1005, ""
	case 1:
		return 1002, ""
	}
	return int(binary.BigEndian.Uint16(payload)), string(payload[2:])
}

// closeReply is the code a server's close frame is answered with (RFC
// 6455 §5.5.1, §7.4): its own code when that may be sent, 1000 for a close
// without one; 1002 (protocol error) for a one-byte payload or a code no
// endpoint may send — 1005, 1006 and 1015 are never echoed —; 1007 for a
// reason that is not UTF-8.
func closeReply(payload []byte) int {
	code, reason := parseClose(payload)
	switch {
	case len(payload) == 0:
		return 1000
	case len(payload) == 1 || !protocol.ValidCloseCode(code):
		return 1002
	case !utf8.ValidString(reason):
		return 1007
	}
	return code
}

func (s *sock) close() {
	s.stall.Stop()
	s.shut()
}

// goAway ends the socket with the close handshake: a close frame with
// code, then a wait of up to wait for the server's (the reader, reading
// it, shuts the socket), then the connection closed in any case. Not on
// the socket's reader: it waits for it.
func (s *sock) goAway(code int, wait time.Duration) {
	if err := s.writeFrame(ws.OpClose, closePayload(code)); err == nil {
		t := time.NewTimer(wait)
		select {
		case <-s.down:
		case <-t.C:
		}
		t.Stop()
	}
	s.close()
}

// shut closes the connection.
func (s *sock) shut() {
	s.stopBeat()
	s.rwc.Close()
	s.downOnce.Do(func() { close(s.down) })
}
