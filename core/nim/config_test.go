package nim

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/roomd/roomd/core/session"
)

func TestConfig(t *testing.T) {
	tests := []struct {
		config string
		pile   int    // when valid
		echo   string // the view's "config", when valid
		err    string // part of the error, when invalid
	}{
		{config: ``, pile: 21, echo: `{}`},
		{config: `null`, pile: 21, echo: `{}`},
		{config: `{}`, pile: 21, echo: `{}`},
		{config: `{"pile": 1}`, pile: 1, echo: `{"pile":1}`},
		{config: `{"pile":1000}`, pile: 1000, echo: `{"pile":1000}`},
		{config: `{"pile":21.0}`, pile: 21, echo: `{"pile":21.0}`},
		{config: `{"mode":"classic","pile":7}`, pile: 7, echo: `{"mode":"classic","pile":7}`},
		{config: `{"mode":"classic"}`, pile: 21, echo: `{"mode":"classic"}`},
		{config: `{"pile":0}`, err: "pile must be an integer from 1 to 1000, got 0"},
		{config: `{"pile":1001}`, err: "pile must be an integer from 1 to 1000, got 1001"},
		{config: `{"pile":-3}`, err: "got -3"},
		{config: `{"pile":1.5}`, err: "got 1.5"},
		{config: `{"pile":"21"}`, err: `got "21"`},
		{config: `{"pile":null}`, err: "got null"},
		{config: `{"pile":1e400}`, err: "got 1e400"},
		{config: `{"mode":"fast"}`, err: `mode must be "classic", got "fast"`},
		{config: `{"mode":null}`, err: `mode must be "classic"`},
		{config: `{"piles":3}`, err: `unknown config field "piles"`},
		{config: `{"pile":3,"pile":4}`, err: `duplicate key "pile"`},
		{config: `[21]`, err: "config must be a JSON object"},
		{config: `21`, err: "config must be a JSON object"},
	}
	for _, tt := range tests {
		t.Run(tt.config, func(t *testing.T) {
			setup, err := Game.Configure(json.RawMessage(tt.config))
			m, newErr := Game.New(session.IntSeed(1), json.RawMessage(tt.config), 2)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) || !strings.HasPrefix(err.Error(), "nim config: ") {
					t.Fatalf("Configure: error %v, want one naming %q", err, tt.err)
				}
				if newErr == nil {
					t.Fatalf("New accepted the config")
				}
				return
			}
			if err != nil || newErr != nil {
				t.Fatalf("Configure: %v; New: %v", err, newErr)
			}
			if setup.Mode.ID != ModeClassic {
				t.Errorf("mode %q", setup.Mode.ID)
			}
			v := m.View(0).(View)
			if v.Pile != tt.pile || string(v.Config) != tt.echo {
				t.Errorf("view pile %d config %s, want %d and %s", v.Pile, v.Config, tt.pile, tt.echo)
			}
		})
	}
}

func TestSeatCounts(t *testing.T) {
	for seats := range 7 {
		t.Run(fmt.Sprintf("%d seats", seats), func(t *testing.T) {
			_, err := Game.New(session.IntSeed(1), nil, seats)
			if ok := seats >= MinSeats && seats <= MaxSeats; ok != (err == nil) {
				t.Errorf("New with %d seats: %v", seats, err)
			}
			_, err = Rules{}.Init(session.IntSeed(1), Config{}, seats)
			if ok := seats >= MinSeats && seats <= MaxSeats; ok != (err == nil) {
				t.Errorf("Init with %d seats: %v", seats, err)
			}
		})
	}
}

// Configs built in Go: the zero value is the default game, and Validate
// guards Init.
func TestConfigInGo(t *testing.T) {
	tests := []struct {
		config Config
		pile   int
		echo   string
		ok     bool
	}{
		{Config{}, 21, `{"pile":21,"mode":"classic"}`, true},
		{Config{Pile: 5, Mode: ModeClassic}, 5, `{"pile":5,"mode":"classic"}`, true},
		{Config{Pile: -1}, 0, "", false},
		{Config{Pile: MaxPile + 1}, 0, "", false},
		{Config{Mode: "blitz"}, 0, "", false},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%+v", tt.config), func(t *testing.T) {
			s, err := Rules{}.Init(session.IntSeed(1), tt.config, 2)
			if (err == nil) != tt.ok {
				t.Fatalf("Init: %v, want ok %v", err, tt.ok)
			}
			if !tt.ok {
				if _, err := setup(tt.config); err == nil {
					t.Errorf("setup accepted %+v", tt.config)
				}
				return
			}
			v := Rules{}.Project(s, session.Spectator)
			if v.Pile != tt.pile || string(v.Config) != tt.echo {
				t.Errorf("view pile %d config %s, want %d and %s", v.Pile, v.Config, tt.pile, tt.echo)
			}
			// The full form decodes back to the same game.
			var back Config
			if err := json.Unmarshal([]byte(encode(t, tt.config)), &back); err != nil || back.pile() != tt.pile {
				t.Errorf("round trip of %s: %+v, %v", encode(t, tt.config), back, err)
			}
		})
	}
}
