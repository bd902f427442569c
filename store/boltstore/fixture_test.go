package boltstore

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/roomd/roomd/store/storetest"
)

// fixtureDir holds the stored-format fixtures (testdata/fixtures/README.md).
const fixtureDir = "../../testdata/fixtures/v1"

// TestFixtureV1 opens a copy of the bbolt file main at 0f4e0bf wrote and
// checks that everything in it loads, its leaderboard included
// (storetest.CheckFixture).
func TestFixtureV1(t *testing.T) {
	fx := storetest.LoadFixture(t, filepath.Join(fixtureDir, "bolt.json"))
	data, err := os.ReadFile(filepath.Join(fixtureDir, "bolt", BoltFile))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, BoltFile), data, 0o600); err != nil {
		t.Fatal(err)
	}
	b, err := Open(dir, BoltOptions{SweepInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	storetest.CheckFixture(t, b, fx, true)
}
