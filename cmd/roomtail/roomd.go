package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"
	"github.com/roomd/roomd/internal/rawscan"
)

// roomd is the roomd target: a Minesweeper co-op room whose one player
// toggles flags.
type roomd struct {
	cfg   config
	ws    string // the socket URL
	code  string // the room
	pub   *websocket.Conn
	mu    sync.Mutex
	revs  map[uint64]int // a move's revision → its number, from its receipt
	rev   uint64         // the newest revision the publisher saw
	conns readers
}

func newRoomd(cfg config) *roomd {
	return &roomd{cfg: cfg, ws: "ws" + strings.TrimPrefix(cfg.URL, "http") + "/ws", revs: map[uint64]int{}}
}

const (
	createBody = `{"game":"minesweeper","settings":{"mode":"coop","level":"expert"},"name":"P0"}`
	gameHello  = `"game":{"id":"minesweeper","rulesVersion":"minesweeper/1"}`
)

// setup creates the room, connects its player and starts the match; the
// player's socket is read from then on for receipts.
func (r *roomd) setup(ctx context.Context) error {
	resp, err := http.Post(r.cfg.URL+"/api/rooms", "application/json", strings.NewReader(createBody))
	if err != nil {
		return err
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	resp.Body.Close()
	if err != nil {
		return err
	}
	var a struct{ Room, Token string }
	if resp.StatusCode/100 != 2 || json.Unmarshal(data, &a) != nil || a.Room == "" {
		return fmt.Errorf("POST /api/rooms: %s: %s", resp.Status, bytes.TrimSpace(data))
	}
	r.code = a.Room
	r.pub, _, err = websocket.Dial(ctx, r.ws, &websocket.DialOptions{HTTPHeader: http.Header{"Origin": {r.cfg.URL}}})
	if err != nil {
		return err
	}
	r.pub.SetReadLimit(4 << 20)
	hello := `{"type":"hello","room":"` + r.code + `","token":"` + a.Token + `",` + gameHello + `}`
	if err := r.pub.Write(ctx, websocket.MessageText, []byte(hello)); err != nil {
		return err
	}
	if _, err := r.until(ctx, r.pub, "snapshot"); err != nil {
		return err
	}
	start := `{"type":"control","id":"s","rev":` + strconv.FormatUint(r.rev, 10) + `,"control":{"op":"start"}}`
	if err := r.pub.Write(ctx, websocket.MessageText, []byte(start)); err != nil {
		return err
	}
	if m, err := r.until(ctx, r.pub, "receipt"); err != nil {
		return err
	} else if !bytes.Contains(m, []byte(`"ok":true`)) {
		return fmt.Errorf("start refused: %s", m)
	}
	r.conns.read(r.pub, r.receipt)
	return nil
}

// until reads conn's messages, noting revisions, until one of type typ;
// it returns that one.
func (r *roomd) until(ctx context.Context, conn *websocket.Conn, typ string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	tag := []byte(`"type":"` + typ + `"`)
	for {
		_, data, err := conn.Read(ctx)
		if err != nil {
			return nil, err
		}
		if rev, ok := rawscan.Uint(data, `"rev":`); ok && conn == r.pub {
			r.rev = max(r.rev, rev)
		}
		if bytes.Contains(data, []byte(`"type":"notice"`)) {
			return nil, fmt.Errorf("notice: %s", data)
		}
		if bytes.Contains(data, tag) {
			return data, nil
		}
	}
}

// receipt notes the revision of a move's receipt ("id":"m<seq>").
func (r *roomd) receipt(frame []byte) {
	for _, m := range bytes.SplitAfter(frame, []byte(`"type":"receipt"`))[1:] {
		id := rawscan.String(m, `"id":"m`)
		seq, err := strconv.Atoi(string(id))
		rev, ok := rawscan.Uint(m, `"rev":`)
		if err != nil || !ok {
			continue
		}
		r.mu.Lock()
		r.revs[rev] = seq
		r.rev = max(r.rev, rev)
		r.mu.Unlock()
	}
}

// spectate connects a spectator, waits for its snapshot and reads its
// updates from then on.
func (r *roomd) spectate(ctx context.Context, s *spectator) error {
	hc, arrival := arrivalDial()
	conn, _, err := websocket.Dial(ctx, r.ws, &websocket.DialOptions{HTTPClient: hc, HTTPHeader: http.Header{"Origin": {r.cfg.URL}}})
	if err != nil {
		return err
	}
	conn.SetReadLimit(4 << 20)
	hello := `{"type":"hello","room":"` + r.code + `","watch":true,` + gameHello + `}`
	if err := conn.Write(ctx, websocket.MessageText, []byte(hello)); err != nil {
		conn.CloseNow()
		return err
	}
	if _, err := r.until(ctx, conn, "snapshot"); err != nil {
		conn.CloseNow()
		return err
	}
	s.arrival = arrival
	r.conns.read(conn, func(frame []byte) {
		// One message or an array of them; roomd writes "type" first.
		for _, m := range bytes.SplitAfter(frame, []byte(`"type":"update"`))[1:] {
			if to, ok := rawscan.Uint(m, `"to":`); ok {
				s.note(to)
			}
		}
	}, s)
	return nil
}

// publish sends move seq: a flag toggle on the next cell of the board.
func (r *roomd) publish(ctx context.Context, seq int) error {
	r.mu.Lock()
	rev := r.rev
	r.mu.Unlock()
	cell := seq % (16 * 30)
	move := `{"type":"command","id":"m` + strconv.Itoa(seq) + `","rev":` + strconv.FormatUint(rev, 10) +
		`,"command":{"type":"flag","r":` + strconv.Itoa(cell/30) + `,"c":` + strconv.Itoa(cell%30) + `}}`
	return r.pub.Write(ctx, websocket.MessageText, []byte(move))
}

func (r *roomd) receipts() map[uint64]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.revs
}

func (r *roomd) close() { r.conns.close() }
