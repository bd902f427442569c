package rawsock

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"testing"
	"time"

	"github.com/roomd/roomd/internal/tcppair"
)

// pair returns a wrapped client end and the plain server end of a
// loopback TCP connection.
func pair(t *testing.T) (net.Conn, net.Conn) {
	c, srv := tcppair.New(t)
	w := Wrap(c)
	t.Cleanup(func() { w.Close() })
	return w, srv
}

// TestConnCarriesBytes: what goes through a wrapped connection both ways
// arrives whole and in order — a write larger than the socket's buffers
// waits for the reader, and reads see the peer's close as io.EOF.
func TestConnCarriesBytes(t *testing.T) {
	c, srv := pair(t)
	if Supported {
		if _, ok := c.(*Conn); !ok {
			t.Fatalf("Wrap gave %T, want *Conn", c)
		}
	}
	big := make([]byte, 8<<20)
	for i := range big {
		big[i] = byte(rand.IntN(256))
	}
	echoed := make(chan error, 1)
	go func() { // the peer reads slowly at first, then echoes everything
		time.Sleep(50 * time.Millisecond)
		_, err := io.Copy(srv, io.LimitReader(srv, int64(len(big))))
		echoed <- err
		srv.Close()
	}()
	got := make(chan []byte, 1)
	go func() {
		b, _ := io.ReadAll(c)
		got <- b
	}()
	if n, err := c.Write(big); err != nil || n != len(big) {
		t.Fatalf("write: %d, %v", n, err)
	}
	if err := <-echoed; err != nil {
		t.Fatal(err)
	}
	if b := <-got; !bytes.Equal(b, big) {
		t.Fatalf("read back %d bytes, not the %d written", len(b), len(big))
	}
}

// TestConnDeadline: a read past the connection's deadline ends with the
// deadline's error, as net.Conn's does.
func TestConnDeadline(t *testing.T) {
	c, _ := pair(t)
	c.SetReadDeadline(time.Now().Add(30 * time.Millisecond))
	if _, err := c.Read(make([]byte, 10)); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("read past the deadline: %v", err)
	}
}
