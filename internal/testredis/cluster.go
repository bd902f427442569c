package testredis

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/url"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// ClusterMasters is how many masters StartCluster starts: the fewest
// redis-cli --cluster create accepts.
const ClusterMasters = 3

// clusterTimeout bounds forming the cluster (redis-cli --cluster create,
// the replicas' joins, then every node reporting cluster_state:ok).
const clusterTimeout = 30 * time.Second

// ClusterConfig shapes a cluster (StartClusterConfig). The zero value is
// StartCluster's: ClusterMasters masters and no replica.
type ClusterConfig struct {
	// Replicas is how many replicas each master has. Zero means none.
	Replicas int
	// NodeTimeout is every node's cluster-node-timeout: how long a node
	// may not answer before the others count it as failing, and a replica
	// of a failed master asks to be elected in its place. Zero means 1 s
	// when there are replicas (a killed master's replica is promoted about
	// 2 s after the kill), else Redis's own default (15 s).
	NodeTimeout time.Duration
}

// Cluster is a Redis Cluster of ClusterMasters masters, each with
// ClusterConfig.Replicas replicas, each a Server on 127.0.0.1 with its own
// data directory, its nodes.conf and an explicit cluster bus port. Every
// node is stopped in t.Cleanup.
type Cluster struct {
	// Nodes are the masters, in the order they were created: Nodes[i]
	// serves the i-th third of the hash slots.
	Nodes []*Server
	// Replicas are the replicas as they were created: Replicas[k]
	// replicates Nodes[k%ClusterMasters]. A failover swaps roles: ask
	// MasterOf and ReplicasOf (failover.go) for the roles now.
	Replicas []*Server
	t        testing.TB
}

// StartCluster starts ClusterMasters redis-servers with cluster support on
// free ports, joins them with redis-cli --cluster create (no replicas) and
// waits until every node says cluster_state:ok: about 2 s, most of it
// Redis's own wait (a master that has just started takes no writes for
// its first 2 s) and redis-cli's (it polls the join once a second). The
// options apply to every node; FromRDB is not for clusters (each node
// holds only the keys of its own slots). A node's Restart keeps its data
// and nodes.conf, so it rejoins (WaitOK waits for it); RestartEmpty makes
// it a new node outside the cluster.
//
// When redis-server or redis-cli is not on PATH the test is skipped,
// unless CI=true: then it fails.
func StartCluster(t testing.TB, opts ...Option) *Cluster {
	t.Helper()
	return StartClusterConfig(t, ClusterConfig{}, opts...)
}

// StartClusterConfig starts a cluster as StartCluster does, shaped by cfg:
// with replicas, each joins the cluster (CLUSTER MEET) and replicates its
// master (CLUSTER REPLICATE), and the cluster is ready once every node
// sees every other in its role and every replica is in sync with its
// master, so that a master killed then is failed over (Failover).
func StartClusterConfig(t testing.TB, cfg ClusterConfig, opts ...Option) *Cluster {
	t.Helper()
	server, cli := lookPath(t, "redis-server"), lookPath(t, "redis-cli")
	if cfg.NodeTimeout == 0 && cfg.Replicas > 0 {
		cfg.NodeTimeout = time.Second
	}
	if cfg.NodeTimeout > 0 {
		// A replica is promoted whatever the age of its data (the default
		// factor may keep one that lagged from standing) and never moves to
		// another master: the roles stay as the test set them.
		opts = append(slices.Clip(opts), Args("--cluster-node-timeout", strconv.FormatInt(cfg.NodeTimeout.Milliseconds(), 10),
			"--cluster-replica-validity-factor", "0", "--cluster-allow-replica-migration", "no",
			// A replica's first sync starts at once, not after 5 s of
			// waiting for others to share it.
			"--repl-diskless-sync-delay", "0"))
	}
	c := &Cluster{t: t}
	for range ClusterMasters {
		c.Nodes = append(c.Nodes, start(t, server, true, opts))
	}
	for range ClusterMasters * cfg.Replicas {
		c.Replicas = append(c.Replicas, start(t, server, true, opts))
	}
	ctx, cancel := context.WithTimeout(context.Background(), clusterTimeout)
	defer cancel()
	args := []string{"--cluster", "create"}
	for _, n := range c.Nodes {
		args = append(args, n.Addr())
	}
	args = append(args, "--cluster-replicas", "0", "--cluster-yes")
	if out, err := exec.CommandContext(ctx, cli, args...).CombinedOutput(); err != nil {
		t.Fatalf("testredis: redis-cli --cluster create: %v\n%s", err, out)
	}
	for k, r := range c.Replicas {
		if err := c.replicate(ctx, r, c.Nodes[k%ClusterMasters]); err != nil {
			t.Fatalf("testredis: %v", err)
		}
	}
	if err := c.waitOK(ctx); err != nil {
		t.Fatalf("testredis: %v", err)
	}
	return c
}

// replicate makes r, a node outside the cluster, a replica of master.
func (c *Cluster) replicate(ctx context.Context, r, master *Server) error {
	id, err := master.nodeID()
	if err != nil {
		return err
	}
	if reply, err := r.send(fmt.Sprintf("CLUSTER MEET 127.0.0.1 %d %d", master.port, master.bus)); err != nil || reply != "+OK" {
		return fmt.Errorf("CLUSTER MEET from %s: %q %v", r.Addr(), reply, err)
	}
	// CLUSTER REPLICATE needs r to know the master: gossip brings it
	// within a few of the cluster bus's rounds (100 ms each).
	for {
		reply, err := r.send("CLUSTER REPLICATE " + id)
		if err == nil && reply == "+OK" {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s does not replicate %s: %q %v", r.Addr(), master.Addr(), reply, err)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// WaitOK waits until every running node says cluster_state:ok, knows
// every node (a dead one too: the cluster keeps it, marked failed), sees
// every other running node in the role it has and not failing, and every
// running replica is in sync with its master (after a node's restart or a
// failover, say).
func (c *Cluster) WaitOK() {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), clusterTimeout)
	defer cancel()
	if err := c.waitOK(ctx); err != nil {
		c.t.Fatalf("testredis: %v", err)
	}
}

func (c *Cluster) waitOK(ctx context.Context) error {
	known := "cluster_known_nodes:" + strconv.Itoa(len(c.all())) + "\r\n"
	for {
		why := c.notOK(known)
		if why == "" {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("not a working cluster: %s", why)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// notOK says what keeps the cluster from being ready, or "" when nothing
// does (see WaitOK).
func (c *Cluster) notOK(known string) string {
	running := c.running()
	views := map[*Server]map[string]clusterNode{}
	for _, n := range running {
		info, err := n.sendBulk("CLUSTER INFO")
		if err != nil || !strings.Contains(info, "cluster_state:ok\r\n") || !strings.Contains(info, known) {
			return fmt.Sprintf("node %s: %v\n%s", n.Addr(), err, info)
		}
		view, err := n.clusterNodes()
		if err != nil {
			return fmt.Sprintf("node %s: CLUSTER NODES: %v", n.Addr(), err)
		}
		views[n] = view
	}
	for _, n := range running {
		id, err := n.nodeID()
		if err != nil {
			return err.Error()
		}
		self := views[n][id]
		for _, other := range running {
			seen, ok := views[other][id]
			if !ok || seen.failing() || seen.master != self.master {
				return fmt.Sprintf("node %s sees %s as %+v, which says it is %+v", other.Addr(), n.Addr(), seen, self)
			}
		}
		info, err := n.sendBulk("INFO replication")
		if err != nil {
			return fmt.Sprintf("node %s: INFO replication: %v", n.Addr(), err)
		}
		if self.master != "" {
			if !strings.Contains(info, "master_link_status:up\r\n") {
				return fmt.Sprintf("replica %s is not in sync:\n%s", n.Addr(), info)
			}
			continue
		}
		// A replica says its link is up once it has loaded the master's
		// data; the master streams writes to it only once it has its first
		// acknowledgement (state=online).
		replicas := 0
		for _, other := range running {
			if oid, _ := other.nodeID(); views[other][oid].master == id {
				replicas++
			}
		}
		if !strings.Contains(info, "connected_slaves:"+strconv.Itoa(replicas)+"\r\n") ||
			strings.Count(info, ",state=online,") != replicas {
			return fmt.Sprintf("master %s does not stream to its %d replicas:\n%s", n.Addr(), replicas, info)
		}
	}
	return ""
}

// all returns every node, masters first.
func (c *Cluster) all() []*Server { return append(slices.Clip(c.Nodes), c.Replicas...) }

// running returns the nodes whose process runs.
func (c *Cluster) running() []*Server {
	var out []*Server
	for _, n := range c.all() {
		if n.running() {
			out = append(out, n)
		}
	}
	return out
}

// Addrs returns the host:port of every node, masters first.
func (c *Cluster) Addrs() []string {
	all := c.all()
	out := make([]string, len(all))
	for i, n := range all {
		out[i] = n.Addr()
	}
	return out
}

// URL returns a redis:// URL naming every node, in the form go-redis's
// ParseClusterURL reads: redis://host1:port1?addr=host2:port2&addr=host3:port3.
func (c *Cluster) URL() string {
	q := url.Values{}
	for _, a := range c.Addrs()[1:] {
		q.Add("addr", a)
	}
	return "redis://" + c.Nodes[0].Addr() + "?" + q.Encode()
}

// Do sends one inline command to every master (e.g. "SCRIPT FLUSH") and
// returns the first line of each reply.
func (c *Cluster) Do(command string) []string {
	out := make([]string, len(c.Nodes))
	for i, n := range c.Nodes {
		out[i] = n.Do(command)
	}
	return out
}

// Info sends an inline command whose reply is a bulk string (e.g.
// "CLUSTER INFO", "INFO keyspace") and returns the string.
func (s *Server) Info(command string) string {
	s.t.Helper()
	reply, err := s.sendBulk(command)
	if err != nil {
		s.t.Fatalf("testredis: %s: %v", command, err)
	}
	return reply
}

// sendBulk sends one inline command on a new connection and returns its
// reply, read whole when it is a bulk string.
func (s *Server) sendBulk(command string) (string, error) {
	c, err := net.DialTimeout("tcp", s.Addr(), time.Second)
	if err != nil {
		return "", err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(2 * time.Second))
	if _, err := c.Write([]byte(command + "\r\n")); err != nil {
		return "", err
	}
	r := bufio.NewReader(c)
	line, err := r.ReadString('\n')
	if err != nil {
		return "", err
	}
	line = strings.TrimSpace(line)
	if !strings.HasPrefix(line, "$") {
		if strings.HasPrefix(line, "-") {
			return "", fmt.Errorf("%s", line[1:])
		}
		return line, nil
	}
	n, err := strconv.Atoi(line[1:])
	if err != nil || n < 0 {
		return "", fmt.Errorf("bad bulk length %q", line)
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(r, b); err != nil {
		return "", err
	}
	return string(b), nil
}
