package web_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/roomd/roomd/store"
)

// The lobby of issue 19: public rooms and quick play, the rooms this
// browser holds a seat in, the best times, and the language.

// lobbyRace fills the lobby's form for a Beginner race under name.
func lobbyRace(p *page, name string) {
	p.t.Helper()
	p.open("/")
	p.wait("the lobby form", `document.querySelector('#create-form #new-mode')`)
	p.click(`label[data-game="minesweeper"]`)
	p.setField("#new-mode", "race")
	p.setField("#new-level", "beginner")
	p.setField("#new-name", name)
}

// TestI19QuickPlayAndOpenRooms: "Play now" from two browsers (a desktop
// and a phone) lands both in the same public room, which starts by
// itself; a third browser's "Open rooms" lists it to join (with one
// player), then to watch once it runs, and lists a
// room made public in the create form but never an unlisted one, nor a
// public one the host makes unlisted.
func TestI19QuickPlayAndOpenRooms(t *testing.T) {
	t.Parallel()
	srv := startRoomd(t)
	ann := newUser(t, srv, "ann", desktop)
	lobbyRace(ann, "Ann")
	ann.wait("the play-now button", `(() => { const b = document.getElementById('quickplay'); return b && !b.hidden; })()`)
	ann.click("#quickplay")
	ann.wait("Ann's room", `location.pathname.startsWith('/r/') && document.getElementById('conn').dataset.connState === 'online'`)
	code := ann.roomCode()

	// Before Bob comes, the room is open to join. A solo mode has no
	// quick play and no public box.
	carl := newUser(t, srv, "carl", desktop)
	carl.open("/")
	carl.wait("the lobby form", `document.querySelector('#create-form #new-mode')`)
	carl.click(`label[data-game="minesweeper"]`)
	carl.setField("#new-mode", "solo")
	if !eval[bool](carl, `document.getElementById('quickplay').hidden && document.getElementById('new-public-field').hidden`) {
		t.Error("a one-seat mode offers quick play or a public listing")
	}
	carl.wait("the open room to join", fmt.Sprintf(`!!document.querySelector('#open-join .open-room[data-code=%q]')`, code))
	if href := eval[string](carl, fmt.Sprintf(`document.querySelector('#open-join .open-room[data-code=%q] a.open-join').getAttribute('href')`, code)); href != "/r/"+code {
		t.Errorf("join link %q", href)
	}

	bob := newUser(t, srv, "bob", phone)
	lobbyRace(bob, "Bob")
	bob.wait("the play-now button", `(() => { const b = document.getElementById('quickplay'); return b && !b.hidden; })()`)
	bob.click("#quickplay")
	bob.wait("Bob's room", `location.pathname.startsWith('/r/') && document.getElementById('conn').dataset.connState === 'online'`)
	if got := bob.roomCode(); got != code {
		t.Fatalf("quick play put Bob in room %s, Ann in %s", got, code)
	}
	ann.wait("two seats", `document.querySelectorAll('#seats .seat:not(.seat-open)').length === 2`)

	// An unlisted room (the default) and a public one from the form.
	dee := newUser(t, srv, "dee", desktop)
	hidden := dee.createMinesweeper(msSettings{mode: "coop", level: "beginner"}, "Dee")
	eve := newUser(t, srv, "eve", desktop)
	eve.open("/")
	eve.wait("the lobby form", `document.querySelector('#create-form #new-mode')`)
	eve.click(`label[data-game="minesweeper"]`)
	eve.setField("#new-mode", "coop")
	eve.setField("#new-level", "intermediate")
	eve.setField("#new-name", "Eve")
	eve.click("#new-public")
	eve.click("#create")
	eve.wait("Eve's room", `location.pathname.startsWith('/r/') && document.getElementById('conn').dataset.connState === 'online'`)
	listed := eve.roomCode()
	eve.wait("the access control", `document.getElementById('room-access')?.value === 'public'`)

	// The quick-play room starts the race by itself (issue 43): her
	// room is to watch now.
	ann.waitFor("the race", `document.body.dataset.phase === 'running'`, 15*time.Second)
	carl.waitFor("the public room and the running race", fmt.Sprintf(`!!document.querySelector('#open-join .open-room[data-code=%q]') && !!document.querySelector('#open-watch .open-room[data-code=%q]')`, listed, code), 15*time.Second)
	if eval[bool](carl, fmt.Sprintf(`!!document.querySelector('.open-room[data-code=%q]')`, hidden)) {
		t.Errorf("the unlisted room %s is listed", hidden)
	}
	if href := eval[string](carl, fmt.Sprintf(`document.querySelector('#open-watch .open-room[data-code=%q] a.open-watch').getAttribute('href')`, code)); href != "/r/"+code+"?watch" {
		t.Errorf("watch link %q", href)
	}
	carl.screenshot("i19-open-rooms-desktop")
	carl.resize(phone)
	carl.screenshot("i19-open-rooms-phone")
	carl.resize(desktop)

	// Eve makes her room unlisted: it leaves the list at the next poll.
	eve.setField("#room-access", "unlisted")
	carl.waitFor("the room made unlisted gone", fmt.Sprintf(`!document.querySelector('.open-room[data-code=%q]')`, listed), 15*time.Second)
	for i := 0; i < 3; i++ { // a few polls: the unlisted rooms never show
		time.Sleep(2 * time.Second)
		if eval[bool](carl, fmt.Sprintf(`!!document.querySelector('.open-room[data-code=%q], .open-room[data-code=%q]')`, hidden, listed)) {
			t.Fatal("an unlisted room is listed")
		}
	}
}

// TestI19YourRooms: "Your rooms" says what each room is (game, settings,
// phase, seats) and drops a room the server no longer has, with its
// token.
func TestI19YourRooms(t *testing.T) {
	t.Parallel()
	srv := startRoomd(t)
	p := newUser(t, srv, "ann", desktop)
	code := p.createMinesweeper(msSettings{mode: "coop", level: "beginner"}, "Ann")
	p.do(chromedp.Evaluate[chromedp.Void](`localStorage.setItem('roomd.token.ZZGONE', 'nothing')`))
	p.open("/")
	p.wait("your room described", fmt.Sprintf(`(() => { const li = document.querySelector('#recent li[data-code=%q][data-state="ready"]'); return li && li.dataset.phase === 'lobby'; })()`, code))
	got := eval[string](p, fmt.Sprintf(`document.querySelector('#recent li[data-code=%q]').innerText`, code))
	for _, want := range []string{code, "Minesweeper", "Beginner", "1/"} {
		if !strings.Contains(got, want) {
			t.Errorf("your room reads %q, want %q in it", got, want)
		}
	}
	p.wait("the gone room dropped", `!document.querySelector('#recent li[data-code="ZZGONE"]') && localStorage.getItem('roomd.token.ZZGONE') === null`)
	p.screenshot("i19-your-rooms-desktop")
}

// TestI19BestTimes: a match Ann plays to its end is kept by her browser
// (room and match); the lobby's best times, today, this week and all
// time, mark the entry of that room and match as hers and not Zed's; Bob,
// another browser, sees no entry marked; an empty list says so. (A win
// at a secret board cannot be played blind, so the test records the
// entries in the store the server reads its lists from.)
func TestI19BestTimes(t *testing.T) {
	t.Parallel()
	srv := startRoomd(t)
	p := newUser(t, srv, "ann", desktop)
	code := p.createMinesweeper(msSettings{mode: "solo", level: "beginner"}, "Ann")
	p.wait("the board", `document.body.dataset.phase === 'running' && document.querySelectorAll('#board td').length === 81`)
	for i := 0; eval[string](p, `document.getElementById('result')?.dataset.status || ''`) == ""; i++ {
		if i > 100 {
			t.Fatal("no result after 100 reveals")
		}
		rc := eval[[]int](p, `(() => { const td = [...document.querySelectorAll('#board td[data-status="hidden"]')].pop(); return td ? [Number(td.dataset.r), Number(td.dataset.c)] : []; })()`)
		if len(rc) != 2 {
			continue
		}
		p.clickCell(rc[0], rc[1], input.MouseButtonLeft)
		p.waitCell("#board", rc[0], rc[1], "revealed", "*")
	}
	p.wait("the match kept", fmt.Sprintf(`JSON.parse(localStorage.getItem('roomd.mine') || '[]').includes(%q)`, code+"/1"))

	now := time.Now().UTC()
	y, w := now.ISOWeek()
	for _, kind := range []string{"solo", "solo/day/" + now.Format(time.DateOnly), fmt.Sprintf("solo/week/%d-W%02d", y, w)} {
		b := store.Board{Game: "minesweeper", Board: "beginner", Kind: kind}
		for _, s := range []store.Score{{Name: "Zed", Value: 9000, Room: "OTHER1", Match: 1, At: now.UnixMilli()},
			{Name: "Ann", Value: 12345, Room: code, Match: 1, At: now.UnixMilli()}} {
			if err := srv.st.Record(t.Context(), b, s); err != nil {
				t.Fatal(err)
			}
		}
	}
	const mine = `(() => { const e = [...document.querySelectorAll('#best-list .best-entry')];
		return e.length === 2 && e[0].innerText.includes('Zed') && e[0].dataset.mine === 'false' && e[1].innerText.includes('Ann') && e[1].dataset.mine === 'true'; })()`
	p.open("/")
	p.wait("the best times", `['ready', 'empty'].includes(document.getElementById('best-times')?.dataset.state)`)
	p.setField("#best-game", "minesweeper")
	p.setField("#best-board", "beginner")
	p.setField("#best-mode", "solo")
	for _, period := range []string{"day", "week", "all"} {
		p.click(fmt.Sprintf(`#best-period button[data-period=%q]`, period))
		p.wait("Ann's entry marked, "+period, fmt.Sprintf(`document.querySelector('#best-period button[data-period=%q]').getAttribute('aria-pressed') === 'true' && document.getElementById('best-times').dataset.state === 'ready' && %s`, period, mine))
	}
	p.screenshot("i19-best-times-desktop")
	p.resize(phone)
	p.screenshot("i19-best-times-phone")

	bob := newUser(t, srv, "bob", desktop)
	bob.open("/")
	bob.wait("the best times", `['ready', 'empty'].includes(document.getElementById('best-times')?.dataset.state)`)
	bob.setField("#best-mode", "solo")
	bob.wait("no entry of Bob's", `(() => { const e = [...document.querySelectorAll('#best-list .best-entry')]; return e.length === 2 && e.every((x) => x.dataset.mine === 'false'); })()`)
	bob.setField("#best-board", "expert")
	bob.wait("an empty list", `document.getElementById('best-times').dataset.state === 'empty' && !document.getElementById('best-empty').hidden`)
}

// TestI19Language: the switch to 日本語 shows the lobby in Japanese and is
// remembered after a reload; back to English; a browser whose language
// is Japanese gets Japanese by default.
func TestI19Language(t *testing.T) {
	t.Parallel()
	srv := startRoomd(t)
	p := newUser(t, srv, "ann", desktop)
	p.open("/")
	p.wait("the lobby", `!!document.getElementById('create')`)
	if got := eval[string](p, `document.querySelector('.hero h1').textContent`); got != "Play together, live." {
		t.Fatalf("English lobby title %q", got)
	}
	p.setField("#lang", "ja")
	p.wait("the Japanese lobby", `document.documentElement.lang === 'ja' && document.querySelector('.hero h1')?.textContent === 'みんなで、リアルタイムに。'`)
	for sel, want := range map[string]string{"#create": "ルームを作る", "#join-form h2": "ルームに参加", "#open-rooms h2": "公開ルーム", "#best-times h2": "ベスト記録"} {
		if got := eval[string](p, fmt.Sprintf(`document.querySelector(%q)?.textContent || ''`, sel)); got != want {
			t.Errorf("%s reads %q in Japanese, want %q", sel, got, want)
		}
	}
	p.screenshot("i19-lobby-ja-desktop")
	p.resize(phone)
	p.screenshot("i19-lobby-ja-phone")
	p.resize(desktop)
	p.do(chromedp.Reload())
	p.wait("Japanese after a reload", `document.querySelector('.hero h1')?.textContent === 'みんなで、リアルタイムに。' && document.getElementById('lang').value === 'ja'`)
	p.setField("#lang", "en")
	p.wait("English again", `document.querySelector('.hero h1')?.textContent === 'Play together, live.'`)

	// A browser in Japanese, never switched.
	jp := newUser(t, srv, "taro", desktop)
	ctx, cancel := context.WithTimeout(jp.ctx, 10*time.Second)
	_, err := chromedp.Call(ctx, cdppage.AddScriptToEvaluateOnNewDocument, cdppage.AddScriptToEvaluateOnNewDocumentParams{Source: `
		Object.defineProperty(navigator, 'languages', { get: () => ['ja-JP', 'ja', 'en-US'] });
		Object.defineProperty(navigator, 'language', { get: () => 'ja-JP' });`})
	cancel()
	if err != nil {
		t.Fatal(err)
	}
	jp.open("/")
	jp.wait("Japanese by default", `document.documentElement.lang === 'ja' && document.querySelector('.hero h1')?.textContent === 'みんなで、リアルタイムに。' && localStorage.getItem('roomd.lang') === null`)
}
