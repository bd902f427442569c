package transport

import (
	"context"
	"fmt"
	"time"

	"github.com/coder/websocket"

	"github.com/gobwas/ws"
)

// The reader of a socket on goroutines: before its hello, and for its whole
// life when no poller takes it (Config.SocketGoroutines, TLS, a relayed
// socket, outside Linux). It reads the socket's frames with the same
// wsReader as the pollers, through the buffer the upgrade left
// (sock.in), so that every frame counts against the same limits on every
// path, and the reader's state — its budget — passes to a poller with the
// socket after the hello.

// reader reads frames until the connection ends, or until a hello has put
// the socket in a room that a poller may take it to (handOver true: the
// reader stopped right after the hello; rd and what the socket's buffer
// holds past it go to the poller).
func (c *conn) reader(ctx context.Context) (rd *wsReader, handOver bool) {
	// The connection's end closes the socket, which ends the read.
	stop := context.AfterFunc(ctx, func() { c.ws.CloseNow() })
	defer stop()
	br := c.sock.in
	rd = &wsReader{}
	var cut *time.Timer // a refusal's: the socket is cut refuseWait after it
	cutDone := make(chan struct{})
	defer func() {
		if cut != nil {
			cut.Stop()
		}
	}()
	var hello, peerClosed bool
	on := func(op ws.OpCode, b []byte) bool {
		switch op {
		case ws.OpText, ws.OpBinary:
			typ := websocket.MessageText
			if op == ws.OpBinary {
				typ = websocket.MessageBinary
			}
			// The message outlives the read buffer (a command's raw JSON
			// goes to the room's actor).
			if c.message(ctx, typ, append([]byte(nil), b...)) && c.canHandOver() {
				hello = true
				return false
			}
		case ws.OpPing:
			c.pongLater(b)
		case ws.OpClose:
			peerClosed = true
			c.peerClosed(closeCode(b))
			return false
		}
		return true
	}
	for {
		if _, err := br.Peek(1); err != nil {
			c.noteEnd(whyPeerGone, 0, "")
			return rd, false
		}
		p, _ := br.Peek(br.Buffered())
		c.heard.Store(time.Now().UnixNano())
		err := rd.feed(p, &c.srv.limits, c.srv.mono(), on)
		_, _ = br.Discard(len(p) - len(rd.left))
		if err != nil {
			c.refused(err)
			cut = time.AfterFunc(refuseWait, func() { c.cutNow(); close(cutDone) })
		}
		switch {
		case hello:
			return rd, stop()
		case peerClosed:
			return rd, false
		case rd.closing && rd.drained >= refuseRead:
			// Read far enough past the refusal: no more, until the cut
			// (closing the socket with bytes unread would reset it, and
			// the client could lose the close frame it has not read yet).
			select {
			case <-cutDone:
			case <-ctx.Done():
			}
			return rd, false
		}
	}
}

// peerClosed answers a client's close with its code (quiet: no bye, and
// not its reason), unless the server is closing already and this is the
// client's answer.
func (c *conn) peerClosed(code int) {
	c.close(closeReq{code: code, quiet: true, dropQueue: true, why: whyPeerClose, detail: fmt.Sprintf("the client's close %d", code)})
}

// refused closes a connection whose client sent a frame the reader
// refused: the code says why; a flood's (4029) comes after a bye, as every
// 4xxx does (PROTOCOL.md §2.3), the RFC's codes alone.
func (c *conn) refused(err *wsError) {
	c.close(closeReq{code: err.code, reason: err.reason, dropQueue: true, quiet: err.code != closeFlood,
		retryAfter: 5 * time.Second, refused: true, why: refusalReason(err), detail: err.reason})
}
