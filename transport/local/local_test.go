package local

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/roomd/roomd/core/minesweeper"
	"github.com/roomd/roomd/core/nim"
	"github.com/roomd/roomd/core/session"
	"github.com/roomd/roomd/protocol"
	"github.com/roomd/roomd/room"
	"github.com/roomd/roomd/store/memstore"
	"github.com/roomd/roomd/transport"
	"github.com/roomd/roomd/transport/client"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var games = session.NewRegistry(minesweeper.Game, nim.Game)

// seeds returns the same seed sequence to every caller that makes one.
func seeds() func() session.Seed {
	var n atomic.Int64
	return func() session.Seed { return session.IntSeed(1000 + n.Add(1)) }
}

// step is one action of a scenario.
type step struct {
	id      string
	typ     string
	command string
	control *protocol.Control
	// ai waits, after the receipt, for the AI's answering move (seat 1):
	// the AI plays on the room's timer, so a scenario that did not wait
	// would race it.
	ai bool
}

func cmd(id, c string) step   { return step{id: id, typ: protocol.TypeCommand, command: c} }
func aiCmd(id, c string) step { return step{id: id, typ: protocol.TypeCommand, command: c, ai: true} }
func ctl(id, op string) step {
	return step{id: id, typ: protocol.TypeControl, control: &protocol.Control{Op: op}}
}

// run plays the steps on t (started and online) and returns every event it
// delivered until it closed, normalised: what differs between two runs of
// the same room on different servers (ids, epochs, clocks, raw bytes) is
// blanked; the order and everything else is kept.
func run(tb testing.TB, tr client.Transport, steps []step) []string {
	tb.Helper()
	ctx := context.Background()
	var got []string
	wait := func(id string, ai bool) {
		receipt := id == ""
		for ev := range tr.Events() {
			if s, keep := normalise(tb, ev); keep {
				got = append(got, s)
			}
			if ev.Receipt != nil && ev.Receipt.ID == id {
				receipt = true
			}
			if receipt && id != "" && (!ai || ev.Update != nil && ev.Update.By != nil && *ev.Update.By == 1) {
				return
			}
		}
		if id != "" {
			tb.Fatalf("closed before the receipt of %s", id)
		}
	}
	for tr.State() != client.StateOnline {
		ev, ok := <-tr.Events()
		if !ok {
			tb.Fatal("closed before going online")
		}
		if s, keep := normalise(tb, ev); keep {
			got = append(got, s)
		}
	}
	for _, st := range steps {
		a := protocol.Action{Type: st.typ, ID: st.id, Control: st.control}
		if st.command != "" {
			a.Command = json.RawMessage(st.command)
		}
		if _, err := tr.Send(ctx, a); err != nil {
			tb.Fatalf("%s: %v", st.id, err)
		}
		wait(st.id, st.ai)
	}
	wait("", false) // until the transport closes (the last step leaves)
	return got
}

var (
	ulid   = regexp.MustCompile(`"[0-9A-HJKMNP-TV-Z]{26}"`)
	code   = regexp.MustCompile(`"code":"[A-Z0-9]{6}"`)
	clocks = regexp.MustCompile(`"(now|startedAt|elapsedMs|time|t)":[0-9.e+-]+`)
)

func normalise(tb testing.TB, ev client.Event) (string, bool) {
	switch ev.Kind {
	case client.EventPresence, client.EventPong:
		return "", false // timing: coalesced on the room's timer
	}
	ev.Raw = nil
	ev.URL = "" // the node a remote event came through: none here
	b, err := json.Marshal(ev)
	if err != nil {
		tb.Fatal(err)
	}
	b = ulid.ReplaceAll(b, []byte(`"ULID"`))
	b = code.ReplaceAll(b, []byte(`"code":"ROOM"`))
	b = clocks.ReplaceAll(b, []byte(`"$1":0`))
	return string(b), true
}

// server is a real roomd front (HTTP and WebSockets on loopback) over a
// memory store, with the local transport's seeds and AI timing.
func server(t *testing.T, seeds func() session.Seed) string {
	t.Helper()
	rooms, err := room.NewManager(room.Config{Games: games, Store: memstore.New(), Seeds: seeds, AIDelay: -1})
	if err != nil {
		t.Fatal(err)
	}
	front, err := transport.NewServer(transport.Config{Rooms: rooms})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(front.Handler())
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		front.Shutdown(ctx)
		hs.Close()
	})
	return hs.URL
}

// TestLocalAndRemoteBehaveAlike plays the same scenarios through a local
// transport and through a remote one against a real server, and requires
// the same events — receipts, updates with their beats and results,
// snapshots, notices, the bye and the close — in the same order.
func TestLocalAndRemoteBehaveAlike(t *testing.T) {
	for _, sc := range []struct {
		name, game, settings string
		steps                []step
	}{
		{"hidden nim against the AI, a refusal, a resignation, a rematch, leaving", "nim", `{"pile":9}`, []step{
			ctl("fill", protocol.ControlFillWithAI), ctl("start", protocol.ControlStart),
			aiCmd("take2", `{"type":"take","n":2}`), cmd("too-many", `{"type":"take","n":9}`), cmd("bad", `{"type":"take"}`),
			{id: "resign", typ: protocol.TypeResign}, ctl("rematch", protocol.ControlRematch),
			aiCmd("take1", `{"type":"take","n":1}`), {id: "leave", typ: protocol.TypeLeave},
		}},
		{"solo minesweeper to its end", "minesweeper", `{"mode":"solo","level":"custom","rows":3,"cols":3,"mines":0}`, []step{
			ctl("not-host-op", "fly"), ctl("start", protocol.ControlStart), cmd("flag", `{"type":"flag","r":0,"c":0}`),
			cmd("off-board", `{"type":"reveal","r":5,"c":5}`), cmd("unflag", `{"type":"flag","r":0,"c":0}`),
			cmd("win", `{"type":"reveal","r":1,"c":1}`), cmd("after", `{"type":"reveal","r":0,"c":0}`),
			{id: "leave", typ: protocol.TypeLeave},
		}},
	} {
		t.Run(sc.name, func(t *testing.T) {
			url := server(t, seeds())
			var created room.JoinResult
			body := fmt.Sprintf(`{"game":%q,"settings":%s,"name":"Ann"}`, sc.game, sc.settings)
			resp, err := http.Post(url+"/api/rooms", "application/json", strings.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			json.NewDecoder(resp.Body).Decode(&created)
			resp.Body.Close()
			g, _ := games.Lookup(sc.game)
			pin := protocol.GamePin{ID: sc.game, RulesVersion: g.Info().RulesVersion}
			remote, err := client.Dial(context.Background(), client.Config{URL: url, Room: created.Room, Token: created.Token, Name: "Ann", Game: pin})
			if err != nil {
				t.Fatal(err)
			}
			defer remote.Close()
			want := run(t, remote, sc.steps)

			loc := New(Config{Room: room.Config{Games: games, Seeds: seeds()}, Game: sc.game, Settings: json.RawMessage(sc.settings), Name: "Ann"})
			if err := loc.Start(context.Background()); err != nil {
				t.Fatal(err)
			}
			defer loc.Close()
			got := run(t, loc, sc.steps)

			if len(want) < len(sc.steps)+4 {
				t.Fatalf("the remote run delivered only %d events", len(want))
			}
			for i := range max(len(got), len(want)) {
				var g, w string
				if i < len(got) {
					g = got[i]
				}
				if i < len(want) {
					w = want[i]
				}
				if g != w {
					t.Fatalf("event %d differs:\nlocal  %s\nremote %s", i, g, w)
				}
			}
			if res, ok := loc.Result(); !ok || res.Status == "" {
				t.Fatalf("local result %+v", res)
			}
			if !bytes.Contains([]byte(strings.Join(want, "\n")), []byte(`"Kind":"bye"`)) {
				t.Fatal("no bye before the close")
			}
		})
	}
}
