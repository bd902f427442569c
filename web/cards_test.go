package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/roomd/roomd/core/cardgame"
	"github.com/roomd/roomd/core/cards"
)

// TestCards creates a card duel from the lobby with the two different
// decks of 20 (the quicker matches), fills the other seat with the AI and
// plays seat 0 to the end of the match: each turn it plays every card it
// can afford (a spell that needs a target on the enemy hero), attacks with
// every ready minion (the enemy hero, or a Taunt minion when one is in the
// way), and ends its turn — mostly by mouse; some cards, attacks and ends
// of turn from the keyboard (arrows, Enter, E), and one attack dropped
// with Escape. A spectator watches in another browser and must see both
// hands as card backs only.
//
// At the end: the page's result must be the server's result frame; every
// view the player's page and the spectator's page built from beats must
// equal a snapshot of the end (a third browser that opens the room then);
// and no frame either page received before the result may name a card of
// the AI's deck that was not yet in play — its hand and deck are hidden.
// The decks have no name in common, so a name of the AI's deck can only
// be the AI's card. (The result discloses the match's seed, config and
// log; the decks in its config are what the scan looks for.) "Play
// again" must then deal a new match, which seat 0 concedes with two
// clicks.
func TestCards(t *testing.T) {
	t.Parallel()
	// The page keeps its own copy of the card data.
	srv := startRoomd(t, withGames(cardgame.Game), withAIDelay(5*time.Millisecond))
	p := newUser(t, srv, "cam", desktop)
	p.open("/")
	p.wait("the lobby", `document.querySelector('label[data-game="cards"][data-page="true"]')`)
	checkCardCatalog(t, p)
	p.click(`label[data-game="cards"]`)
	p.wait("the card duel's form", `document.querySelector('.settings-form[data-game="cards"] #new-decks') && !document.getElementById('create').disabled`)
	p.setField("#new-decks", "pair")
	p.screenshot("cards-lobby-desktop")
	p.setField("#new-name", "Cam")
	p.click("#create")
	p.wait("the room's lobby with an AI to add", `location.pathname.startsWith('/r/') && document.getElementById('fill-ai')`)
	code := p.roomCode()
	p.click("#fill-ai")
	p.wait("the AI seat", `document.querySelectorAll('#seats .seat[data-ai="true"]').length === 1`)
	p.click("#start")
	p.wait("the table", `document.querySelector('.cd-side[data-side="bottom"]') && document.querySelectorAll('.cd-hand .cd-card').length > 0`)
	me := eval[int](p, `Number(document.querySelector('.cd-side[data-side="bottom"]').dataset.seat)`)
	foe := 1 - me
	if n := eval[int](p, fmt.Sprintf(`document.querySelectorAll('#cd-hand-%d .cd-card').length`, foe)); n != 0 {
		t.Fatalf("the AI's hand shows %d cards face up", n)
	}

	spec := newUser(t, srv, "sam", desktop)
	spec.open("/r/" + code)
	spec.click("#join-watch")
	spec.wait("the spectator's table", `document.querySelectorAll('.cd-side').length === 2 && document.querySelectorAll('.cd-back').length > 0`)

	status := `document.getElementById('cd-status')`
	over := `!document.getElementById('cd-result').hidden`
	idle := status + `.dataset.busy === 'false'`
	escaped, keyAttacks, keyPlays := false, 0, 0
	for turn := 0; ; turn++ {
		if turn > 45 {
			t.Fatal("45 turns and the match goes on")
		}
		p.waitFor("my turn or the end", status+`.dataset.mine === 'true' || `+over, 20*time.Second)
		if eval[bool](p, over) {
			break
		}
		if turn == 2 {
			p.screenshot("cards-game-desktop")
			title := eval[string](p, `document.querySelector('.cd-title').textContent`)
			spec.wait("the spectator at "+title, fmt.Sprintf(`document.querySelector('.cd-title')?.textContent === %q`, title))
			checkSpectatorHands(t, spec)
			spec.screenshot("cards-spectator-desktop")
		}
		if turn == 3 {
			p.resize(phone)
			p.screenshot("cards-game-phone")
			p.resize(desktop)
		}

		// Play every card that can be played.
		for plays := 0; ; plays++ {
			if plays > 10 {
				t.Fatalf("turn %d: more than 10 plays", turn)
			}
			id := eval[int](p, fmt.Sprintf(`Number(document.querySelector('#cd-hand-%d .cd-card[data-playable="true"]')?.dataset.id || 0)`, me))
			if id == 0 {
				break
			}
			card := fmt.Sprintf(`#cd-hand-%d .cd-card[data-id="%d"]`, me, id)
			if turn%3 == 1 && plays == 0 {
				// From the keyboard: the first card of the hand, arrows to this one, Enter.
				at := eval[int](p, fmt.Sprintf(`(() => { const cs = [...document.querySelectorAll('#cd-hand-%d .cd-card')]; cs[0].focus(); return cs.findIndex(c => c.dataset.id === '%d'); })()`, me, id))
				if at > 0 {
					p.key(strings.Repeat(kb.ArrowRight, at))
				}
				p.wait("the focus on the card", fmt.Sprintf(`document.activeElement?.dataset.id === '%d'`, id))
				p.key(kb.Enter)
				keyPlays++
			} else {
				cdClick(p, card)
			}
			if eval[bool](p, status+`.dataset.choosing === 'play'`) {
				cdClick(p, fmt.Sprintf(`.cd-side[data-seat="%d"] .cd-hero[data-target="true"]`, foe))
			}
			p.wait("the card played", fmt.Sprintf(`(!document.querySelector('%s') && %s) || %s`, card, idle, over))
			if eval[bool](p, over) {
				break
			}
		}

		// Attack with every ready minion.
		for attacks := 0; !eval[bool](p, over); attacks++ {
			if attacks > 8 {
				t.Fatalf("turn %d: more than 8 attacks", turn)
			}
			id := eval[int](p, fmt.Sprintf(`Number(document.querySelector('#cd-board-%d .cd-minion[data-can="true"]')?.dataset.id || 0)`, me))
			if id == 0 {
				break
			}
			minion := fmt.Sprintf(`#cd-board-%d .cd-minion[data-id="%d"]`, me, id)
			foeBoard := eval[int](p, fmt.Sprintf(`document.querySelectorAll('#cd-board-%d .cd-minion').length`, foe))
			hero := fmt.Sprintf(`.cd-side[data-seat="%d"] .cd-hero`, foe)
			switch {
			case !escaped:
				// Choose, then think better of it.
				cdClick(p, minion)
				p.wait("the attacker chosen", status+`.dataset.choosing === 'attack'`)
				p.key(kb.Escape)
				p.wait("the choice dropped", `!`+status+`.dataset.choosing && !document.querySelector('[data-target="true"]')`)
				escaped = true
				continue
			case keyAttacks < 2:
				// From the keyboard: Enter on the minion, up to the enemy
				// hero (past its board), Enter; a minion in the way when a
				// Taunt is there takes the blow by mouse instead.
				eval[bool](p, fmt.Sprintf(`(document.querySelector('%s').focus(), true)`, minion))
				p.key(kb.Enter)
				p.wait("the attacker chosen", status+`.dataset.choosing === 'attack'`)
				if !eval[bool](p, fmt.Sprintf(`!!document.querySelector('%s[data-target="true"]')`, hero)) {
					cdClick(p, fmt.Sprintf(`#cd-board-%d .cd-minion[data-target="true"]`, foe))
					break
				}
				p.key(kb.ArrowUp)
				if foeBoard > 0 {
					p.key(kb.ArrowUp)
				}
				p.wait("the focus on the enemy hero", fmt.Sprintf(`document.activeElement === document.querySelector('%s')`, hero))
				p.key(kb.Enter)
				keyAttacks++
			default:
				cdClick(p, minion)
				p.wait("the attacker chosen", status+`.dataset.choosing === 'attack'`)
				if eval[bool](p, fmt.Sprintf(`!!document.querySelector('%s[data-target="true"]')`, hero)) {
					cdClick(p, hero)
				} else {
					cdClick(p, fmt.Sprintf(`#cd-board-%d .cd-minion[data-target="true"]`, foe))
				}
			}
			p.wait("the attack made", fmt.Sprintf(`(document.querySelector('%s')?.dataset.can !== 'true' && %s) || %s`, minion, idle, over))
		}
		if eval[bool](p, over) {
			break
		}
		n := eval[string](p, status+`.dataset.turnNo`)
		if turn%2 == 1 {
			p.key("e")
		} else {
			cdClick(p, "#cd-end")
		}
		p.wait("the turn ended", status+`.dataset.turnNo !== '`+n+`' || `+over)
	}
	if keyPlays == 0 || keyAttacks == 0 || !escaped {
		t.Errorf("the match ended before the keyboard was tried: %d plays and %d attacks by key, escape %v", keyPlays, keyAttacks, escaped)
	}

	// The page shows what the server decided.
	res := cardsResult(t, p)
	gotStatus := eval[string](p, `document.getElementById('cd-result').dataset.status`)
	gotWinner := eval[string](p, `document.getElementById('cd-result').dataset.winner`)
	title := eval[string](p, `document.querySelector('#cd-result h2').textContent`)
	wantWinner := ""
	if len(res.Winners) == 1 {
		wantWinner = strconv.Itoa(res.Winners[0])
	}
	switch {
	case gotStatus != res.Status || gotWinner != wantWinner:
		t.Errorf("the page shows %q won by %q; the server's result is %q won by %v", gotStatus, gotWinner, res.Status, res.Winners)
	case res.Status == cardgame.PhaseWon && res.Winners[0] == me && title != "You win!":
		t.Errorf("seat %d won, the page says %q", me, title)
	case res.Status == cardgame.PhaseWon && res.Winners[0] == foe && !strings.HasSuffix(title, " wins"):
		t.Errorf("the AI won, the page says %q", title)
	case res.Status == cardgame.PhaseDraw && title != "Draw":
		t.Errorf("a draw, the page says %q", title)
	}
	if n := eval[int](p, `document.querySelectorAll('.cd-card[data-playable="true"], .cd-minion[data-can="true"]').length`); n != 0 || !eval[bool](p, `document.getElementById('cd-end').hidden`) {
		t.Errorf("after the end %d cards or minions can still act, or End turn shows", n)
	}

	// Beats applied as the core applies them: the pages that followed the
	// match equal a fresh snapshot of its end.
	spec.wait("the spectator's result", over)
	late := newUser(t, srv, "lee", desktop)
	late.open("/r/" + code)
	late.click("#join-watch")
	late.wait("the late spectator's table", `document.querySelectorAll('.cd-side').length === 2 && `+over)
	want := tableState(late)
	if got := tableState(late); got != viewState(t, followFrames(t, late.wsFrames())) {
		t.Errorf("the late spectator's table %s is not its snapshot %s", got, viewState(t, followFrames(t, late.wsFrames())))
	}
	for _, q := range []*page{p, spec} {
		got, core := tableState(q), viewState(t, followFrames(t, q.wsFrames()))
		if got != core {
			t.Errorf("%s followed the match to\n  %s\ncore/cardgame's View.Apply on the same frames to\n  %s", q.name, got, core)
		}
		if got != want {
			t.Errorf("%s followed the match to\n  %s\nthe server's view of the end is\n  %s", q.name, got, want)
		}
	}

	// Nothing of the AI's hand or deck before it was played.
	aiDeck := res.Config.Decks[foe]
	if len(aiDeck) == 0 || slices.ContainsFunc(aiDeck, func(n string) bool { return slices.Contains(res.Config.Decks[me], n) }) {
		t.Fatalf("the decks are not two without a name in common: %v", res.Config.Decks)
	}
	if got := hiddenCardLeaks([]string{fmt.Sprintf(`{"type":"update","beats":[{"type":"Drew","player":%d,"id":40,"card":%q,"cost":1}]}`, foe, aiDeck[0])}, aiDeck, foe); len(got) == 0 {
		t.Fatal("the leak scan misses a draw shown with its name")
	}
	for _, q := range []*page{p, spec} {
		frames := beforeResult(q.wsFrames())
		if leaks := hiddenCardLeaks(frames, aiDeck, foe); len(leaks) != 0 {
			t.Errorf("%s: the AI's hidden cards in %d frames, the first: %s", q.name, len(leaks), leaks[0])
		}
		if len(frames) < 10 {
			t.Errorf("%s: only %d frames scanned", q.name, len(frames))
		}
	}

	p.screenshot("cards-end-desktop")
	p.darkMode(true)
	p.screenshot("cards-end-dark-desktop")
	p.darkMode(false)
	p.resize(phone)
	p.screenshot("cards-end-phone")
	p.resize(desktop)

	// A rematch: a new deal, no result, a fresh log.
	p.click("#new-game")
	p.wait("a new match", `document.getElementById('cd-result').hidden && document.querySelector('.cd-title').textContent.includes('game 2') && document.querySelectorAll('.cd-hand .cd-card').length > 0`)
	if n := eval[int](p, `document.querySelectorAll('#cd-log li[data-kind="end"]').length`); n != 0 {
		t.Errorf("the new match's log still tells the last one's end (%d lines)", n)
	}

	// Conceding takes two clicks and hands the match to the AI.
	cdClick(p, "#cd-concede")
	p.wait("the concession to confirm", `document.getElementById('cd-concede').dataset.confirm === 'true' && document.getElementById('cd-result').hidden`)
	cdClick(p, "#cd-concede")
	p.wait("the concession", over)
	res = cardsResult(t, p)
	if got := eval[[]string](p, `[document.getElementById('cd-result').dataset.status, document.getElementById('cd-result').dataset.winner, document.querySelector('#cd-result p').textContent]`); res.Status != cardgame.PhaseConceded ||
		!slices.Equal(res.Winners, []int{foe}) || !slices.Equal(got, []string{cardgame.PhaseConceded, strconv.Itoa(foe), "You conceded."}) {
		t.Errorf("after conceding the page shows %q; the server's result is %q won by %v", got, res.Status, res.Winners)
	}
}

// cdClick clicks sel after scrolling it to the middle of the window,
// away from the sticky top bar.
func cdClick(p *page, sel string) {
	p.t.Helper()
	if !eval[bool](p, fmt.Sprintf(`(() => { const el = document.querySelector(%q); el?.scrollIntoView({block: 'center', inline: 'nearest'}); return !!el; })()`, sel)) {
		p.t.Fatalf("%s: no %s to click%s", p.name, sel, p.debug())
	}
	p.click(sel)
}

// checkCardCatalog compares the page's card data (games/cards/catalog.js,
// which SpellGrid's page shares) with the engine's library.
func checkCardCatalog(t *testing.T, p *page) {
	t.Helper()
	type info struct {
		Type   string `json:"type"`
		Cost   int32  `json:"cost"`
		Attack int32  `json:"attack"`
		Health int32  `json:"health"`
		Text   string `json:"text"`
		Target string `json:"target"`
		Taunt  bool   `json:"taunt"`
		Token  bool   `json:"token"`
	}
	ctx, cancel := context.WithTimeout(p.ctx, 20*time.Second)
	defer cancel()
	raw, err := chromedp.Run(ctx, chromedp.Evaluate[string](`import(document.querySelector('meta[name="roomd-assets"]').content + '/js/games/cards/catalog.js')
		.then(m => JSON.stringify(m.CARDS))`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("the page's cards: %v", err)
	}
	var page map[string]info
	if err := json.Unmarshal([]byte(raw), &page); err != nil {
		t.Fatalf("the page's cards: %v", err)
	}
	want := map[string]info{}
	for _, d := range cards.Library() {
		want[d.Name] = info{Type: string(d.Type), Cost: d.Cost, Attack: d.Attack, Health: d.Health, Text: d.Text,
			Target: string(d.Target), Taunt: d.Taunt(), Token: d.Token}
	}
	for name, w := range want {
		if got, ok := page[name]; !ok || got != w {
			t.Errorf("the page's %q is %+v, the engine's %+v", name, got, w)
		}
	}
	for name := range page {
		if _, ok := want[name]; !ok {
			t.Errorf("the page has a card %q the engine does not", name)
		}
	}
	// The page knows the server's preset pair by its cards (a room's
	// settings list them), to say which decks a room plays.
	raw, err = chromedp.Run(ctx, chromedp.Evaluate[string](`import(document.querySelector('meta[name="roomd-assets"]').content + '/js/games/cards/catalog.js')
		.then(m => JSON.stringify(m.PAIR))`, chromedp.EvalAwaitPromise))
	var pair map[string][]string
	if err != nil || json.Unmarshal([]byte(raw), &pair) != nil {
		t.Fatalf("the page's pair of decks: %v %s", err, raw)
	}
	for _, name := range []string{"raiders", "wardens"} {
		if want, _ := cardgame.PresetCards(name); !slices.Equal(pair[name], want) {
			t.Errorf("the page's %s deck %v, the server's %v", name, pair[name], want)
		}
	}
}

// checkSpectatorHands: a spectator sees both hands as backs, as many as
// the cards in them, and no card face.
func checkSpectatorHands(t *testing.T, spec *page) {
	t.Helper()
	got := eval[[]int](spec, `[0, 1].flatMap(s => [document.querySelectorAll('#cd-hand-' + s + ' .cd-back').length,
		Number(document.querySelector('.cd-side[data-seat="' + s + '"] .cd-hand-count').dataset.hand)])
		.concat([document.querySelectorAll('.cd-card, #cd-end:not([hidden]), #cd-concede:not([hidden])').length])`)
	if len(got) != 5 || got[0] != got[1] || got[2] != got[3] || got[0] == 0 || got[2] == 0 || got[4] != 0 {
		t.Errorf("the spectator's hands: backs and counts %v (want backs = counts, no card face, no End turn or Concede)", got)
	}
}

// tableState sums up what a page shows of the match, seat by seat: the
// hero, mana, deck and hand counts, and the minions with their stats.
func tableState(p *page) string {
	return eval[string](p, `JSON.stringify([0, 1].map(s => {
		const side = document.querySelector('.cd-side[data-seat="' + s + '"]');
		const hero = side.querySelector('.cd-hero').dataset, mana = side.querySelector('.cd-mana').dataset;
		return {hero: [hero.id, hero.health, hero.armor], mana: [mana.mana, mana.max],
			deck: side.querySelector('.cd-deck').dataset.deck, hand: side.querySelector('.cd-hand-count').dataset.hand,
			board: [...document.querySelectorAll('#cd-board-' + s + ' .cd-minion')].map(m =>
				[m.dataset.id, m.dataset.name, m.dataset.attack, m.dataset.health, m.dataset.ready, m.dataset.taunt || ''].join(' '))};
	}))`)
}

// followFrames follows a match as core/cardgame's View.Apply does: the
// last snapshot's view, then every update's beats — but an update that
// carries a view (the one that starts a match, the one that ends it) is
// the view after its beats, which are in it already.
func followFrames(t *testing.T, frames []string) cardgame.View {
	t.Helper()
	var v cardgame.View
	for _, f := range frames {
		for _, msg := range splitFrame(f) {
			var m struct {
				Type  string
				View  json.RawMessage
				Beats []cardgame.Event
			}
			if err := json.Unmarshal([]byte(msg), &m); err != nil || (m.Type != "snapshot" && m.Type != "update") {
				continue
			}
			if len(m.View) > 0 && string(m.View) != "null" {
				v = cardgame.View{}
				if err := json.Unmarshal(m.View, &v); err != nil {
					t.Fatalf("view %s: %v", m.View, err)
				}
				continue
			}
			v = v.Apply(m.Beats)
		}
	}
	return v
}

// viewState is tableState of a view.
func viewState(t *testing.T, v cardgame.View) string {
	t.Helper()
	type side struct {
		Hero  [3]string `json:"hero"`
		Mana  [2]string `json:"mana"`
		Deck  string    `json:"deck"`
		Hand  string    `json:"hand"`
		Board []string  `json:"board"`
	}
	var out [2]side
	for s, p := range v.Players {
		n := func(x any) string { return fmt.Sprint(x) }
		out[s] = side{Hero: [3]string{n(p.Hero.ID), n(p.Hero.Health), n(p.Hero.Armor)}, Mana: [2]string{n(p.Mana), n(p.MaxMana)},
			Deck: n(p.Deck), Hand: n(len(p.Hand)), Board: []string{}}
		for _, m := range p.Board {
			taunt := ""
			if m.Taunt {
				taunt = "true"
			}
			out[s].Board = append(out[s].Board, strings.Join([]string{n(m.ID), m.Name, n(m.Attack), n(m.Health), n(m.Ready), taunt}, " "))
		}
	}
	b, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// cardsMatchResult is the part of a result frame the test reads.
type cardsMatchResult struct {
	Status  string
	Winners []int
	Config  struct {
		Decks [2][]string `json:"decks"`
	}
}

// cardsResult returns the last match result the page received.
func cardsResult(t *testing.T, p *page) cardsMatchResult {
	t.Helper()
	frames := p.wsFrames()
	for i := len(frames) - 1; i >= 0; i-- {
		for _, msg := range splitFrame(frames[i]) {
			var m struct{ Result *cardsMatchResult }
			if json.Unmarshal([]byte(msg), &m) == nil && m.Result != nil {
				return *m.Result
			}
		}
	}
	t.Fatal("no frame carried a result")
	return cardsMatchResult{}
}

// beforeResult returns the messages of the frames before the first one
// with a match's result.
func beforeResult(frames []string) []string {
	var out []string
	for _, f := range frames {
		for _, msg := range splitFrame(f) {
			if strings.Contains(msg, `"result":{`) {
				return out
			}
			out = append(out, msg)
		}
	}
	return out
}

// hiddenCardLeaks scans messages, in order, for the cards of seat's deck
// that no message so far has shown in play (played, summoned, on the
// board, in the graveyard, burned from a full hand): the quoted name of
// one anywhere but in the room's info (whose settings list the decks), a
// hand card of the seat's with a name or a cost, a draw of the seat's
// with the card's name. It returns the messages that show one.
func hiddenCardLeaks(msgs []string, deck []string, seat int) []string {
	public := map[string]bool{}
	var out []string
	for _, msg := range msgs {
		var m map[string]json.RawMessage
		if json.Unmarshal([]byte(msg), &m) != nil {
			continue
		}
		delete(m, "room")
		var v *cardgame.View
		if raw, ok := m["view"]; ok && string(raw) != "null" {
			v = &cardgame.View{}
			if json.Unmarshal(raw, v) != nil {
				v = nil
			}
		}
		var beats []cardgame.Event
		if raw, ok := m["beats"]; ok {
			_ = json.Unmarshal(raw, &beats)
		}
		leak := false
		if v != nil {
			for _, s := range v.Players {
				for _, c := range s.Board {
					public[c.Name] = true
				}
				for _, c := range s.Graveyard {
					public[c.Name] = true
				}
			}
			for _, c := range v.Players[seat].Hand {
				leak = leak || c.Name != "" || c.Cost != 0
			}
		}
		for _, e := range beats {
			switch e.Type {
			case cardgame.EventPlay, string(cards.EventSummoned), string(cards.EventSpellCast):
				public[e.Card] = true
			case string(cards.EventDrew):
				if e.Burned {
					public[e.Card] = true
				} else if e.Seat == seat {
					leak = leak || e.Card != ""
				}
			}
		}
		rest, _ := json.Marshal(m)
		for _, name := range deck {
			leak = leak || (!public[name] && strings.Contains(string(rest), strconv.Quote(name)))
		}
		if leak {
			out = append(out, msg)
		}
	}
	return out
}
