package web_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// The room page's shell of issue 19: notices, the invite, the banners and
// the page after leaving.

// noticeClear is a script: whether the notices cover no cell of #board,
// and sit at the top of the window.
const noticeClear = `(() => {
	const ns = [...document.querySelectorAll('#notices .notice')];
	if (!ns.length) return 'no notice';
	const b = document.getElementById('board').getBoundingClientRect();
	for (const n of ns) {
		const r = n.getBoundingClientRect();
		if (r.top > window.innerHeight / 3) return 'a notice low on the screen at ' + r.top;
		if (r.left < b.right && r.right > b.left && r.top < b.bottom && r.bottom > b.top) return 'a notice over the board';
	}
	return '';
})()`

// TestI19Notices: a refusal while offline shows a notice that covers no
// board (desktop and phone) and goes as soon as the connection is back,
// not seconds later; an information notice goes sooner than an error; a
// notice can be dismissed.
func TestI19Notices(t *testing.T) {
	t.Parallel()
	srv := startRoomd(t)
	for _, vp := range []viewport{desktop, phone} {
		t.Run(vp.name, func(t *testing.T) {
			p := newUser(t, srv, "ann", vp)
			p.createMinesweeper(msSettings{mode: "solo", level: "intermediate"}, "Ann")
			p.wait("the board", `document.body.dataset.phase === 'running' && document.querySelectorAll('#board td').length === 256`)
			p.clickCell(8, 8, input.MouseButtonLeft)
			p.wait("the first reveal", `document.querySelector('#board td[data-r="8"][data-c="8"]').dataset.status === 'revealed'`)

			if err := srv.down(); err != nil {
				t.Fatal(err)
			}
			p.wait("reconnecting", `document.getElementById('conn').dataset.connState !== 'online'`)
			// A hidden cell in the board's last row: the old toasts covered it.
			rc := eval[[]int](p, `(() => { const td = [...document.querySelectorAll('#board td[data-status="hidden"]')].pop(); return [Number(td.dataset.r), Number(td.dataset.c)]; })()`)
			// The board takes no click while offline (issue 43): the keyboard
			// still sends, and is refused.
			p.do(chromedp.Evaluate[chromedp.Void](`document.querySelector('#board td[data-cursor]').focus()`))
			p.moveCursor(rc[0], rc[1])
			p.key(kb.Enter)
			p.wait("the offline notice", `!!document.querySelector('#notices .notice[data-code="offline"]')`)
			if why := eval[string](p, noticeClear); why != "" {
				t.Errorf("%s: %s", vp.name, why)
			}
			// While reconnecting the dot pulses for ever, which p.screenshot's
			// finish() of every animation refuses: stop that one first.
			p.do(chromedp.Evaluate[chromedp.Void](`document.getAnimations().forEach((a) => { if (a.effect?.getComputedTiming().endTime === Infinity) a.cancel(); })`))
			p.screenshot("i19-notice-offline-" + vp.name)
			// A notice that would stay (sticky): only the connection coming back removes it.
			evalAsync[bool](p, `import(document.querySelector('meta[name="roomd-assets"]').content + '/js/ui.js').then((ui) => {
				ui.showNotice({ code: 'offline', message: 'offline' }, { sticky: true }); return true; })`)
			if err := srv.up(nil); err != nil {
				t.Fatal(err)
			}
			p.waitFor("online again", `document.getElementById('conn').dataset.connState === 'online'`, 30*time.Second)
			p.waitFor("the offline notice gone with the connection back", `!document.querySelector('#notices .notice[data-code="offline"]')`, 500*time.Millisecond)

			// Information goes sooner than an error; both can be dismissed.
			evalAsync[bool](p, `import(document.querySelector('meta[name="roomd-assets"]').content + '/js/ui.js').then((ui) => {
				ui.showNotice({ code: 'epoch-changed', message: '' }); ui.showNotice({ code: 'not-host', message: '' });
				window.noticeAt = performance.now(); return true; })`)
			p.waitFor("the information gone", `!document.querySelector('#notices .notice[data-code="epoch-changed"]')`, 4500*time.Millisecond)
			if !eval[bool](p, `!!document.querySelector('#notices .notice[data-code="not-host"]')`) {
				t.Error("the error notice went as soon as the information")
			}
			p.click(`#notices .notice[data-code="not-host"] .notice-close`)
			p.wait("the error dismissed", `!document.querySelector('#notices .notice')`)
		})
	}
}

// TestI19Invite: the invite shows the whole link (nothing cut off) and
// the code with its own copy button, on a desktop and a phone; the host
// changes who may join.
func TestI19Invite(t *testing.T) {
	t.Parallel()
	srv := startRoomd(t)
	p := newUser(t, srv, "ann", desktop)
	code := p.createMinesweeper(msSettings{mode: "coop", level: "beginner"}, "Ann")
	for _, vp := range []viewport{desktop, phone} {
		p.resize(vp)
		got := eval[[]any](p, `(() => { const l = document.getElementById('share-link');
			return [l.textContent, l.scrollWidth <= l.clientWidth + 1 && l.scrollHeight <= l.clientHeight + 1, document.getElementById('share-code').textContent, !!document.getElementById('copy-code')]; })()`)
		if got[0] != srv.URL+"/r/"+code || got[1] != true || got[2] != code || got[3] != true {
			t.Errorf("%s: invite [link, all shown, code, copy-code] = %v", vp.name, got)
		}
		p.screenshot("i19-invite-" + vp.name)
	}
	p.resize(desktop)
	if a := srv.roomInfo(code)["access"]; a != "unlisted" {
		t.Errorf("a new room's access %v, want unlisted", a)
	}
	p.setField("#room-access", "public")
	deadline := time.Now().Add(5 * time.Second)
	for srv.roomInfo(code)["access"] != "public" {
		if time.Now().After(deadline) {
			t.Fatalf("the access control did not make the room public: %v", srv.roomInfo(code)["access"])
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestI19UpdateBanner: a room of other rules closes with 4003; the banner
// says so and nothing under it still says "Connecting…".
func TestI19UpdateBanner(t *testing.T) {
	t.Parallel()
	srv := startRoomd(t)
	host := newUser(t, srv, "host", desktop)
	code := host.createMinesweeper(msSettings{mode: "coop", level: "beginner"}, "Host")
	p := newUser(t, srv, "old", desktop)
	ctx, cancel := context.WithTimeout(p.ctx, 10*time.Second)
	// An older page: its hello pins rules the room does not run.
	_, err := chromedp.Call(ctx, cdppage.AddScriptToEvaluateOnNewDocument, cdppage.AddScriptToEvaluateOnNewDocumentParams{Source: `
		const send = WebSocket.prototype.send;
		WebSocket.prototype.send = function (data) {
			if (typeof data === 'string') data = data.replace(/"rulesVersion":"minesweeper\/[^"]*"/g, '"rulesVersion":"minesweeper/0"');
			return send.call(this, data);
		};`})
	cancel()
	if err != nil {
		t.Fatal(err)
	}
	p.open("/r/" + code + "?watch")
	p.wait("the update banner", `document.getElementById('banner')?.dataset.kind === 'update' && !!document.getElementById('reload')`)
	main := eval[string](p, `document.getElementById('room-main').innerText`)
	if strings.Contains(main, "Connecting") || strings.Contains(main, "Finding") || eval[bool](p, `!!document.querySelector('#connecting, #finding')`) {
		t.Errorf("a placeholder stays under the update banner: %q", main)
	}
	p.screenshot("i19-update-banner-desktop")
}

// TestI19LeaveSolo: leaving a solo room mid-game says you left and offers
// the lobby, watching and joining again — no "the host can start a new
// game" for a room you are no longer in.
func TestI19LeaveSolo(t *testing.T) {
	t.Parallel()
	srv := startRoomd(t)
	for _, vp := range []viewport{desktop, phone} {
		t.Run(vp.name, func(t *testing.T) {
			p := newUser(t, srv, "ann", vp)
			code := p.createMinesweeper(msSettings{mode: "solo", level: "beginner"}, "Ann")
			p.wait("the board", `document.body.dataset.phase === 'running' && document.querySelectorAll('#board td').length === 81`)
			p.clickCell(4, 4, input.MouseButtonLeft)
			p.wait("the first reveal", `document.querySelector('#board td[data-r="4"][data-c="4"]').dataset.status === 'revealed'`)
			p.do(chromedp.Evaluate[chromedp.Void](`window.confirm = () => true`))
			p.click("#leave")
			p.wait("the left page", `document.getElementById('banner').dataset.kind === 'left' && document.getElementById('conn').dataset.connState === 'closed' && !!document.getElementById('left')`)
			// Let any late update render: it must not bring the host talk back.
			time.Sleep(500 * time.Millisecond)
			text := eval[string](p, `document.getElementById('app').innerText`)
			if strings.Contains(text, "host can start") || eval[bool](p, `!!document.getElementById('board')`) {
				t.Errorf("after leaving, the page reads %q", text)
			}
			if !strings.Contains(text, "You left room "+code) {
				t.Errorf("after leaving, the page does not say so: %q", text)
			}
			for _, id := range []string{"left-lobby", "left-watch", "left-join"} {
				if !eval[bool](p, fmt.Sprintf(`!!document.getElementById(%q)`, id)) {
					t.Errorf("no #%s after leaving", id)
				}
			}
			p.screenshot("i19-left-" + vp.name)
			p.click("#left-join")
			p.wait("the join form again", `!!document.getElementById('join-watch')`)
		})
	}
}

// TestI19DocShots writes the README's screenshots (web/docs/screenshots)
// when ROOMD_DOC_SHOTS=1: the lobby on a desktop and a phone, a room's
// lobby, a game on a desktop and a phone. Each is the window from the
// top of the page, not the full page, to keep the files small.
func TestI19DocShots(t *testing.T) {
	t.Parallel()
	if os.Getenv("ROOMD_DOC_SHOTS") != "1" {
		t.Skip("set ROOMD_DOC_SHOTS=1 to write web/docs/screenshots")
	}
	dir := filepath.Join("docs", "screenshots")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	shot := func(p *page, name string) {
		t.Helper()
		p.do(chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, 0); document.activeElement?.blur?.();
			document.getAnimations().forEach((a) => { try { a.finish(); } catch { /* an endless one */ } })`))
		ctx, cancel := context.WithTimeout(p.ctx, 20*time.Second)
		defer cancel()
		buf, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name+".png"), buf, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	srv := startRoomd(t)
	// A public room open to join, for the lobby's list.
	bea := newUser(t, srv, "bea", desktop)
	bea.open("/")
	bea.wait("the lobby form", `document.querySelector('#create-form #new-mode')`)
	bea.click(`label[data-game="minesweeper"]`)
	bea.setField("#new-mode", "race")
	bea.setField("#new-name", "Bea")
	bea.click("#new-public")
	bea.click("#create")
	bea.wait("Bea's room", `location.pathname.startsWith('/r/') && document.getElementById('conn').dataset.connState === 'online'`)
	shot(bea, "room-lobby-desktop")

	p := newUser(t, srv, "ann", desktop)
	p.open("/")
	p.wait("the lobby with its open room", `document.getElementById('open-rooms')?.dataset.state === 'ready'`)
	p.setField("#new-mode", "race")
	shot(p, "lobby-desktop")
	p.resize(phone)
	shot(p, "lobby-phone")
	p.resize(desktop)
	p.createMinesweeper(msSettings{mode: "solo", level: "beginner"}, "Ann")
	p.wait("the board", `document.body.dataset.phase === 'running' && document.querySelectorAll('#board td').length === 81`)
	p.clickCell(4, 4, input.MouseButtonLeft)
	p.wait("the first reveal", `document.querySelectorAll('#board td[data-status="revealed"]').length > 0`)
	shot(p, "game-desktop")
	p.resize(phone)
	shot(p, "game-phone")
}

// TestI19ShellA11y runs the accessibility check on the lobby (with an
// open room, the best times, your rooms) and on a host's room page, in
// light and dark mode, on a desktop and a phone.
func TestI19ShellA11y(t *testing.T) {
	t.Parallel()
	srv := startRoomd(t)
	host := newUser(t, srv, "host", desktop)
	host.open("/")
	host.wait("the lobby form", `document.querySelector('#create-form #new-mode')`)
	host.click(`label[data-game="minesweeper"]`)
	host.setField("#new-mode", "race")
	host.setField("#new-name", "Bea")
	host.click("#new-public")
	host.click("#create")
	host.wait("the room", `location.pathname.startsWith('/r/') && document.getElementById('conn').dataset.connState === 'online' && !!document.getElementById('room-access')`)
	p := newUser(t, srv, "ann", desktop)
	p.open("/")
	p.wait("the lobby with its open room", `document.getElementById('open-rooms')?.dataset.state === 'ready' && document.getElementById('best-times')?.dataset.state !== 'loading'`)
	for _, vp := range []viewport{desktop, phone} {
		for _, dark := range []bool{false, true} {
			p.resize(vp)
			p.darkMode(dark)
			host.resize(vp)
			host.darkMode(dark)
			p.checkA11y(fmt.Sprintf("the lobby (%s, dark %v)", vp.name, dark))
			host.checkA11y(fmt.Sprintf("the host's room (%s, dark %v)", vp.name, dark))
		}
	}
}

// TestInviteLink: a host locks the room; the link it shares carries the
// invite, which the page takes out of the address bar and sends in its
// hello: a friend with the link takes a seat, a stranger with the bare code
// only watches (invite-required).
func TestInviteLink(t *testing.T) {
	t.Parallel()
	srv := startRoomd(t)
	ann := newUser(t, srv, "ann", desktop)
	code := ann.createMinesweeper(msSettings{mode: "coop", level: "beginner"}, "Ann")
	ann.wait("the access control", `!!document.getElementById('room-access')`)
	ann.setField("#room-access", "locked")
	ann.wait("the link with its invite", `document.getElementById('share-link').textContent.includes('?invite=')`)
	link := eval[string](ann, `document.getElementById('share-link').textContent`)
	path := link[strings.Index(link, "/r/"):]

	bob := newUser(t, srv, "bob", phone)
	bob.open(path)
	bob.wait("the join form", `!!document.getElementById('join-player') && !document.getElementById('join-player').disabled`)
	if q := eval[string](bob, `location.search`); strings.Contains(q, "invite") {
		t.Errorf("the invite stayed in the address bar: %q", q)
	}
	bob.setField("#join-name", "Bob")
	bob.click("#join-player")
	bob.wait("Bob's seat", `!!document.querySelector('#seats .seat-you[data-seat="1"]')`)

	eve := newUser(t, srv, "eve", desktop)
	eve.open("/r/" + code)
	eve.wait("the join form", `!!document.getElementById('join-name')`)
	eve.setField("#join-name", "Eve")
	if eval[bool](eve, `!!document.getElementById('join-player') && !document.getElementById('join-player').disabled`) {
		eve.click("#join-player")
		eve.wait("watching, not seated", `document.getElementById('conn').dataset.connState === 'online'`)
		if eval[bool](eve, `!!document.querySelector('#seats .seat-you')`) {
			t.Fatal("a stranger without the invite took a seat in a locked room")
		}
	}
	if n := len(srv.roomInfo(code)["seats"].([]any)); n != 2 {
		t.Fatalf("the locked room has %d seats, want Ann and Bob", n)
	}
	bob.screenshot("invite-link-phone")
}
