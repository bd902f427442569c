package transport

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"net/http"
)

// The buffers a socket keeps for its whole life. coder/websocket reads and
// writes a server's frames through the bufio.Reader and bufio.Writer the
// HTTP server's Hijack returns, 4 KiB each; a socket's frames are mostly
// far smaller (a command, a move's update), and a frame larger than a
// buffer is read or written past it, so smaller buffers cost only an extra
// write for a frame over socketWriteBuf — and save 5 KiB per connection
// (BENCHMARKS.md, "Memory per connection").
const (
	socketReadBuf  = 1 << 10
	socketWriteBuf = 2 << 10
)

// smallBuffers is the ResponseWriter given to websocket.Accept: its Hijack
// hands over the connection with socketReadBuf and socketWriteBuf buffers,
// wrapped in a sock (kept in sock) so that a room's actor may write frames
// to it without waiting.
type smallBuffers struct {
	http.ResponseWriter
	sock *sock
}

// Hijack implements http.Hijacker. Bytes the HTTP server read past the
// upgrade request (a client may send its first frame at once) are moved
// into the new reader's buffer; when they do not fit, the server's own
// buffers are kept.
func (w *smallBuffers) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	nc, brw, err := http.NewResponseController(w.ResponseWriter).Hijack()
	if err != nil {
		return nc, brw, err
	}
	// coder/websocket writes through brw.Writer reset onto the connection
	// returned here, and reads through brw.Reader: both reach the sock.
	w.sock = newSock(nc)
	w.sock.in = brw.Reader
	conn := net.Conn(w.sock)
	n := brw.Reader.Buffered()
	if n > socketReadBuf || brw.Writer.Buffered() > 0 {
		return conn, brw, nil
	}
	var src io.Reader = conn
	if n > 0 {
		early, _ := brw.Reader.Peek(n)
		src = io.MultiReader(bytes.NewReader(bytes.Clone(early)), conn)
	}
	r := bufio.NewReaderSize(src, socketReadBuf)
	if n > 0 {
		// Into the buffer now: coder/websocket keeps what the reader has
		// buffered and reads the rest from conn itself.
		if _, err := r.Peek(n); err != nil {
			return conn, brw, nil
		}
	}
	w.sock.br, w.sock.bw, w.sock.in = r, bufio.NewWriterSize(conn, socketWriteBuf), r
	return conn, bufio.NewReadWriter(r, w.sock.bw), nil
}

// Unwrap lets http.ResponseController reach the server's ResponseWriter.
func (w *smallBuffers) Unwrap() http.ResponseWriter { return w.ResponseWriter }
