package protocol

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// ErrInvalid wraps every decoding failure of a client message.
var ErrInvalid = errors.New("invalid message")

// Inbound is a decoded client message: exactly one of the pointers is set.
type Inbound struct {
	Type   string
	Hello  *Hello
	Action *Action
	Ping   *Ping
}

// clientWire holds the fields of every client message, so that a frame is
// parsed once whatever its type.
type clientWire struct {
	Type    string          `json:"type"`
	Room    string          `json:"room"`
	Token   string          `json:"token"`
	Name    string          `json:"name"`
	Watch   bool            `json:"watch"`
	Invite  string          `json:"invite"`
	Game    GamePin         `json:"game"`
	Epoch   string          `json:"epoch"`
	Rev     *uint64         `json:"rev"`
	ID      string          `json:"id"`
	Command json.RawMessage `json:"command"`
	Control *Control        `json:"control"`
	T       float64         `json:"t"`
	Auth    string          `json:"auth"`
	Text    string          `json:"text"`
	Message string          `json:"message"`
	Reason  string          `json:"reason"`
}

// DecodeClient decodes one client frame. The error wraps ErrInvalid and names
// the problem; an unknown type is reported with Type set, so the server can
// answer unknown-type rather than invalid-message.
func DecodeClient(data []byte) (Inbound, error) {
	if in, ok := decodeCommand(data); ok {
		return in, nil
	}
	return decodeWire(data)
}

// decodeWire is DecodeClient through encoding/json: every message, and
// every error named.
func decodeWire(data []byte) (Inbound, error) {
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return Inbound{}, fmt.Errorf("%w: not a JSON object", ErrInvalid)
	}
	var w clientWire
	if err := json.Unmarshal(trimmed, &w); err != nil {
		var head struct {
			Type string `json:"type"`
		}
		_ = json.Unmarshal(trimmed, &head) // name the type when the frame has one
		return Inbound{Type: head.Type}, fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	in := Inbound{Type: w.Type}
	switch w.Type {
	case TypeHello:
		if w.Room == "" {
			return in, fmt.Errorf("%w: hello without a room", ErrInvalid)
		}
		if len(w.Name) > 64 || len(w.Token) > 128 || len(w.Room) > 32 || len(w.Invite) > 64 || len(w.Auth) > 8192 {
			return in, fmt.Errorf("%w: hello field too long", ErrInvalid)
		}
		in.Hello = &Hello{Type: w.Type, Room: w.Room, Token: w.Token, Name: w.Name, Watch: w.Watch, Invite: w.Invite, Game: w.Game, Epoch: w.Epoch, Rev: w.Rev, Auth: w.Auth}
	case TypeCommand, TypeResign, TypeControl, TypeReconnect, TypeLeave, TypeResync, TypeChat, TypeReport:
		if w.ID == "" || len(w.ID) > 64 {
			return in, fmt.Errorf("%w: %s needs an id of 1 to 64 characters", ErrInvalid, w.Type)
		}
		if w.Rev == nil {
			return in, fmt.Errorf("%w: %s needs the revision seen (rev)", ErrInvalid, w.Type)
		}
		if w.Type == TypeCommand && len(w.Command) == 0 {
			return in, fmt.Errorf("%w: command without a command", ErrInvalid)
		}
		if w.Type == TypeControl && (w.Control == nil || w.Control.Op == "") {
			return in, fmt.Errorf("%w: control without an op", ErrInvalid)
		}
		if len(w.Text) > 2000 || len(w.Message) > 64 || len(w.Reason) > 2000 {
			return in, fmt.Errorf("%w: %s field too long", ErrInvalid, w.Type)
		}
		if w.Type == TypeChat && w.Text == "" {
			return in, fmt.Errorf("%w: chat without a text", ErrInvalid)
		}
		if w.Type == TypeReport && w.Message == "" {
			return in, fmt.Errorf("%w: report without the message it reports", ErrInvalid)
		}
		a := &Action{Type: w.Type, ID: w.ID, Rev: *w.Rev, Control: w.Control}
		switch w.Type {
		case TypeCommand:
			a.Command = w.Command
		case TypeChat:
			a.Text = w.Text
		case TypeReport:
			a.Message, a.Reason = w.Message, w.Reason
		}
		in.Action = a
	case TypePing:
		in.Ping = &Ping{Type: w.Type, T: w.T}
	case "":
		return in, fmt.Errorf("%w: no type", ErrInvalid)
	default:
		return in, fmt.Errorf("%w: unknown type %q", ErrInvalid, w.Type)
	}
	return in, nil
}

// Known reports whether typ is a client message type this protocol defines.
func Known(typ string) bool {
	switch typ {
	case TypeHello, TypeCommand, TypeResign, TypeControl, TypeReconnect, TypeLeave, TypeResync, TypePing, TypeChat, TypeReport:
		return true
	}
	return false
}

// Encode marshals a message. Server messages are plain structs with their
// Type set by the caller (or by the Set* helpers below).
func Encode(msg any) ([]byte, error) { return json.Marshal(msg) }

// ServerMessage is any message a server sends, decoded by a client.
type ServerMessage struct {
	Type     string
	Welcome  *Welcome
	Snapshot *Snapshot
	Update   *Update
	Receipt  *Receipt
	Presence *Presence
	Notice   *NoticeMessage
	Bye      *Bye
	Pong     *Pong
	Tick     *Tick
	Chat     *Chat
}

// RawSnapshot and RawUpdate keep the game parts undecoded, for clients that
// decode views and beats with the game's own types.
type (
	RawSnapshot struct {
		Snapshot
		View json.RawMessage `json:"view"`
	}
	RawUpdate struct {
		Update
		Beats json.RawMessage `json:"beats,omitempty"`
		View  json.RawMessage `json:"view,omitempty"`
	}
	RawTick struct {
		Tick
		Beats json.RawMessage `json:"beats"`
	}
)

// DecodeServer decodes one server frame. Views and beats stay raw JSON
// (json.RawMessage) inside Snapshot.View, Update.Beats and Update.View.
func DecodeServer(data []byte) (ServerMessage, error) {
	if m, ok := decodeHot(data, false, false); ok {
		return m, nil
	}
	return decodeServerWire(data)
}

// DecodeServerOwned is DecodeServer for a caller that hands data over: the
// message's raw beats and view may be slices of it rather than copies.
func DecodeServerOwned(data []byte) (ServerMessage, error) {
	if m, ok := decodeHot(data, true, false); ok {
		return m, nil
	}
	return decodeServerWire(data)
}

// DecodeServerFrameOwned decodes every message of one server frame that
// the caller hands over (see DecodeServerOwned), in order: each gets a
// message's bytes and the message, or the error that names what is wrong
// with it, and returns false to stop. The error returned is the frame's
// own (a batched frame that does not split: each is not called). A batched
// frame is checked once, as it is split — its messages' beats and views
// are not checked again.
func DecodeServerFrameOwned(data []byte, each func(raw []byte, m ServerMessage, err error) bool) error {
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	if len(trimmed) == 0 || trimmed[0] != '[' {
		m, err := DecodeServerOwned(data)
		each(data, m, err)
		return nil
	}
	parts, checked := splitObjects(trimmed)
	if !checked {
		var err error
		if parts, err = SplitServerFrame(data); err != nil {
			return err
		}
	}
	for _, raw := range parts {
		m, ok := decodeHot(raw, true, checked)
		var err error
		if !ok {
			m, err = decodeServerWire(raw)
		}
		if !each(raw, m, err) {
			break
		}
	}
	return nil
}

// decodeServerWire is DecodeServer through encoding/json: every message,
// and every error named.
func decodeServerWire(data []byte) (ServerMessage, error) {
	var head struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return ServerMessage{}, fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	m := ServerMessage{Type: head.Type}
	var err error
	switch head.Type {
	case TypeWelcome:
		m.Welcome = new(Welcome)
		err = json.Unmarshal(data, m.Welcome)
	case TypeSnapshot:
		var raw RawSnapshot
		err = json.Unmarshal(data, &raw)
		raw.Snapshot.View = raw.View
		m.Snapshot = &raw.Snapshot
	case TypeUpdate:
		var raw RawUpdate
		err = json.Unmarshal(data, &raw)
		raw.Update.Beats, raw.Update.View = raw.Beats, raw.View
		if len(raw.Beats) == 0 {
			raw.Update.Beats = nil
		}
		if len(raw.View) == 0 {
			raw.Update.View = nil
		}
		m.Update = &raw.Update
	case TypeReceipt:
		m.Receipt = new(Receipt)
		err = json.Unmarshal(data, m.Receipt)
	case TypePresence:
		m.Presence = new(Presence)
		err = json.Unmarshal(data, m.Presence)
	case TypeNotice:
		m.Notice = new(NoticeMessage)
		err = json.Unmarshal(data, m.Notice)
	case TypeBye:
		m.Bye = new(Bye)
		err = json.Unmarshal(data, m.Bye)
	case TypePong:
		m.Pong = new(Pong)
		err = json.Unmarshal(data, m.Pong)
	case TypeChat:
		m.Chat = new(Chat)
		err = json.Unmarshal(data, m.Chat)
	case TypeTick:
		var raw RawTick
		err = json.Unmarshal(data, &raw)
		raw.Tick.Beats = raw.Beats
		if len(raw.Beats) == 0 {
			raw.Tick.Beats = nil
		}
		m.Tick = &raw.Tick
	default:
		return m, fmt.Errorf("%w: unknown server message type %q", ErrInvalid, head.Type)
	}
	if err != nil {
		return m, fmt.Errorf("%w: %s: %v", ErrInvalid, head.Type, err)
	}
	return m, nil
}

// MaxBatch bounds the bytes of a batched server frame: a server joins queued
// messages into one frame only while the result stays under it.
const MaxBatch = 64 << 10

// SplitServerFrame returns the messages of one server frame: the frame itself,
// or the elements of a batched frame (a JSON array of messages). The
// messages share data's bytes.
func SplitServerFrame(data []byte) ([][]byte, error) {
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	if len(trimmed) == 0 || trimmed[0] != '[' {
		return [][]byte{data}, nil
	}
	if out, ok := splitObjects(trimmed); ok {
		return out, nil
	}
	var raws []json.RawMessage
	if err := json.Unmarshal(trimmed, &raws); err != nil {
		return nil, fmt.Errorf("%w: batched frame: %v", ErrInvalid, err)
	}
	out := make([][]byte, len(raws))
	for i, r := range raws {
		out[i] = r
	}
	return out, nil
}
