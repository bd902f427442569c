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

// DecodeClient decodes one client frame. The error wraps ErrInvalid and names
// the problem; an unknown type is reported with Type set, so the server can
// answer unknown-type rather than invalid-message.
func DecodeClient(data []byte) (Inbound, error) {
	var head struct {
		Type string `json:"type"`
	}
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return Inbound{}, fmt.Errorf("%w: not a JSON object", ErrInvalid)
	}
	if err := json.Unmarshal(trimmed, &head); err != nil {
		return Inbound{}, fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	in := Inbound{Type: head.Type}
	switch head.Type {
	case TypeHello:
		var h Hello
		if err := json.Unmarshal(trimmed, &h); err != nil {
			return in, fmt.Errorf("%w: hello: %v", ErrInvalid, err)
		}
		if h.Room == "" {
			return in, fmt.Errorf("%w: hello without a room", ErrInvalid)
		}
		if len(h.Name) > 64 || len(h.Token) > 128 || len(h.Room) > 32 {
			return in, fmt.Errorf("%w: hello field too long", ErrInvalid)
		}
		in.Hello = &h
	case TypeCommand, TypeResign, TypeControl, TypeReconnect, TypeLeave, TypeResync:
		var a Action
		if err := json.Unmarshal(trimmed, &a); err != nil {
			return in, fmt.Errorf("%w: %s: %v", ErrInvalid, head.Type, err)
		}
		if a.ID == "" || len(a.ID) > 64 {
			return in, fmt.Errorf("%w: %s needs an id of 1 to 64 characters", ErrInvalid, head.Type)
		}
		if a.Type == TypeCommand && len(a.Command) == 0 {
			return in, fmt.Errorf("%w: command without a command", ErrInvalid)
		}
		if a.Type == TypeControl && (a.Control == nil || a.Control.Op == "") {
			return in, fmt.Errorf("%w: control without an op", ErrInvalid)
		}
		in.Action = &a
	case TypePing:
		var p Ping
		if err := json.Unmarshal(trimmed, &p); err != nil {
			return in, fmt.Errorf("%w: ping: %v", ErrInvalid, err)
		}
		in.Ping = &p
	case "":
		return in, fmt.Errorf("%w: no type", ErrInvalid)
	default:
		return in, fmt.Errorf("%w: unknown type %q", ErrInvalid, head.Type)
	}
	return in, nil
}

// Known reports whether typ is a client message type this protocol defines.
func Known(typ string) bool {
	switch typ {
	case TypeHello, TypeCommand, TypeResign, TypeControl, TypeReconnect, TypeLeave, TypeResync, TypePing:
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
)

// DecodeServer decodes one server frame. Views and beats stay raw JSON
// (json.RawMessage) inside Snapshot.View, Update.Beats and Update.View.
func DecodeServer(data []byte) (ServerMessage, error) {
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
// or the elements of a batched frame (a JSON array of messages).
func SplitServerFrame(data []byte) ([][]byte, error) {
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	if len(trimmed) == 0 || trimmed[0] != '[' {
		return [][]byte{data}, nil
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
