package transport

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/roomd/roomd/protocol"
	"github.com/roomd/roomd/transport/client"
)

// chats returns the chat messages c received, in order, and how many came
// as history.
func chats(c *tclient) (msgs []protocol.ChatMessage, history int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, ev := range c.events {
		if ev.Chat != nil {
			msgs = append(msgs, ev.Chat.Messages...)
			if ev.Chat.History {
				history += len(ev.Chat.Messages)
			}
		}
	}
	return msgs, history
}

func chatAction(text string) protocol.Action {
	return protocol.Action{Type: protocol.TypeChat, Text: text}
}

// TestChatRules plays PROTOCOL.md §2.10 over real sockets: a message is
// cleaned and relayed to everyone, named by the room; a resend of the same
// action is relayed once; empty and over-long messages are refused; a
// spectator may not chat until the host allows it; a muted seat is refused
// `muted`; a sender past its burst is rate-limited; a newcomer gets the
// history; a report is kept; and the host removes a player during a
// match — the player's socket closes with 4002 and the AI plays the seat
// on (co-op Minesweeper has an AI).
func TestChatRules(t *testing.T) {
	s := startServer(t)
	players, code := joinPlayers(t, s, `{"mode":"coop","level":"beginner"}`, 2)
	ann, bob := players[0], players[1]
	eve := s.dial("eve", client.Config{Room: code, Watch: true, Name: "Eve\u202e", Game: msPin})
	eve.waitOnline()

	// Cleaned, relayed, named; a resend is relayed once.
	a := chatAction("  hello\u200b   there\u0007 ")
	a.ID = "same-id"
	if rc := ann.send(a); !rc.OK {
		t.Fatalf("Ann's message: %+v", rc.Notice)
	}
	if id, err := ann.tr.Send(context.Background(), a); err != nil || id != "same-id" {
		t.Fatalf("resend: %q %v", id, err)
	}
	for _, c := range []*tclient{ann.tclient, bob.tclient, eve} {
		c.waitFor("Ann's message", func([]client.Event) bool { m, _ := chats(c); return len(m) == 1 })
		m, _ := chats(c)
		if m[0].Text != "hello there" || m[0].Name != "P0" || m[0].Seat == nil || *m[0].Seat != 0 || m[0].ID == "" {
			t.Fatalf("%s got %+v", c.name, m[0])
		}
	}
	for _, bad := range []string{" \u200b ", strings.Repeat("é", protocol.MaxChatRunes+1)} {
		if rc := ann.send(chatAction(bad)); rc.OK || rc.Notice.Code != protocol.CodeInvalidMessage {
			t.Fatalf("chat %q: %+v", bad, rc)
		}
	}
	if rc := ann.send(chatAction(strings.Repeat("é", protocol.MaxChatRunes))); !rc.OK {
		t.Fatalf("a message of %d characters: %+v", protocol.MaxChatRunes, rc.Notice)
	}

	// Spectators: refused, then allowed by the host.
	if rc := eve.send(chatAction("hi")); rc.OK || rc.Notice.Code != protocol.CodeWrongSeat {
		t.Fatalf("a spectator's chat: %+v", rc)
	}
	if rc := bob.control(protocol.Control{Op: protocol.ControlChat, SpectatorChat: true}); rc.OK || rc.Notice.Code != protocol.CodeNotHost {
		t.Fatalf("Bob opened the chat to spectators: %+v", rc)
	}
	if rc := ann.control(protocol.Control{Op: protocol.ControlChat, SpectatorChat: true}); !rc.OK {
		t.Fatal(rc.Notice)
	}
	if rc := eve.send(chatAction("hi")); !rc.OK {
		t.Fatalf("a spectator's chat once allowed: %+v", rc.Notice)
	}
	bob.waitFor("Eve's message", func([]client.Event) bool {
		m, _ := chats(bob.tclient)
		return len(m) == 3 && m[2].Name == "Eve (spectator)" && m[2].Seat == nil
	})

	// Mute.
	seat := 1
	if rc := ann.control(protocol.Control{Op: protocol.ControlMute, Seat: &seat, Muted: true}); !rc.OK {
		t.Fatal(rc.Notice)
	}
	if rc := bob.send(chatAction("let me speak")); rc.OK || rc.Notice.Code != protocol.CodeMuted {
		t.Fatalf("a muted seat's chat: %+v", rc)
	}
	if info := bob.resync().Room; !info.Seats[1].Muted || !info.SpectatorChat {
		t.Fatalf("room info: %+v", info)
	}

	// Rate: the burst, then a refusal.
	refused := 0
	for i := range 8 {
		if rc := eve.send(chatAction(fmt.Sprint("msg ", i))); !rc.OK {
			if rc.Notice.Code != protocol.CodeRateLimited {
				t.Fatalf("message %d: %+v", i, rc.Notice)
			}
			refused++
		}
	}
	if refused < 3 {
		t.Fatalf("%d of 8 quick messages refused; the burst is 5 (Eve had sent one)", refused)
	}

	// History for a newcomer, and a report.
	zed := s.dial("zed", client.Config{Room: code, Watch: true, Game: msPin})
	zed.waitOnline()
	zed.waitFor("the history", func([]client.Event) bool { _, h := chats(zed); return h > 0 })
	hist, h := chats(zed)
	if h != len(hist) || hist[0].Text != "hello there" {
		t.Fatalf("history %+v (%d as history)", hist, h)
	}
	if rc := zed.send(protocol.Action{Type: protocol.TypeReport, Message: hist[0].ID, Reason: "rude"}); !rc.OK {
		t.Fatal(rc.Notice)
	}
	if rc := zed.send(protocol.Action{Type: protocol.TypeReport, Message: "01NOTAMESSAGE"}); rc.OK {
		t.Fatal("a report of no message was accepted")
	}
	if reps := s.rooms.Reports(); len(reps) != 1 || reps[0].Message.ID != hist[0].ID || reps[0].Reason != "rude" || reps[0].Reporter != "zed (spectator)" {
		t.Fatalf("reports: %+v", reps)
	}

	// Removal during the match.
	if rc := ann.control(protocol.Control{Op: protocol.ControlRemoveSeat, Seat: &seat}); !rc.OK {
		t.Fatalf("remove Bob during the match: %+v", rc.Notice)
	}
	bob.closedWith(protocol.CloseLeft)
	ann.waitFor("the AI on Bob's seat", func([]client.Event) bool {
		info := ann.lastRoom()
		return len(info.Seats) == 2 && info.Seats[1].AI && info.Phase == protocol.PhaseRunning
	})
	if rc := ann.control(protocol.Control{Op: protocol.ControlRemoveSeat, Seat: &seat}); rc.OK {
		t.Fatal("removing a seat whose player has gone was accepted")
	}
}
