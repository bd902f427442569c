package babagame

import (
	"encoding/json"
	"testing"

	"github.com/roomd/roomd/core/session/sessiontest"
)

var (
	compile = sessiontest.Schema
	valid   = sessiontest.Valid
)

// configCases are configs and whether Configure takes them.
var configCases = []struct {
	raw string
	ok  bool
}{
	{`{}`, true},
	{`{"level":"baba-is-you"}`, true},
	{`{"level":"lava-is-hot","control":"turns"}`, true},
	{`{"control":"shared"}`, true},
	{`{"level":"water-is-sink","control":"shared"}`, true},
	{`{"level":"nope"}`, false},
	{`{"level":null}`, false},
	{`{"level":3}`, false},
	{`{"control":"solo"}`, false},
	{`{"control":""}`, false},
	{`{"Level":"baba-is-you"}`, false},
	{`{"mode":"coop"}`, true},
	{`{"mode":"coop","level":"rock-is-you"}`, true},
	{`{"mode":"solo"}`, false},
	{`{"mode":null}`, false},
	{`[]`, false},
	{`3`, false},
	{`"baba-is-you"`, false},
}

// The published schemas accept exactly what the decoders accept.
func TestSchemasAgree(t *testing.T) {
	command := compile(t, "command.json", Game.Info().CommandSchema)
	for _, tt := range moveCases {
		if tt.dup {
			continue // a schema sees the last of duplicate keys
		}
		t.Run("command "+tt.raw, func(t *testing.T) {
			if got, want := valid(command, tt.raw), tt.code == ""; got != want {
				t.Errorf("schema accepts %v, decoder accepts %v", got, want)
			}
		})
	}
	config := compile(t, "config.json", Game.Info().ConfigSchema)
	for _, tt := range configCases {
		t.Run("config "+tt.raw, func(t *testing.T) {
			_, err := Game.Configure(json.RawMessage(tt.raw))
			if got := valid(config, tt.raw); got != (err == nil) || got != tt.ok {
				t.Errorf("schema accepts %v, Configure says %v, want %v", got, err, tt.ok)
			}
		})
	}
}
