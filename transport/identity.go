package transport

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/roomd/roomd/internal/httpjson"
	"github.com/roomd/roomd/transport/auth"
)

// identity.go: players signed in by the site that embeds roomd (PROTOCOL.md
// §2.9). A client presents the site's JWT — as `Authorization: Bearer` on
// the HTTP API, as `auth` in the socket's hello — and the server verifies
// it (package auth) outside any room: the token's sub becomes the seat's
// player id and its name claim the seat's name. Anonymous play stays the
// default; with RequireAuth, a client without a valid token is refused.

// Verifier checks a sign-in token (an *auth.Verifier).
type Verifier interface {
	Verify(ctx context.Context, token string) (auth.Identity, error)
}

// errSignInRequired and errNoSignIn name why a client has no identity.
var (
	errSignInRequired = errors.New("sign-in required: this server takes only players signed in by its site")
	errNoSignIn       = errors.New("this server does not take sign-in tokens (no --jwt-secret or --jwks-url)")
)

// identify verifies token; an empty token is no identity, which is fine
// unless the server requires sign-in.
func (s *Server) identify(ctx context.Context, token string) (auth.Identity, error) {
	switch {
	case token == "" && s.cfg.RequireAuth:
		return auth.Identity{}, errSignInRequired
	case token == "":
		return auth.Identity{}, nil
	case s.cfg.Auth == nil:
		return auth.Identity{}, errNoSignIn
	}
	id, err := s.cfg.Auth.Verify(ctx, token)
	if err != nil {
		return auth.Identity{}, errors.New("sign-in refused: " + err.Error())
	}
	return id, nil
}

// httpIdentity is the identity of an API request's bearer token; a refusal
// is answered 401 (with WWW-Authenticate, RFC 6750) and false.
func (s *Server) httpIdentity(w http.ResponseWriter, r *http.Request) (auth.Identity, bool) {
	token := ""
	if h := r.Header.Get("Authorization"); h != "" {
		scheme, rest, _ := strings.Cut(h, " ")
		if !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(rest) == "" {
			w.Header().Set("WWW-Authenticate", `Bearer error="invalid_request"`)
			httpjson.Error(w, http.StatusUnauthorized, "the Authorization header must be \"Bearer <token>\"")
			return auth.Identity{}, false
		}
		token = strings.TrimSpace(rest)
	}
	id, err := s.identify(r.Context(), token)
	if err != nil {
		if token == "" {
			w.Header().Set("WWW-Authenticate", `Bearer realm="roomd"`)
		} else {
			w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
		}
		httpjson.Error(w, http.StatusUnauthorized, err.Error())
		return auth.Identity{}, false
	}
	return id, true
}
