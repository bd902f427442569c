package bot

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/roomd/roomd/protocol"
)

// serverGame is one game the server runs, as GET /api/games lists it.
type serverGame struct {
	ID           string       `json:"id"`
	Name         string       `json:"name"`
	RulesVersion string       `json:"rulesVersion"`
	Modes        []serverMode `json:"modes"`
}

// serverMode is one mode of a server's game, with its seat limits.
type serverMode struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	MinSeats int    `json:"minSeats"`
	MaxSeats int    `json:"maxSeats"`
	AI       bool   `json:"ai"`
}

// flagError is a flag the server's games refuse (an unknown game, a mode
// it does not offer, too many seats): the run exits with status 2, as for
// any bad flag.
type flagError struct{ error }

func (e flagError) Unwrap() error { return e.error }

// fetchGames reads the games the server at base runs.
func fetchGames(ctx context.Context, hc *http.Client, base string) ([]serverGame, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(base, "/")+"/api/games", nil)
	if err != nil {
		return nil, err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("no roomd at %s: %w", base, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		data, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return nil, fmt.Errorf("GET /api/games: status %d %s", resp.StatusCode, strings.TrimSpace(string(data)))
	}
	var body struct {
		Protocol int          `json:"protocol"`
		Games    []serverGame `json:"games"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 4<<20)).Decode(&body); err != nil {
		return nil, fmt.Errorf("GET /api/games: %w", err)
	}
	if body.Protocol != protocol.Version {
		return nil, fmt.Errorf("the server speaks protocol %d; roombot speaks %d", body.Protocol, protocol.Version)
	}
	return body.Games, nil
}

// play is what a run plays: a game the server runs and roombot has an
// adapter for, with the same rules version, in one of the server's modes.
type play struct {
	game *game
	// pin is the game and rules version the bots' hellos announce: the
	// server's.
	pin      protocol.GamePin
	mode     serverMode
	settings json.RawMessage
}

// choosePlay checks the scenario's game, mode and seats against the
// server's games and roombot's adapters. It sets c.Mode when --mode was
// not given. A flagError says which flag to change.
func choosePlay(server []serverGame, c *config) (play, error) {
	var sg *serverGame
	for i := range server {
		if server[i].ID == c.Game {
			sg = &server[i]
			break
		}
	}
	if sg == nil {
		return play{}, flagError{fmt.Errorf("--game %q: the server at %s does not run it; it runs %s", c.Game, c.Nodes[0], serverIDs(server))}
	}
	g, ok := c.games.lookup(c.Game)
	if !ok {
		return play{}, flagError{fmt.Errorf("--game %q: the server runs it, but this roombot was not built with it; it plays %s", c.Game, c.games.ids())}
	}
	if own := g.info().RulesVersion; sg.RulesVersion != own {
		return play{}, fmt.Errorf("the server runs %s rules %s, roombot's adapter follows %s: build roombot from the server's version", sg.ID, sg.RulesVersion, own)
	}
	if c.Mode == "" {
		c.Mode = g.defaultMode()
	}
	var mode *serverMode
	for i := range sg.Modes {
		if sg.Modes[i].ID == c.Mode {
			mode = &sg.Modes[i]
		}
	}
	if mode == nil {
		return play{}, flagError{fmt.Errorf("--mode %q: the server's %s modes are %s", c.Mode, sg.ID, modeList(sg.Modes))}
	}
	if seats := c.Players + c.AI; seats < mode.MinSeats || seats > mode.MaxSeats {
		return play{}, flagError{fmt.Errorf("%s mode %s takes %s (--players + --ai), not %d", sg.ID, mode.ID, seatRange(*mode), seats)}
	}
	if c.AI > 0 && !mode.AI {
		return play{}, flagError{fmt.Errorf("--ai %d: %s mode %s has no AI seats", c.AI, sg.ID, mode.ID)}
	}
	settings, err := g.settings(c)
	if err == nil {
		settings, err = c.Stall.withClock(settings)
	}
	if err != nil {
		return play{}, flagError{err}
	}
	return play{game: g, pin: protocol.GamePin{ID: sg.ID, Build: "roombot", RulesVersion: sg.RulesVersion},
		mode: *mode, settings: settings}, nil
}

func serverIDs(server []serverGame) string {
	if len(server) == 0 {
		return "no game"
	}
	ids := make([]string, len(server))
	for i, g := range server {
		ids[i] = g.ID
	}
	return strings.Join(ids, ", ")
}

func modeList(modes []serverMode) string {
	if len(modes) == 0 {
		return "none"
	}
	out := make([]string, len(modes))
	for i, m := range modes {
		out[i] = fmt.Sprintf("%s (%s)", m.ID, seatRange(m))
	}
	return strings.Join(out, ", ")
}

func seatRange(m serverMode) string {
	if m.MinSeats == m.MaxSeats {
		return fmt.Sprintf("%d seat%s", m.MinSeats, plural(m.MinSeats))
	}
	return fmt.Sprintf("%d to %d seats", m.MinSeats, m.MaxSeats)
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
