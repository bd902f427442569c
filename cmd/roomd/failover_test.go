package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/roomd/roomd/internal/testredis"
	"github.com/roomd/roomd/protocol"
	"github.com/roomd/roomd/transport/client"
)

// A Redis Cluster master failover under load, with real processes: three
// roomd nodes on a cluster of three masters with a replica each, co-op
// Minesweeper rooms on every master, their two players each connected
// through another node than the room's. The master that holds the node
// registry and three rooms is killed (-9); its replica is promoted. Checked:
// each of those rooms is played again within failoverBound of the promotion
// (the moment the replica says role:master), every acknowledged flag is on
// the final board and nothing unsent is, no revision was acknowledged twice.
// Logged: each room's time from the promotion to its first acknowledged
// action, the refusals players saw, and when each node last logged a
// failed append, routing or registration.

// failoverBound is how soon after a promotion rooms must be played again.
const failoverBound = 5 * time.Second

var failoverWait = flag.Duration("failover-wait", 10*time.Second,
	"TestClusterRedisFailover: how long after the promotion to wait for each room (longer to measure a build slower than failoverBound)")

func TestClusterRedisFailover(t *testing.T) {
	t.Parallel()
	rc := testredis.StartClusterConfig(t, testredis.ClusterConfig{Replicas: 1})
	store := []string{"--redis", rc.URL(), "--redis-cluster"}
	a, b, c := startClusterNode(t, "node-a", store...), startClusterNode(t, "node-b", store...), startClusterNode(t, "node-c", store...)
	nodes := []*clusterNode{a, b, c}
	t.Cleanup(func() {
		for _, n := range nodes {
			if t.Failed() {
				t.Logf("node %s warnings:\n%s", n.id, tail(logLines(n.logText(), `"level":"WARN"`, `"level":"ERROR"`), 6000))
			}
			if dir := os.Getenv("ROOMD_CLUSTER_LOGS"); dir != "" {
				_ = os.WriteFile(filepath.Join(dir, "failover-"+n.id+".log"), []byte(n.logText()), 0o644)
			}
		}
	})
	// The master to kill holds the registry ({nodes}); rooms are created
	// until three are on it and three on the others.
	target := rc.MasterOf("{nodes}")
	var hit, other []*clusterRoom
	for i := 0; len(hit) < 3 || len(other) < 3; i++ {
		if i == 40 {
			t.Fatalf("40 rooms created: %d on the master of the registry, %d elsewhere", len(hit), len(other))
		}
		home, o1, o2 := nodes[i%3], nodes[(i+1)%3], nodes[(i+2)%3]
		code, host := createGame(t, home.URL, "minesweeper", "p1", `{"mode":"coop","level":"expert"}`)
		onTarget := rc.MasterOf("{"+code+"}") == target
		if (onTarget && len(hit) == 3) || (!onTarget && len(other) == 3) {
			continue // enough of those: the room stays idle
		}
		joined := joinRoom(t, o1.URL, code, "p2")
		var even, odd []int
		for k := range 480 {
			if k%2 == 0 {
				even = append(even, k)
			} else {
				odd = append(odd, k)
			}
		}
		r := &clusterRoom{code: code}
		r.players[0] = startSeatPlayer(t, code+"/p1", []string{o1.URL, o2.URL, home.URL}, code, host, even)
		r.players[1] = startSeatPlayer(t, code+"/p2", []string{o2.URL, o1.URL, home.URL}, code, joined, odd)
		for _, p := range r.players {
			p.pause = 300 * time.Millisecond // the cells last through a long outage
		}
		startMatch(t, r)
		if onTarget {
			hit = append(hit, r)
		} else {
			other = append(other, r)
		}
	}
	rooms := append(slices.Clip(hit), other...)
	stopAll := func() {
		for _, r := range rooms {
			for _, p := range r.players {
				select {
				case <-p.stop:
				default:
					close(p.stop)
				}
				<-p.done
			}
		}
	}
	defer stopAll()
	for _, r := range rooms {
		for _, p := range r.players {
			p.okAfter(t, time.Now(), failoverBound)
		}
	}

	f := rc.Failover(target)
	t.Logf("master %s killed; its replica %s said role:master %v later", f.Master.Addr(), f.Replica.Addr(), f.Promoted.Sub(f.Killed).Round(time.Millisecond))
	defer logFailover(t, f, rooms, nodes)
	var gaps []time.Duration
	for _, r := range hit {
		gap := r.players[0].ackAfter(t, f.Promoted, *failoverWait)
		gaps = append(gaps, gap)
		if gap > failoverBound {
			t.Errorf("room %s played again %v after the promotion, more than %v", r.code, gap.Round(time.Millisecond), failoverBound)
		}
	}
	t.Logf("rooms on the killed master: first acknowledged action %v after the promotion", roundAll(gaps))
	// Played on for a while: what goes wrong later (leases and
	// registrations that lapsed in the outage) shows in the logs.
	time.Sleep(2 * time.Second)
	for _, r := range rooms {
		select {
		case <-r.players[0].done: // played every cell (a long outage)
		default:
			r.players[0].okAfter(t, time.Now(), *failoverWait)
		}
	}
	stopAll()
	checkAcked(t, b.URL, rooms)
}

// logFailover logs what the players saw of the failover f (refusals,
// closed sockets) and when each node last logged a failed append, storage
// coming back, a failed routing or registration, relative to the
// promotion.
func logFailover(t *testing.T, f testredis.Failover, rooms []*clusterRoom, nodes []*clusterNode) {
	refused, closes := 0, 0
	for _, r := range rooms {
		for _, p := range r.players {
			p.b.mu.Lock()
			for _, code := range p.b.refused {
				if code == protocol.CodeStorageUnavailable {
					refused++
				}
			}
			closes += len(p.b.closes)
			p.b.mu.Unlock()
		}
	}
	t.Logf("players saw %d storage-unavailable refusals and %d closed sockets", refused, closes)
	for _, n := range nodes {
		var last []string
		for _, msg := range []string{"append failed; rolling back", "storage is back", "room not routed", "node not registered", "leases not renewed", "nodes not read"} {
			if at, count := lastLog(t, n.logText(), msg); count > 0 {
				last = append(last, fmt.Sprintf("%q ×%d, the last %v after the promotion", msg, count, at.Sub(f.Promoted).Round(time.Millisecond)))
			}
		}
		t.Logf("node %s: %s", n.id, strings.Join(last, "; "))
	}
}

// startMatch marks both seats ready, starts the match and sets the players
// playing.
func startMatch(t *testing.T, r *clusterRoom) {
	t.Helper()
	var last uint64
	for _, p := range r.players {
		p.b.until("online", 10*time.Second, func() bool { return p.b.tr.State() == client.StateOnline })
		id := p.b.send(protocol.Action{Type: protocol.TypeControl, Control: &protocol.Control{Op: protocol.ControlReady, Ready: true}})
		if ok, code, _ := p.b.waitReceipt(id, 10*time.Second); !ok {
			t.Fatalf("%s: ready refused: %s", p.name, code)
		}
		p.b.mu.Lock()
		last = max(last, p.b.acked[id])
		p.b.mu.Unlock()
	}
	host := r.players[0].b
	host.until("the second seat's ready", 10*time.Second, func() bool { _, rev := host.tr.Position(); return rev >= last })
	id := host.send(protocol.Action{Type: protocol.TypeControl, Control: &protocol.Control{Op: protocol.ControlStart}})
	if ok, code, _ := host.waitReceipt(id, 10*time.Second); !ok {
		t.Fatalf("room %s: start refused: %s", r.code, code)
	}
	for _, p := range r.players {
		go p.run()
	}
}

// ackAfter waits until the seat has an ok receipt received after at (its
// append landed after at), and returns how long after at it came.
func (f *seatPlayer) ackAfter(t testing.TB, at time.Time, within time.Duration) time.Duration {
	t.Helper()
	deadline := at.Add(within)
	for {
		f.mu.Lock()
		i := slices.IndexFunc(f.oks, func(ok okAt) bool { return ok.got.After(at) })
		var when time.Time
		if i >= 0 {
			when = f.oks[i].got
		}
		f.mu.Unlock()
		if i >= 0 {
			return when.Sub(at)
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: no acknowledged action within %v of %v (state %s, closes %v)", f.name, within, at.Format(time.TimeOnly), f.b.tr.State(), f.closes())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// lastLog returns when a JSON log last said msg, and how many times it did.
func lastLog(t testing.TB, logs, msg string) (time.Time, int) {
	t.Helper()
	var last time.Time
	n := 0
	sc := bufio.NewScanner(strings.NewReader(logs))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var l struct {
			Time time.Time `json:"time"`
			Msg  string    `json:"msg"`
		}
		if json.Unmarshal(sc.Bytes(), &l) != nil || l.Msg != msg {
			continue
		}
		last, n = l.Time, n+1
	}
	return last, n
}

// logLines returns the lines of logs that contain any of subs.
func logLines(logs string, subs ...string) string {
	var out []string
	for _, l := range strings.Split(logs, "\n") {
		if slices.ContainsFunc(subs, func(s string) bool { return strings.Contains(l, s) }) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

func roundAll(ds []time.Duration) []time.Duration {
	out := make([]time.Duration, len(ds))
	for i, d := range ds {
		out[i] = d.Round(time.Millisecond)
	}
	return out
}
