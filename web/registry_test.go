package web_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/roomd/roomd/core/nim"
	"github.com/roomd/roomd/core/session"
)

// renamedGame is a game the server runs under another id, for which the
// web client has no page module.
type renamedGame struct {
	session.Game
	info session.Info
}

func (g renamedGame) Info() session.Info { return g.info }

// tafl is Hidden Nim's rules under the id "tafl": a game this build of the
// client has no page for.
func tafl() session.Game {
	info := nim.Game.Info()
	info.ID, info.Name, info.RulesVersion = "tafl", "Hnefatafl", "tafl/1"
	return renamedGame{Game: nim.Game, info: info}
}

// TestGameWithoutPage: a game the server lists but this build has no page
// module for is offered in the lobby with a clear message and no way to
// create it, and its rooms say the same instead of breaking; the games
// with pages still work from the same lobby.
func TestGameWithoutPage(t *testing.T) {
	t.Parallel()
	srv := startRoomd(t, withGames(tafl()))
	p := newUser(t, srv, "ann", desktop)
	p.open("/")
	p.wait("the lobby with three games", `document.querySelectorAll('.game-choice').length === 3 && document.querySelector('#create-form #new-mode')`)
	if got := eval[string](p, `[...document.querySelectorAll('.game-choice')].map(l => l.dataset.game + ':' + l.dataset.page).join(' ')`); got != "minesweeper:true nim:true tafl:false" {
		t.Errorf("game choices %q", got)
	}
	if got := eval[string](p, `document.querySelector('.hero p').textContent`); !strings.Contains(got, "Minesweeper or Hidden Nim") || strings.Contains(got, "Hnefatafl") {
		t.Errorf("hero text %q", got)
	}
	p.click(`label[data-game="tafl"]`)
	p.wait("the no-page message", `document.getElementById('no-page')?.dataset.game === 'tafl' && document.getElementById('create').disabled`)
	if got := eval[string](p, `document.getElementById('no-page').textContent`); !strings.Contains(got, "Hnefatafl") || !strings.Contains(got, "no page in this build") {
		t.Errorf("message %q", got)
	}
	p.screenshot("lobby-no-page-desktop")
	p.click(`label[data-game="nim"]`)
	p.wait("Nim's form", `document.getElementById('new-pile') && !document.getElementById('no-page') && !document.getElementById('create').disabled`)
	if eval[bool](p, `!!document.getElementById('new-mode')`) {
		t.Error("Hidden Nim has one mode, yet the form offers a choice")
	}

	// A room of that game, made through the API, says the same.
	resp, err := http.Post(srv.URL+"/api/rooms", "application/json", strings.NewReader(`{"game":"tafl","settings":{"pile":9},"name":"Bo"}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var created struct{ Room string }
	if err := json.NewDecoder(resp.Body).Decode(&created); err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("create: status %d, %v", resp.StatusCode, err)
	}
	p.open("/r/" + created.Room)
	p.wait("the room's no-page message", `document.getElementById('no-page')?.dataset.game === 'tafl'`)
	if got := eval[string](p, `document.getElementById('no-page').innerText`); !strings.Contains(got, "no page in this build") {
		t.Errorf("room message %q", got)
	}
	if got := p.connState(); got == "online" || got == "connecting" {
		t.Errorf("the room page connected (%s) to a game it cannot show", got)
	}
	p.screenshot("no-page-desktop")
}
