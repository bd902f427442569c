package web_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
)

// The accessibility check of the Chromium tests: axe-core's WCAG 2 A and
// AA rules (testdata/axe, vendored, MPL-2.0) and our own checks
// (testdata/a11y_check.js): names of interactive elements, labels, alt
// texts, ids, roles in their context, the contrast of the text in the
// page's colours, and focus that shows.

var (
	a11yOnce   sync.Once
	a11yAxe    string // axe.min.js
	a11yScript string // a11y_check.js
	a11yErr    error
)

func a11yScripts(t *testing.T) (axe, check string) {
	t.Helper()
	a11yOnce.Do(func() {
		var b []byte
		if b, a11yErr = os.ReadFile(filepath.Join("testdata", "axe", "axe.min.js")); a11yErr != nil {
			return
		}
		a11yAxe = string(b)
		if b, a11yErr = os.ReadFile(filepath.Join("testdata", "a11y_check.js")); a11yErr != nil {
			return
		}
		a11yScript = string(b)
	})
	if a11yErr != nil {
		t.Fatal(a11yErr)
	}
	return a11yAxe, a11yScript
}

// a11yFocusSample is how many focusable elements, one of each kind, the
// check focuses to see that focus shows.
const a11yFocusSample = 60

// a11yProblems checks the page as it is now and returns its problems,
// one line each: axe-core's violations first ("axe <rule> …"), then ours.
func (p *page) a11yProblems() []string {
	p.t.Helper()
	axe, check := a11yScripts(p.t)
	if !eval[bool](p, `typeof window.axe === 'object'`) {
		if !eval[bool](p, axe+"\n;typeof window.axe === 'object'") {
			p.t.Fatalf("%s: axe-core did not load", p.name)
		}
	}
	// Transitions end first (a switch to dark mode fades the buttons'
	// backgrounds): the check sees the page at rest.
	evalAsync[bool](p, `(async () => {
		for (const a of document.getAnimations()) { try { a.finish(); } catch { /* an infinite one */ } }
		await new Promise((res) => requestAnimationFrame(() => requestAnimationFrame(res)));
		return true;
	})()`)
	problems := evalAsync[[]string](p, `axe.run(document, {
		runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa']}, resultTypes: ['violations'],
	}).then((r) => r.violations.flatMap((v) => v.nodes.map((n) => 'axe ' + v.id + ' (' + v.impact + '): ' + v.help + ': ' +
		n.target.join(' ') + ' — ' + (n.failureSummary || '').replace(/\s+/g, ' ').slice(0, 400))))`)
	// Focus by keyboard: a key press first, so that the browser takes the
	// focus that follows for the keyboard's (as after Tab), not the mouse's.
	p.do(shiftKey)
	own := evalAsync[[]string](p, fmt.Sprintf("(%s)({focus: %d})", strings.TrimSpace(stripLeadingComments(check)), a11yFocusSample))
	return append(problems, own...)
}

// checkA11y fails the test with every accessibility problem of the page
// as it is now; what says which page and state it is.
func (p *page) checkA11y(what string) {
	p.t.Helper()
	if problems := p.a11yProblems(); len(problems) > 0 {
		p.t.Errorf("%s: %s: %d accessibility problems:\n  %s", p.name, what, len(problems), strings.Join(problems, "\n  "))
	}
}

// stripLeadingComments drops the comment lines before the function.
func stripLeadingComments(src string) string {
	lines := strings.Split(src, "\n")
	for len(lines) > 0 && (strings.HasPrefix(strings.TrimSpace(lines[0]), "//") || strings.TrimSpace(lines[0]) == "") {
		lines = lines[1:]
	}
	return strings.Join(lines, "\n")
}

// shiftKey presses and releases Shift, which types nothing.
var shiftKey = chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
	for _, typ := range []input.DispatchKeyEventType{input.DispatchKeyEventTypeRawKeyDown, input.DispatchKeyEventTypeKeyUp} {
		if _, err := cdp.Call(ctx, t, input.DispatchKeyEvent, input.DispatchKeyEventParams{
			Type: typ, Key: "Shift", Code: "ShiftLeft", WindowsVirtualKeyCode: 16}); err != nil {
			return err
		}
	}
	return nil
})

// TestA11yChecker: the check finds each kind of problem it looks for, on
// a lobby spoiled on purpose, and axe-core runs.
func TestA11yChecker(t *testing.T) {
	t.Parallel()
	srv := startRoomd(t)
	p := newUser(t, srv, "ann", desktop)
	p.open("/")
	p.wait("the lobby", `document.querySelector('#create-form')`)
	eval[bool](p, `(() => {
		const bad = document.createElement('section');
		bad.id = 'spoiled';
		bad.innerHTML = '<button type="button" id="nameless"></button>' +
			'<img src="/favicon.ico" id="no-alt">' +
			'<span id="twice">a</span><span id="twice">b</span>' +
			'<div id="lost-cell" role="gridcell" tabindex="0">7</div>' +
			'<p id="faint">faint words</p>' +
			'<input type="text" id="unlabelled">' +
			'<button type="button" id="no-ring">go</button>' +
			'<div id="bogus" role="buttn">x</div>' +
			'<button type="button" id="pale-ring">pale</button>';
		document.getElementById('app').prepend(bad);
		// Styles set through the CSSOM: the CSP refuses style attributes.
		Object.assign(document.getElementById('faint').style, {color: '#aaa', background: '#fff'});
		Object.assign(document.getElementById('no-ring').style, {outline: 'none', boxShadow: 'none'});
		document.getElementById('pale-ring').style.outlineColor = '#eef2f7';
		return true;
	})()`)
	problems := strings.Join(p.a11yProblems(), "\n")
	for _, want := range []string{
		"button#nameless: an interactive element without an accessible name",
		"img#no-alt: an img without alt",
		`the id "twice" is used by 2 elements`,
		"div#lost-cell \"7\": role gridcell must be inside row",
		"p#faint \"faint words\": contrast 2.32:1",
		"input#unlabelled: a form control without a label",
		"button#no-ring \"go\": focus is not visible",
		"button#pale-ring \"pale\": focus outline #eef2f7 on #eef2f7: contrast 1.00:1",
		`role "buttn" is not an ARIA role`,
		"axe image-alt",
		"axe color-contrast",
		"axe button-name",
	} {
		if !strings.Contains(problems, want) {
			t.Errorf("the check does not report %q; it reports:\n%s", want, problems)
		}
	}
	// The lobby itself, untouched, has no such problem: the spoiled part
	// is the only source of them.
	for _, line := range strings.Split(problems, "\n") {
		if !strings.Contains(line, "#spoiled") && !strings.Contains(line, "nameless") && !strings.Contains(line, "no-alt") &&
			!strings.Contains(line, "twice") && !strings.Contains(line, "lost-cell") && !strings.Contains(line, "faint") &&
			!strings.Contains(line, "unlabelled") && !strings.Contains(line, "no-ring") && !strings.Contains(line, "pale-ring") && !strings.Contains(line, "bogus") {
			t.Logf("also reported: %s", line)
		}
	}
}

// TestA11y runs the check on every kind of page a player sees — the
// lobby, a room's lobby, a Minesweeper game in progress, a Hidden Nim
// game, the local play page — on a desktop and a phone, in light and in
// dark mode.
func TestA11y(t *testing.T) {
	t.Parallel()
	for _, vp := range []viewport{desktop, phone} {
		t.Run(vp.name, func(t *testing.T) {
			srv := startRoomd(t)
			p := newUser(t, srv, "ann", vp)
			check := func(what, shot string) {
				t.Helper()
				for _, dark := range []bool{false, true} {
					scheme := "light"
					if dark {
						scheme = "dark"
					}
					p.darkMode(dark)
					p.checkA11y(what + " (" + vp.name + ", " + scheme + ")")
					p.screenshot("a11y-" + shot + "-" + vp.name + "-" + scheme)
				}
				p.darkMode(false)
			}

			p.open("/")
			p.wait("the lobby", `document.querySelector('#create-form #new-mode')`)
			check("the lobby", "lobby")

			p.createMinesweeper(msSettings{mode: "coop", level: "beginner"}, "Ann")
			p.wait("the room's lobby", `document.querySelectorAll('#seats .seat[data-seat]').length === 1 && document.getElementById('start')`)
			check("a room's lobby", "room-lobby")

			p.createMinesweeper(msSettings{mode: "solo", level: "beginner"}, "Ann")
			p.wait("the board", `document.body.dataset.phase === 'running' && document.querySelector('#board td')`)
			p.clickCell(4, 4, input.MouseButtonLeft)
			p.waitCell("#board", 4, 4, "revealed", "*")
			check("a Minesweeper game in progress", "minesweeper")

			p.open("/")
			p.wait("the lobby", `document.querySelector('#create-form')`)
			p.click(`label[data-game="nim"]`)
			p.setField("#new-name", "Ann")
			p.click("#create")
			p.wait("the Nim room", `location.pathname.startsWith('/r/') && document.getElementById('fill-ai')`)
			p.click("#fill-ai")
			p.wait("the AI seat", `document.querySelectorAll('#seats .seat[data-ai="true"]').length === 1`)
			p.click("#start")
			p.wait("my turn", `document.getElementById('turn')?.dataset.mine === 'true'`)
			check("a Hidden Nim game", "nim")

			p.open("/")
			p.wait("the lobby", `document.querySelector('label[data-game="minesweeper"]')`)
			p.click(`label[data-game="minesweeper"]`)
			p.wait("the local modes", `document.getElementById('local-solo')`)
			p.click("#local-solo")
			p.wait("the local board", `location.pathname === '/play/minesweeper' && document.querySelectorAll('#board td').length > 0`)
			p.clickCell(4, 4, input.MouseButtonLeft)
			p.waitCell("#board", 4, 4, "revealed", "*")
			check("the local play page", "local")
		})
	}
}

// TestA11yBoardNumbers: the numbers 1–8 of revealed cells keep 4.5:1 on
// the smallest cells the board draws (a phone's expert board), where they
// are no longer large text.
func TestA11yBoardNumbers(t *testing.T) {
	t.Parallel()
	srv := startRoomd(t)
	p := newUser(t, srv, "ann", phone)
	p.open("/")
	p.wait("the lobby", `document.querySelector('#create-form')`)
	size := eval[float64](p, `(() => {
		const table = document.createElement('table');
		table.id = 'numbers';
		table.className = 'board';
		table.style.setProperty('--cols', '30');
		const tr = table.insertRow();
		for (let v = 1; v <= 8; v++) {
			const td = tr.insertCell();
			Object.assign(td.dataset, {r: '0', c: String(v), status: 'revealed', value: String(v)});
			td.textContent = String(v);
		}
		document.getElementById('app').prepend(table);
		return parseFloat(getComputedStyle(table.rows[0].cells[0]).fontSize);
	})()`)
	if size >= 18.66 {
		t.Fatalf("the numbers are %.1fpx: large text, not the smallest cells", size)
	}
	p.screenshot("a11y-board-numbers-phone")
	var bad []string
	for _, line := range p.a11yProblems() {
		if strings.Contains(line, "numbers") && strings.Contains(line, "contrast") {
			bad = append(bad, line)
		}
	}
	if len(bad) > 0 {
		t.Errorf("the numbers at %.1fpx:\n  %s", size, strings.Join(bad, "\n  "))
	}
}
