package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/roomd/roomd/protocol"
	"github.com/roomd/roomd/transport/webhook"
)

// hookReceiver is a site's backend: it checks each POST's signature and
// headers, answers 503 until it is up, and counts what it accepted.
type hookReceiver struct {
	t      *testing.T
	secret []byte
	up     atomic.Bool

	mu       sync.Mutex
	tried    map[string]int // event id → POSTs refused while down
	accepted map[string]int // event id → POSTs accepted
	events   map[string]protocol.WebhookEvent
	bad      []string
	// last is the last delivery accepted, as it came: what an attacker who
	// captured it would replay.
	lastBody   []byte
	lastHeader string
}

func (h *hookReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	h.mu.Lock()
	defer h.mu.Unlock()
	var ev protocol.WebhookEvent
	switch {
	case webhook.Verify(h.secret, body, r.Header.Get("X-Roomd-Signature"), webhook.DefaultTolerance, time.Now()) != nil:
		h.bad = append(h.bad, "bad signature: "+string(body))
	case json.Unmarshal(body, &ev) != nil || ev.ID == "":
		h.bad = append(h.bad, "unreadable: "+string(body))
	case r.Header.Get("X-Roomd-Delivery") != ev.ID || r.Header.Get("X-Roomd-Event") != ev.Type:
		h.bad = append(h.bad, fmt.Sprintf("headers %v for %s", r.Header, body))
	}
	if !h.up.Load() {
		h.tried[ev.ID]++
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	h.accepted[ev.ID]++
	h.events[ev.ID] = ev
	h.lastBody, h.lastHeader = body, r.Header.Get("X-Roomd-Signature")
}

// TestKill9WebhooksArriveOnce: a site's backend is down while a room is
// created, a player joins, a match starts and ends; roomd stores each
// event with its change and tries to deliver it. roomd is killed (-9) with
// the events undelivered, the backend comes up, roomd restarts on the same
// store: every event arrives, exactly once (no POST of it had been
// accepted), signed, in the order the room made them.
func TestKill9WebhooksArriveOnce(t *testing.T) {
	t.Parallel()
	recv := &hookReceiver{t: t, secret: []byte("a webhook secret of the site"), tried: map[string]int{},
		accepted: map[string]int{}, events: map[string]protocol.WebhookEvent{}}
	site := httptest.NewServer(recv)
	defer site.Close()
	addr, data := freeAddr(t), t.TempDir()
	args := []string{"--data", data, "--webhook-url", site.URL + "/hooks", "--webhook-secret", string(recv.secret)}
	p := startRoomd(t, addr, args...)

	code, token := createGame(t, p.URL, "minesweeper", "Ann", `{"mode":"coop","level":"beginner"}`)
	resp, err := http.Post(p.URL+"/api/rooms/"+code+"/join", "application/json", strings.NewReader(`{"name":"Bob"}`))
	if err != nil {
		t.Fatal(err)
	}
	var bob struct{ Token string }
	json.NewDecoder(resp.Body).Decode(&bob)
	resp.Body.Close()
	ann, b := dialBot(t, p.URL, code, token), dialBot(t, p.URL, code, bob.Token)
	for _, step := range []struct {
		who *bot
		a   protocol.Action
	}{
		{b, protocol.Action{Type: protocol.TypeControl, Control: &protocol.Control{Op: protocol.ControlReady, Ready: true}}},
		{ann, protocol.Action{Type: protocol.TypeControl, Control: &protocol.Control{Op: protocol.ControlStart}}},
		{ann, protocol.Action{Type: protocol.TypeResign}},
	} {
		var id string
		step.who.until("online", 10*time.Second, func() bool { return step.who.tr.State() == "online" })
		if id = step.who.send(step.a); id == "" {
			t.Fatalf("%s not sent", step.a.Type)
		}
		if ok, code, got := step.who.waitReceipt(id, 10*time.Second); !ok {
			t.Fatalf("%s: ok %v code %q got %v", step.a.Type, ok, code, got)
		}
		// The next step's sender must have seen this one (a start sent
		// before the host saw the ready would be stale).
		rev := step.who.acked[id]
		for _, w := range []*bot{ann, b} {
			w.until("the step's revision", 10*time.Second, func() bool { _, r := w.tr.Position(); return r >= rev })
		}
	}
	// Every event has been tried, and refused, before the kill.
	const want = 4 // room.created, player.joined, match.started, match.ended
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		recv.mu.Lock()
		n := len(recv.tried)
		recv.mu.Unlock()
		if n >= want {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d events tried before the kill, want %d\n%s", n, want, p.logText())
		}
	}
	ann.close()
	b.close()
	p.kill9()

	recv.up.Store(true)
	p2 := startRoomd(t, addr, args...)
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		recv.mu.Lock()
		n := len(recv.accepted)
		recv.mu.Unlock()
		if n >= want {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d events delivered after the restart, want %d\n%s", n, want, p2.logs)
		}
	}
	time.Sleep(300 * time.Millisecond) // a second delivery would show now
	recv.mu.Lock()
	defer recv.mu.Unlock()
	if len(recv.bad) > 0 {
		t.Fatalf("bad POSTs: %q", recv.bad)
	}
	var evs []protocol.WebhookEvent
	for id, n := range recv.accepted {
		if n != 1 {
			t.Errorf("event %s delivered %d times", id, n)
		}
		if recv.tried[id] == 0 {
			t.Errorf("event %s was not made before the kill", id)
		}
		evs = append(evs, recv.events[id])
	}
	slices.SortFunc(evs, func(x, y protocol.WebhookEvent) int { return strings.Compare(x.ID, y.ID) })
	var types []string
	for _, ev := range evs {
		if ev.Room != code || ev.Game != "minesweeper" {
			t.Errorf("event %+v", ev)
		}
		types = append(types, ev.Type)
	}
	if !slices.Equal(types, []string{protocol.HookRoomCreated, protocol.HookPlayerJoined, protocol.HookMatchStarted, protocol.HookMatchEnded}) {
		t.Fatalf("events in order: %v", types)
	}
	var ended protocol.HookMatch
	if json.Unmarshal(evs[3].Data, &ended); ended.Result == nil || ended.Result.Status != "resigned" || len(ended.Result.Seed) == 0 || ended.Commitment == "" {
		t.Fatalf("match.ended: %s", evs[3].Data)
	}
	t.Logf("%d events: each refused %v times before the kill, delivered once after it", len(evs), recv.tried)
	// A delivery captured and replayed after the tolerance is refused by the
	// check PROTOCOL.md §6 documents (webhook.Verify).
	body, header := recv.lastBody, recv.lastHeader // recv.mu is held
	if err := webhook.Verify(recv.secret, body, header, webhook.DefaultTolerance, time.Now()); err != nil {
		t.Fatalf("the captured delivery, checked now: %v", err)
	}
	if err := webhook.Verify(recv.secret, body, header, webhook.DefaultTolerance, time.Now().Add(webhook.DefaultTolerance+time.Minute)); !errors.Is(err, webhook.ErrExpired) {
		t.Fatalf("the captured delivery replayed %v later: %v, want %v", webhook.DefaultTolerance+time.Minute, err, webhook.ErrExpired)
	}
	p2.term()
}
