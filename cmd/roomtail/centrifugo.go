package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/coder/websocket"
	"github.com/roomd/roomd/internal/rawscan"
)

// centrifugo is the Centrifugo target: anonymous clients of its JSON
// protocol subscribed to one channel, and a publisher on its HTTP API.
type centrifugo struct {
	cfg   config
	ws    string
	api   *http.Client
	conns readers
}

func newCentrifugo(cfg config) *centrifugo {
	return &centrifugo{cfg: cfg, ws: "ws" + strings.TrimPrefix(cfg.URL, "http") + "/connection/websocket",
		api: &http.Client{Timeout: 10 * time.Second}}
}

// setup publishes nothing: it checks that the API answers.
func (c *centrifugo) setup(ctx context.Context) error {
	return c.post(ctx, `{"channel":"`+c.cfg.Channel+`","data":{"seq":-1}}`)
}

// spectate connects and subscribes a client, waits for the subscription's
// reply and reads its publications from then on. A server ping (an empty
// message, `{}`) is answered with a pong (`{}`).
func (c *centrifugo) spectate(ctx context.Context, s *spectator) error {
	hc, arrival := arrivalDial()
	conn, _, err := websocket.Dial(ctx, c.ws, &websocket.DialOptions{HTTPClient: hc})
	if err != nil {
		return err
	}
	conn.SetReadLimit(4 << 20)
	cmds := `{"id":1,"connect":{}}` + "\n" + `{"id":2,"subscribe":{"channel":"` + c.cfg.Channel + `"}}`
	if err := conn.Write(ctx, websocket.MessageText, []byte(cmds)); err != nil {
		conn.CloseNow()
		return err
	}
	rctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	for subscribed := false; !subscribed; {
		_, data, err := conn.Read(rctx)
		if err != nil {
			conn.CloseNow()
			return err
		}
		for line := range bytes.Lines(data) {
			switch {
			case bytes.Contains(line, []byte(`"error"`)):
				conn.CloseNow()
				return fmt.Errorf("refused: %s", line)
			case bytes.HasPrefix(line, []byte(`{"id":2,`)):
				subscribed = true
			}
		}
	}
	s.arrival = arrival
	c.conns.read(conn, func(frame []byte) {
		for line := range bytes.Lines(frame) {
			if seq, ok := rawscan.Uint(line, `"seq":`); ok {
				s.note(seq)
			} else if len(bytes.TrimSpace(line)) == 2 { // {}: a ping
				ctx, cancel := context.WithTimeout(context.Background(), time.Second)
				conn.Write(ctx, websocket.MessageText, []byte(`{}`)) // a failure ends the reader's next read
				cancel()
			}
		}
	}, s)
	return nil
}

// publish POSTs update seq to /api/publish.
func (c *centrifugo) publish(ctx context.Context, seq int) error {
	return c.post(ctx, `{"channel":"`+c.cfg.Channel+`","data":{"seq":`+strconv.Itoa(seq)+`}}`)
}

func (c *centrifugo) post(ctx context.Context, body string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.cfg.URL+"/api/publish", strings.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-API-Key", c.cfg.APIKey)
	resp, err := c.api.Do(req)
	if err != nil {
		return err
	}
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || bytes.Contains(data, []byte(`"error"`)) {
		return fmt.Errorf("POST /api/publish: %s: %s", resp.Status, bytes.TrimSpace(data))
	}
	return nil
}

func (c *centrifugo) receipts() map[uint64]int { return nil }

func (c *centrifugo) close() { c.conns.close() }
