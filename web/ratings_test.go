package web_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/roomd/roomd/core/tictactoe"
	"github.com/roomd/roomd/store"
	"github.com/roomd/roomd/transport/auth"
)

// TestRatingsBrowser: the lobby's ratings panel on a server with ratings
// and sign-in. The tic-tac-toe leaderboard lists the players past their
// provisional matches, highest first (a provisional one is left out); the
// signed-in player sees his own line marked, his rating and his rated
// matches, newest first with the opponents' names; the panel reads in
// Japanese too.
func TestRatingsBrowser(t *testing.T) {
	t.Parallel()
	secret := []byte("the site's HS256 secret, 32 bytes or more")
	v, err := auth.New(auth.Config{Secret: secret})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	srv := startRoomd(t, withSignIn(v), withGames(tictactoe.Game))

	// Three rated matches, stored as the rating writer stores them, with
	// the ratings set by hand: Ann and Bob are past their provisional
	// matches, Cy is not.
	pool := store.RatingPool{Game: "tictactoe", Mode: "classic"}
	rate := func(id, a, an, b, bn string, score float64, ra, rb store.Rating) {
		t.Helper()
		m := store.RatedMatch{ID: id, Pool: pool, Players: [2]string{a, b}, Names: [2]string{an, bn}, Score: score, At: time.Now().UnixMilli()}
		if _, err := srv.st.ApplyRating(context.Background(), m, func(store.Rating, store.Rating) (store.Rating, store.Rating) { return ra, rb }); err != nil {
			t.Fatal(err)
		}
	}
	r := func(rating, rd float64) store.Rating { return store.Rating{Rating: rating, RD: rd, Volatility: 0.06} }
	rate("R1/1/a", "user-42", "Ann", "user-7", "Bob", 1, r(1690, 95), r(1650, 90))
	rate("R2/1/b", "user-9", "Cy", "user-42", "Ann", 0, r(1600, 200), r(1720.4, 80))

	token, err := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{"sub": "user-42", "name": "Ann", "exp": time.Now().Add(time.Hour).Unix()}).SignedString(secret)
	if err != nil {
		t.Fatal(err)
	}
	ann := newUser(t, srv, "ann", desktop)
	ann.open("/#auth=" + token)
	ann.wait("the ratings panel", `(() => { const el = document.getElementById('ratings'); return el && !el.hidden && el.dataset.state === 'ready'; })()`)
	if pool := eval[string](ann, `document.getElementById('ratings-pool').value`); pool != "tictactoe/classic" {
		t.Fatalf("the panel shows %q first, want tictactoe/classic", pool)
	}
	lines := eval[[]string](ann, `[...document.querySelectorAll('#ratings-list .rating-entry')].map((li) => li.dataset.player + ' ' + li.querySelector('.score-name').textContent + ' ' + li.querySelector('.rating-value').textContent + (li.classList.contains('best-mine') ? ' mine' : ''))`)
	if want := []string{"user-42 Ann 1,720 mine", "user-7 Bob 1,650"}; fmt.Sprint(lines) != fmt.Sprint(want) {
		t.Fatalf("the leaderboard lists %q, want %q (Cy is provisional)", lines, want)
	}
	mine := eval[string](ann, `document.getElementById('ratings-mine-value')?.textContent || ''`)
	if !strings.Contains(mine, "1,720") || !strings.Contains(mine, "2 rated matches") || strings.Contains(mine, "provisional") {
		t.Fatalf("Ann's own rating reads %q", mine)
	}
	history := eval[[]string](ann, `[...document.querySelectorAll('#ratings-history .rating-change')].map((li) => li.dataset.outcome + ': ' + li.firstChild.textContent + ' ' + li.querySelector('.rating-delta').textContent)`)
	if want := []string{"win: Won against Cy +30", "win: Won against Bob +190"}; fmt.Sprint(history) != fmt.Sprint(want) {
		t.Fatalf("Ann's history reads %q, want %q", history, want)
	}
	ann.screenshot("ratings-lobby-desktop")

	// Another mode: nobody listed, no match of Ann's there.
	ann.setField("#ratings-pool", "nim/classic")
	ann.wait("the Nim ratings", `document.getElementById('ratings').dataset.state === 'ready' && document.querySelectorAll('#ratings-list li').length === 0 && !document.getElementById('ratings-empty').hidden`)
	if got := eval[string](ann, `document.getElementById('ratings-mine-value').textContent`); !strings.Contains(got, "1,500") || !strings.Contains(got, "no rated match") {
		t.Fatalf("Ann's Nim rating reads %q", got)
	}

	ann.setField("#lang", "ja")
	ann.wait("the Japanese panel", `document.documentElement.lang === 'ja' && document.querySelector('#ratings h2')?.textContent === 'レーティング' && document.getElementById('ratings').dataset.state === 'ready'`)
	if got := eval[string](ann, `document.querySelector('#ratings-mine h3')?.textContent || ''`); got != "あなたのレーティング" {
		t.Fatalf("the player's own heading reads %q in Japanese", got)
	}
}
