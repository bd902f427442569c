package transport

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/roomd/roomd/core/nim"
	"github.com/roomd/roomd/core/session"
	"github.com/roomd/roomd/protocol"
	"github.com/roomd/roomd/transport/client"
)

var nimPin = protocol.GamePin{ID: "nim", RulesVersion: nim.RulesVersion}

// nimPlayer follows its own view from snapshots and beats, as a bot does.
type nimPlayer struct {
	*tclient
	view  nim.View
	have  bool
	upto  int // events consumed
	ended bool
}

func (p *nimPlayer) follow() {
	p.t.Helper()
	evs := p.snapshotEvents()
	for ; p.upto < len(evs); p.upto++ {
		ev := evs[p.upto]
		switch {
		case ev.Snapshot != nil && ev.Snapshot.View != nil:
			raw, _ := ev.Snapshot.View.(json.RawMessage)
			if len(raw) == 0 || string(raw) == "null" {
				continue
			}
			p.view = nim.View{}
			if err := json.Unmarshal(raw, &p.view); err != nil {
				p.t.Fatalf("%s: view: %v", p.name, err)
			}
			p.have = true
		case ev.Update != nil:
			if raw, ok := ev.Update.View.(json.RawMessage); ok && len(raw) > 0 {
				p.view = nim.View{}
				if err := json.Unmarshal(raw, &p.view); err != nil {
					p.t.Fatal(err)
				}
				p.have = true
			}
			if raw, ok := ev.Update.Beats.(json.RawMessage); ok && len(raw) > 0 && p.have {
				var beats []nim.Event
				if err := json.Unmarshal(raw, &beats); err != nil {
					p.t.Fatal(err)
				}
				p.view.Apply(beats)
			}
			if ev.Update.Result != nil {
				p.ended = true
			}
		}
	}
}

// TestNimHumanAgainstAI plays hidden Nim: one person (choosing with the
// game's AI from its own view, over the socket) against an AI seat filled
// by the room. The match must finish with a result.
func TestNimHumanAgainstAI(t *testing.T) {
	s := startServer(t)
	created := s.create("nim", `{"pile":21}`, "Ann")
	p := &nimPlayer{tclient: s.dial("ann", client.Config{Room: created.Room, Token: created.Token, Game: nimPin})}
	p.waitOnline()
	if rc := p.control(protocol.Control{Op: protocol.ControlFillWithAI}); !rc.OK {
		t.Fatalf("fill-with-ai: %+v", rc.Notice)
	}
	if rc := p.control(protocol.Control{Op: protocol.ControlStart}); !rc.OK {
		t.Fatalf("start: %+v", rc.Notice)
	}
	for moves := 0; ; moves++ {
		if moves > 40 {
			t.Fatal("the match did not end")
		}
		p.waitFor("my turn or the end", func([]client.Event) bool {
			p.follow()
			return p.ended || (p.have && !p.view.Over && p.view.Turn == 0)
		})
		if p.ended {
			break
		}
		mv, ok := nim.Rules{}.Choose(p.view, 0, session.IntSeed(7).Source())
		if !ok {
			t.Fatalf("AI has no move in %+v", p.view)
		}
		b, _ := json.Marshal(mv)
		if rc := p.command(string(b)); !rc.OK {
			t.Fatalf("move %s refused: %+v", b, rc.Notice)
		}
	}
	res, ok := p.tr.Result()
	if !ok || res.Status != nim.PhaseOver || len(res.Winners) != 1 {
		t.Fatalf("result = %+v, %v", res, ok)
	}
	if !p.view.Over || p.view.Winner == nil || *p.view.Winner != res.Winners[0] {
		t.Fatalf("view %+v disagrees with result %+v", p.view, res)
	}
	p.checkContinuity()
}

// nimPair makes a started two-player Nim room.
func nimPair(t *testing.T, s *testServer) (host, guest *tclient, code string) {
	t.Helper()
	created := s.create("nim", `{"pile":30}`, "Ann")
	host = s.dial("host", client.Config{Room: created.Room, Token: created.Token, Game: nimPin})
	var guestJoin struct {
		Room, Token string
		Seat        int
	}
	if st := s.post("/api/rooms/"+created.Room+"/join", map[string]string{"name": "Bob"}, &guestJoin); st != http.StatusOK || guestJoin.Seat != 1 {
		t.Fatalf("join: %d %+v", st, guestJoin)
	}
	guest = s.dial("guest", client.Config{Room: created.Room, Token: guestJoin.Token, Game: nimPin})
	host.waitOnline()
	guest.waitOnline()
	if rc := guest.control(protocol.Control{Op: protocol.ControlReady, Ready: true}); !rc.OK {
		t.Fatalf("ready: %+v", rc.Notice)
	}
	host.waitFor("guest ready", func(evs []client.Event) bool {
		return host.recordedRev() == guest.recordedRev()
	})
	if rc := host.control(protocol.Control{Op: protocol.ControlStart}); !rc.OK {
		t.Fatalf("start: %+v", rc.Notice)
	}
	guest.waitFor("running", func([]client.Event) bool { return guest.phase() == protocol.PhaseRunning })
	return host, guest, created.Room
}

func TestReplacedByNewTabAndTakeBack(t *testing.T) {
	s := startServer(t)
	host, _, code := nimPair(t, s)
	second := s.dial("second-tab", client.Config{Room: code, Token: host.tr.Token(), Game: nimPin})
	second.waitOnline()
	host.closedWith(protocol.CloseReplaced)
	if host.tr.State() != client.StateClosed {
		t.Fatalf("first tab state %s after 4001", host.tr.State())
	}
	// The first tab takes its seat back: the second is replaced in turn.
	host.tr.TakeBack()
	second.closedWith(protocol.CloseReplaced)
	host.waitFor("back online with a reconnect receipt", func(evs []client.Event) bool {
		if host.tr.State() != client.StateOnline {
			return false
		}
		for _, ev := range evs {
			if ev.Receipt != nil && ev.Receipt.OK && host.tr.Pending() == 0 {
				return true
			}
		}
		return false
	})
	if rc := host.command(`{"type":"take","n":1}`); !rc.OK {
		t.Fatalf("move after take-back refused: %+v", rc.Notice)
	}
}

func TestLeaveGives4002(t *testing.T) {
	s := startServer(t)
	host, guest, _ := nimPair(t, s)
	if _, err := guest.tr.Send(context.Background(), protocol.Action{Type: protocol.TypeLeave}); err != nil {
		t.Fatal(err)
	}
	guest.closedWith(protocol.CloseLeft)
	// Nim has an AI: the seat is played by it until the end; the host goes on.
	if rc := host.command(`{"type":"take","n":2}`); !rc.OK {
		t.Fatalf("host move after the guest left: %+v", rc.Notice)
	}
	host.waitFor("the AI to play the left seat", func(evs []client.Event) bool {
		for _, ev := range evs {
			if ev.Update != nil && ev.Update.By != nil && *ev.Update.By == 1 && ev.Update.Beats != nil {
				return true
			}
		}
		return false
	})
}

func TestClosedRoomGives4004(t *testing.T) {
	s := startServer(t)
	host, guest, code := nimPair(t, s)
	r, ok := s.rooms.Lookup(code)
	if !ok {
		t.Fatal("room not loaded")
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	host.closedWith(protocol.CloseRoomClosed)
	guest.closedWith(protocol.CloseRoomClosed)
	late := s.dial("late", client.Config{Room: code, Watch: true, Game: nimPin})
	late.closedWith(protocol.CloseRoomClosed)
	resp, err := http.Get(s.URL + "/api/rooms/" + code)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct{ Error string }
	json.NewDecoder(resp.Body).Decode(&body)
	if resp.StatusCode != http.StatusNotFound || !strings.Contains(body.Error, code) {
		t.Fatalf("GET closed room: %d %+v", resp.StatusCode, body)
	}
}

func TestUnknownRoom404(t *testing.T) {
	s := startServer(t)
	resp, err := http.Get(s.URL + "/api/rooms/NOPE42")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct{ Error string }
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusNotFound || body.Error == "" || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("GET unknown room: %d %q %+v", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
}

func TestStaleRevisionGetsResync(t *testing.T) {
	s := startServer(t)
	host, _, _ := nimPair(t, s)
	_, rev := host.tr.Position()
	before := len(host.snapshotEvents())
	// Bypass the transport's own revision: claim a revision from the future.
	frame := fmt.Sprintf(`{"type":"command","id":"future","rev":%d,"command":{"type":"take","n":1}}`, rev+5)
	if err := host.tr.SendRaw(context.Background(), []byte(frame)); err != nil {
		t.Fatal(err)
	}
	rc := host.receipt("future")
	if rc.OK || rc.Notice.Code != protocol.CodeStale {
		t.Fatalf("receipt %+v, want stale", rc)
	}
	host.waitFor("a snapshot after stale", func(evs []client.Event) bool {
		for _, ev := range evs[before:] {
			if ev.Snapshot != nil {
				return true
			}
		}
		return false
	})
	if _, now := host.tr.Position(); now != rev {
		t.Fatalf("stale command moved the revision %d → %d", rev, now)
	}
	// Resent with the same id, it gets the same refusal.
	if err := host.tr.SendRaw(context.Background(), []byte(frame)); err != nil {
		t.Fatal(err)
	}
	host.waitFor("the resend's receipt", func(evs []client.Event) bool {
		n := 0
		for _, ev := range evs {
			if ev.Receipt != nil && ev.Receipt.ID == "future" {
				if ev.Receipt.OK || ev.Receipt.Notice.Code != protocol.CodeStale {
					t.Fatalf("resent stale action: %+v", ev.Receipt)
				}
				n++
			}
		}
		return n == 2
	})
}

func TestRulesVersionMismatch(t *testing.T) {
	s := startServer(t)
	created := s.create("nim", `{}`, "Ann")
	old := s.dial("old", client.Config{Room: created.Room, Token: created.Token, Game: protocol.GamePin{ID: "nim", RulesVersion: "nim/0"}})
	old.closedWith(protocol.CloseUpdateRequired)
	evs := old.snapshotEvents()
	found := false
	for _, ev := range evs {
		if ev.Notice != nil && ev.Notice.Code == protocol.CodeUpdateRequired {
			found = true
		}
	}
	if !found {
		t.Fatalf("no update-required notice: %s", describe(evs))
	}
}

// TestNimSecretsStayHidden plays hidden Nim between two people over the
// socket and checks every frame each of them received before the end: no
// other seat's secret in any view or beat, no "secrets" list, no seed; the
// secrets all appear once the match is over.
func TestNimSecretsStayHidden(t *testing.T) {
	s := startServer(t)
	host, guest, code := nimPair(t, s)
	spec := s.dial("spectator", client.Config{Room: code, Watch: true, Game: nimPin})
	spec.waitOnline()
	players := []*nimPlayer{{tclient: host}, {tclient: guest}}
	viewers := []*tclient{host, guest, spec}
	for moves := 0; ; moves++ {
		if moves > 60 {
			t.Fatal("the match did not end")
		}
		p := players[moves%2]
		p.waitFor("my turn or the end", func([]client.Event) bool {
			p.follow()
			return p.ended || (p.have && p.view.Turn == moves%2)
		})
		if p.ended {
			break
		}
		mv, _ := nim.Rules{}.Choose(p.view, moves%2, session.IntSeed(7).Source())
		b, _ := json.Marshal(mv)
		if rc := p.command(string(b)); !rc.OK {
			t.Fatalf("%s: %+v", p.name, rc.Notice)
		}
	}
	res, _ := host.tr.Result()
	var secrets []int
	spec.waitFor("the end", func(evs []client.Event) bool {
		for _, ev := range evs {
			if ev.Update != nil && ev.Update.Result != nil {
				var beats []nim.Event
				json.Unmarshal(ev.Update.Beats.(json.RawMessage), &beats)
				for _, b := range beats {
					if b.Type == nim.EventEnd {
						secrets = b.Secrets
					}
				}
				return true
			}
		}
		return false
	})
	if len(secrets) != 2 {
		t.Fatalf("the end did not show the secrets: %v", secrets)
	}
	seed := seedPattern(res.Seed)
	for seat, c := range viewers {
		if c == spec {
			seat = -1
		}
		checked := 0
		for _, ev := range c.snapshotEvents() {
			if ev.Raw == nil {
				continue
			}
			if ev.Update != nil && ev.Update.Result != nil {
				break
			}
			checked++
			if strings.Contains(string(ev.Raw), `"secrets"`) || strings.Contains(string(ev.Raw), `"seed"`) || seed.Match(ev.Raw) {
				t.Fatalf("%s received secrets or the seed before the end: %s", c.name, ev.Raw)
			}
			var views []json.RawMessage
			switch {
			case ev.Snapshot != nil:
				views = append(views, ev.Snapshot.View.(json.RawMessage))
			case ev.Update != nil && ev.Update.View != nil:
				views = append(views, ev.Update.View.(json.RawMessage))
			}
			for _, raw := range views {
				if string(raw) == "null" {
					continue
				}
				var v map[string]any
				json.Unmarshal(raw, &v)
				got, has := v["secret"]
				switch {
				case seat < 0 && has:
					t.Fatalf("the spectator saw a secret: %s", raw)
				case seat >= 0 && has && int(got.(float64)) != secrets[seat]:
					t.Fatalf("%s saw secret %v, its own is %d: %s", c.name, got, secrets[seat], raw)
				}
			}
		}
		if checked < 3 {
			t.Fatalf("%s: only %d frames checked", c.name, checked)
		}
	}
}
