package web_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/roomd/roomd/core/tictactoe"
)

// Issue 43: quick play that starts. Two browsers press "Play now" on
// tic-tac-toe and land in one room, which counts down on both pages and
// starts the match with nobody pressing anything (no ready, no start); a
// host-made public room whose seats are full but whose match has not
// started is never listed under "Playing now — watch", while the quick
// match, once it runs, is.

// quickPlayFrom opens the lobby in lang, picks tic-tac-toe and presses
// "Play now" as name; it returns the room code once the room page is
// online.
func quickPlayFrom(p *page, lang, name string) string {
	p.t.Helper()
	p.open("/")
	p.do(chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`localStorage.setItem('roomd.lang', %q)`, lang)))
	p.open("/")
	p.wait("the lobby in "+lang, fmt.Sprintf(`document.documentElement.lang === %q && document.querySelector('label[data-game="tictactoe"][data-page="true"]')`, lang))
	p.click(`label[data-game="tictactoe"]`)
	p.wait("the tic-tac-toe form", `document.querySelector('.settings-form[data-game="tictactoe"]')`)
	p.setField("#new-name", name)
	p.wait("the play-now button", `(() => { const b = document.getElementById('quickplay'); return b && !b.hidden && !b.disabled; })()`)
	p.click("#quickplay")
	p.wait(name+"'s room", `location.pathname.startsWith('/r/') && document.getElementById('conn').dataset.connState === 'online'`)
	return p.roomCode()
}

// postRoom POSTs body to the API path and decodes the answer's room code.
func postRoom(t *testing.T, srv *roomd, path, body string, want int) string {
	t.Helper()
	room, _ := postRoomToken(t, srv, path, body, want)
	return room
}

// postRoomToken posts body to path (a room's creation or join) and returns
// the room and the seat's token, failing unless the status is want.
func postRoomToken(t *testing.T, srv *roomd, path, body string, want int) (room, token string) {
	t.Helper()
	resp, err := http.Post(srv.URL+path, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct{ Room, Token string }
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != want {
		t.Fatalf("POST %s: %d %v, want %d", path, resp.StatusCode, err, want)
	}
	return out.Room, out.Token
}

func TestQuickPlayStartsItself(t *testing.T) {
	t.Parallel()
	srv := startRoomd(t, withGames(tictactoe.Game))
	// A host-made public room with both seats taken, not started: its
	// match is not "playing now".
	lobby := postRoom(t, srv, "/api/rooms", `{"game":"tictactoe","name":"Hal","public":true}`, http.StatusCreated)
	postRoom(t, srv, "/api/rooms/"+lobby+"/join", `{"name":"Ivy"}`, http.StatusOK)
	// Seen at once (its seats, never connected, are given up after the
	// seat grace): listed nowhere, as it is full, and never under
	// "Playing now".
	carl := newUser(t, srv, "carl", desktop)
	carl.open("/")
	carl.wait("the open rooms", `['ready', 'empty'].includes(document.getElementById('open-rooms')?.dataset.state)`)
	if eval[bool](carl, fmt.Sprintf(`!!document.querySelector('#open-watch .open-room[data-code=%q]')`, lobby)) {
		t.Errorf("the full lobby %s, not started, is listed under playing now", lobby)
	}

	countdown := map[string]string{"en": "Starting in", "ja": "秒後に始まります"}
	var running string
	for i, pair := range [][2]struct {
		lang string
		vp   viewport
	}{
		{{"en", desktop}, {"ja", phone}},
		{{"ja", desktop}, {"en", phone}},
	} {
		ann := newUser(t, srv, fmt.Sprint("ann", i), pair[0].vp)
		bob := newUser(t, srv, fmt.Sprint("bob", i), pair[1].vp)
		code := quickPlayFrom(ann, pair[0].lang, "Ann")
		if got := quickPlayFrom(bob, pair[1].lang, "Bob"); got != code {
			t.Fatalf("quick play put Bob in %s, Ann in %s", got, code)
		}
		for j, p := range []*page{ann, bob} {
			p.wait("two connected seats", `document.querySelectorAll('#seats .seat[data-connected="true"]').length === 2`)
			// What the page offers now: a countdown (or, before issue 43,
			// "I'm ready" and Start).
			p.wait("the lobby's next step", `document.getElementById('quick-countdown') || document.getElementById('ready') || document.getElementById('start') || document.body.dataset.phase === 'running'`)
			if i == 0 {
				p.screenshot(fmt.Sprintf("quickplay-%s-%s", pair[j].vp.name, pair[j].lang))
			}
		}
		for j, p := range []*page{ann, bob} {
			if eval[bool](p, `!!(document.getElementById('ready') || document.getElementById('start'))`) {
				t.Errorf("%s: a quick-play room offers ready or start", p.name)
			}
			want := countdown[pair[j].lang]
			p.wait("the countdown", fmt.Sprintf(`(() => { const c = document.getElementById('quick-countdown'); return c && /\d/.test(c.textContent) && c.textContent.includes(%q); })() || document.body.dataset.phase === 'running'`, want))
		}
		for _, p := range []*page{ann, bob} {
			p.waitFor("the match, started by nobody", `document.body.dataset.phase === 'running' && document.querySelectorAll('#ttt-board .ttt-cell').length === 9`, 15*time.Second)
		}
		for _, p := range []*page{ann, bob} {
			for _, sent := range p.wsSent() {
				if strings.Contains(sent, `"op":"start"`) || strings.Contains(sent, `"op":"ready"`) {
					t.Errorf("%s sent %s", p.name, sent)
				}
			}
		}
		if i == 0 {
			ann.screenshot("quickplay-started-" + pair[0].vp.name)
		}
		running = code
	}

	// "Playing now — watch" lists the running quick matches (the page
	// polls every 5 s), never the lobby that has not started.
	carl.waitFor("the running match to watch", fmt.Sprintf(`!!document.querySelector('#open-watch .open-room[data-code=%q]')`, running), 15*time.Second)
	if eval[bool](carl, fmt.Sprintf(`!!document.querySelector('#open-watch .open-room[data-code=%q]')`, lobby)) {
		t.Errorf("the lobby %s, not started, is listed under playing now", lobby)
	}
	carl.screenshot("quickplay-open-rooms-desktop")
}
