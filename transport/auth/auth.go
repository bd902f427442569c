// Package auth verifies the JWTs with which a site that embeds roomd vouches
// for its players: the identity half of "players signed in by the site".
//
// A token is accepted when it is signed either with the shared HS256 secret
// (Config.Secret) or with an RS256/ES256 key published in the site's JWKS
// (Config.JWKSURL), and carries a subject (the player id) and an expiry.
// Every token is treated as hostile: its size is bounded before parsing, the
// algorithm is pinned per key source (an HS256 token is only ever checked
// against the shared secret, never against a JWKS public key; "none" is
// refused), and every failure wraps one of the exported sentinel errors.
//
// Parsing and signature checks are github.com/golang-jwt/jwt/v5; the JWKS is
// fetched, cached and looked up by github.com/MicahParks/keyfunc/v3 (over
// github.com/MicahParks/jwkset), behind an HTTP transport of this package
// that bounds the answer.
package auth

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/MicahParks/keyfunc/v3"
	"github.com/golang-jwt/jwt/v5"
	"golang.org/x/time/rate"
)

// Limits on what a client or a JWKS server can make roomd read.
const (
	// MaxTokenBytes bounds a token before anything of it is decoded.
	MaxTokenBytes = 8 << 10
	// MaxSubjectBytes bounds the sub claim (the player id).
	MaxSubjectBytes = 128
	// MinSecretBytes is the shortest HS256 secret New accepts: RFC 7518
	// §3.2 requires a key at least as long as the hash output.
	MinSecretBytes = 32
	// MinRSABits is the smallest RSA key from the JWKS that is used.
	MinRSABits = 2048
	// MaxJWKSBytes bounds the JWKS answer; a larger one is refused whole.
	MaxJWKSBytes = 64 << 10
	// MaxJWKSKeys bounds the number of keys in the JWKS; more is refused whole.
	MaxJWKSKeys = 32

	// maxKidBytes: a longer kid is unknown without a JWKS fetch.
	maxKidBytes = 256
)

// Defaults for the zero values of Config.
const (
	DefaultLeeway          = 30 * time.Second
	DefaultFetchTimeout    = 5 * time.Second
	DefaultRefetchInterval = 30 * time.Second
	DefaultCacheFor        = 10 * time.Minute
)

// Sentinel errors. Verify's errors wrap exactly one of them, with the
// detail (which algorithm, which key id, which audience) in the message.
var (
	ErrClosed       = errors.New("verifier closed")
	ErrNoToken      = errors.New("no token")
	ErrTooLarge     = errors.New("token too large")
	ErrMalformed    = errors.New("token malformed")
	ErrAlgorithm    = errors.New("algorithm not accepted")
	ErrNoKeyID      = errors.New("token has no key id (kid)")
	ErrUnknownKey   = errors.New("unknown key id")
	ErrBadKey       = errors.New("key not usable")
	ErrSignature    = errors.New("signature invalid")
	ErrExpired      = errors.New("token expired")
	ErrNotYetValid  = errors.New("token not valid yet")
	ErrNoExpiry     = errors.New("token has no expiry (exp)")
	ErrAudience     = errors.New("wrong audience")
	ErrIssuer       = errors.New("wrong issuer")
	ErrNoSubject    = errors.New("token has no subject (sub)")
	ErrLongSubject  = errors.New("subject too long")
	ErrName         = errors.New("name claim is not a string")
	ErrJWKSTooLarge = errors.New("JWKS answer too large")
	ErrJWKSTooMany  = errors.New("JWKS has too many keys")
)

// Config is what the operator gives roomd to trust a site's tokens.
type Config struct {
	// Secret is the HS256 shared secret (--jwt-secret / ROOMD_JWT_SECRET),
	// at least MinSecretBytes long. Empty: HS256 is not accepted.
	Secret []byte
	// JWKSURL is where RS256/ES256 public keys are fetched (--jwks-url),
	// http or https. Empty: RS256 and ES256 are not accepted. Tokens
	// checked against the JWKS must name their key (kid).
	JWKSURL string
	// Audience, when set, must be in the token's aud (--jwt-audience).
	Audience string
	// Issuer, when set, must be the token's iss.
	Issuer string
	// HTTPClient fetches the JWKS (nil: a client with FetchTimeout as its
	// timeout). Its transport is wrapped to bound the answer.
	HTTPClient *http.Client
	// Now is the clock for exp and nbf (nil: time.Now).
	Now func() time.Time
	// Leeway is the clock skew allowed on exp and nbf. 0: DefaultLeeway
	// (30 s); negative: none.
	Leeway time.Duration
	// FetchTimeout bounds one JWKS fetch (0: DefaultFetchTimeout, 5 s).
	FetchTimeout time.Duration
	// RefetchInterval is the least time between two fetches caused by a
	// token with an unknown kid (0: DefaultRefetchInterval, 30 s). The
	// first unknown kid fetches at once; within the interval, an unknown
	// kid fails without a fetch (or waits, when the interval ends within
	// FetchTimeout).
	RefetchInterval time.Duration
	// CacheFor is how often the JWKS is refreshed in the background
	// (0: DefaultCacheFor, 10 min). Keys dropped from the JWKS stop being
	// accepted at the next refresh.
	CacheFor time.Duration
	// Logger receives JWKS fetch failures (nil: slog.Default()).
	Logger *slog.Logger
}

// Identity is who a verified token says the player is.
type Identity struct {
	Subject string    // the token's sub: the player id
	Name    string    // the token's "name" claim, if any (raw; the caller cleans it)
	Expires time.Time // the token's exp
}

// Verifier checks tokens. It is safe for concurrent use.
type Verifier struct {
	secret   []byte
	audience string
	issuer   string
	hs       *jwt.Parser // HS256 only; nil without a secret
	pk       *jwt.Parser // RS256 and ES256 only; nil without a JWKS

	jwks         keyfunc.Keyfunc
	stop         context.CancelFunc
	ownTransport *http.Transport // nil when the caller gave the client
	closeOnce    sync.Once
	closed       atomic.Bool
}

// New builds a Verifier. It fails when neither Secret nor JWKSURL is set,
// when Secret is too short, or when JWKSURL is not an http(s) URL. With a
// JWKSURL it fetches the JWKS once before returning (waiting at most
// FetchTimeout; a failed fetch is logged, not returned: the keys are fetched
// again on the first unknown kid) and refreshes it in the background until
// Close.
func New(cfg Config) (*Verifier, error) {
	if len(cfg.Secret) == 0 && cfg.JWKSURL == "" {
		return nil, errors.New("auth: neither a JWT secret nor a JWKS URL is set")
	}
	if len(cfg.Secret) > 0 && len(cfg.Secret) < MinSecretBytes {
		return nil, fmt.Errorf("auth: JWT secret is %d bytes, at least %d are needed", len(cfg.Secret), MinSecretBytes)
	}
	if cfg.JWKSURL != "" {
		u, err := url.Parse(cfg.JWKSURL)
		if err != nil {
			return nil, fmt.Errorf("auth: JWKS URL: %w", err)
		}
		if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("auth: JWKS URL %q is not an http(s) URL", cfg.JWKSURL)
		}
	}
	now := cfg.Now
	if now == nil {
		now = time.Now
	}
	leeway := cfg.Leeway
	switch {
	case leeway == 0:
		leeway = DefaultLeeway
	case leeway < 0:
		leeway = 0
	}
	common := []jwt.ParserOption{
		jwt.WithTimeFunc(now),
		jwt.WithLeeway(leeway),
		jwt.WithExpirationRequired(),
	}
	if cfg.Audience != "" {
		common = append(common, jwt.WithAudience(cfg.Audience))
	}
	if cfg.Issuer != "" {
		common = append(common, jwt.WithIssuer(cfg.Issuer))
	}
	v := &Verifier{audience: cfg.Audience, issuer: cfg.Issuer}
	if len(cfg.Secret) > 0 {
		v.secret = append([]byte(nil), cfg.Secret...)
		v.hs = jwt.NewParser(slices.Concat(common, []jwt.ParserOption{jwt.WithValidMethods([]string{"HS256"})})...)
	}
	if cfg.JWKSURL != "" {
		if err := v.startJWKS(cfg); err != nil {
			return nil, err
		}
		v.pk = jwt.NewParser(slices.Concat(common, []jwt.ParserOption{jwt.WithValidMethods([]string{"RS256", "ES256"})})...)
	}
	return v, nil
}

func (v *Verifier) startJWKS(cfg Config) error {
	timeout := orDefault(cfg.FetchTimeout, DefaultFetchTimeout)
	refetch := orDefault(cfg.RefetchInterval, DefaultRefetchInterval)
	cacheFor := orDefault(cfg.CacheFor, DefaultCacheFor)
	logger := cfg.Logger
	if logger == nil {
		logger = slog.Default()
	}
	var client *http.Client
	if cfg.HTTPClient != nil {
		c := *cfg.HTTPClient // a copy: the caller's client is left as it was
		client = &c
	} else {
		// A transport of its own, so that Close can drop its connections.
		v.ownTransport = http.DefaultTransport.(*http.Transport).Clone()
		client = &http.Client{Timeout: timeout, Transport: v.ownTransport}
	}
	base := client.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	client.Transport = boundedTransport{base: base}

	ctx, stop := context.WithCancel(context.Background())
	noErr := true
	kf, err := keyfunc.NewDefaultOverrideCtx(ctx, []string{cfg.JWKSURL}, keyfunc.Override{
		Client:                    client,
		HTTPTimeout:               timeout,
		NoErrorReturnFirstHTTPReq: &noErr,
		RateLimitWaitMax:          timeout,
		RefreshInterval:           cacheFor,
		RefreshUnknownKID:         rate.NewLimiter(rate.Every(refetch), 1),
		RefreshErrorHandlerFunc: func(u string) func(context.Context, error) {
			return func(ctx context.Context, err error) {
				logger.WarnContext(ctx, "auth: JWKS fetch failed", "url", u, "err", err)
			}
		},
	})
	if err != nil {
		stop()
		return fmt.Errorf("auth: JWKS: %w", err)
	}
	v.jwks, v.stop = kf, stop
	return nil
}

func orDefault(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

// Close stops the background JWKS refresh and drops the idle connections
// of the client New made. Verify fails with ErrClosed afterwards, so that
// no fetch starts after Close. Close may be called more than once.
func (v *Verifier) Close() {
	v.closeOnce.Do(func() {
		v.closed.Store(true)
		if v.stop != nil {
			v.stop()
		}
		if v.ownTransport != nil {
			v.ownTransport.CloseIdleConnections()
		}
	})
}

// header is the part of the JOSE header read before choosing a key source.
type header struct {
	Alg, Kid string
}

// claims are the claims read from a token.
type claims struct {
	jwt.RegisteredClaims
	Name json.RawMessage `json:"name,omitempty"`
}

// Verify checks token and returns the identity it vouches for. Its errors
// wrap one of the package's sentinel errors.
func (v *Verifier) Verify(ctx context.Context, token string) (Identity, error) {
	if v.closed.Load() {
		return Identity{}, ErrClosed
	}
	if token == "" {
		return Identity{}, ErrNoToken
	}
	if len(token) > MaxTokenBytes {
		return Identity{}, fmt.Errorf("%w: %d bytes, at most %d", ErrTooLarge, len(token), MaxTokenBytes)
	}
	h, err := readHeader(token)
	if err != nil {
		return Identity{}, err
	}

	// The key source is chosen by the algorithm, and each parser accepts
	// only the algorithms of its source: HS256 is checked against the
	// secret and nothing else; RS256/ES256 against JWKS keys only.
	var (
		parser  *jwt.Parser
		keyErr  error // the precise reason a key was not found
		keyFunc jwt.Keyfunc
	)
	switch {
	case h.Alg == "HS256" && v.hs != nil:
		parser = v.hs
		keyFunc = func(t *jwt.Token) (any, error) {
			if t.Method != jwt.SigningMethodHS256 {
				keyErr = algError(t.Method.Alg())
				return nil, keyErr
			}
			return v.secret, nil
		}
	case (h.Alg == "RS256" || h.Alg == "ES256") && v.pk != nil:
		if len(h.Kid) > maxKidBytes {
			return Identity{}, fmt.Errorf("%w %q", ErrUnknownKey, short(h.Kid))
		}
		if h.Kid == "" {
			return Identity{}, ErrNoKeyID
		}
		parser = v.pk
		keyFunc = func(t *jwt.Token) (any, error) {
			key, err := v.jwksKey(ctx, t, h.Kid)
			keyErr = err
			return key, err
		}
	default:
		return Identity{}, algError(h.Alg)
	}

	var c claims
	_, err = parser.ParseWithClaims(token, &c, keyFunc)
	if err != nil {
		return Identity{}, v.explain(err, keyErr, &c)
	}
	if c.Subject == "" {
		return Identity{}, ErrNoSubject
	}
	if len(c.Subject) > MaxSubjectBytes {
		return Identity{}, fmt.Errorf("%w: %d bytes, at most %d", ErrLongSubject, len(c.Subject), MaxSubjectBytes)
	}
	id := Identity{Subject: c.Subject, Expires: c.ExpiresAt.Time}
	if len(c.Name) > 0 {
		if err := json.Unmarshal(c.Name, &id.Name); err != nil || string(c.Name) == "null" {
			return Identity{}, ErrName
		}
	}
	return id, nil
}

// algError is ErrAlgorithm naming the algorithm: "algorithm HS256 not
// accepted".
type algError string

func (e algError) Error() string        { return fmt.Sprintf("algorithm %q not accepted", short(string(e))) }
func (e algError) Is(target error) bool { return target == ErrAlgorithm }

// short cuts a token-supplied string for an error message.
func short(s string) string {
	const max = 40
	if len(s) > max {
		return s[:max] + "..."
	}
	return s
}

// readHeader decodes the JOSE header of token, without trusting it: it
// only chooses which key source (and so which algorithms) apply.
func readHeader(token string) (header, error) {
	head, _, ok := strings.Cut(token, ".")
	if !ok || strings.Count(token, ".") != 2 {
		return header{}, fmt.Errorf("%w: not three dot-separated parts", ErrMalformed)
	}
	raw, err := base64.RawURLEncoding.DecodeString(head)
	if err != nil {
		return header{}, fmt.Errorf("%w: header is not base64url", ErrMalformed)
	}
	// Exact keys, as jwt reads them (a struct would also match "ALG").
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return header{}, fmt.Errorf("%w: header is not a JSON object", ErrMalformed)
	}
	var h header
	for name, dst := range map[string]*string{"alg": &h.Alg, "kid": &h.Kid} {
		if v, ok := fields[name]; ok {
			if err := json.Unmarshal(v, dst); err != nil {
				return header{}, fmt.Errorf("%w: header %s is not a string", ErrMalformed, name)
			}
		}
	}
	return h, nil
}

// jwksKey returns the public key kid names, checked against the token's
// algorithm: an RSA key of at least MinRSABits for RS256, a P-256 key for
// ES256. An unknown kid makes the JWKS be fetched again, at most once per
// RefetchInterval (keyfunc/jwkset's rate limiter).
func (v *Verifier) jwksKey(ctx context.Context, t *jwt.Token, kid string) (any, error) {
	alg := t.Method.Alg()
	jwk, err := v.jwks.Storage().KeyRead(ctx, kid)
	if err != nil {
		return nil, fmt.Errorf("%w %q", ErrUnknownKey, short(kid))
	}
	m := jwk.Marshal()
	if a := m.ALG.String(); a != "" && a != alg {
		return nil, fmt.Errorf("%w: key %q is for %s, the token is %s", ErrBadKey, kid, a, alg)
	}
	if u := m.USE.String(); u != "" && u != "sig" {
		return nil, fmt.Errorf("%w: key %q is for use %q, not sig", ErrBadKey, kid, u)
	}
	key := jwk.Key()
	if pk, ok := key.(interface{ Public() crypto.PublicKey }); ok {
		key = pk.Public()
	}
	switch k := key.(type) {
	case *rsa.PublicKey:
		if alg != "RS256" {
			break
		}
		if k.N.BitLen() < MinRSABits {
			return nil, fmt.Errorf("%w: RSA key %q has %d bits, at least %d are needed", ErrBadKey, kid, k.N.BitLen(), MinRSABits)
		}
		return k, nil
	case *ecdsa.PublicKey:
		if alg != "ES256" {
			break
		}
		if k.Curve != elliptic.P256() {
			return nil, fmt.Errorf("%w: key %q is not a P-256 key", ErrBadKey, kid)
		}
		return k, nil
	}
	return nil, fmt.Errorf("%w: key %q (%T) is not for %s", ErrBadKey, kid, key, alg)
}

// explain turns a jwt error into one wrapping a sentinel of this package.
func (v *Verifier) explain(err, keyErr error, c *claims) error {
	switch {
	case keyErr != nil:
		return keyErr
	case errors.Is(err, jwt.ErrTokenMalformed):
		return fmt.Errorf("%w: %v", ErrMalformed, err)
	case errors.Is(err, jwt.ErrTokenSignatureInvalid):
		return ErrSignature
	case errors.Is(err, jwt.ErrTokenExpired):
		return ErrExpired
	case errors.Is(err, jwt.ErrTokenNotValidYet):
		return ErrNotYetValid
	case errors.Is(err, jwt.ErrTokenRequiredClaimMissing) && c.ExpiresAt == nil:
		return ErrNoExpiry
	case errors.Is(err, jwt.ErrTokenInvalidAudience),
		errors.Is(err, jwt.ErrTokenRequiredClaimMissing) && v.audience != "" && len(c.Audience) == 0:
		return fmt.Errorf("%w: want %q", ErrAudience, v.audience)
	case errors.Is(err, jwt.ErrTokenInvalidIssuer),
		errors.Is(err, jwt.ErrTokenRequiredClaimMissing) && v.issuer != "" && c.Issuer == "":
		return fmt.Errorf("%w: want %q", ErrIssuer, v.issuer)
	}
	return fmt.Errorf("%w: %v", ErrMalformed, err)
}
