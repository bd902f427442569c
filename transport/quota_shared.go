package transport

import (
	"context"
	"net/netip"
	"time"
)

// quota_shared.go: the rate quotas of several nodes on one store, counted
// once. Without Quotas.Shared each node keeps its own buckets, and a client
// that reaches two nodes (behind a load balancer, every node answers for
// every room) gets each quota once per node. With it, the rate quotas —
// rooms created, seats taken, sockets opened, replays submitted, unknown
// codes tried: everything counted per minute — are the shared limiter's,
// and this node's buckets follow what it spends through them. The cap on
// sockets held open stays per node: a socket is held by the node it is
// open on, and only that node sees it close.
//
// The shared limiter is asked from the request's or the hello's goroutine,
// never from a room actor, and within SharedTimeout. When it fails (Redis
// down, frozen, too slow), the node counts alone on its own buckets — the
// quotas it had before Shared, kept warm by its own share of the traffic —
// and asks the shared limiter again after sharedRetry, one request at a
// time, until it answers.

// SharedQuotas is a rate limiter that every node on one store shares
// (roomd wires github.com/go-redis/redis_rate on its Redis: GCRA, one key
// per address and quota). key names the address and the quota
// ("rooms:203.0.113.7"); limit is the quota's rate and burst, as this
// node's own buckets have them. Implementations are safe for concurrent
// use and return by ctx's deadline.
type SharedQuotas interface {
	// Take spends one of key's tokens. When none is left it spends
	// nothing and returns false with the time until one is back.
	Take(ctx context.Context, key string, limit Limit) (wait time.Duration, ok bool, err error)
	// Left reports whether key has a token left, spending nothing; when
	// it has none, false and the time until it has one.
	Left(ctx context.Context, key string, limit Limit) (wait time.Duration, ok bool, err error)
}

// DefaultSharedTimeout bounds one call to the shared limiter
// (Quotas.SharedTimeout).
const DefaultSharedTimeout = 200 * time.Millisecond

// sharedRetry is how long a node counts alone after the shared limiter
// failed before it asks it again.
const sharedRetry = time.Second

// quotaKeys name the quotas in the shared limiter's keys: the names of
// roomd's --quota-* flags.
var quotaKeys = [nQuotas]string{"rooms", "joins", "sockets", "replays", "lookups"}

// spend spends one of addr's tokens of kind, in the shared limiter when
// there is one and it answers (and in this node's buckets too, which keep
// this node's share for when it fails), else in this node's buckets; when
// there is none it returns how long until there is.
func (q *quotas) spend(ctx context.Context, addr netip.Addr, kind quotaKind) (time.Duration, bool) {
	if q.cfg.Off {
		return 0, true
	}
	if wait, ok, answered := q.askShared(ctx, addr, kind, true); answered {
		if ok {
			q.take(addr, kind) // this node's share; the shared answer decides
		}
		return wait, ok
	}
	return q.take(addr, kind)
}

// exhausted reports whether addr has no token of kind left, without
// spending: the shared limiter's answer when it gives one, else this
// node's.
func (q *quotas) exhausted(ctx context.Context, addr netip.Addr, kind quotaKind) (time.Duration, bool) {
	if q.cfg.Off {
		return 0, false
	}
	if wait, ok, answered := q.askShared(ctx, addr, kind, false); answered {
		return wait, !ok
	}
	return q.spent(addr, kind)
}

// askShared asks the shared limiter to spend (or, spend false, to look at)
// one of addr's tokens of kind; answered is false when there is none, it
// is resting after a failure, or it failed now.
func (q *quotas) askShared(ctx context.Context, addr netip.Addr, kind quotaKind, spend bool) (wait time.Duration, ok, answered bool) {
	if q.cfg.Shared == nil {
		return 0, false, false
	}
	probe, try := q.sharedTurn()
	if !try {
		return 0, false, false
	}
	// Only the timeout ends the call: a client that went away meanwhile
	// says nothing about the limiter.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), q.cfg.SharedTimeout)
	defer cancel()
	key := quotaKeys[kind] + ":" + addr.String()
	var err error
	if spend {
		wait, ok, err = q.cfg.Shared.Take(ctx, key, q.limits[kind])
	} else {
		wait, ok, err = q.cfg.Shared.Left(ctx, key, q.limits[kind])
	}
	q.sharedDone(probe, err)
	return wait, ok, err == nil
}

// sharedTurn says whether to ask the shared limiter now: always while it
// answers; after a failure, once sharedRetry has passed, one request at a
// time (the probe) until it answers again.
func (q *quotas) sharedTurn() (probe, try bool) {
	at := q.sharedDown.Load()
	if at == 0 {
		return false, true
	}
	if q.now().UnixNano() < at || !q.probing.CompareAndSwap(false, true) {
		return false, false
	}
	return true, true
}

// sharedDone records how a call to the shared limiter went, and logs when
// the node starts or stops counting alone.
func (q *quotas) sharedDone(probe bool, err error) {
	if probe {
		defer q.probing.Store(false)
	}
	if err == nil {
		if q.sharedDown.Swap(0) != 0 && q.log != nil {
			q.log.Info("the shared quotas answer again: rate quotas count across the nodes")
		}
		return
	}
	if q.sharedDown.Swap(q.now().Add(sharedRetry).UnixNano()) == 0 && q.log != nil {
		q.log.Warn("the shared quotas do not answer: this node counts rate quotas on its own until they do",
			"err", err, "retryEvery", sharedRetry)
	}
}
