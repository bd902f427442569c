package auth_test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"log/slog"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"go.uber.org/goleak"

	"github.com/roomd/roomd/transport/auth"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var (
	t0     = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	clock  = func() time.Time { return t0 }
	secret = []byte("0123456789abcdef0123456789abcdef") // 32 bytes
	ctx    = context.Background()
)

// claims are valid claims at t0, for changing per test.
func claims() jwt.MapClaims {
	return jwt.MapClaims{"sub": "player-1", "exp": t0.Add(time.Hour).Unix()}
}

func sign(t *testing.T, method jwt.SigningMethod, kid string, c jwt.MapClaims, key any) string {
	t.Helper()
	tok := jwt.NewWithClaims(method, c)
	if kid != "" {
		tok.Header["kid"] = kid
	}
	s, err := tok.SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func hsVerifier(t *testing.T, mod func(*auth.Config)) *auth.Verifier {
	t.Helper()
	cfg := auth.Config{Secret: secret, Now: clock}
	if mod != nil {
		mod(&cfg)
	}
	v, err := auth.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(v.Close)
	return v
}

// wantErr checks that err wraps sentinel and its message contains msg.
func wantErr(t *testing.T, err, sentinel error, msg string) {
	t.Helper()
	if !errors.Is(err, sentinel) {
		t.Fatalf("error %v, want %v", err, sentinel)
	}
	if !strings.Contains(err.Error(), msg) {
		t.Fatalf("error %q does not say %q", err, msg)
	}
}

func same(a, b auth.Identity) bool {
	return a.Subject == b.Subject && a.Name == b.Name && a.Expires.Equal(b.Expires)
}

// --- the JWKS server ---------------------------------------------------------

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

func rsaJWK(kid string, k *rsa.PublicKey) map[string]any {
	return map[string]any{"kty": "RSA", "kid": kid, "alg": "RS256", "use": "sig",
		"n": b64(k.N.Bytes()), "e": b64(big.NewInt(int64(k.E)).Bytes())}
}

func ecJWK(kid string, k *ecdsa.PublicKey) map[string]any {
	raw, err := k.Bytes() // 0x04 || X || Y, 32 bytes each for P-256
	if err != nil {
		panic(err)
	}
	return map[string]any{"kty": "EC", "kid": kid, "crv": "P-256",
		"x": b64(raw[1:33]), "y": b64(raw[33:])}
}

// jwksServer serves a JWKS that tests change, and counts the fetches.
type jwksServer struct {
	*httptest.Server
	mu   sync.Mutex
	body []byte
	hits atomic.Int64
}

func newJWKSServer(t *testing.T, keys ...map[string]any) *jwksServer {
	t.Helper()
	s := &jwksServer{}
	s.set(t, keys...)
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.hits.Add(1)
		s.mu.Lock()
		body := s.body
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.Write(body)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *jwksServer) set(t *testing.T, keys ...map[string]any) {
	t.Helper()
	if keys == nil {
		keys = []map[string]any{}
	}
	body, err := json.Marshal(map[string]any{"keys": keys})
	if err != nil {
		t.Fatal(err)
	}
	s.setRaw(body)
}

func (s *jwksServer) setRaw(body []byte) {
	s.mu.Lock()
	s.body = body
	s.mu.Unlock()
}

func jwksVerifier(t *testing.T, url string, mod func(*auth.Config)) *auth.Verifier {
	t.Helper()
	cfg := auth.Config{JWKSURL: url, Now: clock}
	if mod != nil {
		mod(&cfg)
	}
	v, err := auth.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(v.Close)
	return v
}

var keys struct {
	once     sync.Once
	rsa, rs2 *rsa.PrivateKey
	ec, ec2  *ecdsa.PrivateKey
}

func testKeys(t *testing.T) {
	t.Helper()
	keys.once.Do(func() {
		var err error
		if keys.rsa, err = rsa.GenerateKey(rand.Reader, 2048); err != nil {
			panic(err)
		}
		if keys.rs2, err = rsa.GenerateKey(rand.Reader, 2048); err != nil {
			panic(err)
		}
		if keys.ec, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader); err != nil {
			panic(err)
		}
		if keys.ec2, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader); err != nil {
			panic(err)
		}
	})
}

// --- New ---------------------------------------------------------------------

func TestNewRefusesBadConfig(t *testing.T) {
	for name, cfg := range map[string]auth.Config{
		"nothing":        {},
		"short secret":   {Secret: []byte("hunter2")},
		"ftp url":        {JWKSURL: "ftp://example.com/jwks.json"},
		"file url":       {JWKSURL: "file:///etc/passwd"},
		"relative url":   {JWKSURL: "/jwks.json"},
		"no host":        {JWKSURL: "https:///jwks.json"},
		"unparsable url": {JWKSURL: "http://[::1"},
	} {
		if v, err := auth.New(cfg); err == nil {
			v.Close()
			t.Errorf("%s: New accepted %+v", name, cfg)
		}
	}
}

// --- HS256 -------------------------------------------------------------------

func TestHS256Good(t *testing.T) {
	v := hsVerifier(t, nil)
	c := claims()
	c["name"] = " Ann <b> "
	id, err := v.Verify(ctx, sign(t, jwt.SigningMethodHS256, "", c, secret))
	if err != nil {
		t.Fatal(err)
	}
	want := auth.Identity{Subject: "player-1", Name: " Ann <b> ", Expires: t0.Add(time.Hour)}
	if !same(id, want) {
		t.Fatalf("identity %+v, want %+v", id, want)
	}
	// No name: an empty Name.
	id, err = v.Verify(ctx, sign(t, jwt.SigningMethodHS256, "", claims(), secret))
	if err != nil || id.Name != "" || id.Subject != "player-1" {
		t.Fatalf("identity %+v, %v", id, err)
	}
}

func TestExpired(t *testing.T) {
	v := hsVerifier(t, nil)
	c := claims()
	c["exp"] = t0.Add(-time.Minute).Unix() // beyond the 30 s leeway
	_, err := v.Verify(ctx, sign(t, jwt.SigningMethodHS256, "", c, secret))
	wantErr(t, err, auth.ErrExpired, "token expired")

	c["exp"] = t0.Add(-10 * time.Second).Unix() // within it
	if _, err := v.Verify(ctx, sign(t, jwt.SigningMethodHS256, "", c, secret)); err != nil {
		t.Fatalf("within the leeway: %v", err)
	}
	v = hsVerifier(t, func(c *auth.Config) { c.Leeway = -1 })
	_, err = v.Verify(ctx, sign(t, jwt.SigningMethodHS256, "", c, secret))
	wantErr(t, err, auth.ErrExpired, "token expired")
}

func TestNoExpiry(t *testing.T) {
	v := hsVerifier(t, nil)
	c := claims()
	delete(c, "exp")
	_, err := v.Verify(ctx, sign(t, jwt.SigningMethodHS256, "", c, secret))
	wantErr(t, err, auth.ErrNoExpiry, "no expiry")
}

func TestNotYetValid(t *testing.T) {
	v := hsVerifier(t, nil)
	c := claims()
	c["nbf"] = t0.Add(time.Minute).Unix()
	_, err := v.Verify(ctx, sign(t, jwt.SigningMethodHS256, "", c, secret))
	wantErr(t, err, auth.ErrNotYetValid, "not valid yet")

	c["nbf"] = t0.Add(-time.Minute).Unix()
	if _, err := v.Verify(ctx, sign(t, jwt.SigningMethodHS256, "", c, secret)); err != nil {
		t.Fatalf("nbf in the past: %v", err)
	}
}

func TestWrongSecret(t *testing.T) {
	v := hsVerifier(t, nil)
	other := bytes.Repeat([]byte("x"), 32)
	_, err := v.Verify(ctx, sign(t, jwt.SigningMethodHS256, "", claims(), other))
	wantErr(t, err, auth.ErrSignature, "signature invalid")

	// A good token with its payload changed.
	good := sign(t, jwt.SigningMethodHS256, "", claims(), secret)
	parts := strings.Split(good, ".")
	parts[1] = b64([]byte(`{"sub":"admin","exp":` + big.NewInt(t0.Add(time.Hour).Unix()).String() + `}`))
	_, err = v.Verify(ctx, strings.Join(parts, "."))
	wantErr(t, err, auth.ErrSignature, "signature invalid")
}

func TestAudience(t *testing.T) {
	v := hsVerifier(t, func(c *auth.Config) { c.Audience = "roomd" })
	c := claims()
	c["aud"] = "other-game"
	_, err := v.Verify(ctx, sign(t, jwt.SigningMethodHS256, "", c, secret))
	wantErr(t, err, auth.ErrAudience, `wrong audience: want "roomd"`)

	delete(c, "aud")
	_, err = v.Verify(ctx, sign(t, jwt.SigningMethodHS256, "", c, secret))
	wantErr(t, err, auth.ErrAudience, `wrong audience: want "roomd"`)

	for _, aud := range []any{"roomd", []string{"other-game", "roomd"}} {
		c["aud"] = aud
		if _, err := v.Verify(ctx, sign(t, jwt.SigningMethodHS256, "", c, secret)); err != nil {
			t.Fatalf("aud %v: %v", aud, err)
		}
	}
}

func TestIssuer(t *testing.T) {
	v := hsVerifier(t, func(c *auth.Config) { c.Issuer = "https://games.example" })
	c := claims()
	c["iss"] = "https://evil.example"
	_, err := v.Verify(ctx, sign(t, jwt.SigningMethodHS256, "", c, secret))
	wantErr(t, err, auth.ErrIssuer, `wrong issuer: want "https://games.example"`)
	c["iss"] = "https://games.example"
	if _, err := v.Verify(ctx, sign(t, jwt.SigningMethodHS256, "", c, secret)); err != nil {
		t.Fatal(err)
	}
}

func TestSubject(t *testing.T) {
	v := hsVerifier(t, nil)
	c := claims()
	delete(c, "sub")
	_, err := v.Verify(ctx, sign(t, jwt.SigningMethodHS256, "", c, secret))
	wantErr(t, err, auth.ErrNoSubject, "no subject")

	c["sub"] = ""
	_, err = v.Verify(ctx, sign(t, jwt.SigningMethodHS256, "", c, secret))
	wantErr(t, err, auth.ErrNoSubject, "no subject")

	c["sub"] = 42
	_, err = v.Verify(ctx, sign(t, jwt.SigningMethodHS256, "", c, secret))
	wantErr(t, err, auth.ErrMalformed, "malformed")

	c["sub"] = strings.Repeat("s", auth.MaxSubjectBytes+1)
	_, err = v.Verify(ctx, sign(t, jwt.SigningMethodHS256, "", c, secret))
	wantErr(t, err, auth.ErrLongSubject, "subject too long")

	c["sub"] = strings.Repeat("s", auth.MaxSubjectBytes)
	if _, err := v.Verify(ctx, sign(t, jwt.SigningMethodHS256, "", c, secret)); err != nil {
		t.Fatal(err)
	}
}

func TestNameMustBeAString(t *testing.T) {
	v := hsVerifier(t, nil)
	for _, name := range []any{42, true, []string{"a"}, map[string]any{"a": 1}, nil} {
		c := claims()
		c["name"] = name
		_, err := v.Verify(ctx, sign(t, jwt.SigningMethodHS256, "", c, secret))
		wantErr(t, err, auth.ErrName, "name claim is not a string")
	}
}

func TestAlgNone(t *testing.T) {
	v := hsVerifier(t, nil)
	tok := sign(t, jwt.SigningMethodNone, "", claims(), jwt.UnsafeAllowNoneSignatureType)
	_, err := v.Verify(ctx, tok)
	wantErr(t, err, auth.ErrAlgorithm, `algorithm "none" not accepted`)

	// Spelling variants, with and without a signature.
	payload := b64([]byte(`{"sub":"admin","exp":` + big.NewInt(t0.Add(time.Hour).Unix()).String() + `}`))
	for _, alg := range []string{"None", "NONE", "nOnE", ""} {
		head := b64([]byte(`{"alg":"` + alg + `","typ":"JWT"}`))
		for _, sig := range []string{"", b64([]byte("sig"))} {
			_, err := v.Verify(ctx, head+"."+payload+"."+sig)
			wantErr(t, err, auth.ErrAlgorithm, "not accepted")
		}
	}
}

func TestOtherHMACAlgorithms(t *testing.T) {
	v := hsVerifier(t, nil)
	for _, m := range []jwt.SigningMethod{jwt.SigningMethodHS384, jwt.SigningMethodHS512} {
		_, err := v.Verify(ctx, sign(t, m, "", claims(), secret))
		wantErr(t, err, auth.ErrAlgorithm, `algorithm "`+m.Alg()+`" not accepted`)
	}
}

func TestRS256WithOnlySecret(t *testing.T) {
	testKeys(t)
	v := hsVerifier(t, nil)
	_, err := v.Verify(ctx, sign(t, jwt.SigningMethodRS256, "k1", claims(), keys.rsa))
	wantErr(t, err, auth.ErrAlgorithm, `algorithm "RS256" not accepted`)
}

func TestOversizedToken(t *testing.T) {
	v := hsVerifier(t, nil)
	// The longest valid token within MaxTokenBytes passes; the next one,
	// a byte of name longer, is refused.
	c := claims()
	tok := func(n int) string {
		c["name"] = strings.Repeat("n", n)
		return sign(t, jwt.SigningMethodHS256, "", c, secret)
	}
	n := (auth.MaxTokenBytes-len(tok(0)))*3/4 - 8 // base64url: 4 bytes of token per 3 of name
	for len(tok(n+1)) <= auth.MaxTokenBytes {
		n++
	}
	fits, over := tok(n), tok(n+1)
	if len(fits) < auth.MaxTokenBytes-2 || len(over) <= auth.MaxTokenBytes {
		t.Fatalf("test tokens are %d and %d bytes", len(fits), len(over))
	}
	if _, err := v.Verify(ctx, fits); err != nil {
		t.Fatalf("token of %d bytes: %v", len(fits), err)
	}
	_, err := v.Verify(ctx, over)
	wantErr(t, err, auth.ErrTooLarge, "token too large")

	_, err = v.Verify(ctx, strings.Repeat("a", 1<<20))
	wantErr(t, err, auth.ErrTooLarge, "token too large")
}

func TestMalformed(t *testing.T) {
	v := hsVerifier(t, nil)
	_, err := v.Verify(ctx, "")
	wantErr(t, err, auth.ErrNoToken, "no token")
	for _, tok := range []string{"abc", "a.b", "a.b.c.d", "!!!.e30.", b64([]byte("[1]")) + ".e30.", b64([]byte(`{"alg":"HS256"}`)) + ".!!!.sig"} {
		_, err := v.Verify(ctx, tok)
		wantErr(t, err, auth.ErrMalformed, "malformed")
	}
}

// --- JWKS ----------------------------------------------------------------------

func TestJWKSGood(t *testing.T) {
	testKeys(t)
	srv := newJWKSServer(t, rsaJWK("rsa-1", &keys.rsa.PublicKey), ecJWK("ec-1", &keys.ec.PublicKey))
	v := jwksVerifier(t, srv.URL, func(c *auth.Config) { c.Audience = "roomd" })
	c := claims()
	c["aud"] = "roomd"
	c["name"] = "Bea"
	for _, tok := range []string{
		sign(t, jwt.SigningMethodRS256, "rsa-1", c, keys.rsa),
		sign(t, jwt.SigningMethodES256, "ec-1", c, keys.ec),
	} {
		id, err := v.Verify(ctx, tok)
		if err != nil {
			t.Fatal(err)
		}
		if !same(id, auth.Identity{Subject: "player-1", Name: "Bea", Expires: t0.Add(time.Hour)}) {
			t.Fatalf("identity %+v", id)
		}
	}

	// Signed by another key under a known kid.
	for _, tok := range []string{
		sign(t, jwt.SigningMethodRS256, "rsa-1", c, keys.rs2),
		sign(t, jwt.SigningMethodES256, "ec-1", c, keys.ec2),
	} {
		_, err := v.Verify(ctx, tok)
		wantErr(t, err, auth.ErrSignature, "signature invalid")
	}
	// The claims rules hold for JWKS tokens too.
	c["exp"] = t0.Add(-time.Hour).Unix()
	_, err := v.Verify(ctx, sign(t, jwt.SigningMethodES256, "ec-1", c, keys.ec))
	wantErr(t, err, auth.ErrExpired, "token expired")
	// An RS256 token naming the EC key, an ES256 one naming the RSA key.
	c = claims()
	c["aud"] = "roomd"
	_, err = v.Verify(ctx, sign(t, jwt.SigningMethodRS256, "ec-1", c, keys.rsa))
	wantErr(t, err, auth.ErrBadKey, "not for RS256")
	_, err = v.Verify(ctx, sign(t, jwt.SigningMethodES256, "rsa-1", c, keys.ec))
	wantErr(t, err, auth.ErrBadKey, "is for RS256")
	// No kid.
	_, err = v.Verify(ctx, sign(t, jwt.SigningMethodRS256, "", c, keys.rsa))
	wantErr(t, err, auth.ErrNoKeyID, "no key id")
}

// TestJWKSKeyChecks: a JWKS key is used only for the algorithm it fits.
func TestJWKSKeyChecks(t *testing.T) {
	testKeys(t)
	p384, err := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	noAlg := rsaJWK("rsa-noalg", &keys.rsa.PublicKey)
	delete(noAlg, "alg")
	enc := rsaJWK("rsa-enc", &keys.rsa.PublicKey)
	enc["use"] = "enc"
	wrongAlg := ecJWK("ec-rs", &keys.ec.PublicKey)
	wrongAlg["alg"] = "RS256"
	raw, err := p384.PublicKey.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	ec384 := map[string]any{"kty": "EC", "kid": "ec-384", "crv": "P-384", "x": b64(raw[1:49]), "y": b64(raw[49:])}
	srv := newJWKSServer(t, noAlg, enc, wrongAlg, ec384, ecJWK("ec-1", &keys.ec.PublicKey))
	v := jwksVerifier(t, srv.URL, nil)

	// Controls: the same keys verify where they fit.
	for _, tok := range []string{
		sign(t, jwt.SigningMethodRS256, "rsa-noalg", claims(), keys.rsa),
		sign(t, jwt.SigningMethodES256, "ec-1", claims(), keys.ec),
	} {
		if _, err := v.Verify(ctx, tok); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct{ tok, msg string }{
		{sign(t, jwt.SigningMethodES256, "rsa-noalg", claims(), keys.ec), "not for ES256"},
		{sign(t, jwt.SigningMethodRS256, "ec-1", claims(), keys.rsa), "not for RS256"},
		{sign(t, jwt.SigningMethodRS256, "rsa-enc", claims(), keys.rsa), `use "enc"`},
		{sign(t, jwt.SigningMethodES256, "ec-rs", claims(), keys.ec), "is for RS256"},
		{sign(t, jwt.SigningMethodES256, "ec-384", claims(), keys.ec), "not a P-256 key"},
	} {
		_, err := v.Verify(ctx, tc.tok)
		wantErr(t, err, auth.ErrBadKey, tc.msg)
	}
}

func TestSmallRSAKeyRefused(t *testing.T) {
	small, err := rsa.GenerateKey(rand.Reader, 1024)
	if err != nil {
		t.Skip("cannot make a 1024-bit key here:", err)
	}
	srv := newJWKSServer(t, rsaJWK("small", &small.PublicKey))
	v := jwksVerifier(t, srv.URL, nil)
	_, err = v.Verify(ctx, sign(t, jwt.SigningMethodRS256, "small", claims(), small))
	wantErr(t, err, auth.ErrBadKey, "1024 bits")
}

// TestAlgorithmConfusion: with only a JWKS, an HS256 token is refused
// whatever it was signed with: the RSA public key's bytes (the classic
// attack) or a symmetric key the JWKS itself publishes.
func TestAlgorithmConfusion(t *testing.T) {
	testKeys(t)
	der, err := x509.MarshalPKIXPublicKey(&keys.rsa.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	pemKey := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
	oct := map[string]any{"kty": "oct", "kid": "oct-1", "k": b64(secret)}
	srv := newJWKSServer(t, rsaJWK("rsa-1", &keys.rsa.PublicKey), oct)
	v := jwksVerifier(t, srv.URL, nil)
	for _, tc := range []struct {
		kid string
		key []byte
	}{{"rsa-1", der}, {"rsa-1", pemKey}, {"rsa-1", keys.rsa.N.Bytes()}, {"oct-1", secret}, {"", secret}} {
		_, err := v.Verify(ctx, sign(t, jwt.SigningMethodHS256, tc.kid, claims(), tc.key))
		wantErr(t, err, auth.ErrAlgorithm, `algorithm "HS256" not accepted`)
	}
	// A header that spells alg twice, in two cases: read as jwt reads it.
	good := sign(t, jwt.SigningMethodRS256, "rsa-1", claims(), keys.rsa)
	parts := strings.Split(good, ".")
	head := b64([]byte(`{"alg":"HS256","ALG":"RS256","kid":"rsa-1","typ":"JWT"}`))
	_, err = v.Verify(ctx, head+"."+parts[1]+"."+parts[2])
	wantErr(t, err, auth.ErrAlgorithm, `algorithm "HS256" not accepted`)

	// The oct key is not usable for RS256/ES256 either.
	_, err = v.Verify(ctx, sign(t, jwt.SigningMethodRS256, "oct-1", claims(), keys.rsa))
	wantErr(t, err, auth.ErrBadKey, "not for RS256")

	// With both configured, an HS256 token is checked against the secret
	// only: one signed with the RSA public key fails.
	both := jwksVerifier(t, srv.URL, func(c *auth.Config) { c.Secret = secret })
	_, err = both.Verify(ctx, sign(t, jwt.SigningMethodHS256, "rsa-1", claims(), der))
	wantErr(t, err, auth.ErrSignature, "signature invalid")
	if _, err := both.Verify(ctx, sign(t, jwt.SigningMethodHS256, "rsa-1", claims(), secret)); err != nil {
		t.Fatal(err)
	}
}

func TestUnknownKidRefetch(t *testing.T) {
	testKeys(t)
	srv := newJWKSServer(t, rsaJWK("rsa-1", &keys.rsa.PublicKey))
	tok := sign(t, jwt.SigningMethodES256, "ec-new", claims(), keys.ec)

	// A long refetch interval: the first unknown kid fetches, the next
	// ones within the interval do not.
	slow := jwksVerifier(t, srv.URL, func(c *auth.Config) { c.RefetchInterval = time.Hour })
	if got := srv.hits.Load(); got != 1 {
		t.Fatalf("%d fetches after New, want 1", got)
	}
	_, err := slow.Verify(ctx, tok)
	wantErr(t, err, auth.ErrUnknownKey, `unknown key id "ec-new"`)
	if got := srv.hits.Load(); got != 2 {
		t.Fatalf("%d fetches after an unknown kid, want 2", got)
	}
	srv.set(t, rsaJWK("rsa-1", &keys.rsa.PublicKey), ecJWK("ec-new", &keys.ec.PublicKey))
	for range 5 {
		start := time.Now()
		_, err = slow.Verify(ctx, tok)
		wantErr(t, err, auth.ErrUnknownKey, `unknown key id "ec-new"`)
		if d := time.Since(start); d > time.Second {
			t.Fatalf("an unknown kid within the interval took %v", d)
		}
	}
	if got := srv.hits.Load(); got != 2 {
		t.Fatalf("%d fetches after unknown kids within the interval, want 2", got)
	}

	// A short one: after it, the new key is fetched and accepted.
	srv.set(t, rsaJWK("rsa-1", &keys.rsa.PublicKey))
	srv.hits.Store(0)
	fast := jwksVerifier(t, srv.URL, func(c *auth.Config) { c.RefetchInterval = 100 * time.Millisecond })
	_, err = fast.Verify(ctx, tok)
	wantErr(t, err, auth.ErrUnknownKey, `unknown key id "ec-new"`)
	srv.set(t, rsaJWK("rsa-1", &keys.rsa.PublicKey), ecJWK("ec-new", &keys.ec.PublicKey))
	time.Sleep(150 * time.Millisecond)
	id, err := fast.Verify(ctx, tok)
	if err != nil {
		t.Fatalf("after the refetch interval: %v", err)
	}
	if id.Subject != "player-1" {
		t.Fatalf("identity %+v", id)
	}
	if got := srv.hits.Load(); got != 3 {
		t.Fatalf("%d fetches, want 3 (New, unknown kid, unknown kid after the interval)", got)
	}
	// Known now: no more fetches.
	if _, err := fast.Verify(ctx, tok); err != nil || srv.hits.Load() != 3 {
		t.Fatalf("known kid: %v, %d fetches", err, srv.hits.Load())
	}
}

// logBuffer collects what the verifier logs.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func TestJWKSTooLarge(t *testing.T) {
	testKeys(t)
	key := rsaJWK("rsa-1", &keys.rsa.PublicKey)
	tok := sign(t, jwt.SigningMethodRS256, "rsa-1", claims(), keys.rsa)
	padded := func(n int) []byte {
		body, err := json.Marshal(map[string]any{"keys": []any{key}, "padding": strings.Repeat("p", n)})
		if err != nil {
			t.Fatal(err)
		}
		return body
	}
	srv := newJWKSServer(t)
	verifier := func() (*auth.Verifier, *logBuffer) {
		var logs logBuffer
		return jwksVerifier(t, srv.URL, func(c *auth.Config) {
			c.Logger = slog.New(slog.NewTextHandler(&logs, nil))
		}), &logs
	}

	// Just under the bound: accepted.
	body := padded(0)
	srv.setRaw(padded(auth.MaxJWKSBytes - len(body)))
	v, logs := verifier()
	if _, err := v.Verify(ctx, tok); err != nil {
		t.Fatalf("JWKS of %d bytes: %v (log: %s)", auth.MaxJWKSBytes, err, logs)
	}

	// One byte over: refused whole, so the key is unknown.
	srv.setRaw(padded(auth.MaxJWKSBytes - len(body) + 1))
	v, logs = verifier()
	_, err := v.Verify(ctx, tok)
	wantErr(t, err, auth.ErrUnknownKey, `unknown key id "rsa-1"`)
	if !strings.Contains(logs.String(), "JWKS answer too large") {
		t.Fatalf("log does not say the JWKS is too large: %s", logs)
	}

	// Far over, streamed without a length.
	srv.setRaw(padded(10 << 20))
	v, logs = verifier()
	_, err = v.Verify(ctx, tok)
	wantErr(t, err, auth.ErrUnknownKey, `unknown key id "rsa-1"`)
	if !strings.Contains(logs.String(), "JWKS answer too large") {
		t.Fatalf("log does not say the JWKS is too large: %s", logs)
	}
}

func TestJWKSTooManyKeys(t *testing.T) {
	testKeys(t)
	many := []map[string]any{ecJWK("ec-1", &keys.ec.PublicKey)}
	for len(many) < auth.MaxJWKSKeys {
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		many = append(many, ecJWK("filler-"+big.NewInt(int64(len(many))).String(), &k.PublicKey))
	}
	tok := sign(t, jwt.SigningMethodES256, "ec-1", claims(), keys.ec)
	srv := newJWKSServer(t, many...)
	v := jwksVerifier(t, srv.URL, nil)
	if _, err := v.Verify(ctx, tok); err != nil {
		t.Fatalf("%d keys: %v", len(many), err)
	}

	srv.set(t, append(many, ecJWK("one-too-many", &keys.ec2.PublicKey))...)
	var logs logBuffer
	v = jwksVerifier(t, srv.URL, func(c *auth.Config) { c.Logger = slog.New(slog.NewTextHandler(&logs, nil)) })
	_, err := v.Verify(ctx, tok)
	wantErr(t, err, auth.ErrUnknownKey, `unknown key id "ec-1"`)
	if !strings.Contains(logs.String(), "too many keys") {
		t.Fatalf("log does not say the JWKS has too many keys: %s", logs.String())
	}
}

// TestKeyRemoved: a key dropped from the JWKS stops being accepted at the
// next background refresh.
func TestKeyRemoved(t *testing.T) {
	testKeys(t)
	srv := newJWKSServer(t, ecJWK("ec-1", &keys.ec.PublicKey))
	v := jwksVerifier(t, srv.URL, func(c *auth.Config) {
		c.CacheFor = 20 * time.Millisecond
		c.RefetchInterval = time.Hour
	})
	tok := sign(t, jwt.SigningMethodES256, "ec-1", claims(), keys.ec)
	if _, err := v.Verify(ctx, tok); err != nil {
		t.Fatal(err)
	}
	srv.set(t)
	deadline := time.Now().Add(5 * time.Second)
	for {
		_, err := v.Verify(ctx, tok)
		if errors.Is(err, auth.ErrUnknownKey) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("key still accepted after 5 s: %v", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestCloseStopsRefresh: after Close, no more fetches and no goroutines.
func TestCloseStopsRefresh(t *testing.T) {
	testKeys(t)
	srv := newJWKSServer(t, ecJWK("ec-1", &keys.ec.PublicKey))
	before := goleak.IgnoreCurrent()
	v, err := auth.New(auth.Config{JWKSURL: srv.URL, Now: clock, CacheFor: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := v.Verify(ctx, sign(t, jwt.SigningMethodES256, "ec-1", claims(), keys.ec)); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for srv.hits.Load() < 3 {
		if time.Now().After(deadline) {
			t.Fatalf("%d fetches in 5 s: no background refresh", srv.hits.Load())
		}
		time.Sleep(5 * time.Millisecond)
	}
	v.Close()
	v.Close() // twice is fine
	time.Sleep(20 * time.Millisecond)
	hits := srv.hits.Load()
	time.Sleep(100 * time.Millisecond)
	if got := srv.hits.Load(); got != hits {
		t.Fatalf("%d fetches after Close", got-hits)
	}
	// No Verify (and so no fetch) after Close.
	_, err = v.Verify(ctx, sign(t, jwt.SigningMethodES256, "ec-1", claims(), keys.ec))
	wantErr(t, err, auth.ErrClosed, "closed")
	goleak.VerifyNone(t, before)
}

// TestJWKSDown: New does not fail when the JWKS cannot be fetched; tokens
// are refused until it can.
func TestJWKSDown(t *testing.T) {
	testKeys(t)
	srv := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(srv.Close)
	var logs logBuffer
	v := jwksVerifier(t, srv.URL, func(c *auth.Config) { c.Logger = slog.New(slog.NewTextHandler(&logs, nil)) })
	_, err := v.Verify(ctx, sign(t, jwt.SigningMethodES256, "ec-1", claims(), keys.ec))
	wantErr(t, err, auth.ErrUnknownKey, `unknown key id "ec-1"`)
	if !strings.Contains(logs.String(), "JWKS fetch failed") {
		t.Fatalf("the failed fetch is not logged: %s", logs.String())
	}
}

// countingTransport counts the requests that go through it.
type countingTransport struct{ n atomic.Int64 }

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.n.Add(1)
	return http.DefaultTransport.RoundTrip(r)
}

// TestCallerClient: a given HTTPClient is used, left unchanged, and its
// answers are bounded too.
func TestCallerClient(t *testing.T) {
	testKeys(t)
	key := ecJWK("ec-1", &keys.ec.PublicKey)
	srv := newJWKSServer(t, key)
	ct := &countingTransport{}
	client := &http.Client{Transport: ct}
	t.Cleanup(client.CloseIdleConnections)
	v := jwksVerifier(t, srv.URL, func(c *auth.Config) { c.HTTPClient = client })
	if _, err := v.Verify(ctx, sign(t, jwt.SigningMethodES256, "ec-1", claims(), keys.ec)); err != nil {
		t.Fatal(err)
	}
	if ct.n.Load() != 1 || client.Transport != http.RoundTripper(ct) {
		t.Fatalf("%d requests through the given client, transport %T", ct.n.Load(), client.Transport)
	}
	body, err := json.Marshal(map[string]any{"keys": []any{key}, "padding": strings.Repeat("p", auth.MaxJWKSBytes)})
	if err != nil {
		t.Fatal(err)
	}
	srv.setRaw(body)
	v = jwksVerifier(t, srv.URL, func(c *auth.Config) { c.HTTPClient = client })
	_, err = v.Verify(ctx, sign(t, jwt.SigningMethodES256, "ec-1", claims(), keys.ec))
	wantErr(t, err, auth.ErrUnknownKey, `unknown key id "ec-1"`)
	if ct.n.Load() != 3 { // New, and the refetch on the unknown kid
		t.Fatalf("%d requests through the given client, want 3", ct.n.Load())
	}
}
