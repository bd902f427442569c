package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// TestEveryAdvertisedModeCreatable: a generic client creates every mode
// GET /api/games lists as {"settings":{"mode": id}}, on the real binary
// (Baba's coop and SpellGrid's solo were refused: "unknown config field
// mode").
func TestEveryAdvertisedModeCreatable(t *testing.T) {
	t.Parallel()
	p := startRoomd(t, freeAddr(t), "--memory", "--quotas=off")
	resp, err := http.Get(p.URL + "/api/games")
	if err != nil {
		t.Fatal(err)
	}
	var list struct {
		Games []struct {
			ID    string
			Modes []struct{ ID string }
		}
	}
	err = json.NewDecoder(resp.Body).Decode(&list)
	resp.Body.Close()
	if err != nil || len(list.Games) < 7 {
		t.Fatalf("GET /api/games: %d games, %v", len(list.Games), err)
	}
	modes := 0
	for _, g := range list.Games {
		for _, m := range g.Modes {
			modes++
			body := fmt.Sprintf(`{"game":%q,"name":"Ann","settings":{"mode":%q}}`, g.ID, m.ID)
			resp, err := http.Post(p.URL+"/api/rooms", "application/json", strings.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			var out struct {
				Room  string
				Error string
			}
			json.NewDecoder(resp.Body).Decode(&out)
			resp.Body.Close()
			if resp.StatusCode != http.StatusCreated || out.Room == "" {
				t.Errorf("%s mode %s: %d %s", g.ID, m.ID, resp.StatusCode, out.Error)
			}
		}
	}
	if modes < 9 {
		t.Fatalf("only %d modes listed", modes)
	}
	p.term()
}
