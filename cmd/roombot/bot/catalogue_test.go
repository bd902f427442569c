package bot

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/roomd/roomd/core/games"
	"github.com/roomd/roomd/core/minesweeper"
	"github.com/roomd/roomd/core/nim"
	"github.com/roomd/roomd/core/session"
	"github.com/roomd/roomd/core/snake"
	"github.com/roomd/roomd/core/tictactoe"
	"github.com/roomd/roomd/protocol"
)

// serverGames is what a roomd that runs every game lists at GET /api/games.
func serverGames(t *testing.T) []serverGame {
	t.Helper()
	data, err := json.Marshal(session.NewRegistry(minesweeper.Game, nim.Game, snake.Game, tictactoe.Game).Games())
	if err != nil {
		t.Fatal(err)
	}
	var out []serverGame
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestChoosePlay(t *testing.T) {
	t.Parallel()
	chess := serverGame{ID: "chess", Name: "Chess", RulesVersion: "chess/1", Modes: []serverMode{{ID: "classic", MinSeats: 2, MaxSeats: 2}}}
	newer := serverGames(t)
	newer[0].RulesVersion += "+1"
	noAI := serverGames(t)
	for i := range noAI[0].Modes {
		noAI[0].Modes[i].AI = false
	}
	cases := []struct {
		name     string
		server   []serverGame
		args     []string
		mode     string // the mode played
		settings string
		err      string // a part of the error, "" when the play is fine
		flag     bool   // the error is a bad flag (exit status 2)
	}{
		{name: "defaults", mode: "coop", settings: `{"mode":"coop","level":"beginner"}`},
		{name: "race", args: []string{"--mode", "race", "--level", "expert", "--players", "3", "--ai", "1"}, mode: "race", settings: `{"mode":"race","level":"expert"}`},
		{name: "nim", args: []string{"--game", "nim", "--players", "1", "--ai", "1", "--pile", "30"}, mode: "classic", settings: `{"pile":30,"mode":"classic"}`},
		{name: "tictactoe", args: []string{"--game", "tictactoe", "--players", "1", "--ai", "1"}, mode: "classic", settings: `{"mode":"classic"}`},
		{name: "snake", args: []string{"--game", "snake", "--players", "3", "--ai", "1", "--board", "small", "--speed", "fast", "--time-limit", "30s"},
			mode: "arena", settings: `{"mode":"arena","board":"small","speed":"fast","timeLimit":30,"food":3}`},
		{name: "snake defaults", args: []string{"--game", "snake"}, mode: "arena", settings: `{"mode":"arena","board":"medium","speed":"normal","timeLimit":120,"food":3}`},
		{name: "snake board too small", args: []string{"--game", "snake", "--players", "4", "--ai", "1", "--board", "small"},
			err: "--board small holds at most 4 seats, not 5", flag: true},
		{name: "snake bad board", args: []string{"--game", "snake", "--board", "huge"}, err: `--board "huge": want one of small (16×16)`, flag: true},
		{name: "snake bad speed", args: []string{"--game", "snake", "--speed", "warp"}, err: `--speed "warp": want slow, normal or fast`, flag: true},
		{name: "snake short time", args: []string{"--game", "snake", "--time-limit", "10s"}, err: "--time-limit 10s: want whole seconds from 30s to 600s", flag: true},
		{name: "snake odd time", args: []string{"--game", "snake", "--time-limit", "30500ms"}, err: "--time-limit 30.5s", flag: true},
		{name: "snake alone", args: []string{"--game", "snake", "--players", "1"}, err: "snake mode arena takes 2 to 8 seats", flag: true},
		{name: "tictactoe for three", args: []string{"--game", "tictactoe", "--players", "3"}, err: "tictactoe mode classic takes 2 seats (--players + --ai), not 3", flag: true},
		{name: "solo for two", args: []string{"--mode", "solo", "--players", "2"}, err: "minesweeper mode solo takes 1 seat (--players + --ai), not 2", flag: true},
		{name: "nim alone", args: []string{"--game", "nim", "--players", "1"}, err: "nim mode classic takes 2 to 4 seats", flag: true},
		{name: "race of five", args: []string{"--mode", "race", "--players", "3", "--ai", "2"}, err: "takes 2 to 4 seats", flag: true},
		{name: "unknown mode", args: []string{"--mode", "blitz"}, err: `--mode "blitz": the server's minesweeper modes are solo (1 seat), coop (1 to 4 seats), race (2 to 4 seats)`, flag: true},
		{name: "unknown level", args: []string{"--level", "godlike"}, err: `--level "godlike": want one of beginner, intermediate, expert, nightmare`, flag: true},
		{name: "bad pile", args: []string{"--game", "nim", "--pile", "0"}, err: "--pile must be 1 to 1000", flag: true},
		{name: "not on the server", args: []string{"--game", "chess"}, err: `--game "chess": the server at http://127.0.0.1:8080 does not run it; it runs minesweeper, nim, snake, tictactoe`, flag: true},
		{name: "no adapter", server: append(serverGames(t), chess), args: []string{"--game", "chess"},
			err: `--game "chess": the server runs it, but this roombot was not built with it; it plays baba, cards, minesweeper, nim, snake, spellgrid, tictactoe`, flag: true},
		{name: "other rules", server: newer, err: "the server runs minesweeper rules minesweeper/1+1, roombot's adapter follows minesweeper/1"},
		{name: "no AI seats", server: noAI, args: []string{"--players", "1", "--ai", "1"}, err: "--ai 1: minesweeper mode coop has no AI seats", flag: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := parseFlags(tc.args, &bytes.Buffer{})
			if err != nil {
				t.Fatal(err)
			}
			server := tc.server
			if server == nil {
				server = serverGames(t)
			}
			p, err := choosePlay(server, &c)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				if got := errors.As(err, new(flagError)); got != tc.flag {
					t.Errorf("a flag error: %v, want %v", got, tc.flag)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var sg serverGame
			for _, g := range server {
				if g.ID == c.Game {
					sg = g
				}
			}
			want := protocol.GamePin{ID: sg.ID, Build: "roombot", RulesVersion: sg.RulesVersion}
			if p.pin != want || p.game.info().ID != c.Game {
				t.Errorf("pin %+v, game %s; want %+v", p.pin, p.game.info().ID, want)
			}
			if c.Mode != tc.mode || p.mode.ID != tc.mode || string(p.settings) != tc.settings {
				t.Errorf("mode %q (%q), settings %s; want %q, %s", c.Mode, p.mode.ID, p.settings, tc.mode, tc.settings)
			}
		})
	}
}

// TestHelpListsGames: -h names every game roombot can play, with its rules
// version.
func TestHelpListsGames(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	if code := run(context.Background(), []string{"-h"}, &out, &out); code != 0 {
		t.Fatalf("-h: status %d", code)
	}
	for _, g := range roombotGames.order {
		in := g.info()
		if !strings.Contains(out.String(), in.ID) || !strings.Contains(out.String(), in.RulesVersion) {
			t.Errorf("-h does not list %s (%s):\n%s", in.ID, in.RulesVersion, out.String())
		}
	}
	ids := strings.Split(roombotGames.ids(), ", ")
	if !slices.Equal(ids, games.IDs()) {
		t.Errorf("roombot plays %v", ids)
	}
}
