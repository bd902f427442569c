package web_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"

	"github.com/roomd/roomd/core/minesweeper"
	"github.com/roomd/roomd/core/session"
)

// TestRankedDailyInBrowser plays the ranked daily from the lobby
// (PROTOCOL.md §2.8): the lobby shows today's Beginner daily with its
// commitment and an empty list; "Play today's daily" opens a room that
// starts by itself, whose commitment is the day's; Ann clears the board
// (the test knows it: it derives the day's secret from the store's daily
// key, as the server documents); the result offers no new game but says
// the secret is sealed until the day ends, and lists Ann on the day's
// list, as the lobby then does too; a second browser on the same address
// is told it has played today's daily.
func TestRankedDailyInBrowser(t *testing.T) {
	t.Parallel()
	srv := startRoomd(t)
	p := newUser(t, srv, "ann", desktop)
	p.open("/")
	p.wait("the lobby form", `document.querySelector('#create-form #new-mode')`)
	p.click(`label[data-game="minesweeper"]`)
	p.setField("#new-level", "beginner")
	day := time.Now().UTC().Format(time.DateOnly)
	p.wait("today's daily", fmt.Sprintf(`(() => { const d = document.getElementById('daily'); return d && !d.hidden && d.dataset.day === %q && d.dataset.board === 'beginner' && !!document.getElementById('daily-play'); })()`, day))
	commitment := eval[string](p, `document.getElementById('daily-commitment').title`)
	if len(commitment) != 64 || !eval[bool](p, `!!document.getElementById('daily-scores-empty')`) {
		t.Fatalf("the lobby's daily: commitment %q, list %s", commitment, eval[string](p, `document.getElementById('daily').innerText`))
	}
	p.setField("#new-level", "expert")
	p.wait("the expert daily", `document.getElementById('daily').dataset.board === 'expert'`)
	if c := eval[string](p, `document.getElementById('daily-commitment').title`); c == commitment || len(c) != 64 {
		t.Fatalf("expert's commitment %q, beginner's %q", c, commitment)
	}
	p.setField("#new-level", "beginner")
	p.wait("the beginner daily", `document.getElementById('daily').dataset.board === 'beginner'`)
	p.setField("#new-name", "Ann")
	p.screenshot("daily-lobby-desktop")
	clickDailyPlay(p)
	p.wait("the daily's board", `location.pathname.startsWith('/r/') && document.querySelectorAll('#board td').length === 81`)
	code := p.roomCode()
	info := srv.roomInfo(code)
	if info["daily"] != day || info["commitment"] != commitment {
		t.Fatalf("the room: daily %v commitment %v; the lobby showed %s", info["daily"], info["commitment"], commitment)
	}

	// The day's board, from the store's daily key as PROTOCOL.md §2.8 says.
	key, _, err := srv.st.Claim(t.Context(), "daily/key", nil, 0)
	if err != nil || len(key) != 32 {
		t.Fatalf("daily key: %x %v", key, err)
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte("roomd daily/1\x00minesweeper\x00solo\x00beginner\x00" + day))
	var secret [session.SeedBytes]byte
	copy(secret[:], mac.Sum(nil))
	if session.SecretSeed(secret).Commitment() != commitment {
		t.Fatal("the derived secret does not commit to the lobby's commitment")
	}
	cfg, _ := minesweeper.DecodeConfig([]byte(`{"level":"beginner"}`))
	p.clickCell(4, 4, input.MouseButtonLeft)
	layout, err := minesweeper.Generate(session.SecretSeed(secret), cfg, 4, 4)
	if err != nil {
		t.Fatal(err)
	}
	p.wait("the first reveal", `document.querySelector('#board td[data-r="4"][data-c="4"]').dataset.status === 'revealed'`)
	for k, mine := range layout.Mine {
		r, c := k/cfg.Cols, k%cfg.Cols
		if mine {
			continue
		}
		if st, _ := p.cell("#board", r, c); st == "hidden" {
			p.clickCell(r, c, input.MouseButtonLeft)
			p.wait("the reveal", fmt.Sprintf(`document.querySelector('#board td[data-r="%d"][data-c="%d"]').dataset.status === 'revealed'`, r, c))
		}
	}
	p.wait("the win", `document.getElementById('result').dataset.status === 'won'`)
	p.wait("the day's list", `document.getElementById('leaderboard').dataset.state === 'ready' && !!document.querySelector('#leaderboard .score-mine')`)
	if eval[bool](p, `!!document.getElementById('new-game')`) || eval[string](p, `document.getElementById('daily-note')?.dataset.sealed`) != "true" {
		t.Fatalf("the daily's result: %s", eval[string](p, `document.getElementById('result').innerText`))
	}
	if title := eval[string](p, `document.querySelector('#leaderboard h3').textContent`); !strings.Contains(title, "daily") || !strings.Contains(title, day) {
		t.Errorf("the list's title %q", title)
	}
	if txt := eval[string](p, `document.body.innerText`); strings.Contains(txt, fmt.Sprintf("%x", secret[:6])) {
		t.Error("the page shows the day's secret before the day's end")
	}
	p.screenshot("daily-won-desktop")

	// The lobby lists Ann; another browser on this address may not play.
	b := newUser(t, srv, "bob", phone)
	b.open("/")
	b.wait("the lobby form", `document.querySelector('#create-form #new-mode')`)
	b.click(`label[data-game="minesweeper"]`)
	b.setField("#new-level", "beginner")
	b.wait("today's list with Ann", `(() => { const l = document.getElementById('daily-scores'); return !!l && l.innerText.includes('Ann'); })()`)
	b.setField("#new-name", "Bob")
	clickDailyPlay(b)
	b.wait("the refusal", `(() => { const e = document.getElementById('daily-error'); return !!e && !e.hidden && e.textContent.includes('one attempt a day'); })()`)
	b.screenshot("daily-refused-phone")
	if !strings.HasPrefix(eval[string](b, `location.pathname`), "/") || strings.HasPrefix(eval[string](b, `location.pathname`), "/r/") {
		t.Error("the refused daily left the lobby")
	}
}

// clickDailyPlay presses "Play today's daily" from the page's own script:
// the panel is redrawn whenever its list arrives, which can replace the
// button between a DevTools lookup of it and the click.
func clickDailyPlay(p *page) {
	p.t.Helper()
	p.wait("the daily's button", `!!document.getElementById('daily-play')`)
	if !eval[bool](p, `(() => { const b = document.getElementById('daily-play'); if (!b) return false; b.click(); return true; })()`) {
		p.t.Fatalf("%s: no daily button%s", p.name, p.debug())
	}
}
