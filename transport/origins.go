package transport

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// originPattern is one allowed WebSocket origin: a scheme, a host (or
// "*.example.com": any name under example.com) and a port.
type originPattern struct {
	scheme   string
	host     string // lower case; for a wildcard, the suffix ".example.com"
	wildcard bool
	port     string // explicit, or the scheme's default
}

func defaultPort(scheme string) string {
	if scheme == "http" {
		return "80"
	}
	return "443"
}

// parseOriginPattern reads "https://example.com", "https://*.example.com",
// "http://localhost:3000"; an entry without a scheme means https.
func parseOriginPattern(entry string) (originPattern, error) {
	s := strings.TrimSpace(entry)
	if !strings.Contains(s, "://") {
		s = "https://" + s
	}
	bad := func(why string) (originPattern, error) {
		return originPattern{}, fmt.Errorf("transport: origin %q: %s; want scheme://host[:port], e.g. https://example.com or https://*.example.com", entry, why)
	}
	u, err := url.Parse(s)
	if err != nil {
		return bad(err.Error())
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return bad("the scheme must be http or https")
	}
	if u.Hostname() == "" || u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
		return bad("an origin is a scheme, a host and a port only")
	}
	p := originPattern{scheme: u.Scheme, host: strings.ToLower(u.Hostname()), port: u.Port()}
	if p.port == "" {
		p.port = defaultPort(p.scheme)
	}
	if strings.Contains(p.host, "*") {
		rest, ok := strings.CutPrefix(p.host, "*")
		if !ok || !strings.HasPrefix(rest, ".") || len(rest) < 2 || strings.Contains(rest, "*") {
			return bad(`a wildcard is a whole first label: "*.example.com"`)
		}
		p.host, p.wildcard = rest, true
	}
	return p, nil
}

func (p originPattern) matches(u *url.URL) bool {
	port := u.Port()
	if port == "" {
		port = defaultPort(u.Scheme)
	}
	host := strings.ToLower(u.Hostname())
	if u.Scheme != p.scheme || port != p.port {
		return false
	}
	if p.wildcard {
		return strings.HasSuffix(host, p.host) && len(host) > len(p.host)
	}
	return host == p.host
}

func parseOrigins(entries []string) ([]originPattern, error) {
	var out []originPattern
	for _, e := range entries {
		if strings.TrimSpace(e) == "" {
			continue
		}
		p, err := parseOriginPattern(e)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// checkOrigin allows a WebSocket upgrade without an Origin (not a browser),
// from the same origin (the Origin's host and port are the request's Host,
// whatever the scheme: a TLS proxy may stand in front), or from an origin
// that one of Config.Origins matches in scheme, host and port.
func (s *Server) checkOrigin(r *http.Request) error {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return nil
	}
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return fmt.Errorf("origin %q is not an http or https origin", origin)
	}
	if strings.EqualFold(u.Host, r.Host) {
		return nil
	}
	for _, p := range s.origins {
		if p.matches(u) {
			return nil
		}
	}
	return fmt.Errorf("origin %q may not open a socket on %q: only the same origin and those of --origins may", origin, r.Host)
}
