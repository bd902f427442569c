package storetest

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/roomd/roomd/store"
)

// cluster returns the subject's store as a store.Cluster, or skips the
// test: a store one process alone opens (bbolt) has no nodes to agree.
func cluster(t *testing.T, sub *Subject) store.Cluster {
	c, ok := sub.S.(store.Cluster)
	if !ok {
		t.Skipf("%T is not a store.Cluster", sub.S)
	}
	return c
}

// wait lets d pass on the store's clock: Advance, or real time.
func (sub *Subject) wait(d time.Duration) {
	if sub.Advance != nil {
		sub.Advance(d)
		return
	}
	time.Sleep(d)
}

// testClusterOwnership: one owner at a time, a second node refused with
// the holder's name, renew and release by the holder only, and the old
// owner's writes fenced once another node opened the room.
func testClusterOwnership(t *testing.T, sub *Subject) {
	c := cluster(t, sub)
	ctx := Ctx(t)
	const ttl = 10 * time.Second
	la, err := c.CreateOwned(ctx, "OWN111", "node-a", ttl, store.Snapshot{Data: []byte("s")})
	if err != nil {
		t.Fatal(err)
	}
	if node, left, err := c.Owner(ctx, "OWN111"); err != nil || node != "node-a" || left <= 0 || left > ttl {
		t.Fatalf("Owner = %q, %v, %v; want node-a with at most %v left", node, left, err, ttl)
	}
	_, _, err = c.OpenOwned(ctx, "OWN111", "node-b", ttl)
	var oe *store.OwnedError
	if !errors.As(err, &oe) || !errors.Is(err, store.ErrOwned) || oe.Node != "node-a" || oe.Left <= 0 {
		t.Fatalf("OpenOwned by another node = %v, want an OwnedError naming node-a", err)
	}
	// The refusal changed nothing: node-a still writes.
	MustAppend(t, sub.S, la, Entries("OWN111", 1, 2))
	// The holder may open again (a restarted process with the same id).
	la2, rec, err := c.OpenOwned(ctx, "OWN111", "node-a", ttl)
	if err != nil || len(rec.Entries) != 2 || la2.Token <= la.Token {
		t.Fatalf("OpenOwned by the holder = %+v, %d entries, %v", la2, len(rec.Entries), err)
	}
	if lost, err := c.Renew(ctx, "node-a", []string{"OWN111"}, ttl); err != nil || len(lost) != 0 {
		t.Fatalf("Renew by the holder: lost %v, %v", lost, err)
	}
	if lost, err := c.Renew(ctx, "node-b", []string{"OWN111"}, ttl); err != nil || !slices.Equal(lost, []string{"OWN111"}) {
		t.Fatalf("Renew by another node: lost %v, %v; want the room", lost, err)
	}
	if err := c.Release(ctx, "OWN111", "node-b", "", 0); err != nil {
		t.Fatal(err)
	}
	if node, _, _ := c.Owner(ctx, "OWN111"); node != "node-a" {
		t.Fatalf("another node's Release took the lease: owner %q", node)
	}
	// A handoff: the lease passes to node-c, and nobody else may open.
	if err := c.Release(ctx, "OWN111", "node-a", "node-c", ttl); err != nil {
		t.Fatal(err)
	}
	if node, _, _ := c.Owner(ctx, "OWN111"); node != "node-c" {
		t.Fatalf("owner after a handoff to node-c = %q", node)
	}
	if _, _, err := c.OpenOwned(ctx, "OWN111", "node-b", ttl); !errors.Is(err, store.ErrOwned) {
		t.Fatalf("OpenOwned by a third node during a handoff = %v, want ErrOwned", err)
	}
	if err := c.Release(ctx, "OWN111", "node-c", "", 0); err != nil {
		t.Fatal(err)
	}
	if node, _, _ := c.Owner(ctx, "OWN111"); node != "" {
		t.Fatalf("owner after Release = %q, want none", node)
	}
	lb, rec, err := c.OpenOwned(ctx, "OWN111", "node-b", ttl)
	if err != nil || len(rec.Entries) != 2 {
		t.Fatalf("OpenOwned after release = %d entries, %v", len(rec.Entries), err)
	}
	if err := sub.S.Append(ctx, la2, Entries("OWN111", 3, 3)); !errors.Is(err, store.ErrFenced) {
		t.Fatalf("the old owner's append = %v, want ErrFenced", err)
	}
	if lost, _ := c.Renew(ctx, "node-a", []string{"OWN111"}, ttl); !slices.Equal(lost, []string{"OWN111"}) {
		t.Fatalf("the old owner's Renew: lost %v, want the room", lost)
	}
	MustAppend(t, sub.S, lb, Entries("OWN111", 3, 3))
	// An unknown room: not found, and no lease left behind.
	if _, _, err := c.OpenOwned(ctx, "NONE22", "node-a", ttl); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("OpenOwned of an unknown room = %v, want ErrNotFound", err)
	}
	if node, _, _ := c.Owner(ctx, "NONE22"); node != "" {
		t.Fatalf("an unknown room has owner %q", node)
	}
	if _, _, err := c.OpenOwned(ctx, "OWN111", "", ttl); err == nil {
		t.Fatal("OpenOwned with an empty node id succeeded")
	}
}

// testClusterExpiry: a lease not renewed expires, and then another node
// takes the room.
func testClusterExpiry(t *testing.T, sub *Subject) {
	c := cluster(t, sub)
	ctx := Ctx(t)
	const ttl = 300 * time.Millisecond
	if _, err := c.CreateOwned(ctx, "EXP111", "node-a", ttl, store.Snapshot{Data: []byte("s")}); err != nil {
		t.Fatal(err)
	}
	sub.wait(ttl / 2)
	if lost, err := c.Renew(ctx, "node-a", []string{"EXP111"}, ttl); err != nil || len(lost) != 0 {
		t.Fatalf("Renew before expiry: lost %v, %v", lost, err)
	}
	sub.wait(ttl / 2) // renewed: still held
	if _, _, err := c.OpenOwned(ctx, "EXP111", "node-b", ttl); !errors.Is(err, store.ErrOwned) {
		t.Fatalf("OpenOwned of a renewed lease = %v, want ErrOwned", err)
	}
	sub.wait(ttl + 50*time.Millisecond)
	if node, _, _ := c.Owner(ctx, "EXP111"); node != "" {
		t.Fatalf("owner after expiry = %q", node)
	}
	// Expired and not taken: the old owner's renewal takes it again.
	if lost, err := c.Renew(ctx, "node-a", []string{"EXP111"}, ttl); err != nil || len(lost) != 0 {
		t.Fatalf("Renew of an expired lease nobody took: lost %v, %v", lost, err)
	}
	if node, _, _ := c.Owner(ctx, "EXP111"); node != "node-a" {
		t.Fatalf("owner after the renewal = %q", node)
	}
	sub.wait(ttl + 50*time.Millisecond)
	if _, _, err := c.OpenOwned(ctx, "EXP111", "node-b", 10*time.Second); err != nil {
		t.Fatalf("OpenOwned after expiry: %v", err)
	}
	if lost, _ := c.Renew(ctx, "node-a", []string{"EXP111"}, ttl); !slices.Equal(lost, []string{"EXP111"}) {
		t.Fatalf("the expired owner's Renew: lost %v", lost)
	}
}

// testClusterNodes: the registry lists live nodes by id, forgets a node
// that deregisters or stops refreshing.
func testClusterNodes(t *testing.T, sub *Subject) {
	c := cluster(t, sub)
	ctx := Ctx(t)
	a := store.Node{ID: "node-a", URL: "http://a.example", PeerURL: "http://10.0.0.1:8080", Rooms: 3, Started: 1}
	b := store.Node{ID: "node-b", PeerURL: "http://10.0.0.2:8080", Draining: true}
	for _, n := range []store.Node{b, a} {
		if err := c.Register(ctx, n, 10*time.Second); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := c.Nodes(ctx); err != nil || !slices.Equal(got, []store.Node{a, b}) {
		t.Fatalf("Nodes = %+v, %v; want %+v", got, err, []store.Node{a, b})
	}
	a.Rooms = 4
	if err := c.Register(ctx, a, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	if err := c.Deregister(ctx, "node-b"); err != nil {
		t.Fatal(err)
	}
	if got, _ := c.Nodes(ctx); !slices.Equal(got, []store.Node{a}) {
		t.Fatalf("Nodes after a refresh and a deregister = %+v", got)
	}
	if err := c.Register(ctx, b, 200*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	sub.wait(300 * time.Millisecond)
	if got, _ := c.Nodes(ctx); !slices.Equal(got, []store.Node{a}) {
		t.Fatalf("Nodes after node-b's registration expired = %+v", got)
	}
}
