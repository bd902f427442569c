package transport

import (
	"fmt"
	"log/slog"
	"math"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"

	"github.com/roomd/roomd/internal/httpjson"
)

// Limit is a per-address token bucket: PerMinute on average, with bursts of
// half as many (at least 1).
type Limit struct {
	PerMinute float64
}

// Burst is the bucket's size: half of PerMinute, at least 1.
func (l Limit) Burst() int { return max(1, int(math.Ceil(l.PerMinute/2))) }

func (l Limit) limiter() *rate.Limiter {
	return rate.NewLimiter(rate.Limit(l.PerMinute/60), l.Burst())
}

// Quotas bound what one client address may make the server do. The
// defaults (README, "Limits") let a person play and a page reconnect
// freely, and stop a script: a flood of rooms, seats, sockets, replays or
// code guesses from one address is refused with 429 and Retry-After (or,
// on a socket, a too-many notice and close 4013) while other addresses
// carry on. Loopback is not exempt: load tests from one machine turn the
// quotas off (roomd --quotas=off); the global caps stay.
//
// Each node counts in its own buckets; with Shared, the rate quotas (all
// but OpenSockets) are counted once across the nodes (quota_shared.go).
type Quotas struct {
	// Off turns the per-address quotas off.
	Off bool
	// Rooms limits rooms created. Zero means 10 a minute.
	Rooms Limit
	// Joins limits seats taken: HTTP joins and hellos that ask for one.
	// Zero means 30 a minute.
	Joins Limit
	// Sockets limits WebSockets opened. Zero means 60 a minute.
	Sockets Limit
	// OpenSockets bounds the WebSockets one address holds at once. Zero
	// means 64.
	OpenSockets int
	// Replays limits replays submitted. Zero means 6 a minute.
	Replays Limit
	// Lookups limits codes looked up that name no room (HTTP and hellos):
	// guessing codes. Zero means 20 a minute.
	Lookups Limit
	// MaxAddrs bounds the addresses remembered at once. When that many
	// were seen in the last 10 minutes, a new address shares one set of
	// buckets with every other address beyond the bound (and only the global
	// cap bounds its open sockets) until old ones are forgotten. Zero means
	// 100,000 (some 55 MB).
	MaxAddrs int
	// TrustedProxies are the proxies whose X-Forwarded-For names the client;
	// from any other peer the header is ignored. Empty trusts none.
	TrustedProxies []netip.Prefix
	// Shared, when set, counts the rate quotas (Rooms, Joins, Sockets,
	// Replays, Lookups) of every node that shares it: a client address gets
	// each once in total, whichever nodes it reaches. While it fails, each
	// node counts on its own. OpenSockets stays per node. Nil counts in
	// this process only.
	Shared SharedQuotas
	// SharedTimeout bounds one call to Shared; past it the node counts on
	// its own. Zero means DefaultSharedTimeout (200 ms).
	SharedTimeout time.Duration
}

func (q *Quotas) setDefaults() {
	set := func(l *Limit, def float64) {
		if l.PerMinute == 0 {
			l.PerMinute = def
		}
	}
	set(&q.Rooms, 10)
	set(&q.Joins, 30)
	set(&q.Sockets, 60)
	set(&q.Replays, 6)
	set(&q.Lookups, 20)
	if q.OpenSockets == 0 {
		q.OpenSockets = 64
	}
	if q.MaxAddrs == 0 {
		q.MaxAddrs = 100_000
	}
	if q.SharedTimeout == 0 {
		q.SharedTimeout = DefaultSharedTimeout
	}
}

// quotaKind names one of an address's buckets.
type quotaKind int

const (
	qRooms quotaKind = iota
	qJoins
	qSockets
	qReplays
	qLookups
	nQuotas
)

var quotaNames = [nQuotas]string{"rooms created", "seats taken", "sockets opened", "replays submitted", "unknown room codes"}

// addrQuota is one address's buckets and open sockets.
type addrQuota struct {
	buckets [nQuotas]*rate.Limiter
	open    int
	seen    time.Time
}

// quotas holds the buckets of every address seen lately.
type quotas struct {
	cfg Quotas
	now func() time.Time
	log *slog.Logger // nil logs nothing

	// sharedDown is when to ask cfg.Shared again after it failed (Unix
	// ns), 0 while it answers; probing is true while one request asks it
	// after a failure.
	sharedDown atomic.Int64
	probing    atomic.Bool

	mu     sync.Mutex
	addrs  map[netip.Addr]*addrQuota
	swept  time.Time
	limits [nQuotas]Limit
	// overflow is the buckets every address shares while addrs is full.
	overflow *addrQuota
}

func newQuotas(cfg Quotas, now func() time.Time) *quotas {
	cfg.setDefaults()
	q := &quotas{cfg: cfg, now: now, addrs: map[netip.Addr]*addrQuota{}, swept: now()}
	q.limits = [nQuotas]Limit{cfg.Rooms, cfg.Joins, cfg.Sockets, cfg.Replays, cfg.Lookups}
	q.overflow = q.fresh()
	return q
}

// fresh returns full buckets.
func (q *quotas) fresh() *addrQuota {
	aq := &addrQuota{}
	for k := range aq.buckets {
		aq.buckets[k] = q.limits[k].limiter()
	}
	return aq
}

// idle is how long an address is remembered after its last use (its
// buckets are full again long before).
const idle = 10 * time.Minute

// get returns addr's quota, making it, or the shared overflow quota when
// the table is full; the caller holds q.mu. Addresses idle for 10 minutes
// with no socket open are forgotten (swept every minute, or every second
// while the table is full), so the table holds only the addresses of the
// last minutes, and never more than MaxAddrs.
func (q *quotas) get(addr netip.Addr) *addrQuota {
	now := q.now()
	if now.Sub(q.swept) > time.Minute {
		q.sweep(now)
	}
	aq := q.addrs[addr]
	if aq == nil {
		if len(q.addrs) >= q.cfg.MaxAddrs && now.Sub(q.swept) > time.Second {
			q.sweep(now)
		}
		if len(q.addrs) >= q.cfg.MaxAddrs {
			return q.overflow
		}
		aq = q.fresh()
		q.addrs[addr] = aq
	}
	aq.seen = now
	return aq
}

// sweep forgets the addresses idle for 10 minutes with no socket open.
func (q *quotas) sweep(now time.Time) {
	for a, aq := range q.addrs {
		if aq.open == 0 && now.Sub(aq.seen) > idle {
			delete(q.addrs, a)
		}
	}
	q.swept = now
}

// take spends one of addr's tokens of kind in this node's buckets; when
// there is none it returns how long until there is. Requests go through
// spend (quota_shared.go), which asks the shared limiter first.
func (q *quotas) take(addr netip.Addr, kind quotaKind) (time.Duration, bool) {
	if q.cfg.Off {
		return 0, true
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	b := q.get(addr).buckets[kind]
	now := q.now()
	if b.AllowN(now, 1) {
		return 0, true
	}
	r := b.ReserveN(now, 1)
	wait := r.DelayFrom(now)
	r.CancelAt(now)
	return wait, false
}

// spent reports whether addr has no token of kind left in this node's
// buckets, without spending (exhausted asks the shared limiter first).
func (q *quotas) spent(addr netip.Addr, kind quotaKind) (time.Duration, bool) {
	if q.cfg.Off {
		return 0, false
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	b := q.get(addr).buckets[kind]
	now := q.now()
	if b.TokensAt(now) >= 1 {
		return 0, false
	}
	r := b.ReserveN(now, 1)
	wait := r.DelayFrom(now)
	r.CancelAt(now)
	return wait, true
}

// open counts a socket of addr; it fails when addr holds as many as it may.
func (q *quotas) open(addr netip.Addr) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	aq := q.get(addr)
	if aq == q.overflow {
		return true // shared by many addresses: only the global cap applies
	}
	if !q.cfg.Off && aq.open >= q.cfg.OpenSockets {
		return false
	}
	aq.open++
	return true
}

// closed uncounts a socket of addr.
func (q *quotas) closed(addr netip.Addr) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if aq := q.addrs[addr]; aq != nil && aq.open > 0 {
		aq.open--
		aq.seen = q.now()
	}
}

// clientAddr is the address a request comes from: its peer's, or — when
// the peer is a trusted proxy — the last address in X-Forwarded-For that is
// not one. IPv6 addresses count by their /64, the block one customer
// usually has.
func (q *quotas) clientAddr(r *http.Request) netip.Addr {
	peer := parseAddr(r.RemoteAddr)
	if q.trusted(peer) {
		hops := strings.Split(strings.Join(r.Header.Values("X-Forwarded-For"), ","), ",")
		for i := len(hops) - 1; i >= 0; i-- {
			a := parseAddr(strings.TrimSpace(hops[i]))
			if !a.IsValid() {
				break
			}
			peer = a
			if !q.trusted(a) {
				break
			}
		}
	}
	if peer.Is6() && !peer.Is4In6() {
		p, _ := peer.Prefix(64)
		return p.Addr()
	}
	return peer.Unmap()
}

func (q *quotas) trusted(a netip.Addr) bool {
	for _, p := range q.cfg.TrustedProxies {
		if p.Contains(a.Unmap()) {
			return true
		}
	}
	return false
}

// parseAddr reads "host:port" or a bare address.
func parseAddr(s string) netip.Addr {
	if host, _, err := net.SplitHostPort(s); err == nil {
		s = host
	}
	a, err := netip.ParseAddr(s)
	if err != nil {
		return netip.Addr{}
	}
	return a
}

// refuse answers 429 with Retry-After for an address past its quota.
func refuseQuota(w http.ResponseWriter, kind quotaKind, wait time.Duration) {
	secs := max(1, int(math.Ceil(wait.Seconds())))
	w.Header().Set("Retry-After", strconv.Itoa(secs))
	httpjson.Error(w, http.StatusTooManyRequests, fmt.Sprintf("too many %s from your address; try again in %d s", quotaNames[kind], secs))
}

// ParseProxies reads a comma-separated list of addresses and CIDR prefixes
// ("10.0.0.0/8,192.168.1.7").
func ParseProxies(s string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		if p, err := netip.ParsePrefix(f); err == nil {
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(f)
		if err != nil {
			return nil, fmt.Errorf("trusted proxy %q is neither an address nor a prefix", f)
		}
		out = append(out, netip.PrefixFrom(a, a.BitLen()))
	}
	return out, nil
}
