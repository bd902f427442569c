package testredis

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// failover.go: a cluster's roles as its nodes see them (CLUSTER NODES),
// and a master killed for its replica to take its place.

// clusterNode is one line of CLUSTER NODES: a node as another sees it.
type clusterNode struct {
	addr  string // host:port
	flags []string
	// master is the id of the node's master, empty for a master.
	master string
	// slots are the ranges of hash slots it serves, [first, last] each.
	slots [][2]int
}

func (n clusterNode) failing() bool {
	return slices.Contains(n.flags, "fail") || slices.Contains(n.flags, "fail?")
}

// running reports whether the server's process runs.
func (s *Server) running() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cmd != nil
}

// nodeID returns the server's cluster node id (CLUSTER MYID), which it
// keeps across restarts in its nodes.conf.
func (s *Server) nodeID() (string, error) {
	s.mu.Lock()
	id := s.id
	s.mu.Unlock()
	if id != "" {
		return id, nil
	}
	id, err := s.sendBulk("CLUSTER MYID")
	if err != nil || id == "" {
		return "", fmt.Errorf("CLUSTER MYID of %s: %q %v", s.Addr(), id, err)
	}
	s.mu.Lock()
	s.id = id
	s.mu.Unlock()
	return id, nil
}

// clusterNodes returns the server's view of the cluster (CLUSTER NODES),
// by node id.
func (s *Server) clusterNodes() (map[string]clusterNode, error) {
	text, err := s.sendBulk("CLUSTER NODES")
	if err != nil {
		return nil, err
	}
	out := map[string]clusterNode{}
	for line := range strings.SplitSeq(strings.TrimSpace(text), "\n") {
		// <id> <ip:port@cport[,hostname]> <flags> <master> <ping-sent>
		// <pong-recv> <config-epoch> <link-state> <slot> <slot> ...
		f := strings.Fields(line)
		if len(f) < 8 {
			return nil, fmt.Errorf("CLUSTER NODES of %s: line %q", s.Addr(), line)
		}
		addr, _, _ := strings.Cut(f[1], "@")
		n := clusterNode{addr: addr, flags: strings.Split(f[2], ",")}
		if f[3] != "-" {
			n.master = f[3]
		}
		for _, r := range f[8:] {
			if strings.HasPrefix(r, "[") {
				continue // a slot migrating or importing
			}
			lo, hi, found := strings.Cut(r, "-")
			if !found {
				hi = lo
			}
			a, err1 := strconv.Atoi(lo)
			b, err2 := strconv.Atoi(hi)
			if err1 != nil || err2 != nil {
				return nil, fmt.Errorf("CLUSTER NODES of %s: slots %q", s.Addr(), r)
			}
			n.slots = append(n.slots, [2]int{a, b})
		}
		out[f[0]] = n
	}
	return out, nil
}

// view returns a running node's view of the cluster.
func (c *Cluster) view() map[string]clusterNode {
	c.t.Helper()
	var lastErr error
	for _, n := range c.running() {
		v, err := n.clusterNodes()
		if err == nil {
			return v
		}
		lastErr = err
	}
	c.t.Fatalf("testredis: no running node answers CLUSTER NODES: %v", lastErr)
	return nil
}

// server returns the node at addr.
func (c *Cluster) server(addr string) *Server {
	c.t.Helper()
	for _, n := range c.all() {
		if n.Addr() == addr {
			return n
		}
	}
	c.t.Fatalf("testredis: no node of the cluster at %s", addr)
	return nil
}

// MasterOf returns the master that serves key now (the master of its hash
// slot, as a running node sees it).
func (c *Cluster) MasterOf(key string) *Server {
	c.t.Helper()
	var reply string
	var err error
	for _, n := range c.running() {
		if reply, err = n.send("CLUSTER KEYSLOT " + key); err == nil {
			break
		}
	}
	slot, perr := strconv.Atoi(strings.TrimPrefix(reply, ":"))
	if err != nil || perr != nil {
		c.t.Fatalf("testredis: CLUSTER KEYSLOT %s: %q %v", key, reply, err)
	}
	for _, n := range c.view() {
		if n.master != "" || n.failing() {
			continue
		}
		for _, r := range n.slots {
			if slot >= r[0] && slot <= r[1] {
				return c.server(n.addr)
			}
		}
	}
	c.t.Fatalf("testredis: no master serves slot %d of %s", slot, key)
	return nil
}

// ReplicasOf returns the nodes that replicate master now.
func (c *Cluster) ReplicasOf(master *Server) []*Server {
	c.t.Helper()
	id, err := master.nodeID()
	if err != nil {
		c.t.Fatalf("testredis: %v", err)
	}
	var out []*Server
	for _, n := range c.view() {
		if n.master == id {
			out = append(out, c.server(n.addr))
		}
	}
	return out
}

// Failover is a master killed and the replica promoted in its place.
type Failover struct {
	Master, Replica *Server
	// Killed is when the master was killed; Promoted is when its replica
	// first said role:master in INFO replication (polled every 5 ms).
	Killed, Promoted time.Time
}

// failoverTimeout bounds the wait for a promotion: the node timeout, the
// failure's report to a majority of masters, the replica's delay (500 ms
// plus up to 500 ms more) and its election take a few seconds in all.
const failoverTimeout = 30 * time.Second

// Failover kills master with SIGKILL, as a crash would, and waits until
// its replica says role:master (INFO replication): the cluster has
// promoted it and serves the master's slots there. The cluster needs a
// replica of master in sync (StartClusterConfig with Replicas) and a
// majority of masters alive to elect it.
func (c *Cluster) Failover(master *Server) Failover {
	c.t.Helper()
	replicas := c.ReplicasOf(master)
	if len(replicas) == 0 {
		c.t.Fatalf("testredis: master %s has no replica to take its place", master.Addr())
	}
	f := Failover{Master: master, Killed: time.Now()}
	master.kill()
	deadline := f.Killed.Add(failoverTimeout)
	for {
		for _, r := range replicas {
			if info, err := r.sendBulk("INFO replication"); err == nil && strings.Contains(info, "role:master\r\n") {
				f.Replica, f.Promoted = r, time.Now()
				return f
			}
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("testredis: no replica of %s was promoted within %v of its kill", master.Addr(), failoverTimeout)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
