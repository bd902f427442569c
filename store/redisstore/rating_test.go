package redisstore

import (
	"fmt"
	"sync"
	"testing"

	"github.com/roomd/roomd/internal/testredis"
	"github.com/roomd/roomd/store"
	"github.com/roomd/roomd/store/storetest"
)

// TestRatingsTwoNodes: two stores on one Redis (two nodes), each applying
// matches of one player at the same time, on one server and on a Redis
// Cluster: no update is lost, and a match both apply counts once.
func TestRatingsTwoNodes(t *testing.T) {
	t.Parallel()
	t.Run("Server", func(t *testing.T) {
		t.Parallel()
		srv := testredis.Start(t)
		twoNodes(t, func(prefix string) *Redis { return openRedis(t, srv.URL(), RedisOptions{Prefix: prefix}) })
	})
	t.Run("Cluster", func(t *testing.T) {
		t.Parallel()
		cl := testredis.StartCluster(t)
		twoNodes(t, func(prefix string) *Redis { return openRedis(t, cl.URL(), RedisOptions{Prefix: prefix, Cluster: true}) })
	})
}

func twoNodes(t *testing.T, open func(prefix string) *Redis) {
	prefix := uniquePrefix()
	nodes := []*Redis{open(prefix), open(prefix)}
	pool := store.RatingPool{Game: "tictactoe", Mode: "classic"}
	up := func(a, b store.Rating) (store.Rating, store.Rating) {
		return store.Rating{Rating: a.Rating + 1, RD: 100, Volatility: 0.06}, store.Rating{Rating: b.Rating - 1, RD: 100, Volatility: 0.06}
	}
	const perNode = 25
	var wg sync.WaitGroup
	errs := make(chan error, 2*perNode+2)
	var applied sync.Map
	for n, node := range nodes {
		for i := range perNode {
			wg.Go(func() {
				// Each node applies its own matches, and both apply "shared".
				id := fmt.Sprintf("n%d-m%d", n, i)
				if i == 0 {
					id = "shared"
				}
				ok, err := node.ApplyRating(storetest.Ctx(t), store.RatedMatch{ID: id, Pool: pool,
					Players: [2]string{"hub", fmt.Sprintf("p%d-%d", n, i)}, Score: 1, At: int64(i)}, up)
				if err != nil {
					errs <- err
				}
				if ok {
					if _, dup := applied.LoadOrStore(id, true); dup {
						errs <- fmt.Errorf("match %s applied twice", id)
					}
				}
			})
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	want := 2*perNode - 1 // "shared" once
	for _, node := range nodes {
		r, found, err := node.Rating(storetest.Ctx(t), pool, "hub")
		if err != nil || !found || r.Matches != want || r.Rating != float64(want) {
			t.Fatalf("hub = %+v, %v, %v; want %d matches and rating %d", r, found, err, want, want)
		}
	}
	h, err := nodes[1].RatingHistory(storetest.Ctx(t), pool, "hub", 0)
	if err != nil || len(h) != want {
		t.Fatalf("hub's history = %d changes, %v; want %d", len(h), err, want)
	}
}
