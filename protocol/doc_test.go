package protocol

import (
	"bytes"
	"encoding/json"
	"os"
	"regexp"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// compileSchema compiles the published schema; defs picks a $defs entry
// ("" for the root).
func compileSchema(t *testing.T, def string) *jsonschema.Schema {
	t.Helper()
	raw, err := Schema()
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(SchemaID, doc); err != nil {
		t.Fatal(err)
	}
	loc := SchemaID
	if def != "" {
		loc += "#/$defs/" + def
	}
	s, err := c.Compile(loc)
	if err != nil {
		t.Fatalf("compile %s: %v", loc, err)
	}
	return s
}

func validate(t *testing.T, s *jsonschema.Schema, msg []byte) error {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(msg))
	if err != nil {
		t.Fatalf("%s: %v", msg, err)
	}
	return s.Validate(v)
}

var jsonBlock = regexp.MustCompile("(?s)```json\n(.*?)\n```")

// TestProtocolDocExamples checks that every JSON example in PROTOCOL.md is a
// valid message by the published schema and decodes with the Go codec, and
// that every message type has an example.
func TestProtocolDocExamples(t *testing.T) {
	doc, err := os.ReadFile("../PROTOCOL.md")
	if err != nil {
		t.Fatal(err)
	}
	client, server := compileSchema(t, "ClientMessage"), compileSchema(t, "ServerMessage")
	seen := map[string]bool{}
	blocks := jsonBlock.FindAllSubmatch(doc, -1)
	if len(blocks) < 20 {
		t.Fatalf("found %d JSON examples in PROTOCOL.md; expected one per message at least", len(blocks))
	}
	frame := compileSchema(t, "ServerFrame")
	batches := 0
	for _, b := range blocks {
		msg := b[1]
		if msg[0] == '[' { // a batched server frame
			batches++
			if err := validate(t, frame, msg); err != nil {
				t.Errorf("batched example fails the schema: %v\n%s", err, msg)
			}
			parts, err := SplitServerFrame(msg)
			if err != nil || len(parts) < 2 {
				t.Errorf("batched example does not split: %v", err)
			}
			for _, p := range parts {
				if _, err := DecodeServer(p); err != nil {
					t.Errorf("batched example's message does not decode: %v\n%s", err, p)
				}
			}
			continue
		}
		var head struct {
			Type     string
			Messages json.RawMessage // "chat" both ways: the server's carries messages
		}
		if err := json.Unmarshal(msg, &head); err != nil {
			t.Errorf("example is not JSON: %v\n%s", err, msg)
			continue
		}
		seen[head.Type] = true
		if Known(head.Type) && head.Messages == nil {
			if err := validate(t, client, msg); err != nil {
				t.Errorf("client example fails the schema: %v\n%s", err, msg)
			}
			if _, err := DecodeClient(msg); err != nil {
				t.Errorf("client example does not decode: %v\n%s", err, msg)
			}
			continue
		}
		if err := validate(t, server, msg); err != nil {
			t.Errorf("server example fails the schema: %v\n%s", err, msg)
		}
		if _, err := DecodeServer(msg); err != nil {
			t.Errorf("server example does not decode: %v\n%s", err, msg)
		}
	}
	if batches == 0 {
		t.Error("PROTOCOL.md has no example of a batched frame")
	}
	for _, typ := range []string{TypeHello, TypeCommand, TypeResign, TypeControl, TypeReconnect, TypeLeave, TypeResync, TypePing,
		TypeWelcome, TypeSnapshot, TypeUpdate, TypeReceipt, TypePresence, TypeNotice, TypeBye, TypePong, TypeTick} {
		if !seen[typ] {
			t.Errorf("PROTOCOL.md has no example of %q", typ)
		}
	}
}

// TestSchemaRejects shows the schema is not vacuous: broken messages fail it.
func TestSchemaRejects(t *testing.T) {
	client, server := compileSchema(t, "ClientMessage"), compileSchema(t, "ServerMessage")
	for _, tc := range []struct {
		name string
		s    *jsonschema.Schema
		msg  string
	}{
		{"hello without room", client, `{"type":"hello","game":{"id":"x","rulesVersion":"1"}}`},
		{"command without command", client, `{"type":"command","id":"a","rev":1}`},
		{"control without control", client, `{"type":"control","id":"a","rev":1}`},
		{"action without id", client, `{"type":"leave","rev":1}`},
		{"unknown type", client, `{"type":"dance"}`},
		{"receipt without ok", server, `{"type":"receipt","id":"a"}`},
		{"update with a string rev", server, `{"type":"update","epoch":"e","from":"1","to":2,"by":null}`},
		{"bye without reconnect", server, `{"type":"bye","code":4000,"reason":"x"}`},
		{"tick without its number", server, `{"type":"tick","from":1,"to":1,"beats":[]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := validate(t, tc.s, []byte(tc.msg)); err == nil {
				t.Errorf("schema accepted %s", tc.msg)
			}
		})
	}
}

// TestEncodedMessagesMatchSchema encodes one of each server message from Go
// values, as the server does, and validates them.
func TestEncodedMessagesMatchSchema(t *testing.T) {
	server := compileSchema(t, "ServerMessage")
	seat := 1
	room := Room{Code: "ABCDEF", Phase: PhaseLobby, Seats: []SeatInfo{{Seat: 0, Name: "Ann"}}, Settings: json.RawMessage(`{}`),
		Game: GamePin{ID: "nim", RulesVersion: "nim/1"}, Connected: []int{0}, Access: AccessUnlisted}
	for _, m := range []any{
		Welcome{Type: TypeWelcome, Conn: "c", Seat: &seat, HeartbeatMs: 15000},
		Welcome{Type: TypeWelcome, Conn: "c"},
		Snapshot{Type: TypeSnapshot, Epoch: "e", Rev: 3, Room: room},
		Update{Type: TypeUpdate, Epoch: "e", From: 3, To: 4, Room: &room, Beats: []any{map[string]any{"type": "took"}}},
		Receipt{Type: TypeReceipt, ID: "a", OK: true, Rev: 4},
		Receipt{Type: TypeReceipt, ID: "a", Notice: &Notice{Code: CodeStale, Message: "m"}},
		Presence{Type: TypePresence, Connected: []int{}, Clocks: Clocks{Now: 1}},
		NoticeMessage{Type: TypeNotice, Code: CodeNameReplaced, Message: "m"},
		Bye{Type: TypeBye, Code: CloseRestarting, Reason: "r", Reconnect: true, RetryAfterMs: 1000},
		Pong{Type: TypePong, T: 1, Now: 2},
		Tick{Type: TypeTick, From: 4, To: 6, Tick: 81, Beats: []any{map[string]any{"t": "move"}}},
		Receipt{Type: TypeReceipt, ID: "a", OK: true, Rev: 5, Tick: 82},
	} {
		b, err := Encode(m)
		if err != nil {
			t.Fatal(err)
		}
		if err := validate(t, server, b); err != nil {
			t.Errorf("%s: %v", b, err)
		}
	}
}

// TestWebhookDocExample decodes PROTOCOL.md's webhook example (a block
// fenced "json webhook") strictly into the Go types roomd sends.
func TestWebhookDocExample(t *testing.T) {
	doc, err := os.ReadFile("../PROTOCOL.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)```json webhook\n(.*?)\n```").FindAllSubmatch(doc, -1)
	if len(blocks) == 0 {
		t.Fatal("no webhook example in PROTOCOL.md")
	}
	for _, b := range blocks {
		var ev WebhookEvent
		dec := json.NewDecoder(bytes.NewReader(b[1]))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&ev); err != nil || ev.ID == "" || ev.Type != HookMatchEnded {
			t.Fatalf("webhook example: %v\n%s", err, b[1])
		}
		var m HookMatch
		dec = json.NewDecoder(bytes.NewReader(ev.Data))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&m); err != nil || m.Result == nil || len(m.Players) == 0 {
			t.Fatalf("webhook example's data: %v\n%s", err, ev.Data)
		}
	}
}
