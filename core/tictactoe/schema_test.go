package tictactoe

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// compile compiles one of the game's schemas.
func compile(t *testing.T, name string, schema json.RawMessage) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		t.Fatalf("%s schema: %v", name, err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(name, doc); err != nil {
		t.Fatalf("%s schema: %v", name, err)
	}
	sch, err := c.Compile(name)
	if err != nil {
		t.Fatalf("%s schema: %v", name, err)
	}
	return sch
}

// valid reports whether raw is a JSON value that sch accepts.
func valid(sch *jsonschema.Schema, raw string) bool {
	inst, err := jsonschema.UnmarshalJSON(strings.NewReader(raw))
	return err == nil && sch.Validate(inst) == nil
}

// The published schemas accept exactly what the decoders accept.
func TestSchemasAgree(t *testing.T) {
	command := compile(t, "command.json", Game.Info().CommandSchema)
	for _, tt := range moveCases {
		t.Run("command "+tt.raw, func(t *testing.T) {
			if got, want := valid(command, tt.raw), tt.code == ""; got != want {
				t.Errorf("schema accepts %v, decoder accepts %v", got, want)
			}
		})
	}
	config := compile(t, "config.json", Game.Info().ConfigSchema)
	for _, raw := range []string{`{}`, `{"mode":"classic"}`, `{"mode":"blitz"}`, `{"mode":null}`, `{"size":4}`, `{"Mode":"classic"}`, `[]`, `3`, `"classic"`} {
		t.Run("config "+raw, func(t *testing.T) {
			_, err := Game.Configure(json.RawMessage(raw))
			if got, want := valid(config, raw), err == nil; got != want {
				t.Errorf("schema accepts %v, Configure says %v", got, err)
			}
		})
	}
}
