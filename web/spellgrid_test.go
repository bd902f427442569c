package web_test

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp/kb"

	"github.com/roomd/roomd/core/baba"
	"github.com/roomd/roomd/core/cards"
	"github.com/roomd/roomd/core/session"
	"github.com/roomd/roomd/core/spellgridgame"
)

// TestSpellGrid creates a SpellGrid room of the first level from the
// lobby (a one-seat room starts by itself) and plays the level's known
// solution to the win: the Rune Scribe played by mouse (first on a word,
// which the server refuses and the page says so), a restart (R)
// that must put the level back, the scribe played again from the keyboard
// (1, arrows to its tile, Enter), the Fireball chosen by key and
// cancelled (Escape), then chosen again from the keyboard (Tab to the
// hand, Enter) and cast by a click on the scribe, a step by the arrow
// key, an undo (Z) that must take it back, then a step on the arrow pad
// and the last one by key. A spectator sees the same grid and
// hand and cannot act. The result panel must show the server's result,
// and "Play again" must bring a fresh level.
func TestSpellGrid(t *testing.T) {
	t.Parallel()
	srv := startRoomd(t, withGames(spellgridgame.Game))
	p := newUser(t, srv, "sage", desktop)
	p.gameForm("spellgrid")
	if got := eval[[]string](p, `[...document.querySelectorAll('#new-level option')].map(o => o.value)`); !slices.Equal(got, spellgridgame.Levels()) {
		t.Errorf("the level picker offers %v, the server %v", got, spellgridgame.Levels())
	}
	p.setField("#new-name", "Sage")
	p.click("#create")
	p.wait("the first level", `document.querySelectorAll('#sg-grid .sg-tile').length === 35 && document.getElementById('sg-status')?.dataset.phase === 'playing' && document.getElementById('sg').dataset.mine === 'true'`)
	if got := eval[[]string](p, `[...document.querySelectorAll('#sg-hand .sg-card')].map(b => b.dataset.card)`); !slices.Equal(got, []string{"Rune Scribe", "Fireball"}) {
		t.Errorf("hand %v", got)
	}
	if got := eval[string](p, `document.querySelector('#sg-hand .sg-card[data-card="Fireball"] .sg-card-text').textContent`); got != "Deal 6 damage." {
		t.Errorf("the Fireball's text is %q", got)
	}
	code := p.roomCode()
	q := newUser(t, srv, "watcher", desktop)
	q.open("/r/" + code)
	q.click("#join-watch")
	q.wait("the spectator's grid", `document.querySelectorAll('#sg-grid .sg-tile').length === 35`)

	// The scribe by mouse on a tile taken by a word: the server's refusal
	// shows. Then on (2, 2), and a restart by key.
	scribeChosen := `document.querySelector('#sg-hand .sg-card[data-card="Rune Scribe"]').getAttribute('aria-pressed') === 'true' && document.querySelectorAll('#sg-grid .sg-tile[data-target]').length > 0`
	p.click(`#sg-hand .sg-card[data-card="Rune Scribe"]`)
	p.wait("the scribe chosen", scribeChosen)
	p.click(sgTile(0, 0))
	p.wait("the refusal", `document.getElementById('sg-msg').dataset.code === '`+spellgridgame.CodeTileNotFree+`' && document.getElementById('sg-msg').textContent !== ''`)
	if n := eval[int](p, `document.querySelectorAll('#sg-hand .sg-card').length`); n != 2 {
		t.Errorf("%d cards in hand after a refused play, want 2", n)
	}
	p.click(`#sg-hand .sg-card[data-card="Rune Scribe"]`)
	p.wait("the scribe chosen again", scribeChosen)
	p.click(sgTile(2, 2))
	p.waitMoves(1)
	p.wait("the scribe on (2, 2)", fmt.Sprintf(`!!document.querySelector('%s .sg-minion[data-kind="scribe"]') && document.querySelectorAll('#sg-hand .sg-card').length === 1`, sgTile(2, 2)))
	p.key("r")
	p.waitMoves(0)
	p.wait("the level as it started", fmt.Sprintf(`!document.querySelector('%s .sg-obj') && document.querySelectorAll('#sg-hand .sg-card').length === 2 && document.querySelectorAll('#sg-minions li[data-id]').length === 0`, sgTile(2, 2)))

	// The scribe by keyboard: 1, the cursor to (2, 2), Enter.
	p.key("1")
	p.wait("the scribe chosen by key", `document.querySelector('#sg-hand .sg-card[data-i="0"]').getAttribute('aria-pressed') === 'true' && !!document.querySelector('#sg-grid .sg-tile[data-cursor]')`)
	p.sgCursorTo(2, 2)
	p.key(kb.Enter)
	p.waitMoves(1)
	p.wait("the scribe on (2, 2) again", fmt.Sprintf(`!!document.querySelector('%s .sg-minion[data-kind="scribe"]')`, sgTile(2, 2)))

	// The spectator sees the same and cannot act.
	q.wait("the spectator's scribe", fmt.Sprintf(`!!document.querySelector('%s .sg-minion[data-kind="scribe"]') && document.getElementById('sg-status').dataset.moves === '1'`, sgTile(2, 2)))
	if mine, theirs := sgGrid(p), sgGrid(q); mine != theirs {
		t.Errorf("the spectator's grid\n%s\nthe player's\n%s", theirs, mine)
	}
	if eval[bool](q, `!!document.querySelector('#sg-pad') && document.querySelector('#sg-pad').offsetParent !== null`) ||
		eval[string](q, `document.getElementById('sg').dataset.mine`) != "false" {
		t.Error("the spectator is offered the controls")
	}
	sentBefore := len(q.wsSent())
	q.click(`#sg-hand .sg-card[data-card="Fireball"]`)
	q.key("1" + kb.ArrowLeft + "z")
	if got := eval[string](q, `document.querySelector('#sg-hand .sg-card[data-card="Fireball"]').getAttribute('aria-pressed')`); got != "false" {
		t.Errorf("a spectator chose a card: aria-pressed %q", got)
	}
	for _, f := range q.wsSent()[sentBefore:] {
		if strings.Contains(f, `"command"`) {
			t.Errorf("the spectator sent a command: %s", f)
		}
	}

	// Escape cancels a choice; Tab reaches the hand and Enter picks the
	// focused card, which keeps the focus.
	fireball := `document.querySelector('#sg-hand .sg-card[data-card="Fireball"]').getAttribute('aria-pressed') === `
	p.key("1")
	p.wait("the Fireball chosen by key", fireball+`'true'`)
	p.key(kb.Escape)
	p.wait("the choice cancelled", fireball+`'false' && !document.querySelector('#sg-grid .sg-tile[data-cursor]')`)
	eval[bool](p, `(document.getElementById('sg-grid').focus(), true)`)
	p.key(kb.Tab)
	p.wait("the Fireball focused", `document.activeElement?.dataset.card === 'Fireball'`)
	p.key(kb.Enter)
	p.wait("the Fireball chosen by Enter, still focused", fireball+`'true' && document.activeElement?.dataset.card === 'Fireball'`)

	// The Fireball by mouse on the scribe: WIN is written on its tile.
	p.wait("the Fireball aimed at the scribe", fmt.Sprintf(`!!document.querySelector('%s[data-target][data-cursor]')`, sgTile(2, 2)))
	p.screenshot("spellgrid-game-desktop")
	p.click(sgTile(2, 2))
	p.waitMoves(2)
	p.wait("FLAG IS WIN", `[...document.querySelectorAll('#sg-rules li')].some(li => li.textContent === 'FLAG IS WIN') && !!document.querySelector('#sg-grid .sg-word[data-word="WIN"]')`)

	// A step by key, taken back by Z, then the pad and a key to the flag.
	baba := `document.querySelector('#sg-grid .sg-obj[data-kind="baba"]').closest('.sg-tile').dataset.x`
	p.key(kb.ArrowRight)
	p.waitMoves(3)
	if x := eval[string](p, baba); x != "4" {
		t.Errorf("baba at x %s after a step right, want 4", x)
	}
	p.key("z")
	p.waitMoves(2)
	if x := eval[string](p, baba); x != "3" {
		t.Errorf("baba at x %s after the undo, want 3", x)
	}
	p.click(`#sg-pad button[data-dir="right"]`)
	p.waitMoves(3)
	p.key(kb.ArrowRight)
	p.wait("the result", `!document.getElementById('sg-result').hidden`)

	// The page shows what the server decided.
	status, winners := lastResult(t, p)
	if status != spellgridgame.PhaseWon || !slices.Equal(winners, []int{0}) {
		t.Errorf("the server's result: %q, winners %v", status, winners)
	}
	if got := eval[string](p, `document.getElementById('sg-result').dataset.status`); got != status {
		t.Errorf("the page shows %q, the server's result is %q", got, status)
	}
	if got := eval[string](p, `document.querySelector('#sg-result h2').textContent`); got != "Level solved!" {
		t.Errorf("result title %q", got)
	}
	if got := eval[string](p, `document.getElementById('sg-result').dataset.moves`); got != "4" {
		t.Errorf("result moves %s, want 4", got)
	}
	q.wait("the spectator's end", `!document.getElementById('sg-result').hidden && document.getElementById('sg-status').dataset.phase === 'won'`)
	if mine, theirs := sgGrid(p), sgGrid(q); mine != theirs {
		t.Errorf("at the end, the spectator's grid\n%s\nthe player's\n%s", theirs, mine)
	}
	p.screenshot("spellgrid-end-desktop")
	p.darkMode(true)
	p.screenshot("spellgrid-end-dark-desktop")
	p.darkMode(false)
	p.resize(phone)
	p.screenshot("spellgrid-end-phone")
	p.resize(desktop)
	q.screenshot("spellgrid-end-spectator")

	// A rematch: the level as it started.
	p.click("#new-game")
	p.wait("a fresh level", `document.getElementById('sg-result').hidden && document.getElementById('sg-status').dataset.moves === '0' && document.getElementById('sg').dataset.mine === 'true' && document.querySelectorAll('#sg-hand .sg-card').length === 2`)
}

// TestSpellGridModules runs the page's own modules in the browser: its
// view model, on every level's known solution (an undo and a restart
// among the commands), must hold the server's projection after each
// beat, byte for byte; its card faces must be the card files' and its
// level titles and notes the levels'.
func TestSpellGridModules(t *testing.T) {
	t.Parallel()
	srv := startRoomd(t, withGames(spellgridgame.Game))
	p := newUser(t, srv, "model", desktop)
	p.open("/")
	p.wait("the lobby", `document.querySelector('label[data-game="spellgrid"]')`)

	var traces []sgTrace
	for _, id := range spellgridgame.Levels() {
		traces = append(traces, playSpellGrid(t, id))
	}
	data, err := json.Marshal(traces)
	if err != nil {
		t.Fatal(err)
	}
	js := fmt.Sprintf(`(async () => {
		const m = await import(document.querySelector('meta[name="roomd-assets"]').content + '/js/games/spellgrid/view.js');
		const out = [];
		for (const tr of %s) {
			const v = m.copyView(tr.start);
			tr.steps.forEach((s, i) => {
				m.applyBeats(v, s.beats);
				const got = JSON.stringify(v), want = JSON.stringify(s.view);
				if (got !== want) out.push(tr.level + ' command ' + i + ' ' + JSON.stringify(s.command) + ':\n  page   ' + got + '\n  server ' + want);
			});
		}
		return out;
	})()`, data)
	for _, bad := range evalAsync[[]string](p, js) {
		t.Error(bad)
	}

	// The card faces and the levels.
	type face struct {
		Type                 string
		Cost, Attack, Health int32
		Target, Text, Noun   string
		Token                bool
	}
	want := map[string]face{}
	for _, d := range cards.Library() {
		want[d.Name] = face{string(d.Type), d.Cost, d.Attack, d.Health, string(d.Target), d.Text, d.Noun, d.Token}
	}
	got := evalAsync[map[string]face](p, `import(document.querySelector('meta[name="roomd-assets"]').content + '/js/games/spellgrid/data.js').then(m => m.CARDS)`)
	for name, w := range want {
		if g, ok := got[name]; !ok || g != w {
			t.Errorf("card %q: the page has %+v (%v), the card files %+v", name, g, ok, w)
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("the page has a card %q the card files lack", name)
		}
	}
	raw, err := os.ReadFile("../core/spellgridgame/levels/levels.json")
	if err != nil {
		t.Fatal(err)
	}
	var levels []struct {
		ID    string
		Level struct{ Title, Note string }
	}
	if err := json.Unmarshal(raw, &levels); err != nil {
		t.Fatal(err)
	}
	type level struct{ ID, Title, Note string }
	var wantLevels []level
	for _, l := range levels {
		wantLevels = append(wantLevels, level{l.ID, l.Level.Title, l.Level.Note})
	}
	gotLevels := evalAsync[[]level](p, `import(document.querySelector('meta[name="roomd-assets"]').content + '/js/games/spellgrid/data.js').then(m => m.LEVELS)`)
	if !slices.Equal(gotLevels, wantLevels) {
		t.Errorf("the page's levels\n%+v\nthe server's\n%+v", gotLevels, wantLevels)
	}
}

// sgTrace is one level played with core/spellgridgame's rules: the start
// view, then each command with its beats and the view after it.
type sgTrace struct {
	Level string          `json:"level"`
	Start json.RawMessage `json:"start"`
	Steps []sgStep        `json:"steps"`
}

type sgStep struct {
	Command json.RawMessage `json:"command"`
	Beats   json.RawMessage `json:"beats"`
	View    json.RawMessage `json:"view"`
}

// playSpellGrid plays a level's known solution (core/spellgridgame's
// levels_test.go), with an undo and a restart thrown in, and checks that
// it wins.
func playSpellGrid(t *testing.T, id string) sgTrace {
	t.Helper()
	rules := spellgridgame.Rules{}
	s, err := rules.Init(session.IntSeed(1), spellgridgame.Config{Level: id}, 1)
	if err != nil {
		t.Fatal(err)
	}
	enc := func(v any) json.RawMessage { return mustJSON(t, v) }
	tr := sgTrace{Level: id, Start: enc(rules.Project(s, 0))}
	do := func(cmd string) {
		t.Helper()
		var m spellgridgame.Move
		if err := json.Unmarshal([]byte(cmd), &m); err != nil {
			t.Fatalf("%s: %s: %v", id, cmd, err)
		}
		var evs []spellgridgame.Event
		if s, evs, err = rules.Apply(s, session.Input[spellgridgame.Move]{Move: m}); err != nil {
			t.Fatalf("%s: %s: %v", id, cmd, err)
		}
		tr.Steps = append(tr.Steps, sgStep{Command: json.RawMessage(cmd), Beats: enc(rules.ProjectEvents(s, evs, session.Spectator)), View: enc(rules.Project(s, 0))})
	}
	target := func(x, y int) baba.ID {
		for _, m := range rules.Project(s, 0).Minions {
			if m.X == x && m.Y == y {
				return m.ID
			}
		}
		t.Fatalf("%s: no minion on (%d, %d)", id, x, y)
		return 0
	}
	steps := func(dir string, n int) {
		for range n {
			do(fmt.Sprintf(`{"type":"step","dir":%q}`, dir))
		}
	}
	switch id {
	case "scribe":
		do(`{"type":"play","card":"Rune Scribe","x":2,"y":2}`)
		do(`{"type":"restart"}`)
		do(`{"type":"play","card":"Rune Scribe","x":2,"y":2}`)
		do(fmt.Sprintf(`{"type":"cast","card":"Fireball","target":%d}`, target(2, 2)))
		steps("right", 1)
		do(`{"type":"undo"}`)
		steps("right", 2)
	case "double":
		steps("up", 2)
		steps("right", 3)
		do(`{"type":"undo"}`)
		steps("right", 1)
		steps("up", 2)
		do(fmt.Sprintf(`{"type":"cast","card":"Fireball","target":%d}`, target(7, 2)))
		steps("down", 2)
		steps("left", 3)
		steps("down", 2)
		steps("right", 5)
	case "golem":
		do(fmt.Sprintf(`{"type":"cast","card":"Fireball","target":%d}`, target(3, 4)))
		do(`{"type":"undo"}`)
		do(fmt.Sprintf(`{"type":"cast","card":"Fireball","target":%d}`, target(3, 4)))
		do(`{"type":"cast","card":"Whirlwind"}`)
		steps("right", 6)
	default:
		t.Fatalf("no known solution of level %q: add one here", id)
	}
	if !rules.Project(s, 0).Won {
		t.Fatalf("%s: the known solution does not win", id)
	}
	return tr
}

// sgTile is the selector of the tile (x, y) of the grid.
func sgTile(x, y int) string {
	return fmt.Sprintf(`#sg-grid .sg-tile[data-x="%d"][data-y="%d"]`, x, y)
}

// waitMoves waits until the status shows n moves.
func (p *page) waitMoves(n int) {
	p.t.Helper()
	p.wait(fmt.Sprintf("%d moves", n), fmt.Sprintf(`document.getElementById('sg-status').dataset.moves === '%d'`, n))
}

// sgCursorTo moves the grid cursor to (x, y) with the arrow keys.
func (p *page) sgCursorTo(x, y int) {
	p.t.Helper()
	at := eval[[]int](p, `(() => { const t = document.querySelector('#sg-grid .sg-tile[data-cursor]'); return [Number(t.dataset.x), Number(t.dataset.y)]; })()`)
	keys := ""
	for ; at[0] < x; at[0]++ {
		keys += kb.ArrowRight
	}
	for ; at[0] > x; at[0]-- {
		keys += kb.ArrowLeft
	}
	for ; at[1] < y; at[1]++ {
		keys += kb.ArrowDown
	}
	for ; at[1] > y; at[1]-- {
		keys += kb.ArrowUp
	}
	if keys != "" {
		p.key(keys)
	}
	p.wait(fmt.Sprintf("the cursor on (%d, %d)", x, y), fmt.Sprintf(`!!document.querySelector('%s[data-cursor]')`, sgTile(x, y)))
}

// sgGrid describes what the page's grid shows: every object's id, kind
// and tile, and the hand.
func sgGrid(p *page) string {
	p.t.Helper()
	return eval[string](p, `[...document.querySelectorAll('#sg-grid .sg-obj')].map(o => o.dataset.id + ':' + o.dataset.kind + '@' + o.closest('.sg-tile').dataset.x + ',' + o.closest('.sg-tile').dataset.y).sort().join(' ')
		+ ' | ' + [...document.querySelectorAll('#sg-hand .sg-card')].map(b => b.dataset.card).join(', ')`)
}
