package web_test

import (
	"context"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/roomd/roomd/transport/auth"
)

// TestRatedBrowser: a signed-in player asks for a rated Nim match from the
// lobby: the wait shows the time waited and the rating window, and is
// cancelled (the ticket leaves the pool); asked again, and a second player
// asks too, both pages go to the same room, each on its own seat.
func TestRatedBrowser(t *testing.T) {
	t.Parallel()
	secret := []byte("the site's HS256 secret, 32 bytes or more")
	v, err := auth.New(auth.Config{Secret: secret})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	sign := func(sub, name string) string {
		s, err := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{"sub": sub, "name": name, "exp": time.Now().Add(time.Hour).Unix()}).SignedString(secret)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	srv := startRoomd(t, withSignIn(v), withPool())
	const pool = "nim/classic/none"
	waiting := func() int {
		n, err := srv.rooms.PoolTickets(context.Background(), pool)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	lobby := func(name, sub string) *page {
		p := newUser(t, srv, name, desktop)
		p.open("/#auth=" + sign(sub, name))
		p.wait("the lobby form", `document.querySelector('#create-form #new-mode')`)
		p.click(`label[data-game="nim"]`)
		p.wait("the rated button", `!document.getElementById('rated-play').hidden`)
		return p
	}
	ann := lobby("Ann", "user-ann")
	ann.click("#rated-play")
	ann.wait("the wait with its window", `(() => { const w = document.getElementById('rated-wait');
		return !w.hidden && w.dataset.window === '100' && /\b0 s waited, ratings within ±100/.test(document.getElementById('rated-status').textContent); })()`)
	if n := waiting(); n != 1 {
		t.Fatalf("%d tickets wait, want Ann's", n)
	}
	ann.wait("a second counted", `/\b[1-9]\d* s waited/.test(document.getElementById('rated-status').textContent)`)
	ann.click("#rated-cancel")
	ann.wait("the wait gone", `document.getElementById('rated-wait').hidden && !document.getElementById('rated-play').hidden`)
	for deadline := time.Now().Add(5 * time.Second); waiting() != 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("Ann's ticket still waits after she cancelled")
		}
	}

	ann.click("#rated-play")
	ann.wait("waiting again", `!document.getElementById('rated-wait').hidden`)
	bob := lobby("Bob", "user-bob")
	bob.click("#rated-play")
	for _, p := range []*page{ann, bob} {
		p.wait("the rated room", `location.pathname.startsWith('/r/') && document.getElementById('conn').dataset.connState === 'online'`)
	}
	code := ann.roomCode()
	if bob.roomCode() != code {
		t.Fatalf("Ann went to %s, Bob to %s", code, bob.roomCode())
	}
	seats := srv.roomInfo(code)["seats"].([]any)
	players := map[string]bool{}
	for _, s := range seats {
		players[s.(map[string]any)["player"].(string)] = true
	}
	if len(seats) != 2 || !players["user-ann"] || !players["user-bob"] {
		t.Fatalf("the room's seats: %v", seats)
	}
}
