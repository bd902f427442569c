//go:build linux

package main

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// The wire on the real binary (issue 40): what a hostile client puts on a
// raw socket, before its hello and after it, on the poller and on
// goroutines, and what the operator then sees in /metrics and the log.

// rawPeer is a client on a bare TCP socket after a WebSocket upgrade.
type rawPeer struct {
	t    *testing.T
	conn *net.TCPConn
	br   *bufio.Reader
}

func dialRaw(t *testing.T, base string) *rawPeer {
	t.Helper()
	addr := strings.TrimPrefix(base, "http://")
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	tc := c.(*net.TCPConn)
	_ = tc.SetWriteBuffer(32 << 10) // what a flood gets written is what the server read, give or take the buffers
	_ = tc.SetDeadline(time.Now().Add(20 * time.Second))
	fmt.Fprintf(c, "GET /ws HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"+
		"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n", addr)
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil || resp.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("upgrade: %v %v", resp, err)
	}
	return &rawPeer{t: t, conn: tc, br: br}
}

var rawKey = [4]byte{0x11, 0x22, 0x33, 0x44}

// clientFrame is a masked frame; n, when not negative, is the length its
// header announces instead of the payload's.
func clientFrame(op byte, fin bool, payload []byte, n int64) []byte {
	if n < 0 {
		n = int64(len(payload))
	}
	b0 := op
	if fin {
		b0 |= 0x80
	}
	f := []byte{b0}
	switch {
	case n < 126:
		f = append(f, 0x80|byte(n))
	case n <= 0xffff:
		f = binary.BigEndian.AppendUint16(append(f, 0x80|126), uint16(n))
	default:
		f = binary.BigEndian.AppendUint64(append(f, 0x80|127), uint64(n))
	}
	f = append(f, rawKey[:]...)
	for i, c := range payload {
		f = append(f, c^rawKey[i%4])
	}
	return f
}

// next reads a server frame: its opcode and payload.
func (p *rawPeer) next() (byte, []byte, error) {
	var h [2]byte
	if _, err := io.ReadFull(p.br, h[:]); err != nil {
		return 0, nil, err
	}
	n := uint64(h[1] & 0x7f)
	switch n {
	case 126:
		var b [2]byte
		if _, err := io.ReadFull(p.br, b[:]); err != nil {
			return 0, nil, err
		}
		n = uint64(binary.BigEndian.Uint16(b[:]))
	case 127:
		var b [8]byte
		if _, err := io.ReadFull(p.br, b[:]); err != nil {
			return 0, nil, err
		}
		n = binary.BigEndian.Uint64(b[:])
	}
	b := make([]byte, min(n, 1<<20))
	_, err := io.ReadFull(p.br, b)
	return h[0] & 0x0f, b, err
}

// hello says hello to room as a spectator and reads until its snapshot.
func (p *rawPeer) hello(room string) {
	p.t.Helper()
	h, _ := json.Marshal(map[string]any{"type": "hello", "room": room, "watch": true})
	p.conn.Write(clientFrame(0x1, true, h, -1))
	for {
		op, b, err := p.next()
		if err != nil {
			p.t.Fatalf("waiting for the snapshot: %v", err)
		}
		if op == 0x1 && bytes.Contains(b, []byte(`"type":"snapshot"`)) {
			return
		}
	}
}

// closed reads until the server ends the connection; it returns the code
// of its close frame (0: none) and when the connection ended, from at.
func (p *rawPeer) closed(at time.Time) (code int, after time.Duration) {
	_ = p.conn.SetReadDeadline(at.Add(5 * time.Second))
	for {
		op, b, err := p.next()
		if err != nil {
			return code, time.Since(at)
		}
		if op == 0x8 && code == 0 && len(b) >= 2 {
			code = int(binary.BigEndian.Uint16(b))
		}
	}
}

// flood writes unit again and again until the server's close frame comes
// (or its end of the connection); it returns the bytes written by then and
// the close code.
func (p *rawPeer) flood(unit []byte) (written int64, code int) {
	chunk := bytes.Repeat(unit, (16<<10)/len(unit))
	var done atomic.Int64 // the close code, or -1 when the connection ended without one
	go func() {
		for {
			op, b, err := p.next()
			if err != nil {
				done.CompareAndSwap(0, -1)
				return
			}
			if op == 0x8 && len(b) >= 2 {
				done.CompareAndSwap(0, int64(binary.BigEndian.Uint16(b)))
			}
		}
	}()
	_ = p.conn.SetWriteDeadline(time.Now().Add(5 * time.Second))
	for done.Load() == 0 && written < 256<<20 {
		n, err := p.conn.Write(chunk)
		written += int64(n)
		if err != nil {
			break
		}
	}
	waitUntil := time.Now().Add(3 * time.Second)
	for done.Load() == 0 && time.Now().Before(waitUntil) {
		time.Sleep(5 * time.Millisecond)
	}
	return written, int(done.Load())
}

// TestWireOnTheBinary: roomd itself, with its poller and without, ends a
// refused frame's withheld tail within a second, closes a ping flood with
// 4029 within a mebibyte, invalid UTF-8 with 1007 and an unmasked frame
// before the hello with 1002 — and says so in roomd_closes_total and in
// its log.
func TestWireOnTheBinary(t *testing.T) {
	t.Parallel()
	for _, poller := range []string{"true", "false"} {
		t.Run("poller="+poller, func(t *testing.T) {
			t.Parallel()
			p := startRoomd(t, freeAddr(t), "--memory", "--poller="+poller)
			room, _ := createRoom(t, p.URL, `{"mode":"coop","level":"beginner"}`)

			tail := dialRaw(t, p.URL)
			tail.conn.Write(append(clientFrame(0x1, true, nil, 32<<10)[:8], make([]byte, 17<<10)...))
			code, after := tail.closed(time.Now())
			t.Logf("a 32 KiB frame, 17 KiB sent, the rest withheld: close %d, TCP closed after %v", code, after.Round(time.Millisecond))
			if code != 1009 || after > time.Second {
				t.Errorf("close %d, TCP closed after %v; want 1009 within 1 s", code, after)
			}

			pings := dialRaw(t, p.URL)
			pings.hello(room)
			written, code := pings.flood(clientFrame(0x9, true, bytes.Repeat([]byte{'p'}, 125), -1))
			t.Logf("a ping flood after the hello: close %d after %d bytes", code, written)
			if code != 4029 || written > 1<<20 {
				t.Errorf("a ping flood: close %d after %d bytes; want 4029 within 1 MiB", code, written)
			}

			utf := dialRaw(t, p.URL)
			utf.hello(room)
			utf.conn.Write(clientFrame(0x1, true, []byte(`{"type":"ping","t":1,"x":"`+"\xff"+`"}`), -1))
			if code, _ := utf.closed(time.Now()); code != 1007 {
				t.Errorf("invalid UTF-8 after the hello: close %d, want 1007", code)
			}

			unmasked := dialRaw(t, p.URL)
			unmasked.conn.Write([]byte{0x81, 2, '{', '}'})
			if code, _ := unmasked.closed(time.Now()); code != 1002 {
				t.Errorf("an unmasked frame before the hello: close %d, want 1002", code)
			}

			want := map[string]bool{"too_big": true, "frame_flood": true, "invalid_utf8": true, "protocol": true}
			deadline := time.Now().Add(5 * time.Second)
			var body string
			for {
				_, body = httpGet(t, p.URL+"/metrics", "", "")
				missing := 0
				for reason := range want {
					if !strings.Contains(body, fmt.Sprintf("roomd_closes_total{reason=%q} 1\n", reason)) {
						missing++
					}
				}
				if missing == 0 || time.Now().After(deadline) {
					break
				}
				time.Sleep(20 * time.Millisecond)
			}
			for reason := range want {
				if !strings.Contains(body, fmt.Sprintf("roomd_closes_total{reason=%q} 1\n", reason)) {
					t.Errorf("/metrics has no roomd_closes_total{reason=%q} 1", reason)
				}
			}
			var lines []string
			for reason := range want {
				lines = append(lines, `"msg":"connection closed","reason":"`+reason+`"`)
			}
			logs := p.logUntil(lines...)
			for reason := range want {
				if !strings.Contains(logs, `"msg":"connection closed","reason":"`+reason+`"`) {
					t.Errorf("no close logged with reason %s:\n%s", reason, logs)
				}
			}
			p.term()
		})
	}
}
