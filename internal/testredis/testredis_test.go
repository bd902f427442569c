package testredis

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestPersistAcrossRestart(t *testing.T) {
	s := Start(t, Args("--appendfsync", "always"))
	if strings.HasSuffix(s.Addr(), ":6379") {
		t.Fatal("uses the machine's Redis port")
	}
	if got := s.Do("SET k v"); got != "+OK" {
		t.Fatalf("SET: %q", got)
	}
	s.Kill()
	s.Start()
	if got := s.Do("EXISTS k"); got != ":1" {
		t.Fatalf("after kill and start: EXISTS k = %q, want :1", got)
	}
	s.Restart()
	if got := s.Do("EXISTS k"); got != ":1" {
		t.Fatalf("after restart: EXISTS k = %q, want :1", got)
	}
	s.RestartEmpty()
	if got := s.Do("EXISTS k"); got != ":0" {
		t.Fatalf("after empty restart: EXISTS k = %q, want :0", got)
	}
}

func TestNoPersistence(t *testing.T) {
	s := Start(t, NoPersistence())
	s.Do("SET k v")
	s.Restart()
	if got := s.Do("EXISTS k"); got != ":0" {
		t.Fatalf("EXISTS k = %q, want :0", got)
	}
}

func TestFromRDB(t *testing.T) {
	src := Start(t, NoPersistence())
	src.Do("SET k v")
	if got := src.Do("SAVE"); got != "+OK" {
		t.Fatalf("SAVE: %q", got)
	}
	rdb := filepath.Join(t.TempDir(), "fixture.rdb")
	data, err := os.ReadFile(filepath.Join(src.Dir(), "dump.rdb"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(rdb, data, 0o600); err != nil {
		t.Fatal(err)
	}
	s := Start(t, FromRDB(rdb))
	if got := s.Do("GET k"); got != "$1" {
		t.Fatalf("GET k = %q, want the value loaded from the RDB", got)
	}
	s.Do("SET k other")
	s.Do("SAVE")
	if after, err := os.ReadFile(rdb); err != nil || string(after) != string(data) {
		t.Fatalf("the RDB file given was changed (%v)", err)
	}
}

func TestPause(t *testing.T) {
	s := Start(t)
	s.Pause(time.Hour)
	if _, err := s.send("PING"); err == nil {
		t.Fatal("a paused server answered")
	}
	s.Resume()
	if got := s.Do("PING"); got != "+PONG" {
		t.Fatalf("PING after resume: %q", got)
	}
}

// TestCluster forms a cluster of three masters: each serves a third of the
// slots (a key is stored by one node and redirected by the others), the
// bus ports are the ones given, and a restarted node rejoins with its data.
func TestCluster(t *testing.T) {
	start := time.Now()
	c := StartCluster(t)
	t.Logf("a cluster of %d masters formed in %v", ClusterMasters, time.Since(start).Round(time.Millisecond))
	if len(c.Nodes) != ClusterMasters {
		t.Fatalf("%d nodes", len(c.Nodes))
	}
	u, err := url.Parse(c.URL())
	if err != nil || u.Host != c.Nodes[0].Addr() || !slices.Equal(u.Query()["addr"], c.Addrs()[1:]) {
		t.Fatalf("URL %q (%v) does not name the nodes %v", c.URL(), err, c.Addrs())
	}
	var owner *Server
	for _, n := range c.Nodes {
		if strings.HasSuffix(n.Addr(), ":6379") {
			t.Fatal("uses the machine's Redis port")
		}
		info := n.Info("CLUSTER INFO")
		for _, want := range []string{"cluster_state:ok", "cluster_slots_assigned:16384", "cluster_size:3", "cluster_known_nodes:3"} {
			if !strings.Contains(info, want+"\r\n") {
				t.Fatalf("%s: CLUSTER INFO lacks %s:\n%s", n.Addr(), want, info)
			}
		}
		nodes := n.Info("CLUSTER NODES")
		if want := fmt.Sprintf("%s@%d", n.Addr(), n.bus); !strings.Contains(nodes, want) {
			t.Fatalf("%s: CLUSTER NODES does not show bus port %d:\n%s", n.Addr(), n.bus, nodes)
		}
		switch got := n.Do("SET k v"); {
		case got == "+OK":
			if owner != nil {
				t.Fatalf("two nodes stored k")
			}
			owner = n
		case !strings.HasPrefix(got, "-MOVED"):
			t.Fatalf("%s: SET k = %q, want +OK or -MOVED", n.Addr(), got)
		}
	}
	if owner == nil {
		t.Fatal("no node stored k")
	}
	owner.Restart()
	c.WaitOK()
	if got := owner.Do("GET k"); got != "$1" {
		t.Fatalf("after a restart: GET k = %q, want the value", got)
	}
}

// TestClusterFailover forms a cluster of three masters with a replica each,
// kills the master of a key and waits for its replica's promotion: the
// promoted replica serves the key's slot with the value written before the
// kill, and the old master, started again, rejoins as its replica.
func TestClusterFailover(t *testing.T) {
	t.Parallel()
	start := time.Now()
	c := StartClusterConfig(t, ClusterConfig{Replicas: 1})
	t.Logf("a cluster of %d masters and %d replicas formed in %v", len(c.Nodes), len(c.Replicas), time.Since(start).Round(time.Millisecond))
	if len(c.Nodes) != ClusterMasters || len(c.Replicas) != ClusterMasters {
		t.Fatalf("%d masters, %d replicas", len(c.Nodes), len(c.Replicas))
	}
	for k, r := range c.Replicas {
		if got := c.ReplicasOf(c.Nodes[k]); len(got) != 1 || got[0] != r {
			t.Fatalf("replicas of master %d: %v, want %s", k, got, r.Addr())
		}
		if info := r.Info("INFO replication"); !strings.Contains(info, "role:slave\r\n") {
			t.Fatalf("replica %s:\n%s", r.Addr(), info)
		}
	}
	if n := len(c.Addrs()); n != 2*ClusterMasters {
		t.Fatalf("%d addresses", n)
	}
	master := c.MasterOf("k")
	if got := master.Do("SET k v"); got != "+OK" {
		t.Fatalf("SET k on its master: %q", got)
	}
	// Replication is asynchronous: a master killed at once may take k with
	// it. WAIT until the replica has it (what this test checks is the
	// failover, not Redis's replication).
	if got := master.Do("WAIT 1 5000"); got != ":1" {
		t.Fatalf("WAIT for the replica: %q", got)
	}
	f := c.Failover(master)
	t.Logf("master %s killed; replica %s promoted %v later", f.Master.Addr(), f.Replica.Addr(), f.Promoted.Sub(f.Killed).Round(time.Millisecond))
	if f.Master != master || f.Replica != c.Replicas[slices.Index(c.Nodes, master)] {
		t.Fatalf("failover %+v", f)
	}
	c.WaitOK()
	if got := c.MasterOf("k"); got != f.Replica {
		t.Fatalf("k is served by %s after the failover, want %s", got.Addr(), f.Replica.Addr())
	}
	if got := f.Replica.Do("GET k"); got != "$1" {
		t.Fatalf("GET k on the promoted replica: %q", got)
	}
	master.Start()
	c.WaitOK()
	if got := c.ReplicasOf(f.Replica); len(got) != 1 || got[0] != master {
		t.Fatalf("the old master did not rejoin as the replica of %s: %v", f.Replica.Addr(), got)
	}
}
