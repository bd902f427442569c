package web_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/roomd/roomd/core/snake"
)

// TestSnake plays a real-time match of the snake arena in three browsers:
// Ann (the host, desktop) and Bob (a phone) play, Eve (desktop) watches.
// On the small board Ann's snake starts at (4, 4) going right and Bob's at
// (11, 11) going left. During the countdown Ann queues down (ArrowDown; a
// second ArrowDown and an ArrowUp are not sent: the same way, and back on
// itself), Bob up (W) then left (the on-screen arrow, tapped): from the
// first move Ann runs down column 4 and Bob left along row 10, into Ann's
// body at (10, 4) at the eighth move — so Ann wins, the last snake
// standing (she would hit the bottom wall at the twelfth). Every page must show that
// winner and the same final scores as the server's view; each press must
// show at once (the predicted turn) and take effect (a receipt with the
// tick it takes effect at, then the moves); nobody but Bob gets Bob's
// turns (Eve none at all); no page resyncs or throws; the arena fits the
// desktop's and the phone's viewports. Then a rematch: both players leave
// the page and the match pauses (Eve is told), Ann comes back mid-match
// and the ticks go on from her snapshot's, and after a network cut every
// page comes back and the ticks go on.
func TestSnake(t *testing.T) {
	t.Parallel()
	srv := startRoomd(t, withGames(snake.Game))
	ann := newUser(t, srv, "ann", desktop)
	ann.gameForm("snake")
	ann.setField("#new-board", "small")
	ann.setField("#new-speed", "slow")
	ann.setField("#new-time-limit", "30")
	ann.setField("#new-food", "2")
	ann.setField("#new-name", "Ann")
	ann.screenshot("snake-lobby-desktop")
	ann.click("#create")
	ann.wait("the room's lobby", `location.pathname.startsWith('/r/') && document.getElementById('start')`)
	code := ann.roomCode()
	info := srv.roomInfo(code)
	if got, _ := json.Marshal(info["settings"]); string(got) != `{"board":"small","food":2,"mode":"arena","speed":"slow","timeLimit":30}` {
		t.Errorf("room settings %s", got)
	}
	if info["hz"] != float64(snake.Hz) {
		t.Errorf("room info hz %v, want %d", info["hz"], snake.Hz)
	}

	bob := newUser(t, srv, "bob", phone)
	bob.joinAsPlayer(code, "Bob")
	bob.wait("Bob's seat", `document.querySelector('#seats .seat-you[data-seat="1"]') && document.getElementById('ready')`)
	if got := eval[string](bob, `document.getElementById('settings-text').textContent`); got != "Small 16×16 · slow speed · 30 s · 2 food" {
		t.Errorf("Bob's lobby describes the settings as %q", got)
	}
	eve := newUser(t, srv, "eve", desktop)
	eve.watchRoom(code, 2)
	bob.click("#ready")
	ann.wait("Bob ready", `document.querySelector('#seats .seat[data-seat="1"][data-ready="true"]')`)
	ann.click("#start")
	started := time.Now()
	const countdown = `document.getElementById('snake')?.dataset.phase === 'countdown' && Number(document.getElementById('snake-status').dataset.tick) > 0`
	for _, p := range []*page{ann, bob, eve} {
		p.wait("the countdown", countdown)
	}

	// During the countdown: the turns show at once, before any tick.
	ann.key(kb.ArrowDown)
	if got := eval[string](ann, `document.getElementById('snake').dataset.predicted || ''`); got != "down" {
		t.Errorf("after ArrowDown Ann's snake shows %q, want the predicted turn down", got)
	}
	ann.key(kb.ArrowDown) // the way it will go already: not sent
	ann.key(kb.ArrowUp)   // back on itself: not sent
	bob.key("w")
	if got := eval[string](bob, `document.getElementById('snake').dataset.predicted || ''`); got != "up" {
		t.Errorf("after W Bob's snake shows %q, want the predicted turn up", got)
	}
	bob.wait("the on-screen arrows", `getComputedStyle(document.getElementById('snake-pad')).display === 'grid'`)
	x, y := center(bob, `#snake-pad button[data-dir="left"]`)
	bob.do(chromedp.TapXY(x, y))
	ann.screenshot("snake-countdown-desktop")
	bob.screenshot("snake-countdown-phone")
	fitsViewport(t, ann)
	fitsViewport(t, bob)
	annTurns := turnReceipts(t, ann, 1)
	bobTurns := turnReceipts(t, bob, 2)
	if got := turnDirs(ann); !slices.Equal(got, []string{"down"}) {
		t.Errorf("Ann sent the turns %v, want [down] (the same way again and the reverse are not sent)", got)
	}
	if got := turnDirs(bob); !slices.Equal(got, []string{"up", "left"}) {
		t.Errorf("Bob sent the turns %v, want [up left]", got)
	}
	inCountdown := true
	for _, tk := range append(annTurns, bobTurns...) {
		inCountdown = inCountdown && tk <= snake.Countdown
	}
	if !inCountdown {
		t.Logf("a turn took effect after the countdown (ticks %v, %v): the match may end otherwise", annTurns, bobTurns)
	}

	// The match runs: the heads move; a spectator sees it all.
	for _, p := range []*page{ann, bob, eve} {
		p.waitFor("the moves", `document.getElementById('snake').dataset.phase !== 'countdown' && Number(document.getElementById('snake').dataset.moves) >= 2`, 5*time.Second)
	}
	ann.screenshot("snake-running-desktop")
	eve.screenshot("snake-running-spectator-desktop")

	// The end, on every page: the same winner, the same scores.
	const over = `!document.getElementById('snake-result').hidden && document.getElementById('snake').dataset.phase === 'over'`
	for _, p := range []*page{ann, bob, eve} {
		p.waitFor("the end of the match", over, 10*time.Second)
	}
	t.Logf("the match took %v from the start", time.Since(started).Round(time.Millisecond))
	status, winners := lastResult(t, ann)
	final := finalScores(t, ann)
	for _, p := range []*page{ann, bob, eve} {
		shown := eval[string](p, `document.getElementById('snake-result').dataset.winners`)
		if want := joinInts(winners); shown != want {
			t.Errorf("%s shows the winners %q, the server's are %q (%s)", p.name, shown, want, status)
		}
		scores := eval[[]int](p, `[...document.querySelectorAll('#snake-scores li')].map(li => Number(li.dataset.score))`)
		if !slices.Equal(scores, final) {
			t.Errorf("%s shows the scores %v, the server's final view has %v", p.name, scores, final)
		}
	}
	if inCountdown {
		if !slices.Equal(winners, []int{0}) {
			t.Errorf("winners %v, want Ann (seat 0): Bob runs into her body", winners)
		}
		if got := eval[string](ann, `document.querySelector('#snake-result h3').textContent`); got != "You win!" {
			t.Errorf("Ann's result says %q", got)
		}
		if got := eval[string](eve, `document.querySelector('#snake-result h3').textContent`); got != "Ann wins!" {
			t.Errorf("Eve's result says %q", got)
		}
		if got := eval[string](eve, `document.getElementById('snake-result').dataset.why`); got != "last" {
			t.Errorf("the match ended by %q, want last", got)
		}
	}
	// The turns took effect: the moves went down for Ann, up then left for
	// Bob.
	if got := firstMoves(eve, 0); !strings.HasPrefix(got, "dd") {
		t.Errorf("Ann's snake moved %q, want d, d…", got)
	}
	if got := firstMoves(eve, 1); !strings.HasPrefix(got, "ul") {
		t.Errorf("Bob's snake moved %q, want u then l", got)
	}
	// A seat's turns go to that seat alone.
	for _, f := range eve.wsFrames() {
		if strings.Contains(f, `"t":"turn"`) {
			t.Errorf("the spectator got a turn: %s", f)
			break
		}
	}
	for _, c := range []struct {
		p     *page
		other string
	}{{ann, `"t":"turn","s":1`}, {bob, `"t":"turn","s":0`}} {
		for _, f := range c.p.wsFrames() {
			if strings.Contains(f, c.other) {
				t.Errorf("%s got another seat's turn: %s", c.p.name, f)
				break
			}
		}
	}
	noResyncs(t, ann, bob, eve)
	ann.screenshot("snake-end-desktop")
	eve.screenshot("snake-end-spectator-desktop")
	bob.screenshot("snake-end-phone")
	bob.resize(desktop)
	bob.screenshot("snake-end-player2-desktop")
	ann.darkMode(true)
	ann.screenshot("snake-end-dark-desktop")
	ann.darkMode(false)

	// A rematch: a new countdown everywhere, its ticks from 1.
	ann.click("#new-game")
	for _, p := range []*page{ann, bob, eve} {
		p.wait("the rematch's countdown", countdown+` && document.getElementById('snake-result').hidden`)
	}
	// Both players go away: the match pauses, and the spectator is told.
	ann.open("/")
	bob.open("/")
	eve.wait("the pause", `document.getElementById('snake-banner').dataset.kind === 'paused' && !document.getElementById('snake-banner').hidden &&
		document.getElementById('snake-status').dataset.paused === 'true'`)
	paused := eval[int](eve, `Number(document.getElementById('snake-status').dataset.tick)`)
	eve.screenshot("snake-paused-spectator-desktop")
	// Ann comes back mid-match: her page starts from the snapshot's tick,
	// the match resumes from where it stopped, and the ticks go on.
	ann.open("/r/" + code)
	ann.wait("Ann's view at the snapshot's tick", fmt.Sprintf(`Number(document.getElementById('snake-status')?.dataset.tick) >= %d`, paused))
	resumed := eval[int](ann, `Number(document.getElementById('snake-status').dataset.tick)`)
	if resumed > paused+10 {
		t.Errorf("Ann came back at tick %d, the match paused at %d", resumed, paused)
	}
	for _, p := range []*page{ann, eve} {
		p.wait("the ticks after the pause", fmt.Sprintf(`Number(document.getElementById('snake-status').dataset.tick) > %d && document.getElementById('snake-banner').hidden`, paused+5))
	}
	fitsViewport(t, ann)
	// The network fails: the pages come back with a snapshot at the
	// match's tick, and the ticks go on from there.
	before := eval[int](eve, `Number(document.getElementById('snake-status').dataset.tick)`)
	eval[bool](eve, `window.__conn = []; new MutationObserver(() => window.__conn.push(document.getElementById('conn').dataset.connState))
		.observe(document.getElementById('conn'), {attributes: true, attributeFilter: ['data-conn-state']}); true`)
	if n := srv.cut(); n == 0 {
		t.Fatal("no connection to cut")
	}
	eve.wait("reconnecting after the cut", `window.__conn.includes('reconnecting')`)
	for _, p := range []*page{ann, eve} {
		p.waitFor("online again, ticking", fmt.Sprintf(`document.getElementById('conn').dataset.connState === 'online' && Number(document.getElementById('snake-status').dataset.tick) > %d`, before+5), 15*time.Second)
	}
	noResyncs(t, ann, eve)
	t.Logf("TestSnake took %v from the start of the first match", time.Since(started).Round(time.Millisecond))
}

// fitsViewport fails when the arena does not fit p's viewport whole, or
// the page scrolls sideways.
func fitsViewport(t *testing.T, p *page) {
	t.Helper()
	box := eval[[]float64](p, `(() => { const b = document.getElementById('snake-canvas').getBoundingClientRect();
		return [b.left, b.top, b.right, b.bottom, innerWidth, innerHeight, document.documentElement.scrollWidth]; })()`)
	if box[0] < 0 || box[1] < 0 || box[2] > box[4] || box[3] > box[5] || box[6] > box[4] || box[2]-box[0] < 280 {
		t.Errorf("%s: the arena is at %v in a viewport of %v×%v (page width %v)", p.name, box[:4], box[4], box[5], box[6])
	}
}

// center returns the middle of the element sel in CSS pixels.
func center(p *page, sel string) (float64, float64) {
	p.t.Helper()
	xy := eval[[]float64](p, fmt.Sprintf(`(() => { const b = document.querySelector(%q).getBoundingClientRect(); return [b.left + b.width / 2, b.top + b.height / 2]; })()`, sel))
	if len(xy) != 2 {
		p.t.Fatalf("%s: no %s", p.name, sel)
	}
	return xy[0], xy[1]
}

// turnDirs returns the directions of the turn commands p sent, in order.
func turnDirs(p *page) []string {
	var out []string
	for _, f := range p.wsSent() {
		var a struct {
			Type    string
			Command struct{ Type, Dir string }
		}
		if json.Unmarshal([]byte(f), &a) == nil && a.Type == "command" && a.Command.Type == "turn" {
			out = append(out, a.Command.Dir)
		}
	}
	return out
}

// turnReceipts waits for the receipts of p's first n turn commands and
// returns the ticks they take effect at; each must be accepted with one.
func turnReceipts(t *testing.T, p *page, n int) []uint64 {
	t.Helper()
	var ids []string
	for _, f := range p.wsSent() {
		var a struct {
			Type, ID string
			Command  struct{ Type string }
		}
		if json.Unmarshal([]byte(f), &a) == nil && a.Type == "command" && a.Command.Type == "turn" {
			ids = append(ids, a.ID)
		}
	}
	if len(ids) < n {
		t.Fatalf("%s sent %d turns, want %d", p.name, len(ids), n)
	}
	ticks := make(map[string]uint64)
	p.waitFrames("the turns' receipts", func(frames []string) bool {
		for _, f := range frames {
			var rc struct {
				Type, ID string
				OK       bool
				Tick     uint64
			}
			if json.Unmarshal([]byte(f), &rc) == nil && rc.Type == "receipt" && slices.Contains(ids[:n], rc.ID) {
				if !rc.OK || rc.Tick == 0 {
					t.Fatalf("%s: a turn's receipt %s, want ok with a tick", p.name, f)
				}
				ticks[rc.ID] = rc.Tick
			}
		}
		return len(ticks) == n
	})
	out := make([]uint64, n)
	for i, id := range ids[:n] {
		out[i] = ticks[id]
	}
	return out
}

// firstMoves returns the letters of seat's moves in the ticks p received,
// '.' (no move) left out.
func firstMoves(p *page, seat int) string {
	var b strings.Builder
	for _, f := range p.wsFrames() {
		var tk struct {
			Type  string
			Beats []struct{ T, D string }
		}
		if json.Unmarshal([]byte(f), &tk) != nil || tk.Type != "tick" {
			continue
		}
		for _, e := range tk.Beats {
			if e.T == "move" && seat < len(e.D) && e.D[seat] != '.' {
				b.WriteByte(e.D[seat])
			}
		}
	}
	return b.String()
}

// finalScores returns each snake's score in the view of the last update p
// received that carried one: the update that ended the match.
func finalScores(t *testing.T, p *page) []int {
	t.Helper()
	frames := p.wsFrames()
	for i := len(frames) - 1; i >= 0; i-- {
		var u struct {
			Type string
			View *struct{ Snakes []struct{ Score int } }
		}
		if json.Unmarshal([]byte(frames[i]), &u) == nil && u.Type == "update" && u.View != nil {
			out := make([]int, len(u.View.Snakes))
			for k, s := range u.View.Snakes {
				out[k] = s.Score
			}
			return out
		}
	}
	t.Fatalf("%s: no update carried a view", p.name)
	return nil
}

// noResyncs fails when a page asked for a snapshot: on loopback no tick or
// update is missed, so every one followed the revision and the tick.
func noResyncs(t *testing.T, pages ...*page) {
	t.Helper()
	for _, p := range pages {
		n := 0
		for _, f := range p.wsSent() {
			if strings.Contains(f, `"type":"resync"`) {
				n++
			}
		}
		if n > 0 {
			t.Errorf("%s sent %d resyncs", p.name, n)
		}
	}
}

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, ",")
}
