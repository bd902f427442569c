package snake

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
		if strings.Contains(tt.raw, `"dir":"up","dir"`) {
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
		`{}`, `{"mode":"arena"}`, `{"board":"small"}`, `{"board":"medium"}`, `{"board":"large"}`,
		`{"speed":"slow"}`, `{"speed":"normal"}`, `{"speed":"fast"}`, `{"timeLimit":30}`, `{"timeLimit":600}`,
		`{"timeLimit":120.0}`, `{"food":1}`, `{"food":16}`, `{"food":3.0}`,
		`{"mode":"arena","board":"large","speed":"fast","timeLimit":300,"food":8}`,
		`{"mode":"duel"}`, `{"mode":null}`, `{"board":"huge"}`, `{"board":null}`, `{"board":1}`,
		`{"speed":"warp"}`, `{"speed":""}`, `{"timeLimit":29}`, `{"timeLimit":601}`, `{"timeLimit":60.5}`,
		`{"timeLimit":"60"}`, `{"timeLimit":null}`, `{"food":0}`, `{"food":17}`, `{"food":-1}`, `{"food":true}`,
		`{"Board":"small"}`, `{"seats":4}`, `[]`, `3`, `"arena"`, `null`,
	} {
		t.Run("config "+raw, func(t *testing.T) {
			if raw == `null` {
				return // the session reads a null config as {}; the schema describes a config object
			}
			_, err := Game.Configure(json.RawMessage(raw))
			if got, want := valid(config, raw), err == nil; got != want {
				t.Errorf("schema accepts %v, Configure says %v", got, err)
			}
		})
	}
}
