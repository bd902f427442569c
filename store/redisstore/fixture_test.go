package redisstore

import (
	"path/filepath"
	"testing"

	"github.com/roomd/roomd/internal/testredis"
	"github.com/roomd/roomd/store/storetest"
)

// fixtureDir holds the stored-format fixtures (testdata/fixtures/README.md).
const fixtureDir = "../../testdata/fixtures/v1"

// TestFixtureV1 starts a redis-server on a copy of the RDB dump main at
// 0f4e0bf wrote (key prefix "roomd") and checks that everything in it loads
// (storetest.CheckFixture).
func TestFixtureV1(t *testing.T) {
	fx := storetest.LoadFixture(t, filepath.Join(fixtureDir, "redis.json"))
	srv := testredis.Start(t, testredis.FromRDB(filepath.Join(fixtureDir, "redis.rdb")))
	r := openRedis(t, srv.URL(), RedisOptions{Prefix: "roomd"})
	storetest.CheckFixture(t, r, fx)
}
