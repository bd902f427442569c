package main

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/roomd/roomd"
	connectfour "github.com/roomd/roomd/examples/connectfour/game"
	"github.com/roomd/roomd/web/webtest"
)

// withCore is the game's browser files with its WebAssembly core, built
// for the tests into a temporary directory once (nothing binary is
// committed): the page plays each update's beats through it (ctx.follow),
// and local play runs the game in it.
func withCore(t *testing.T) fs.FS {
	t.Helper()
	coreOnce.Do(func() { coreFiles, coreErr = buildCore() })
	if coreErr != nil {
		t.Fatal(coreErr)
	}
	return coreFiles
}

var (
	coreOnce  sync.Once
	coreFiles fs.FS
	coreErr   error
)

func buildCore() (fs.FS, error) {
	dir, err := os.MkdirTemp("", "connectfour-core")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	out := filepath.Join(dir, "core.wasm")
	cmd := exec.Command("go", "build", "-o", out, "./wasm")
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	if msg, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("building the core: %v\n%s", err, msg)
	}
	core, err := os.ReadFile(out)
	if err != nil {
		return nil, err
	}
	files := fstest.MapFS{"core.wasm": {Data: core}}
	err = fs.WalkDir(connectfour.Web(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(connectfour.Web(), p)
		files[p] = &fstest.MapFile{Data: data}
		return err
	})
	return files, err
}

// TestPlayInChromium: in a real Chromium, a player picks Connect Four in
// the lobby (its page module loaded from this program's files), fills the
// other seat with the AI and plays to the end, dropping into the leftmost
// column that takes a disc; the page shows the result the server decided.
func TestPlayInChromium(t *testing.T) {
	t.Parallel()
	webtest.Browser(t) // skip (or fail, with CI=true) before building anything
	base := serve(t, roomd.Game{Rules: connectfour.Game, Web: withCore(t)})
	p := webtest.Open(t, base+"/")
	p.Wait("the lobby offers Connect Four", `document.querySelector('label[data-game="connectfour"][data-page="true"]')`)
	p.Click(`label[data-game="connectfour"]`)
	p.Wait("its form", `document.querySelector('.settings-form[data-game="connectfour"]') && !document.getElementById('create').disabled`)
	p.SetField("#new-name", "Cleo")
	p.Click("#create")
	p.Wait("the room's lobby", `location.pathname.startsWith('/r/') && document.getElementById('fill-ai')`)
	p.Click("#fill-ai")
	p.Wait("the AI seat", `document.querySelectorAll('#seats .seat[data-ai="true"]').length === 1`)
	p.Click("#start")
	p.Wait("an empty grid", `document.querySelectorAll('#c4-grid .c4-cell[data-disc=""]').length === 42`)
	playToTheEnd(t, p)
	if n := webtest.Eval[int](p, `Number(document.querySelector('.c4').dataset.followed || 0)`); n < 2 {
		t.Fatalf("%d updates played through the game's WebAssembly core (ctx.follow): the page did not follow with its Go reducer", n)
	}
}

// TestLocalPlayInChromium: the lobby offers Connect Four against the AI
// on this device; the game runs in its WebAssembly core in the page, to
// the end, with no room on the server.
func TestLocalPlayInChromium(t *testing.T) {
	t.Parallel()
	webtest.Browser(t)
	base := serve(t, roomd.Game{Rules: connectfour.Game, Web: withCore(t)})
	p := webtest.Open(t, base+"/")
	p.Wait("the lobby offers Connect Four", `document.querySelector('label[data-game="connectfour"][data-page="true"]')`)
	p.Click(`label[data-game="connectfour"]`)
	p.Wait("local play against the AI", `document.getElementById('local-ai') && !document.getElementById('local-play').hidden`)
	p.SetField("#new-name", "Dee")
	p.Click("#local-ai")
	p.Wait("an empty grid on this device", `location.pathname === '/play/connectfour' && document.querySelectorAll('#c4-grid .c4-cell[data-disc=""]').length === 42`, 20*time.Second)
	playToTheEnd(t, p)
}

// playToTheEnd drops into the leftmost column that takes a disc until the
// match ends, and checks the result the page shows against its view.
func playToTheEnd(t *testing.T, p *webtest.Page) {
	t.Helper()
	for turn := 0; ; turn++ {
		if turn > 21 {
			t.Fatal("21 drops and no end")
		}
		p.Wait("my turn or the end", `document.getElementById('c4-status').dataset.mine === 'true' || !document.getElementById('c4-result').hidden`, 20*time.Second)
		if webtest.Eval[bool](p, `!document.getElementById('c4-result').hidden`) {
			break
		}
		discs := webtest.Eval[int](p, `document.querySelectorAll('#c4-grid .c4-cell:not([data-disc=""])').length`)
		p.Click(`#c4-cols .c4-drop:not([disabled])`)
		// The drop and the AI's answer are played on the page's view by the
		// game's Go reducer, in its WebAssembly core.
		p.Wait("my disc on the grid", `document.querySelectorAll('#c4-grid .c4-cell:not([data-disc=""])').length > `+itoa(discs), 20*time.Second)
	}
	phase := webtest.Eval[string](p, `document.getElementById('c4-result').dataset.phase`)
	winner := webtest.Eval[string](p, `document.getElementById('c4-result').dataset.winner`)
	status := webtest.Eval[string](p, `document.getElementById('c4-status').dataset.phase`)
	if phase != status || (phase == connectfour.PhaseWon) != (winner != "") || (phase != connectfour.PhaseWon && phase != connectfour.PhaseDraw) {
		t.Fatalf("the result shows phase %q, winner %q; the view's phase is %q", phase, winner, status)
	}
	if webtest.Eval[int](p, `document.querySelectorAll('#c4-grid .c4-cell[data-win="true"]').length`) != map[bool]int{true: 4, false: 0}[phase == connectfour.PhaseWon] {
		t.Fatal("the winning line is not shown as four cells")
	}
}

func itoa(n int) string {
	return string(rune('0'+n/10)) + string(rune('0'+n%10))
}
