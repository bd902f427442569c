package cardgame

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/roomd/roomd/core/session/sessiontest"
)

var (
	compile = sessiontest.Schema
	valid   = sessiontest.Valid
)

// The published schemas accept exactly what the decoders accept. (A schema
// cannot see duplicate keys or count copies of a card, which the decoders
// refuse; those cases are left out.)
func TestSchemasAgree(t *testing.T) {
	command := compile(t, "command.json", Game.Info().CommandSchema)
	for _, tt := range moveCases {
		if strings.Contains(tt.raw, `"card":5,"card"`) {
			continue
		}
		t.Run("command "+tt.raw, func(t *testing.T) {
			if got, want := valid(command, tt.raw), tt.code == ""; got != want {
				t.Errorf("schema accepts %v, decoder accepts %v", got, want)
			}
		})
	}
	config := compile(t, "config.json", Game.Info().ConfigSchema)
	for _, tt := range configCases {
		if strings.Contains(tt.raw, `"Wisp","Wisp","Wisp"`) {
			continue
		}
		t.Run("config "+tt.raw, func(t *testing.T) {
			_, err := Game.Configure(json.RawMessage(tt.raw))
			if got, want := valid(config, tt.raw), err == nil; got != want {
				t.Errorf("schema accepts %v, Configure says %v", got, err)
			}
		})
	}
}
