package redisstore

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"testing"

	"github.com/roomd/roomd/internal/testredis"
	"github.com/roomd/roomd/store"
	"github.com/roomd/roomd/store/storetest"
)

// fixtureDir holds the stored-format fixtures (testdata/fixtures/README.md).
const fixtureDir = "../../testdata/fixtures/v1"

// TestFixtureV1 starts a redis-server on a copy of the RDB dump main at
// 0f4e0bf wrote (key prefix "roomd") and checks that everything in it loads
// (storetest.CheckFixture). Its leaderboard is under a key this version no
// longer reads: the board starts afresh under the new keys, and the old key
// is left as it was, its scores still readable (the time in "time").
func TestFixtureV1(t *testing.T) {
	fx := storetest.LoadFixture(t, filepath.Join(fixtureDir, "redis.json"))
	srv := testredis.Start(t, testredis.FromRDB(filepath.Join(fixtureDir, "redis.rdb")))
	r := openRedis(t, srv.URL(), RedisOptions{Prefix: "roomd"})
	storetest.CheckFixture(t, r, fx, false)

	members, err := inspect(t, srv).ZRange(storetest.Ctx(t), "roomd:lb:minesweeper:beginner:host", 0, -1).Result()
	if err != nil {
		t.Fatal(err)
	}
	var old []store.Score
	for _, m := range members {
		var s store.Score
		if len(m) < memberHead || json.Unmarshal([]byte(m[memberHead:]), &s) != nil {
			t.Fatalf("old member %q does not decode", m)
		}
		old = append(old, s)
	}
	if want := fx.StoredScores(); !slices.Equal(old, want) {
		t.Fatalf("old board = %+v, want %+v", old, want)
	}
}
