package minesweeper

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/roomd/roomd/core/session"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

func TestDecodeConfig(t *testing.T) {
	tests := []struct {
		name, in            string
		rows, cols, mines   int
		mode                Mode
		board               string
		wantErr             string // substring of the error; "" means valid
		schemaDisagreesOkay bool   // a rule the schema cannot express
	}{
		{name: "reference preset object", in: `{"rows": 9, "cols": 9, "mines": 10, "id": "beginner", "name": "Noobs"}`, rows: 9, cols: 9, mines: 10, board: "beginner"},
		{name: "explicit custom", in: `{"rows":4,"cols":4,"mines":8}`, rows: 4, cols: 4, mines: 8, board: "custom-4x4x8"},
		{name: "level", in: `{"level":"expert"}`, rows: 16, cols: 30, mines: 99, board: "expert"},
		{name: "level nightmare race", in: `{"level":"nightmare","mode":"race"}`, rows: 20, cols: 30, mines: 150, mode: ModeRace, board: "nightmare"},
		{name: "level with matching dims", in: `{"level":"intermediate","rows":16,"cols":16,"mines":40}`, rows: 16, cols: 16, mines: 40, board: "intermediate"},
		{name: "custom level", in: `{"level":"custom","rows":20,"cols":20,"mines":60,"mode":"coop"}`, rows: 20, cols: 20, mines: 60, mode: ModeCoop, board: "custom-20x20x60"},
		{name: "custom equal to a preset", in: `{"level":"custom","rows":16,"cols":30,"mines":99}`, rows: 16, cols: 30, mines: 99, board: "expert"},
		{name: "empty is beginner", in: `{}`, rows: 9, cols: 9, mines: 10, board: "beginner"},
		{name: "mode only", in: `{"mode":"solo"}`, rows: 9, cols: 9, mines: 10, mode: ModeSolo, board: "beginner"},
		{name: "integer-valued float", in: `{"rows":9.0,"cols":1e1,"mines":10}`, rows: 9, cols: 10, mines: 10, board: "custom-9x10x10"},
		{name: "densest", in: `{"rows":3,"cols":3,"mines":8}`, rows: 3, cols: 3, mines: 8, board: "custom-3x3x8"},
		{name: "no mines", in: `{"rows":16,"cols":30,"mines":0}`, rows: 16, cols: 30, board: "custom-16x30x0"},
		{name: "largest", in: `{"rows":100,"cols":100,"mines":9999}`, rows: 100, cols: 100, mines: 9999, board: "custom-100x100x9999"},

		{name: "reference hang", in: `{"rows":3,"cols":3,"mines":9}`, wantErr: "mines must be", schemaDisagreesOkay: true},
		{name: "fraction", in: `{"rows":9,"cols":9,"mines":10.5}`, wantErr: "mines must be an integer"},
		{name: "string number", in: `{"rows":"9","cols":9,"mines":10}`, wantErr: "rows must be an integer"},
		{name: "null rows", in: `{"rows":null,"cols":9,"mines":10}`, wantErr: "rows must be an integer"},
		{name: "zero rows", in: `{"rows":0,"cols":9,"mines":0}`, wantErr: "rows must be"},
		{name: "too many cols", in: `{"rows":9,"cols":101,"mines":10}`, wantErr: "cols must be"},
		{name: "negative mines", in: `{"rows":9,"cols":9,"mines":-1}`, wantErr: "mines must be"},
		{name: "missing mines", in: `{"rows":9,"cols":9}`, wantErr: "mines is required"},
		{name: "custom without dims", in: `{"level":"custom"}`, wantErr: "rows is required"},
		{name: "unknown level", in: `{"level":"insane"}`, wantErr: `unknown level "insane"`},
		{name: "unknown level with dims", in: `{"level":"insane","rows":9,"cols":9,"mines":10}`, wantErr: "unknown level"},
		{name: "level contradicted", in: `{"level":"expert","rows":9,"cols":30,"mines":99}`, wantErr: "rows 9 contradicts level expert"},
		{name: "level with some dims", in: `{"level":"expert","rows":16}`, wantErr: "cols is required"},
		{name: "unknown mode", in: `{"level":"expert","mode":"versus"}`, wantErr: `unknown mode "versus"`},
		{name: "mode not a string", in: `{"mode":1}`, wantErr: "mode must be a string"},
		{name: "level not a string", in: `{"level":3}`, wantErr: "level must be a string"},
		{name: "array", in: `[9,9,10]`, wantErr: "must be a JSON object"},
		{name: "null", in: `null`, wantErr: "must be a JSON object"},
		{name: "garbage", in: `{"rows":`, wantErr: "must be a JSON object"},
	}
	schema := compileSchema(t, ConfigSchema)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := DecodeConfig([]byte(tc.in))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
				}
				if rej := rejection(t, err); rej.Code != session.CodeInvalidConfig {
					t.Errorf("code %s, want %s", rej.Code, session.CodeInvalidConfig)
				}
				if inst, jerr := jsonschema.UnmarshalJSON(strings.NewReader(tc.in)); jerr == nil && schema.Validate(inst) == nil && !tc.schemaDisagreesOkay {
					t.Errorf("the config schema accepts %s", tc.in)
				}
				return
			}
			if err != nil {
				t.Fatalf("error %v", err)
			}
			if c.Rows != tc.rows || c.Cols != tc.cols || c.Mines != tc.mines || c.Mode != tc.mode {
				t.Errorf("decoded %d×%d/%d %q, want %d×%d/%d %q", c.Rows, c.Cols, c.Mines, c.Mode, tc.rows, tc.cols, tc.mines, tc.mode)
			}
			if got := c.Board(); got != tc.board {
				t.Errorf("board %q, want %q", got, tc.board)
			}
			if got, want := string(mustJSON(t, c)), string(compact(t, []byte(tc.in))); got != want {
				t.Errorf("echo %s, want %s", got, want)
			}
			inst, err := jsonschema.UnmarshalJSON(strings.NewReader(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if err := schema.Validate(inst); err != nil {
				t.Errorf("the config schema refuses %s: %v", tc.in, err)
			}
		})
	}
}

func TestConfigBuiltInGo(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		raw  string
		ok   bool
	}{
		{"solo", Config{Rows: 9, Cols: 9, Mines: 10}, `{"rows":9,"cols":9,"mines":10}`, true},
		{"race", Config{Rows: 5, Cols: 6, Mines: 3, Mode: ModeRace}, `{"rows":5,"cols":6,"mines":3,"mode":"race"}`, true},
		{"zero value", Config{}, `{"rows":0,"cols":0,"mines":0}`, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := string(tc.cfg.Raw()); got != tc.raw {
				t.Errorf("raw %s, want %s", got, tc.raw)
			}
			if err := tc.cfg.Validate(); (err == nil) != tc.ok {
				t.Errorf("validate: %v, want ok=%v", err, tc.ok)
			}
			if !tc.ok {
				return
			}
			back, err := DecodeConfig(tc.cfg.Raw())
			if err != nil || back.Rows != tc.cfg.Rows || back.Cols != tc.cfg.Cols || back.Mines != tc.cfg.Mines || back.ModeOrSolo() != tc.cfg.ModeOrSolo() {
				t.Errorf("round trip %+v, %v", back, err)
			}
		})
	}
}

func TestSetupAndInfo(t *testing.T) {
	tests := []struct {
		config      string
		mode, board string
		min, max    int
	}{
		{`{"level":"beginner"}`, "solo", "beginner", 1, 1},
		{`{"level":"expert","mode":"coop"}`, "coop", "expert", 1, 4},
		{`{"rows":5,"cols":5,"mines":3,"mode":"race"}`, "race", "custom-5x5x3", 2, 4},
		{``, "solo", "beginner", 1, 1}, // session turns an empty config into {}
	}
	for _, tc := range tests {
		t.Run(tc.config, func(t *testing.T) {
			s, err := Game.Configure(json.RawMessage(tc.config))
			if err != nil {
				t.Fatal(err)
			}
			if s.Mode.ID != tc.mode || s.Board != tc.board || s.Mode.MinSeats != tc.min || s.Mode.MaxSeats != tc.max {
				t.Errorf("setup %+v", s)
			}
			if _, err := Game.New(session.IntSeed(1), json.RawMessage(tc.config), tc.max+1); err == nil {
				t.Errorf("%d seats accepted", tc.max+1)
			}
		})
	}
	info := Game.Info()
	if info.ID != "minesweeper" || info.Name != "Minesweeper" || info.RulesVersion != "minesweeper/1" || len(info.Modes) != 3 {
		t.Errorf("info %+v", info)
	}
	for _, s := range []json.RawMessage{info.ConfigSchema, info.CommandSchema} {
		if !json.Valid(s) {
			t.Errorf("schema is not JSON: %s", s)
		}
	}
}

func compileSchema(t *testing.T, src string) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("schema.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("schema.json")
	if err != nil {
		t.Fatalf("compile schema: %v", err)
	}
	return s
}

// TestCanonicalConfig: a room keeps the canonical form of a config: unknown
// keys and formatting are dropped, presets named, and the canonical form
// decodes to the same config and encodes to itself.
func TestCanonicalConfig(t *testing.T) {
	for in, want := range map[string]string{
		`{}`: `{"mode":"solo","level":"beginner"}`,
		`{"mode":"coop","level":"expert","junk":"` + strings.Repeat("x", 1000) + `"}`: `{"mode":"coop","level":"expert"}`,
		`{ "rows":16, "cols":30, "mines":99 }`:                                        `{"mode":"solo","level":"expert"}`,
		`{"mode":"race","level":"custom","rows":12,"cols":24,"mines":40,"id":"x"}`:    `{"mode":"race","level":"custom","rows":12,"cols":24,"mines":40}`,
	} {
		setup, err := Game.Configure(json.RawMessage(in))
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		if string(setup.Config) != want {
			t.Errorf("%.60s: canonical %s, want %s", in, setup.Config, want)
		}
		again, err := Game.Configure(setup.Config)
		if err != nil || string(again.Config) != want || again.Board != setup.Board || again.Mode != setup.Mode {
			t.Errorf("%s does not configure to itself: %s %v", want, again.Config, err)
		}
	}
}
