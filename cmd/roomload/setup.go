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

	"github.com/coder/websocket"
)

// Setting rooms up is not measured: it decodes JSON as it likes.

const createBody = `{"game":"minesweeper","settings":{"mode":"coop","level":"expert"},"name":"P0"}`

// setupMsg holds the fields of any server message that setting up needs.
type setupMsg struct {
	Type   string  `json:"type"`
	ID     string  `json:"id"`
	OK     bool    `json:"ok"`
	Rev    *uint64 `json:"rev"`
	To     *uint64 `json:"to"`
	Code   string  `json:"code"`
	Notice *struct {
		Code, Message string
	} `json:"notice"`
}

// setupRooms creates every room, connects its players and starts its
// match, cfg.Parallel rooms at a time. On error it closes what it opened.
func (l *loader) setupRooms(ctx context.Context) ([]*player, error) {
	ctx, cancel := context.WithTimeout(ctx, l.cfg.SetupTimeout)
	defer cancel()
	var (
		mu      sync.Mutex
		players []*player
		first   error
		wg      sync.WaitGroup
		sem     = make(chan struct{}, l.cfg.Parallel)
	)
	for i := range l.cfg.Rooms {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			ps, err := l.setupRoom(ctx, i)
			mu.Lock()
			defer mu.Unlock()
			players = append(players, ps...)
			if err != nil && first == nil {
				first = fmt.Errorf("room %d: %w", i, err)
				cancel()
			}
		}()
	}
	wg.Wait()
	if first != nil {
		l.closeAll(players)
		return nil, first
	}
	return players, nil
}

// setupRoom creates a room, joins its other seats, connects everyone, has
// the guests say they are ready and the host start the match. It returns
// the players it connected, also on error.
//
// With several nodes, room i is created through node i and its sockets go
// through the nodes in turn from there (the host's, each guest's, each
// spectator's): one room's players go through different nodes, and each
// guest's join goes through its socket's node.
func (l *loader) setupRoom(ctx context.Context, i int) ([]*player, error) {
	var players []*player
	for seat := range l.cfg.Players {
		path, body := "/api/rooms", createBody
		if seat > 0 {
			path, body = "/api/rooms/"+players[0].code+"/join", `{"name":"P`+strconv.Itoa(seat)+`"}`
		}
		node := (i + seat) % len(l.cfg.Nodes)
		p, err := l.post(ctx, node, path, body)
		if err != nil {
			return nil, err
		}
		p.st, p.cell, p.node = l.st, (i*37+p.seat*240)%len(cellTails), node
		players = append(players, p)
	}
	times := &revTimes{}
	for _, p := range players {
		p.times = times
	}
	var open []*player
	for _, p := range players {
		err := l.connect(ctx, p)
		if p.opened() {
			open = append(open, p)
		}
		if err != nil {
			return open, err
		}
	}
	// A guest's ready, then the host's start, at the newest revision seen.
	rev := uint64(0)
	for _, p := range players[1:] {
		r, err := p.act(ctx, "r", p.rev.Load(), `{"op":"ready","ready":true}`)
		if err != nil {
			return open, err
		}
		rev = max(rev, r)
	}
	start, err := players[0].act(ctx, "s", max(rev, players[0].rev.Load()), `{"op":"start"}`)
	if err != nil {
		return open, err
	}
	// Commands seen before the match started are stale: everyone waits
	// for the start.
	for _, p := range players[1:] {
		if err := p.until(ctx, func(setupMsg) bool { return p.rev.Load() >= start }); err != nil {
			return open, err
		}
	}
	for j := range l.cfg.Spectators {
		w := &player{st: l.st, code: players[0].code, seat: -1, watch: true, times: times, node: (i + l.cfg.Players + j) % len(l.cfg.Nodes)}
		err := l.connect(ctx, w)
		if w.opened() {
			open = append(open, w)
		}
		if err != nil {
			return open, err
		}
	}
	// Every socket of the room is read from now on, while the other rooms
	// are set up: one left unread answers no ping, and a set-up longer
	// than two heartbeats (30 s: 19,800 sockets on a busy machine) had the
	// server close it by its heartbeat rule.
	for _, p := range open {
		p.startReader()
	}
	return open, nil
}

// post creates or joins a room through node and returns its player, not
// yet connected.
func (l *loader) post(ctx context.Context, node int, path, body string) (*player, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, l.cfg.Nodes[node]+path, strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := l.rest.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode/100 != 2 {
		return nil, fmt.Errorf("POST %s: %s: %s", path, resp.Status, bytes.TrimSpace(data))
	}
	var a struct {
		Room, Token string
		Seat        int
	}
	if err := json.Unmarshal(data, &a); err != nil || a.Room == "" || a.Token == "" {
		return nil, fmt.Errorf("POST %s: unreadable answer %q", path, data)
	}
	return &player{code: a.Room, token: a.Token, seat: a.Seat}, nil
}

// opened says whether p has a socket to close.
func (p *player) opened() bool { return p.ws != nil }

// connect opens p's socket through its node, says hello and waits for the
// snapshot.
func (l *loader) connect(ctx context.Context, p *player) error {
	ws, _, err := websocket.Dial(ctx, l.wsURLs[p.node], &websocket.DialOptions{HTTPClient: l.ws,
		HTTPHeader: http.Header{"Origin": {l.cfg.Nodes[p.node]}}})
	if err != nil {
		return fmt.Errorf("open the socket: %w", err)
	}
	ws.SetReadLimit(4 << 20)
	p.ws = ws
	h := map[string]any{"type": "hello", "room": p.code, "token": p.token,
		"game": map[string]string{"id": "minesweeper", "rulesVersion": "minesweeper/1"}}
	if p.watch {
		delete(h, "token")
		h["watch"] = true
	}
	hello, _ := json.Marshal(h)
	if err := ws.Write(ctx, websocket.MessageText, hello); err != nil {
		return err
	}
	return p.until(ctx, func(m setupMsg) bool { return m.Type == "snapshot" })
}

// act sends a control and waits for its receipt; it returns the receipt's
// revision, or an error when the control was refused.
func (p *player) act(ctx context.Context, id string, rev uint64, control string) (uint64, error) {
	frame := `{"type":"control","id":"` + id + `","rev":` + strconv.FormatUint(rev, 10) + `,"control":` + control + `}`
	if err := p.ws.Write(ctx, websocket.MessageText, []byte(frame)); err != nil {
		return 0, err
	}
	var got setupMsg
	err := p.until(ctx, func(m setupMsg) bool {
		got = m
		return m.Type == "receipt" && m.ID == id
	})
	switch {
	case err != nil:
		return 0, err
	case !got.OK:
		if got.Notice == nil {
			return 0, fmt.Errorf("%s refused", control)
		}
		return 0, fmt.Errorf("%s refused: %s: %s", control, got.Notice.Code, got.Notice.Message)
	case got.Rev == nil:
		return 0, fmt.Errorf("%s: a receipt without a revision", control)
	}
	return *got.Rev, nil
}

// until reads messages, noting the revisions they carry, until done says
// so. A frame is one message or an array of them.
func (p *player) until(ctx context.Context, done func(setupMsg) bool) error {
	for {
		_, data, err := p.ws.Read(ctx)
		if err != nil {
			return fmt.Errorf("seat %d of %s: %w", p.seat, p.code, err)
		}
		var msgs []setupMsg
		if data = bytes.TrimSpace(data); len(data) > 0 && data[0] != '[' {
			data = append(append([]byte{'['}, data...), ']')
		}
		if err := json.Unmarshal(data, &msgs); err != nil {
			return fmt.Errorf("seat %d of %s: unreadable frame %.200q", p.seat, p.code, data)
		}
		for _, m := range msgs {
			switch {
			case m.Type == "snapshot" && m.Rev != nil:
				p.rev.Store(*m.Rev)
			case m.Type == "update" && m.To != nil:
				p.rev.Store(*m.To)
			case m.Type == "receipt" && m.Rev != nil:
				p.rev.Store(*m.Rev)
			case m.Type == "notice" && m.Code != "name-replaced":
				return fmt.Errorf("seat %d of %s: notice %s", p.seat, p.code, m.Code)
			}
			if done(m) {
				return nil
			}
		}
	}
}
