package protocol

import (
	"encoding/json"
	"reflect"
	"sync"

	"github.com/invopop/jsonschema"
)

// SchemaID is the $id of the published schema.
const SchemaID = "https://roomd.invalid/protocol/v1.schema.json"

var (
	schemaOnce  sync.Once
	schemaBytes []byte
	schemaErr   error
)

// clientMessages and serverMessages are the message types of each direction,
// by definition name.
var (
	clientMessages = []any{Hello{}, Action{}, Ping{}}
	serverMessages = []any{Welcome{}, Snapshot{}, Update{}, Receipt{}, Presence{}, NoticeMessage{}, Bye{}, Pong{}, Tick{}, Chat{}}
)

// Schema returns the JSON Schema (draft 2020-12) of every protocol message,
// generated from the Go types. Its root accepts any client or server
// message; $defs/ClientMessage and $defs/ServerMessage accept one direction.
// Views, beats, commands and settings are game-specific and left open here:
// GET /api/games publishes each game's command and config schemas.
func Schema() ([]byte, error) {
	schemaOnce.Do(func() { schemaBytes, schemaErr = buildSchema() })
	return schemaBytes, schemaErr
}

func buildSchema() ([]byte, error) {
	r := &jsonschema.Reflector{
		Anonymous:                 true,
		AllowAdditionalProperties: true,
		Mapper: func(t reflect.Type) *jsonschema.Schema {
			if t == reflect.TypeFor[json.RawMessage]() {
				return jsonschema.TrueSchema
			}
			return nil
		},
	}
	defs := jsonschema.Definitions{}
	refs := func(types []any) []*jsonschema.Schema {
		var out []*jsonschema.Schema
		for _, v := range types {
			s := r.Reflect(v)
			for name, d := range s.Definitions {
				defs[name] = d
			}
			out = append(out, &jsonschema.Schema{Ref: s.Ref})
		}
		return out
	}
	client, server := refs(clientMessages), refs(serverMessages)
	// A control action must carry its control, a command its command.
	if a, ok := defs["Action"]; ok {
		a.AllOf = []*jsonschema.Schema{
			ifTypeThenRequired("command", "command"),
			ifTypeThenRequired("control", "control"),
		}
	}
	defs["ClientMessage"] = &jsonschema.Schema{OneOf: client}
	defs["ServerMessage"] = &jsonschema.Schema{OneOf: server}
	// A server frame is one message, or a batch: an array of messages.
	defs["ServerFrame"] = &jsonschema.Schema{OneOf: []*jsonschema.Schema{
		{Ref: "#/$defs/ServerMessage"},
		{Type: "array", MinItems: ptrUint(2), Items: &jsonschema.Schema{Ref: "#/$defs/ServerMessage"}},
	}}
	root := &jsonschema.Schema{
		Version:     jsonschema.Version,
		ID:          SchemaID,
		Title:       "roomd protocol",
		Description: "Every message of the roomd WebSocket protocol, both directions. See PROTOCOL.md.",
		OneOf: []*jsonschema.Schema{
			{Ref: "#/$defs/ClientMessage"},
			{Ref: "#/$defs/ServerFrame"},
		},
		Definitions: defs,
	}
	return json.MarshalIndent(root, "", "  ")
}

func ifTypeThenRequired(typ, field string) *jsonschema.Schema {
	props := jsonschema.NewProperties()
	props.Set("type", &jsonschema.Schema{Const: typ})
	return &jsonschema.Schema{
		If:   &jsonschema.Schema{Properties: props, Required: []string{"type"}},
		Then: &jsonschema.Schema{Required: []string{field}},
	}
}

func ptrUint(n uint64) *uint64 { return &n }
