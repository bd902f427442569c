package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/roomd/roomd/protocol"
)

var snakePin = protocol.GamePin{ID: "snake", RulesVersion: "snake/1"}

// snakeTurns is the clockwise order of directions: a snake that takes the
// next one every few moves goes round a small square and stays alive.
var snakeTurns = []string{"up", "right", "down", "left"}

// circler is a snake player that turns clockwise every few moves.
type circler struct {
	*bot
	sent map[string]string // action id → direction
	dir  int               // index in snakeTurns of the last direction sent
}

func newCircler(t *testing.T, base, room, token string) *circler {
	b := dialGame(t, base, room, token, snakePin)
	b.until("snapshot", 10*time.Second, func() bool { return b.snapshot != nil })
	return &circler{bot: b, sent: map[string]string{}}
}

// start reads the snake's direction from the view the bot has.
func (c *circler) start(seat int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var v struct {
		Snakes []struct {
			Dir string `json:"dir"`
		} `json:"snakes"`
	}
	raw := c.snapshot.View
	if c.update != nil && c.update.View != nil {
		raw = c.update.View
	}
	if err := json.Unmarshal(raw.(json.RawMessage), &v); err != nil || seat >= len(v.Snakes) {
		c.t.Fatalf("snake view: %v", err)
	}
	c.dir = max(0, indexOf(snakeTurns, v.Snakes[seat].Dir))
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

// turn sends the next clockwise turn; it returns the action id ("" when
// offline).
func (c *circler) turn() string {
	next := snakeTurns[(c.dir+1)%len(snakeTurns)]
	cmd := json.RawMessage(fmt.Sprintf(`{"type":"turn","dir":%q}`, next))
	id := c.send(protocol.Action{Type: protocol.TypeCommand, Command: cmd})
	if id == "" {
		return ""
	}
	c.mu.Lock()
	c.sent[id] = next
	c.mu.Unlock()
	c.dir = (c.dir + 1) % len(snakeTurns)
	return id
}

// acked returns the action ids acknowledged with a tick.
func (c *circler) ackedInputs() map[string]uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[string]uint64{}
	for id, tick := range c.ackTicks {
		out[id] = tick
	}
	return out
}

// TestKill9RealTimeMatch kills roomd (the embedded store, default flags)
// with SIGKILL in the middle of a snake match two bots play, restarts it on
// the same data, and checks that the match comes back at (or after) the
// tick of the last acknowledged input, that the ticks go on, that resending
// an input is not applied again, and — once a snake has run into a wall and
// the world has ended the match — that every acknowledged input is in the
// match's log with the tick its receipt named and the finished match
// replays (`roomd replay`).
func TestKill9RealTimeMatch(t *testing.T) {
	t.Parallel()
	addr, data := freeAddr(t), t.TempDir()
	p := startRoomd(t, addr, "--data", data)
	var created struct{ Room, Token string }
	created.Room, created.Token = createGame(t, p.URL, "snake", "Ann", `{"board":"small","speed":"normal","timeLimit":600}`)
	host := newCircler(t, p.URL, created.Room, created.Token)
	resp, err := http.Post(p.URL+"/api/rooms/"+created.Room+"/join", "application/json", strings.NewReader(`{"name":"Bob"}`))
	if err != nil {
		t.Fatal(err)
	}
	var joined struct{ Token string }
	json.NewDecoder(resp.Body).Decode(&joined)
	resp.Body.Close()
	guest := newCircler(t, p.URL, created.Room, joined.Token)
	id := guest.send(protocol.Action{Type: protocol.TypeControl, Control: &protocol.Control{Op: protocol.ControlReady, Ready: true}})
	if ok, code, _ := guest.waitReceipt(id, 10*time.Second); !ok {
		t.Fatalf("ready: %s", code)
	}
	readyRev := guest.acked[id]
	host.until("the guest's ready", 10*time.Second, func() bool { return host.update != nil && host.update.To >= readyRev })
	id = host.send(protocol.Action{Type: protocol.TypeControl, Control: &protocol.Control{Op: protocol.ControlStart}})
	if ok, code, _ := host.waitReceipt(id, 10*time.Second); !ok {
		t.Fatalf("start: %s", code)
	}
	players := []*circler{host, guest}
	for seat, c := range players {
		c.until("the match's view", 10*time.Second, func() bool { return c.update != nil && c.update.View != nil })
		c.start(seat)
	}
	// Past the countdown (60 ticks), play: a turn each every three moves (a
	// snake moves every 150 ms).
	host.until("the countdown's end", 10*time.Second, func() bool { return len(host.ticks) > 0 && host.ticks[len(host.ticks)-1] > 62 })
	deadline := time.Now().Add(15 * time.Second)
	for len(host.ackedInputs()) < 6 && time.Now().Before(deadline) {
		for _, c := range players {
			if id := c.turn(); id != "" {
				c.waitReceipt(id, 2*time.Second)
			}
		}
		time.Sleep(450 * time.Millisecond)
	}
	before := map[*circler]map[string]uint64{}
	var last uint64
	for _, c := range players {
		before[c] = c.ackedInputs()
		for _, tick := range before[c] {
			last = max(last, tick)
		}
	}
	if len(before[host]) < 4 {
		t.Fatalf("only %d inputs acknowledged before the kill", len(before[host]))
	}
	for _, c := range players {
		c.mu.Lock()
		c.snapshot, c.ticks = nil, nil // what comes after the restart
		c.mu.Unlock()
	}
	p.kill9()
	p2 := startRoomd(t, addr, "--data", data)
	for _, c := range players {
		c.until("the snapshot after the restart", 20*time.Second, func() bool { return c.snapshot != nil })
	}
	host.mu.Lock()
	snap := host.snapshot
	host.mu.Unlock()
	if snap.Room.Phase != protocol.PhaseRunning || snap.Tick+1 < last {
		t.Fatalf("after the kill: phase %s at tick %d; the last acknowledged input took effect at tick %d", snap.Room.Phase, snap.Tick, last)
	}
	t.Logf("kill -9 at about tick %d: the match came back at tick %d (last acknowledged input: tick %d)", last, snap.Tick, last)
	host.until("ticks after the restart", 10*time.Second, func() bool {
		return len(host.ticks) > 0 && host.ticks[len(host.ticks)-1] > snap.Tick+2
	})
	// A resent input gets its first receipt: it is stored, and applied once.
	for _, c := range players {
		for id, tick := range before[c] {
			c.mu.Lock()
			delete(c.acked, id)
			delete(c.ackTicks, id)
			dir := c.sent[id]
			c.mu.Unlock()
			cmd := json.RawMessage(fmt.Sprintf(`{"type":"turn","dir":%q}`, dir))
			if _, err := c.tr.Send(t.Context(), protocol.Action{Type: protocol.TypeCommand, ID: id, Command: cmd}); err != nil {
				t.Fatal(err)
			}
			if ok, code, _ := c.waitReceipt(id, 5*time.Second); !ok {
				t.Fatalf("resent %s: %s", id, code)
			}
			if got := c.ackedInputs()[id]; got != tick {
				t.Fatalf("resent %s: receipt at tick %d, first at %d", id, got, tick)
			}
			break
		}
	}
	// End the match; its log holds every acknowledged input at its tick
	// (all of them ran: the ticks went on past them).
	host.until("ticks past the last input", 10*time.Second, func() bool {
		return len(host.ticks) > 0 && host.ticks[len(host.ticks)-1] > last+1
	})
	// The host stops turning: its snake runs into a wall, and the world
	// ends the match (a tick entry, stored like any change).
	host.until("the result", 20*time.Second, func() bool { return host.update != nil && host.update.Result != nil })
	var log []struct {
		Seat int             `json:"seat"`
		Move json.RawMessage `json:"move"`
		Tick uint64          `json:"tick"`
	}
	host.mu.Lock()
	res := host.update.Result
	host.mu.Unlock()
	if err := json.Unmarshal(res.Log, &log); err != nil {
		t.Fatal(err)
	}
	for seat, c := range players {
		for id, tick := range before[c] {
			found := false
			for _, e := range log {
				if e.Seat == seat && e.Tick == tick && strings.Contains(string(e.Move), c.sent[id]) {
					found = true
				}
			}
			if !found {
				t.Errorf("seat %d's acknowledged input %s (%s at tick %d) is not in the match's log", seat, id, c.sent[id], tick)
			}
		}
	}
	if res.Ticks < snap.Tick {
		t.Fatalf("the result says %d ticks, the match was at %d", res.Ticks, snap.Tick)
	}
	// The finished match replays.
	checkReplay(t, p2.URL, created.Room)
	// The ticks are measured on /metrics.
	resp, err = http.Get(p2.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	metrics, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{`roomd_tick_lateness_seconds_bucket{game="snake",le="0.0005"}`, `roomd_tick_lateness_seconds_bucket{game="snake",le="0.05"}`,
		`roomd_tick_duration_seconds_count{game="snake"}`, `roomd_tick_bytes_count{game="snake"}`, `roomd_ticks_skipped_total{game="snake"}`} {
		if !strings.Contains(string(metrics), want) {
			t.Errorf("/metrics has no %s", want)
		}
	}
	for _, c := range players {
		c.close()
	}
	p2.term()
}
