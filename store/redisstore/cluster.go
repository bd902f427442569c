package redisstore

import (
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// defaultClusterReload is RedisOptions.ClusterReload's default.
const defaultClusterReload = time.Second

// clusterOptions are the options of the client of the Redis Cluster that
// url names.
//
// A failover is followed by reading the slots' map again. go-redis's
// ClusterClient reads it (CLUSTER SLOTS) when a node answers MOVED or
// READONLY, and every ClusterStateReloadInterval (60 s by default since
// v9.22) when a command runs. A master that dies answers nothing: commands
// for its slots fail on the network (connection refused, or a timeout),
// which go-redis retries on the same dead address and does not take as a
// sign that the map changed (go-redis issue #3979). The replica the cluster
// promotes serves those slots within seconds, but the client would keep
// dialling the dead master until its next periodic read, up to a minute
// later. So the interval is short: a read of the map a second costs the
// cluster one CLUSTER SLOTS a second per roomd process, and a promotion is
// followed within about a second (STORAGE.md, "Redis Cluster: a failover").
func clusterOptions(url string, opts RedisOptions) (*redis.ClusterOptions, error) {
	o, err := redis.ParseClusterURL(url)
	if err != nil {
		return nil, fmt.Errorf("redisstore: open: %w", err)
	}
	setDuration(&o.DialTimeout, opts.DialTimeout, 500*time.Millisecond)
	setDuration(&o.ReadTimeout, opts.ReadTimeout, 500*time.Millisecond)
	setDuration(&o.WriteTimeout, opts.WriteTimeout, 500*time.Millisecond)
	setDuration(&o.ClusterStateReloadInterval, opts.ClusterReload, defaultClusterReload)
	o.MinRetryBackoff, o.MaxRetryBackoff = 10*time.Millisecond, 100*time.Millisecond
	o.DialerRetries, o.DialerRetryTimeout = 1, 50*time.Millisecond
	o.PoolTimeout = o.ReadTimeout + o.WriteTimeout
	o.ContextTimeoutEnabled = true
	return o, nil
}
