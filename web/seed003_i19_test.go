package web_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp/kb"

	"github.com/roomd/roomd/core/babagame"
	"github.com/roomd/roomd/core/cardgame"
	"github.com/roomd/roomd/core/spellgridgame"
)

// TestSeed003Japanese plays with Japanese chosen (localStorage
// "roomd.lang" set before the page loads): a Baba room, a card duel
// against the AI and solo Baba on this device must show Japanese — in
// their text and in their accessible names (aria-label, title) no phrase
// of the English tables of baba, cards, spellgrid and local, and no
// English word at all — on a desktop and on a phone, in light and dark.
func TestSeed003Japanese(t *testing.T) {
	t.Parallel()
	en, ja := readI18n(t, "en"), readI18n(t, "ja")
	srv := startRoomd(t, withGames(babagame.Game, cardgame.Game, spellgridgame.Game), withAIDelay(5*time.Millisecond))

	// A Baba room, made in Japanese, a step played.
	p := newUser(t, srv, "hana", desktop)
	p.open("/")
	eval[bool](p, `localStorage.setItem('roomd.lang', 'ja'), true`)
	p.open("/")
	p.wait("the lobby in Japanese", `document.documentElement.lang === 'ja' && document.querySelector('label[data-game="baba"][data-page="true"]')`)
	p.click(`label[data-game="baba"]`)
	p.wait("the Baba form", `document.querySelector('.settings-form[data-game="baba"] #new-level') && !document.getElementById('create').disabled`)
	if got := eval[string](p, `document.querySelector('#new-level option[value="baba-is-you"]').textContent`); got != "1. ババ イズ ユー" {
		t.Errorf("the level choice reads %q", got)
	}
	p.setField("#new-control", babagame.ControlShared)
	p.setField("#new-name", "花子")
	p.click("#create")
	p.wait("the room's lobby", `location.pathname.startsWith('/r/') && document.getElementById('start')`)
	p.click("#start")
	p.wait("the level", `document.querySelectorAll('#baba-board .baba-obj').length === 12 && document.getElementById('baba').dataset.mine === 'true'`)
	p.key(kb.ArrowRight)
	p.wait("a step", `document.getElementById('baba').dataset.moves === '1'`)
	for sel, want := range map[string]string{
		"#baba-status": "矢印キー", "#baba-moves": "1手", "#baba-undo": "戻す", ".baba-title": "ババ イズ ユー",
	} {
		if got := eval[string](p, fmt.Sprintf(`document.querySelector(%q).textContent`, sel)); !strings.Contains(got, want) {
			t.Errorf("%s reads %q, not %q", sel, got, want)
		}
	}
	if got := eval[string](p, `document.getElementById('baba-board').getAttribute('aria-label')`); !strings.Contains(got, "レベル") {
		t.Errorf("the board's name %q", got)
	}
	noEnglish(t, p, "#baba", en, ja)
	p.screenshot("seed003-ja-baba-desktop")
	checkA11yOurs(p, "a Baba room in Japanese")
	p.darkMode(true)
	p.screenshot("seed003-ja-baba-dark")
	checkA11yOurs(p, "a Baba room in Japanese, dark")
	p.darkMode(false)

	// A card duel against the AI, to a card played and a log.
	p.gameForm("cards")
	p.setField("#new-decks", "pair")
	p.click("#create")
	p.wait("the room's lobby", `location.pathname.startsWith('/r/') && document.getElementById('fill-ai')`)
	p.click("#fill-ai")
	p.wait("the AI seat", `document.querySelectorAll('#seats .seat[data-ai="true"]').length === 1`)
	p.click("#start")
	p.waitFor("my turn", `document.getElementById('cd-status')?.dataset.mine === 'true' && document.getElementById('cd-status').dataset.busy === 'false'`, 20*time.Second)
	if eval[bool](p, `!!document.querySelector('.cd-card[data-playable="true"]')`) {
		p.click(`.cd-card[data-playable="true"]`)
		p.wait("a card played, or its target asked for", `document.querySelector('#cd-log li[data-kind="played"]') || document.getElementById('cd-status').dataset.choosing`)
	}
	for sel, want := range map[string]string{
		"#cd-end": "ターン終了", "#cd-concede": "投了", ".cd-title": "カードデュエル",
	} {
		if got := eval[string](p, fmt.Sprintf(`document.querySelector(%q).textContent`, sel)); !strings.Contains(got, want) {
			t.Errorf("%s reads %q, not %q", sel, got, want)
		}
	}
	names := eval[[]string](p, `[...document.querySelectorAll('.cd-card')].map((b) => b.querySelector('.cd-card-name').textContent + ' | ' + b.querySelector('.sr-only').textContent)`)
	if len(names) == 0 {
		t.Error("no card in hand")
	}
	for _, n := range names {
		if !strings.Contains(n, "コスト") || regexp.MustCompile(`^[A-Za-z]`).MatchString(n) {
			t.Errorf("a card reads %q", n)
		}
	}
	noEnglish(t, p, ".cd", en, ja)
	// The keyboard's focus on a target (its own dashed outline) stays
	// visible: the focus ring wins.
	eval[bool](p, `document.querySelector('.cd-card').focus(), true`)
	p.key(kb.ArrowUp)
	p.wait("my hero focused from the keyboard", `document.activeElement?.matches('.cd-side[data-side="bottom"] .cd-hero:focus-visible')`)
	ring := eval[[]string](p, `(() => {
		const hero = document.activeElement;
		hero.dataset.target = 'true';
		const probe = document.body.appendChild(document.createElement('span'));
		probe.style.color = 'var(--focus)';
		const focus = getComputedStyle(probe).color;
		probe.remove();
		const s = getComputedStyle(hero);
		return [s.outlineStyle, s.outlineColor, focus];
	})()`)
	if ring[0] != "solid" || ring[1] != ring[2] {
		t.Errorf("a focused target's outline is %s %s, not the focus ring (%s)", ring[0], ring[1], ring[2])
	}
	p.screenshot("seed003-ja-cards-desktop")
	checkA11yOurs(p, "a card duel in Japanese")
	p.darkMode(true)
	p.screenshot("seed003-ja-cards-dark")
	checkA11yOurs(p, "a card duel in Japanese, dark")
	p.darkMode(false)

	// A SpellGrid room (it starts at once), a card chosen from the keyboard.
	p.gameForm("spellgrid")
	p.click("#create")
	p.wait("the first level", `document.querySelectorAll('#sg-grid .sg-tile').length === 35 && document.getElementById('sg').dataset.mine === 'true'`)
	p.key("1")
	p.wait("the scribe chosen", `document.querySelector('#sg-hand .sg-card[data-i="0"]')?.getAttribute('aria-pressed') === 'true'`)
	for sel, want := range map[string]string{
		"#sg-status": "ルーンの書記を出す", ".sg-title": "スペルグリッド · レベル 1：書記の最後の言葉",
		`#sg-hand .sg-card[data-card="Fireball"] .sg-card-text`: "6ダメージを与える。", "#sg-hint": "空いているタイル",
	} {
		if got := eval[string](p, fmt.Sprintf(`document.querySelector(%q).textContent`, sel)); !strings.Contains(got, want) {
			t.Errorf("%s reads %q, not %q", sel, got, want)
		}
	}
	if got := eval[string](p, `document.querySelector('#sg-grid .sg-tile[data-target]').getAttribute('aria-label')`); !strings.Contains(got, "列") || !strings.Contains(got, "選べます") {
		t.Errorf("a tile the card may go to is named %q", got)
	}
	noEnglish(t, p, "#sg", en, ja)
	p.screenshot("seed003-ja-spellgrid-desktop")
	checkA11yOurs(p, "a SpellGrid room in Japanese, a card chosen")
	p.darkMode(true)
	p.screenshot("seed003-ja-spellgrid-dark")
	checkA11yOurs(p, "a SpellGrid room in Japanese, a card chosen, dark")
	p.darkMode(false)

	// Solo Baba on this device, on a phone: a step and its undo.
	m := newUser(t, srv, "yui", phone)
	m.open("/")
	eval[bool](m, `localStorage.setItem('roomd.lang', 'ja'), true`)
	m.open("/play/baba?mode=solo")
	m.waitFor("the level on this device", `document.querySelectorAll('#baba-board .baba-obj').length === 12 && document.getElementById('local-panel')`, 30*time.Second)
	if got := eval[string](m, `document.getElementById('local-undo').title`); got != "まだ戻せるものはありません。" {
		t.Errorf("undo's reason %q", got)
	}
	m.key(kb.ArrowRight)
	m.wait("a step", `document.getElementById('baba').dataset.moves === '1' && !document.getElementById('local-undo').disabled`)
	m.click("#local-undo")
	m.wait("the undo counted", `document.getElementById('local-undos').dataset.undos === '1'`)
	if got := eval[string](m, `document.getElementById('local-undos').textContent`); !strings.HasPrefix(got, "戻した回数：1") {
		t.Errorf("the undos read %q", got)
	}
	if got := eval[string](m, `document.querySelector('#local-panel .local-mode').textContent`); !strings.HasPrefix(got, "ソロ") {
		t.Errorf("the mode reads %q", got)
	}
	noEnglish(t, m, "#app", en, ja)
	m.screenshot("seed003-ja-local-phone")
	checkA11yOurs(m, "solo Baba on a phone in Japanese")
	m.darkMode(true)
	m.screenshot("seed003-ja-local-phone-dark")
	checkA11yOurs(m, "solo Baba on a phone in Japanese, dark")
}

// readI18n merges a language's tables of the seed-003 games and local play.
func readI18n(t *testing.T, lang string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, ns := range []string{"baba", "cards", "spellgrid", "local"} {
		raw, err := os.ReadFile(filepath.Join("static", "i18n", lang, ns+".json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(raw, &out); err != nil {
			t.Fatalf("%s/%s.json: %v", lang, ns, err)
		}
	}
	return out
}

// englishWord is a word of lower-case letters (a capital first), not a
// game's word block (BABA, IS, YOU) or a key's name (Z, R, WASD).
var englishWord = regexp.MustCompile(`\b[A-Za-z]?[a-z]{2,}\b`)

// noEnglish fails when the element's text or accessible names hold a
// phrase of the English tables that Japanese says otherwise, or an
// English word (but the brand and the names of keys).
func noEnglish(t *testing.T, p *page, sel string, en, ja map[string]string) {
	t.Helper()
	text := eval[string](p, fmt.Sprintf(`(() => {
		const el = document.querySelector(%q);
		if (!el) return '';
		const names = [...el.querySelectorAll('[aria-label], [title]')].flatMap((e) => [e.getAttribute('aria-label') || '', e.getAttribute('title') || '']);
		return el.innerText + '\n' + names.join('\n');
	})()`, sel))
	if text == "" {
		t.Fatalf("%s: nothing shown in %s", p.name, sel)
	}
	var left []string
	for k, v := range en {
		if ja[k] == v {
			continue
		}
		for _, frag := range regexp.MustCompile(`\{\w+\}`).Split(v, -1) {
			frag = strings.TrimSpace(frag)
			if len(frag) >= 5 && strings.ContainsAny(frag, "abcdefghijklmnopqrstuvwxyz") && strings.Contains(text, frag) {
				left = append(left, fmt.Sprintf("%q (%s)", frag, k))
			}
		}
	}
	// The brand, names of keys, and the game's name as the server lists it.
	allowed := []string{"roomd", "Enter", "Esc", "Backspace", "Baba"}
	for _, w := range englishWord.FindAllString(text, -1) {
		if !slices.Contains(allowed, w) {
			left = append(left, fmt.Sprintf("%q", w))
		}
	}
	if len(left) > 0 {
		slices.Sort(left)
		t.Errorf("%s: English left in %s: %s\n%s", p.name, sel, strings.Join(slices.Compact(left), ", "), text)
	}
}

// checkA11yOurs is checkA11y for the parts of the page this test is
// about: problems of the shared top bar (the brand link, the language
// switch) are logged, not failed — their own tests answer for them.
func checkA11yOurs(p *page, what string) {
	p.t.Helper()
	var ours []string
	for _, problem := range p.a11yProblems() {
		if strings.HasPrefix(problem, "a.brand ") || strings.HasPrefix(problem, "select#lang ") {
			p.t.Logf("%s: %s: the top bar's: %s", p.name, what, problem)
			continue
		}
		ours = append(ours, problem)
	}
	if len(ours) > 0 {
		p.t.Errorf("%s: %s: %d accessibility problems:\n  %s", p.name, what, len(ours), strings.Join(ours, "\n  "))
	}
}
