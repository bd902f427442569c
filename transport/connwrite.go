package transport

import (
	"context"
	"fmt"
	"time"

	"github.com/coder/websocket"

	"github.com/gobwas/ws"
	"github.com/roomd/roomd/protocol"
)

// The writer: a socket on goroutines (before its hello, and for its whole
// life when no poller takes it) has one writing its outbox, its pings and
// pongs and its close. coder/websocket writes the data frames (ws.Write);
// the control frames are written here, through the sock, under wmu like
// every write of the socket — coder/websocket reads nothing of a server's
// socket (connread.go does), so it answers no ping and closes no handshake.

// refuseWait is how long the server waits for a client's close after it
// refused what the client sent, or after any close before the client's
// hello put it in a room; then the TCP connection is closed. closeWait (a
// well-behaved client's answer) is longer.
const refuseWait = 500 * time.Millisecond

// writer writes the outbox and pings until the connection closes, or
// until hctx ends: the socket passes to a poller. A socket silent for a
// heartbeat is pinged; if it is still silent at the next tick, a
// heartbeat later, it is cut (no close frame: it would not be read).
func (c *conn) writer(ctx, hctx context.Context) {
	hb := c.srv.heartbeat()
	ping := time.NewTicker(hb)
	defer ping.Stop()
	var pingAt int64 // when a ping went unanswered so far; 0 none
	for {
		select {
		case <-c.out.Signal():
			if err := c.writeQueued(ctx); err != nil {
				c.noteEnd(whyWriteError, 0, err.Error())
				c.ws.CloseNow()
				return
			}
		case <-ping.C:
			heard := c.heard.Load()
			if pingAt != 0 && heard < pingAt {
				c.noteEnd(whyPingTimeout, 0, fmt.Sprintf("no answer to a ping within %s", hb))
				c.ws.CloseNow()
				return
			}
			pingAt = 0
			if now := time.Now().UnixNano(); now-heard >= int64(hb) {
				pingAt = now
				if err := c.sendControl(ws.OpPing, nil); err != nil {
					c.noteEnd(whyWriteError, 0, err.Error())
					c.ws.CloseNow()
					return
				}
			}
		case <-c.closing:
			c.finish(ctx)
			return
		case <-hctx.Done():
			if ctx.Err() != nil {
				c.ws.CloseNow()
			}
			return
		}
	}
}

// finish writes what is still queued (unless the client was too slow), the
// bye (for every code but a plain 1000, unless quiet) and the close frame;
// then the reader waits for the client's close, and the socket is cut if
// none comes in time (the cut timer, which serve stops).
func (c *conn) finish(ctx context.Context) {
	req := c.req
	c.wmu.Lock()
	rest := c.out.Close()
	var err error
	if req.dropQueue {
		c.held.Add(-heldBy(rest))
		clear(rest)
	} else {
		err = c.writeAll(ctx, rest)
	}
	if err == nil && !req.quiet && !(req.code == protocol.CloseNormal && req.reason == "") {
		// A slow client gets its bye too (its backlog is dropped, not the
		// bye): the write is bounded by WriteTimeout like any other.
		if frame := c.byeFrame(req); frame != nil {
			err = c.write(ctx, frame)
		}
	}
	if err == nil {
		err = c.writeRaw(closeFrame(req.code, req.reason))
	}
	c.wmu.Unlock()
	if err != nil {
		c.noteEnd(whyWriteError, 0, err.Error())
		c.ws.CloseNow()
		return
	}
	c.cut = time.AfterFunc(c.closeWaitFor(req), c.cutNow)
}

// closeWaitFor is how long a close with req waits for the client's: a
// refusal, or a close before the hello put the socket in a room, waits
// refuseWait.
func (c *conn) closeWaitFor(req closeReq) time.Duration {
	if req.refused || c.room.Load() == nil {
		return refuseWait
	}
	return closeWait
}

// cutNow closes the socket of a connection on goroutines, no more said.
func (c *conn) cutNow() { c.ws.CloseNow() }

// closeFrame is a server's close frame for code (none for closeNoStatus:
// the echo of a client's close without a code) and reason.
func closeFrame(code int, reason string) []byte {
	if code == closeNoStatus {
		return appendControl(nil, ws.OpClose, nil)
	}
	return appendClose(nil, code, reason)
}

// byeFrame is the bye that goes before a close with req's code.
func (c *conn) byeFrame(req closeReq) []byte {
	bye := protocol.Bye{Type: protocol.TypeBye, Code: req.code, Reason: req.reason, Reconnect: !protocol.Terminal(req.code), URL: req.url}
	if bye.Reconnect {
		bye.RetryAfterMs = int(req.retryAfter / time.Millisecond)
	}
	frame, _ := protocol.Encode(bye)
	return frame
}

// pongLater asks the writer to answer a client's ping with its payload:
// only the last ping waiting is answered (RFC 6455 §5.5.3), and none once
// the connection is closing.
func (c *conn) pongLater(payload []byte) {
	select {
	case <-c.closing:
		return
	default:
	}
	p := append([]byte(nil), payload...)
	c.pong.Store(&p)
	c.out.Wake()
}

// sendControl writes a ping or a pong (the writer's; blocking, bounded
// by WriteTimeout).
func (c *conn) sendControl(op ws.OpCode, payload []byte) error {
	var b [2 + maxControl]byte
	c.wmu.Lock()
	defer c.wmu.Unlock()
	return c.writeRaw(appendControl(b[:0], op, payload))
}

// writeRaw writes frames roomd encoded itself (wmu held), after what a
// non-blocking write left, bounded by WriteTimeout.
func (c *conn) writeRaw(b []byte) error {
	c.armWriteTimer()
	_, err := c.sock.Write(b)
	c.writeTimer.Stop()
	return err
}

// writeQueued writes what a non-blocking write left (Flush), a pong
// waiting, then what waits in the outbox.
func (c *conn) writeQueued(ctx context.Context) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.sock != nil && c.sock.pending() {
		c.armWriteTimer()
		err := c.sock.flushRest()
		c.writeTimer.Stop()
		if err != nil {
			return err
		}
	}
	if p := c.pong.Swap(nil); p != nil {
		var b [2 + maxControl]byte
		if err := c.writeRaw(appendControl(b[:0], ws.OpPong, *p)); err != nil {
			return err
		}
	}
	return c.writeAll(ctx, c.out.Drain())
}

// wire encodes frames taken from the outbox as writeAll writes them — the
// same batches — but as WebSocket frames back to back in batchBuf, for one
// write. frames is cleared, as writeAll clears it.
func (c *conn) wire(frames [][]byte) []byte {
	defer clear(frames)
	c.held.Add(-heldBy(frames))
	b := c.batchBuf[:0]
	for len(frames) > 0 {
		if len(frames) == 1 || len(frames[0]) >= protocol.MaxBatch/2 || frames[0][0] == '[' {
			b = appendFrame(b, frames[0])
			frames = frames[1:]
			continue
		}
		n, size := 1, len(frames[0])+1
		for n < len(frames) && size+len(frames[n])+2 <= protocol.MaxBatch && frames[n][0] != '[' {
			size += len(frames[n]) + 1
			n++
		}
		if n == 1 {
			b = appendFrame(b, frames[0]) // alone: no brackets (seal)
		} else {
			b = appendBatchFrame(b, frames[:n], size+1) // and the closing bracket
		}
		frames = frames[n:]
	}
	if cap(b) <= 2<<10 {
		c.batchBuf = b[:0] // keep a small buffer; let a big one go
	} else {
		c.batchBuf = nil
	}
	return b
}

// heldBy is the bytes frames hold, as counted in held.
func heldBy(frames [][]byte) int64 {
	var n int64
	for _, f := range frames {
		n += int64(len(f))
	}
	return n
}

// appendBatchFrame appends one text frame holding frames as a batch, a
// JSON array of size bytes.
func appendBatchFrame(b []byte, frames [][]byte, size int) []byte {
	b = appendHeader(b, ws.OpText, size)
	b = append(b, '[')
	for i, f := range frames {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, f...)
	}
	return append(b, ']')
}

// writeAll writes frames taken from the outbox, joining those that wait
// together into batched frames — a JSON array of messages (PROTOCOL.md) of
// at most protocol.MaxBatch bytes — so that one write carries several.
// Frames are shared between connections, so a batch is built in the
// writer's own buffer. frames is the outbox's buffer: it is cleared here
// so that the frames it held are not kept alive until the next drain.
func (c *conn) writeAll(ctx context.Context, frames [][]byte) error {
	defer clear(frames)
	c.held.Add(-heldBy(frames))
	for len(frames) > 0 {
		// A frame that is a batch already (relayed from the room's node)
		// goes alone: batches do not nest.
		if len(frames) == 1 || len(frames[0]) >= protocol.MaxBatch/2 || frames[0][0] == '[' {
			if err := c.write(ctx, frames[0]); err != nil {
				return err
			}
			frames = frames[1:]
			continue
		}
		buf := append(append(c.batchBuf[:0], '['), frames[0]...)
		n := 1
		for n < len(frames) && len(buf)+len(frames[n])+2 <= protocol.MaxBatch && frames[n][0] != '[' {
			buf = append(append(buf, ','), frames[n]...)
			n++
		}
		err := c.write(ctx, c.seal(buf, n))
		if cap(buf) <= 2<<10 {
			c.batchBuf = buf[:0] // keep a small buffer; let a big one go
		} else {
			c.batchBuf = nil
		}
		if err != nil {
			return err
		}
		frames = frames[n:]
	}
	return nil
}

// seal ends a batch: n messages in brackets, or the one message alone.
func (c *conn) seal(buf []byte, n int) []byte {
	if n == 1 {
		return buf[1:]
	}
	return append(buf, ']')
}

// write sends one frame. A write that takes longer than WriteTimeout cuts
// the connection: one reusable timer per connection, armed around each write,
// rather than a context per frame (the writer is the hot path).
func (c *conn) write(ctx context.Context, frame []byte) error {
	c.armWriteTimer()
	err := c.ws.Write(context.Background(), websocket.MessageText, frame)
	c.writeTimer.Stop()
	if err == nil && ctx.Err() != nil {
		err = ctx.Err()
	}
	return err
}

// armWriteTimer starts the write deadline: stop it when the write is done.
func (c *conn) armWriteTimer() {
	if c.writeTimer == nil {
		c.writeTimer = time.AfterFunc(c.srv.cfg.WriteTimeout, func() {
			c.noteEnd(whyWriteTimeout, 0, fmt.Sprintf("a write waited %s", c.srv.cfg.WriteTimeout))
			c.ws.CloseNow()
		})
		return
	}
	c.writeTimer.Reset(c.srv.cfg.WriteTimeout)
}
