package transport

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/roomd/roomd/protocol"
	"github.com/roomd/roomd/room"
	"github.com/roomd/roomd/transport/auth"
	"github.com/roomd/roomd/transport/client"
)

var siteSecret = []byte("the site's HS256 secret, 32 bytes or more")

// siteToken signs a token for sub with claims as the site would.
func siteToken(t *testing.T, key any, method jwt.SigningMethod, kid string, claims jwt.MapClaims) string {
	t.Helper()
	tok := jwt.NewWithClaims(method, claims)
	if kid != "" {
		tok.Header["kid"] = kid
	}
	s, err := tok.SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func claimsFor(sub, name string, exp time.Time, aud string) jwt.MapClaims {
	c := jwt.MapClaims{"sub": sub, "exp": exp.Unix()}
	if name != "" {
		c["name"] = name
	}
	if aud != "" {
		c["aud"] = aud
	}
	return c
}

// apiAs POSTs body to path with a bearer token ("" for none).
func apiAs(t *testing.T, s *testServer, path, token string, body any) (int, string, http.Header) {
	t.Helper()
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest(http.MethodPost, s.URL+path, bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(raw), resp.Header
}

// TestSignIn: the site's tokens over the HTTP API and the socket (PROTOCOL.md
// §2.9), HS256 and an ES256 key from a JWKS the test serves, with
// --require-auth: anonymous clients, expired, wrongly signed and
// wrong-audience tokens are refused (401 with the reason; auth-required and
// close 4007 on the socket); a good token's sub becomes the seat's player
// id and its name claim the seat's name; a signed-in player who lost its
// seat token gets its seat back by identity.
func TestSignIn(t *testing.T) {
	ecKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	b64 := func(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }
	jwks := fmt.Sprintf(`{"keys":[{"kty":"EC","crv":"P-256","kid":"k1","alg":"ES256","use":"sig","x":%q,"y":%q}]}`,
		b64(ecKey.X.FillBytes(make([]byte, 32))), b64(ecKey.Y.FillBytes(make([]byte, 32))))
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, jwks)
	}))
	defer site.Close()
	v, err := auth.New(auth.Config{Secret: siteSecret, JWKSURL: site.URL, Audience: "roomd"})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	s := startServer(t, func(_ *room.Config, tc *Config) { tc.Auth, tc.RequireAuth = v, true })

	soon := time.Now().Add(time.Hour)
	good := siteToken(t, siteSecret, jwt.SigningMethodHS256, "", claimsFor("user-42", "Ann from the site", soon, "roomd"))
	goodEC := siteToken(t, ecKey, jwt.SigningMethodES256, "k1", claimsFor("user-7", "Bob", soon, "roomd"))
	create := map[string]any{"game": "minesweeper", "settings": json.RawMessage(`{"mode":"coop","level":"beginner"}`), "name": "typed"}
	for _, c := range []struct{ name, token, why string }{
		{"anonymous", "", "sign-in required"},
		{"expired", siteToken(t, siteSecret, jwt.SigningMethodHS256, "", claimsFor("user-42", "", time.Now().Add(-time.Hour), "roomd")), "expired"},
		{"wrongly signed", siteToken(t, []byte("another secret, also 32 bytes long!!"), jwt.SigningMethodHS256, "", claimsFor("user-42", "", soon, "roomd")), "signature"},
		{"wrong audience", siteToken(t, siteSecret, jwt.SigningMethodHS256, "", claimsFor("user-42", "", soon, "elsewhere")), "audience"},
		{"unknown key", siteToken(t, ecKey, jwt.SigningMethodES256, "k9", claimsFor("user-42", "", soon, "roomd")), "unknown key"},
	} {
		code, body, hdr := apiAs(t, s, "/api/rooms", c.token, create)
		if code != http.StatusUnauthorized || !strings.Contains(body, c.why) || hdr.Get("WWW-Authenticate") == "" {
			t.Errorf("%s: %d %s (WWW-Authenticate %q)", c.name, code, body, hdr.Get("WWW-Authenticate"))
		}
	}
	code, body, _ := apiAs(t, s, "/api/rooms", good, create)
	if code != http.StatusCreated {
		t.Fatalf("a good token: %d %s", code, body)
	}
	var ann room.JoinResult
	json.Unmarshal([]byte(body), &ann)

	// The socket: anonymous and bad tokens are closed 4007.
	for _, c := range []struct{ name, token string }{{"anonymous", ""}, {"expired", siteToken(t, siteSecret, jwt.SigningMethodHS256, "", claimsFor("x", "", time.Now().Add(-time.Hour), "roomd"))}} {
		cl := s.dial(c.name, client.Config{Room: ann.Room, Watch: true, Game: msPin, Auth: c.token})
		cl.closedWith(protocol.CloseUnauthorized)
		cl.waitFor("the notice", func(evs []client.Event) bool {
			for _, ev := range evs {
				if ev.Notice != nil && ev.Notice.Code == protocol.CodeAuthRequired {
					return true
				}
			}
			return false
		})
	}
	// Bob signs in with the JWKS key and takes a seat over the socket.
	bob := s.dial("bob", client.Config{Room: ann.Room, Name: "typed", Game: msPin, Auth: goodEC})
	bob.waitOnline()
	host := s.dial("ann", client.Config{Room: ann.Room, Token: ann.Token, Game: msPin, Auth: good})
	host.waitOnline()
	info := host.resync().Room
	if len(info.Seats) != 2 || info.Seats[0].Player != "user-42" || info.Seats[0].Name != "Ann from the site" ||
		info.Seats[1].Player != "user-7" || info.Seats[1].Name != "Bob" {
		t.Fatalf("seats: %+v", info.Seats)
	}
	// Bob loses his token (another device): his identity gets his seat back.
	bob.close()
	again := s.dial("bob-elsewhere", client.Config{Room: ann.Room, Game: msPin, Auth: goodEC})
	again.waitOnline()
	if again.tr.Seat() != 1 {
		t.Fatalf("Bob's identity took seat %d, not his seat 1", again.tr.Seat())
	}
	if info := again.resync().Room; len(info.Seats) != 2 {
		t.Fatalf("a second seat for Bob: %+v", info.Seats)
	}
	// Over HTTP, a player seated by identity is not given a second seat.
	if code, body, _ := apiAs(t, s, "/api/rooms/"+ann.Room+"/join", goodEC, map[string]any{"name": "Bob again"}); code != http.StatusConflict || !strings.Contains(body, "seat 1") {
		t.Fatalf("a second join by identity: %d %s", code, body)
	}
}

// TestNoSignInConfigured: a server without sign-in takes anonymous
// players, and refuses a token it cannot check rather than ignoring it.
func TestNoSignInConfigured(t *testing.T) {
	s := startServer(t)
	tok := siteToken(t, siteSecret, jwt.SigningMethodHS256, "", claimsFor("u", "", time.Now().Add(time.Hour), ""))
	create := map[string]any{"game": "minesweeper", "settings": json.RawMessage(`{"level":"beginner"}`), "name": "Ann"}
	if code, body, _ := apiAs(t, s, "/api/rooms", tok, create); code != http.StatusUnauthorized || !strings.Contains(body, "does not take sign-in") {
		t.Fatalf("a token to a server without sign-in: %d %s", code, body)
	}
	if code, body, _ := apiAs(t, s, "/api/rooms", "", create); code != http.StatusCreated {
		t.Fatalf("anonymous: %d %s", code, body)
	}
}
