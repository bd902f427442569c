package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/roomd/roomd/core/babagame"
	"github.com/roomd/roomd/core/cardgame"
	"github.com/roomd/roomd/core/session"
	"github.com/roomd/roomd/core/spellgridgame"
	"github.com/roomd/roomd/protocol"
)

// seed003Game is one of seed 003's games as TestKill9Seed003Games plays
// it: a room's settings, how a bot follows its view, and the commands
// played before the kill and after the restart (to the end of the match).
type seed003Game struct {
	game, settings string
	pin            protocol.GamePin
	ai             bool // the second seat is the AI's
	follow         func(view, beats json.RawMessage) (json.RawMessage, error)
	before, after  func(t *testing.T, b *bot)
}

var seed003Games = []seed003Game{
	{
		// The level's known solution is six steps right; before the kill:
		// two, an undo, three more (four stand); after: the last two.
		game: "baba", settings: `{"level":"baba-is-you","control":"shared"}`,
		pin:    protocol.GamePin{ID: "baba", RulesVersion: babagame.RulesVersion},
		follow: followBaba,
		before: func(t *testing.T, b *bot) {
			for _, c := range []string{"r", "r", "undo", "r", "r", "r"} {
				b.play(t, babaCmd(c))
			}
			if v := decodeView[babagame.View](t, b); v.Moves != 4 || v.Won {
				t.Fatalf("baba before the kill: %d moves, won %v", v.Moves, v.Won)
			}
		},
		after: func(t *testing.T, b *bot) {
			b.play(t, babaCmd("r"))
			b.play(t, babaCmd("r"))
			if v := decodeView[babagame.View](t, b); !v.Won || v.Moves != 6 {
				t.Fatalf("baba after the solution: %d moves, won %v", v.Moves, v.Won)
			}
		},
	},
	{
		// The golem level: Fireball the golem, Whirlwind the Damaged Golem
		// it leaves, walk six tiles right. Before the kill a step and its
		// undo, then the Fireball.
		game: "spellgrid", settings: `{"level":"golem"}`,
		pin:    protocol.GamePin{ID: "spellgrid", RulesVersion: spellgridgame.RulesVersion},
		follow: followSpellGrid,
		before: func(t *testing.T, b *bot) {
			b.play(t, `{"type":"step","dir":"right"}`)
			b.play(t, `{"type":"undo"}`)
			golem := 0
			for _, m := range decodeView[spellgridgame.View](t, b).Minions {
				if m.X == 3 && m.Y == 4 {
					golem = int(m.ID)
				}
			}
			b.play(t, fmt.Sprintf(`{"type":"cast","card":"Fireball","target":%d}`, golem))
		},
		after: func(t *testing.T, b *bot) {
			b.play(t, `{"type":"cast","card":"Whirlwind"}`)
			for range 6 {
				b.play(t, `{"type":"step","dir":"right"}`)
			}
			if v := decodeView[spellgridgame.View](t, b); !v.Won {
				t.Fatalf("spellgrid after the solution: not won: %+v", v)
			}
		},
	},
	{
		// A duel against the AI: the bot plays seat 0 with the AI's own
		// choices, three turns of its own before the kill, to the end after.
		game: "cards", settings: `{}`, ai: true,
		pin:    protocol.GamePin{ID: "cards", RulesVersion: cardgame.RulesVersion},
		follow: followCards,
		before: func(t *testing.T, b *bot) { playCards(t, b, 6) },
		after:  func(t *testing.T, b *bot) { playCards(t, b, 1<<30) },
	},
}

// TestKill9Seed003Games kills roomd (the embedded store, default flags)
// with SIGKILL while a Baba, a SpellGrid and a card-duel match run,
// restarts it on the same data, and checks that every room comes back
// exactly: the snapshot after the restart is at the revision of the last
// acknowledged command, with the view each bot had followed, beat by beat,
// byte for byte (the card duel's with the AI's moves in it). The matches
// are then played to their ends, and each finished match replays
// (`roomd replay`).
func TestKill9Seed003Games(t *testing.T) {
	t.Parallel()
	addr, data := freeAddr(t), t.TempDir()
	p := startRoomd(t, addr, "--data", data, "--ai-delay", "5ms")
	bots := make([]*bot, len(seed003Games))
	rooms := make([]string, len(seed003Games))
	for i, g := range seed003Games {
		code, token := createGame(t, p.URL, g.game, "Ann", g.settings)
		b := dialFollow(t, p.URL, code, token, g.pin, g.follow)
		b.until("the snapshot", 10*time.Second, func() bool { return b.snapshot != nil })
		if g.ai {
			b.control(t, protocol.Control{Op: protocol.ControlFillWithAI})
		}
		b.control(t, protocol.Control{Op: protocol.ControlStart})
		b.until("the match's view", 10*time.Second, func() bool { return b.view != nil && b.update != nil && b.update.View != nil })
		g.before(t, b)
		bots[i], rooms[i] = b, code
	}

	type state struct {
		rev  uint64
		view string
	}
	before := make([]state, len(bots))
	for i, b := range bots {
		b.mu.Lock()
		before[i] = state{b.rev, canon(t, b.view)}
		b.snapshot = nil // what comes after the restart
		b.mu.Unlock()
	}
	p.kill9()
	p2 := startRoomd(t, addr, "--data", data, "--ai-delay", "5ms")
	for i, b := range bots {
		g := seed003Games[i]
		b.until("the snapshot after the restart", 20*time.Second, func() bool { return b.snapshot != nil })
		b.mu.Lock()
		snap := b.snapshot
		b.mu.Unlock()
		raw, _ := snap.View.(json.RawMessage)
		// A match whose clock runs comes back one revision on: the crash's
		// downtime credited to it (kindResume); the view is the same.
		want := before[i].rev
		if snap.Room.Clocks.Running {
			want++
		}
		if snap.Room.Phase != protocol.PhaseRunning || snap.Rev != want || canon(t, raw) != before[i].view {
			t.Fatalf("%s after the kill: phase %s, revision %d (was %d), view\n%s\nwas\n%s",
				g.game, snap.Room.Phase, snap.Rev, before[i].rev, canon(t, raw), before[i].view)
		}
		t.Logf("%s: back at revision %d with the same view", g.game, snap.Rev)
	}
	for i, b := range bots {
		g := seed003Games[i]
		g.after(t, b)
		b.until("the result", 20*time.Second, func() bool { return b.update != nil && b.update.Result != nil })
		b.mu.Lock()
		res := b.update.Result
		b.mu.Unlock()
		t.Logf("%s: the match ended %s, winners %v", g.game, res.Status, res.Winners)
		checkReplay(t, p2.URL, rooms[i])
		b.close()
	}
	p2.term()
}

// checkReplay runs `roomd replay` on a room's last finished match, as GET
// /api/rooms/{code}/replay gives it, and fails unless it is valid.
func checkReplay(t *testing.T, base, room string) {
	t.Helper()
	resp, err := http.Get(base + "/api/rooms/" + room + "/replay")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET the replay of %s: %d %s", room, resp.StatusCode, body)
	}
	file := filepath.Join(t.TempDir(), "match.json")
	if err := os.WriteFile(file, body, 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(roomdBinary(t), "replay", file).CombinedOutput()
	if err != nil || !strings.Contains(string(out), `"valid": true`) && !strings.Contains(string(out), `"valid":true`) {
		t.Fatalf("roomd replay of %s: %v\n%s", room, err, out)
	}
}

// control sends a room control and fails unless it is accepted.
func (b *bot) control(t *testing.T, c protocol.Control) {
	t.Helper()
	id := b.send(protocol.Action{Type: protocol.TypeControl, Control: &c})
	if ok, code, _ := b.waitReceipt(id, 10*time.Second); !ok {
		t.Fatalf("room %s: %s: %s", b.room, c.Op, code)
	}
}

// play sends a game command, fails unless it is accepted, and waits until
// the bot's view has followed it.
func (b *bot) play(t *testing.T, cmd string) {
	t.Helper()
	var id string
	for try := 0; ; try++ {
		id = b.send(protocol.Action{Type: protocol.TypeCommand, Command: json.RawMessage(cmd)})
		ok, code, _ := b.waitReceipt(id, 10*time.Second)
		if ok {
			break
		}
		// A card duel's long turn is more commands than the connection's
		// burst (40, then 20 a second): a client waits and sends again.
		if code != protocol.CodeRateLimited || try == 20 {
			t.Fatalf("room %s: %s: refused (%q) or no receipt", b.room, cmd, code)
		}
		time.Sleep(100 * time.Millisecond)
	}
	b.mu.Lock()
	rev := b.acked[id]
	b.mu.Unlock()
	b.until(fmt.Sprintf("the update of %s", cmd), 10*time.Second, func() bool { return b.rev >= rev })
}

func babaCmd(c string) string {
	if c == "undo" {
		return `{"type":"undo"}`
	}
	dirs := map[string]string{"u": "up", "d": "down", "l": "left", "r": "right"}
	return fmt.Sprintf(`{"type":"step","dir":%q}`, dirs[c])
}

// playCards plays seat 0 of a duel with the AI's choices until it is seat
// 0's turn again at or past turn (no AI move pending then), or the match
// is over.
func playCards(t *testing.T, b *bot, turn int) {
	t.Helper()
	for range 2000 {
		var v cardgame.View
		b.until("seat 0's turn or the end", 20*time.Second, func() bool {
			v = cardgame.View{}
			json.Unmarshal(b.view, &v)
			return v.Phase != cardgame.PhaseActive || v.Active == 0
		})
		if v.Phase != cardgame.PhaseActive || v.Turn >= turn {
			return
		}
		m, ok := cardgame.Rules{}.Choose(v, 0, session.IntSeed(7).Source())
		if !ok {
			t.Fatalf("seat 0 has nothing to do on its turn: %+v", v)
		}
		cmd, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		b.play(t, string(cmd))
	}
	t.Fatal("2000 commands and the duel goes on")
}

// decodeView decodes the bot's followed view.
func decodeView[V any](t *testing.T, b *bot) V {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	var v V
	if err := json.Unmarshal(b.view, &v); err != nil {
		t.Fatalf("view: %v", err)
	}
	return v
}

// follower is a bot's follow function (see bot.follow) for a game whose
// view is V and beats E, moved on by apply.
func follower[V, E any](apply func(v V, beats []E) V) func(view, beats json.RawMessage) (json.RawMessage, error) {
	return func(view, beats json.RawMessage) (json.RawMessage, error) {
		var v V
		var evs []E
		if err := json.Unmarshal(view, &v); err != nil {
			return nil, err
		}
		if err := json.Unmarshal(beats, &evs); err != nil {
			return nil, err
		}
		return json.Marshal(apply(v, evs))
	}
}

var (
	followBaba      = follower(func(v babagame.View, evs []babagame.Event) babagame.View { v.Apply(evs); return v })
	followSpellGrid = follower(func(v spellgridgame.View, evs []spellgridgame.Event) spellgridgame.View { v.Apply(evs); return v })
	followCards     = follower(cardgame.View.Apply)
)
