package nim

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
// cannot see duplicate keys, which the decoders refuse; those cases are
// left out.)
func TestSchemasAgree(t *testing.T) {
	command := compile(t, "command.json", Game.Info().CommandSchema)
	for _, tt := range moveCases {
		if strings.Contains(tt.raw, `"n":2,"n"`) {
			continue
		}
		t.Run("command "+tt.raw, func(t *testing.T) {
			if got, want := valid(command, tt.raw), tt.code == ""; got != want {
				t.Errorf("schema accepts %v, decoder accepts %v", got, want)
			}
		})
	}
	config := compile(t, "config.json", Game.Info().ConfigSchema)
	for _, raw := range []string{
		`{}`, `{"pile":1}`, `{"pile":1000}`, `{"pile":21.0}`, `{"mode":"classic"}`, `{"pile":5,"mode":"classic"}`,
		`{"pile":0}`, `{"pile":1001}`, `{"pile":1.5}`, `{"pile":"21"}`, `{"pile":null}`,
		`{"mode":"fast"}`, `{"mode":null}`, `{"piles":3}`, `[21]`, `21`, `"x"`,
	} {
		t.Run("config "+raw, func(t *testing.T) {
			_, err := Game.Configure(json.RawMessage(raw))
			if got, want := valid(config, raw), err == nil; got != want {
				t.Errorf("schema accepts %v, Configure says %v", got, err)
			}
		})
	}
}
