package auth

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
)

// boundedTransport reads a successful JWKS answer itself, before jwkset
// decodes it, and refuses it whole when it is larger than MaxJWKSBytes, is
// not a JSON object with a "keys" array, or has more than MaxJWKSKeys keys.
// A refused answer leaves the keys fetched before in place.
type boundedTransport struct {
	base http.RoundTripper
}

func (t boundedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		return resp, err // jwkset refuses any status but 200 without reading
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxJWKSBytes+1))
	if err != nil {
		return nil, fmt.Errorf("auth: reading JWKS: %w", err)
	}
	if len(body) > MaxJWKSBytes {
		return nil, fmt.Errorf("%w: over %d bytes", ErrJWKSTooLarge, MaxJWKSBytes)
	}
	var set struct {
		Keys []json.RawMessage `json:"keys"`
	}
	if err := json.Unmarshal(body, &set); err != nil {
		return nil, fmt.Errorf("auth: JWKS is not a JSON object with a keys array: %w", err)
	}
	if len(set.Keys) > MaxJWKSKeys {
		return nil, fmt.Errorf("%w: %d, at most %d", ErrJWKSTooMany, len(set.Keys), MaxJWKSKeys)
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	resp.ContentLength = int64(len(body))
	resp.Header.Set("Content-Length", strconv.Itoa(len(body)))
	return resp, nil
}
