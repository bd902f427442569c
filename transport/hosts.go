package transport

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"

	"github.com/roomd/roomd/internal/httpjson"
)

// publicHosts are the host names a server answers for besides IP literals
// and localhost. A request naming another host is refused: a web page whose
// own name an attacker points at roomd's address (DNS rebinding) would
// otherwise be same-origin with roomd in the victim's browser.
type publicHosts map[string]bool

func parsePublicHosts(names []string) (publicHosts, error) {
	hosts := publicHosts{}
	for _, n := range names {
		n = strings.TrimSpace(n)
		if n == "" {
			continue
		}
		h := normalHost(n)
		if h == "" || strings.ContainsAny(n, "/:@*[] ") {
			return nil, fmt.Errorf("transport: public host %q: want a host name such as games.example.com, without scheme or port", n)
		}
		hosts[h] = true
	}
	return hosts, nil
}

// normalHost is a Host header's host, without the port, in lower case and
// without a final dot.
func normalHost(hostport string) string {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	return strings.TrimSuffix(strings.ToLower(host), ".")
}

// allows reports whether a request with this Host header is served.
func (p publicHosts) allows(hostport string) bool {
	host := normalHost(hostport)
	if host == "" {
		return false
	}
	if _, err := netip.ParseAddr(host); err == nil {
		return true
	}
	return host == "localhost" || p[host]
}

// checkHost refuses with 421 every request whose Host is not served.
func (s *Server) checkHost(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.hosts.allows(r.Host) {
			host := normalHost(r.Host)
			if len(host) > 100 {
				host = host[:100] + "…"
			}
			s.cfg.Logger.Debug("request for a host not served", "host", host, "path", r.URL.Path)
			httpjson.Error(w, http.StatusMisdirectedRequest, fmt.Sprintf(
				"this server does not answer for host %q; if it should, add the name to roomd's --public-host", host))
			return
		}
		next.ServeHTTP(w, r)
	})
}
