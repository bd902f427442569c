package room

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/roomd/roomd/internal/ids"
	"github.com/roomd/roomd/protocol"
)

// chat.go is a room's chat (PROTOCOL.md §2.10): short plain-text messages
// from its players — and its spectators, when the host allows — relayed to
// everyone in the room; the host mutes a seat or removes it; anyone can
// report a message to the server's operators.
//
// What the protocol guarantees: a message is text from a person, cleaned
// as names are (no control, format or bidi characters; at most
// protocol.MaxChatRunes characters), named by the room (a seat's name, or
// a spectator's marked as such), never markup, and never anything the room
// computed: the server adds nothing of any seat's hidden state to chat. It
// cannot stop a person from typing what they see; so spectators — who see
// no more than any player, and in a race less — may chat only when the
// host allows it.
//
// Chat is not the room's history: messages are kept in memory (the last
// chatKept) to show newcomers, not stored, and a restart forgets them.
// Mutes and the spectators' permission are room state, stored as entries.

// Chat limits.
const (
	chatKept = 50 // messages a room keeps to show newcomers
	// Each connection may send chatBurst messages at once, then one per
	// chatEvery; a room relays at most roomChatBurst at once, then
	// roomChatRate a second, whoever sends them.
	chatBurst     = 5
	chatEvery     = 2 * time.Second
	roomChatBurst = 20
	roomChatRate  = 5
	// maxReports bounds the reports a server keeps for its operators.
	maxReports = 1000
)

// Report is a chat message someone reported, kept for the admin page.
type Report struct {
	Room     string               `json:"room"`
	Message  protocol.ChatMessage `json:"message"`
	Reporter string               `json:"reporter"` // the reporter's name as the room knows it
	Reason   string               `json:"reason,omitempty"`
	At       int64                `json:"at"`
}

// reports is the server's recent reports, newest last.
type reports struct {
	mu   sync.Mutex
	list []Report
}

func (rs *reports) add(rep Report) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if len(rs.list) == maxReports {
		rs.list = append(rs.list[:0], rs.list[1:]...)
	}
	rs.list = append(rs.list, rep)
}

// Reports returns the reports kept (at most 1,000), newest first.
func (m *Manager) Reports() []Report {
	m.reports.mu.Lock()
	defer m.reports.mu.Unlock()
	out := make([]Report, len(m.reports.list))
	for i, rep := range m.reports.list {
		out[len(out)-1-i] = rep
	}
	return out
}

// chatter is what a member needs to chat: its name (a spectator's; a
// player's is its seat's) and its own rate.
type chatter struct {
	name    string
	limiter *rate.Limiter
}

// author returns who mem is in chat: a seat and its name, or a spectator.
func (r *Room) author(mem *member) (seat *int, name string, err error) {
	if mem.player == "" {
		if !r.st.SpectatorChat {
			return nil, "", refuse(protocol.CodeWrongSeat, "spectators may not chat in this room (the host decides)")
		}
		return nil, spectatorLabel(mem.chat.name), nil
	}
	i := r.st.seatOf(mem.player)
	if i < 0 {
		return nil, "", refuse(protocol.CodeWrongSeat, "this seat is no longer in the room")
	}
	p := r.st.Players[i]
	if p.Muted {
		return nil, "", refuse(protocol.CodeMuted, "the host has muted your chat")
	}
	return &i, p.Name, nil
}

// chatAllowed spends one of mem's chat tokens and one of the room's.
func (r *Room) chatAllowed(mem *member) error {
	now := r.now()
	if mem.chat.limiter == nil {
		mem.chat.limiter = rate.NewLimiter(rate.Every(chatEvery), chatBurst)
	}
	if r.chatRate == nil {
		r.chatRate = rate.NewLimiter(roomChatRate, roomChatBurst)
	}
	if !mem.chat.limiter.AllowN(now, 1) {
		return refuse(protocol.CodeRateLimited, fmt.Sprintf("at most %d messages at once, then one every %v", chatBurst, chatEvery))
	}
	if !r.chatRate.AllowN(now, 1) {
		return refuse(protocol.CodeRateLimited, "this room's chat is busy; try again in a moment")
	}
	return nil
}

// chat relays a message to everyone in the room.
func (r *Room) chat(mem *member, a *protocol.Action) error {
	seat, name, err := r.author(mem)
	if err != nil {
		return err
	}
	text, err := chatText(a.Text, "a message")
	if err != nil {
		return err
	}
	if err := r.chatAllowed(mem); err != nil {
		return err
	}
	msg := protocol.ChatMessage{ID: ids.New(), Seat: seat, Name: name, Text: text, At: r.now().UnixMilli()}
	if len(r.chatLog) == chatKept {
		r.chatLog = append(r.chatLog[:0], r.chatLog[1:]...)
	}
	r.chatLog = append(r.chatLog, msg)
	frame := encodeMsg(protocol.Chat{Type: protocol.TypeChat, Messages: []protocol.ChatMessage{msg}})
	for c := range r.members {
		r.send(out{to: c, frame: frame})
	}
	r.acknowledged(mem, a.ID)
	return nil
}

// report keeps a recent message someone reported, for the operators.
func (r *Room) report(mem *member, a *protocol.Action) error {
	var msg *protocol.ChatMessage
	for i := range r.chatLog {
		if r.chatLog[i].ID == a.Message {
			msg = &r.chatLog[i]
		}
	}
	if msg == nil {
		return refuse(protocol.CodeInvalidMessage, fmt.Sprintf("no recent message %q in this room", a.Message))
	}
	reason := ""
	if strings.TrimSpace(a.Reason) != "" {
		var err error
		if reason, err = chatText(a.Reason, "a reason"); err != nil {
			return err
		}
	}
	if err := r.chatAllowed(mem); err != nil {
		return err
	}
	reporter := spectatorLabel(mem.chat.name)
	if p := r.st.player(mem.player); p != nil {
		reporter = p.Name
	}
	rep := Report{Room: r.code, Message: *msg, Reporter: reporter, Reason: reason, At: r.now().UnixMilli()}
	r.m.reports.add(rep)
	r.log.Warn("chat message reported", "message", msg.ID, "author", msg.Name, "reporter", reporter)
	r.acknowledged(mem, a.ID)
	return nil
}

// acknowledged answers an action that changes no room state (chat, a
// report) and notes it, so that a resend is answered and not done twice.
func (r *Room) acknowledged(mem *member, id string) {
	if mem.player != "" {
		r.st.window(mem.player).add(dedupEntry{H: actionHash(id), Rev: r.st.Rev})
	}
	r.send(out{to: mem.c, frame: receiptOK(id, r.st.Rev)})
}

// sendChatHistory sends a member that just came the room's recent
// messages.
func (r *Room) sendChatHistory(c Client) {
	if len(r.chatLog) == 0 {
		return
	}
	r.send(out{to: c, frame: encodeMsg(protocol.Chat{Type: protocol.TypeChat, Messages: r.chatLog, History: true})})
}

// chatText cleans a message as names are cleaned, refusing one that is
// empty or longer than protocol.MaxChatRunes once cleaned.
func chatText(s, what string) (string, error) {
	text, cut := cleanRunes(s, protocol.MaxChatRunes)
	if text == "" {
		return "", refuse(protocol.CodeInvalidMessage, what+" with no text")
	}
	if cut {
		return "", refuse(protocol.CodeInvalidMessage, fmt.Sprintf("%s longer than %d characters", what, protocol.MaxChatRunes))
	}
	return text, nil
}

// spectatorName is a spectator's name: the hello's, cleaned ("" for none).
func spectatorName(name string) string {
	if strings.TrimSpace(name) == "" {
		return ""
	}
	return cleanName(name)
}

// spectatorLabel is how chat names a spectator: "Eve (spectator)", or
// "Spectator" for one without a name.
func spectatorLabel(name string) string {
	if name == "" {
		return "Spectator"
	}
	return name + " (spectator)"
}
