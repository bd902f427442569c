package spellgridgame

import (
	"encoding/json"
	"testing"

	"github.com/roomd/roomd/core/session/sessiontest"
)

var (
	compile = sessiontest.Schema
	valid   = sessiontest.Valid
)

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
	for _, raw := range configCases {
		t.Run("config "+raw, func(t *testing.T) {
			_, err := Game.Configure(json.RawMessage(raw))
			if got, want := valid(config, raw), err == nil; got != want {
				t.Errorf("schema accepts %v, Configure says %v", got, err)
			}
		})
	}
}

// configCases are configs, valid and not.
var configCases = []string{
	`{}`, `{"level":"scribe"}`, `{"level":"double"}`, `{"level":"golem"}`,
	`{"level":"nowhere"}`, `{"level":""}`, `{"level":null}`, `{"level":3}`,
	`{"Level":"scribe"}`, `{"level":"scribe","mode":"solo"}`, `{"mode":"solo"}`, `{"mode":"coop"}`,
	`{"mode":null}`, `[]`, `3`, `"scribe"`,
}
