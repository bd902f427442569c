package web_test

import (
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/roomd/roomd/transport/auth"
)

// TestSignInBrowser: a server that requires sign-in, and the bundled
// client given the site's token in the address's fragment (#auth=…,
// PROTOCOL.md §2.9): without a token the lobby shows the server's refusal;
// with one, the fragment leaves the address bar, the room is created and
// the seat carries the token's name and player id; an expired token on a
// room link gets the sign-in banner with the reason.
func TestSignInBrowser(t *testing.T) {
	t.Parallel()
	secret := []byte("the site's HS256 secret, 32 bytes or more")
	v, err := auth.New(auth.Config{Secret: secret})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	sign := func(sub, name string, exp time.Time) string {
		s, err := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{"sub": sub, "name": name, "exp": exp.Unix()}).SignedString(secret)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	srv := startRoomd(t, withSignIn(v))

	anon := newUser(t, srv, "anon", desktop)
	anon.open("/")
	anon.wait("the lobby form", `document.querySelector('#create-form #new-mode')`)
	anon.setField("#new-name", "Nobody")
	anon.click("#create")
	anon.wait("the refusal", `(() => { const e = document.getElementById('create-error'); return !e.hidden && e.textContent.includes('sign-in required'); })()`)

	ann := newUser(t, srv, "ann", desktop)
	ann.open("/#auth=" + sign("user-42", "Ann from the site", time.Now().Add(time.Hour)))
	ann.wait("the lobby form", `document.querySelector('#create-form #new-mode')`)
	if h := eval[string](ann, `location.hash`); h != "" {
		t.Fatalf("the token stayed in the address: %q", h)
	}
	code := ann.createMinesweeper(msSettings{mode: "coop", level: "beginner"}, "typed name")
	info := srv.roomInfo(code)
	seat := info["seats"].([]any)[0].(map[string]any)
	if seat["name"] != "Ann from the site" || seat["player"] != "user-42" {
		t.Fatalf("the host's seat: %v", seat)
	}

	late := newUser(t, srv, "late", phone)
	late.open("/r/" + code + "?watch#auth=" + sign("user-9", "Late", time.Now().Add(-time.Hour)))
	late.wait("the sign-in banner", `(() => { const b = document.getElementById('banner'); return !b.hidden && b.dataset.kind === 'auth'; })()`)
	if txt := eval[string](late, `document.getElementById('banner').textContent`); !strings.Contains(txt, "expired") {
		t.Fatalf("the banner says %q", txt)
	}
	late.screenshot("signin-refused-phone")
}
