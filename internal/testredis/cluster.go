package testredis

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/url"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// ClusterMasters is how many masters StartCluster starts: the fewest
// redis-cli --cluster create accepts.
const ClusterMasters = 3

// clusterTimeout bounds forming the cluster (redis-cli --cluster create,
// then every node reporting cluster_state:ok).
const clusterTimeout = 30 * time.Second

// Cluster is a Redis Cluster of ClusterMasters masters and no replicas, each
// a Server on 127.0.0.1 with its own data directory, its nodes.conf and an
// explicit cluster bus port. Every node is stopped in t.Cleanup.
type Cluster struct {
	// Nodes are the masters, in the order they were created: Nodes[i]
	// serves the i-th third of the hash slots.
	Nodes []*Server
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
	server, cli := lookPath(t, "redis-server"), lookPath(t, "redis-cli")
	c := &Cluster{}
	for range ClusterMasters {
		c.Nodes = append(c.Nodes, start(t, server, true, opts))
	}
	ctx, cancel := context.WithTimeout(context.Background(), clusterTimeout)
	defer cancel()
	args := append([]string{"--cluster", "create"}, c.Addrs()...)
	args = append(args, "--cluster-replicas", "0", "--cluster-yes")
	if out, err := exec.CommandContext(ctx, cli, args...).CombinedOutput(); err != nil {
		t.Fatalf("testredis: redis-cli --cluster create: %v\n%s", err, out)
	}
	if err := c.waitOK(ctx); err != nil {
		t.Fatalf("testredis: %v", err)
	}
	return c
}

// WaitOK waits until every node is running and says cluster_state:ok with
// all ClusterMasters nodes known (after a node's restart, say).
func (c *Cluster) WaitOK() {
	c.Nodes[0].t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), clusterTimeout)
	defer cancel()
	if err := c.waitOK(ctx); err != nil {
		c.Nodes[0].t.Fatalf("testredis: %v", err)
	}
}

func (c *Cluster) waitOK(ctx context.Context) error {
	known := "cluster_known_nodes:" + strconv.Itoa(ClusterMasters) + "\r\n"
	for _, n := range c.Nodes {
		for {
			info, err := n.sendBulk("CLUSTER INFO")
			if err == nil && strings.Contains(info, "cluster_state:ok\r\n") && strings.Contains(info, known) {
				break
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("node %s is not in a working cluster: %v\n%s", n.Addr(), err, info)
			case <-time.After(20 * time.Millisecond):
			}
		}
	}
	return nil
}

// Addrs returns the host:port of every node.
func (c *Cluster) Addrs() []string {
	out := make([]string, len(c.Nodes))
	for i, n := range c.Nodes {
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

// Do sends one inline command to every node (e.g. "SCRIPT FLUSH") and
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
