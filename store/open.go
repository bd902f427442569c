package store

import (
	"context"
	"errors"
)

// Backend is a store of rooms that also keeps leaderboards: what Open
// returns and what the server wires into the room layer.
type Backend interface {
	Store
	Leaderboards
}

var (
	_ Backend = (*Memory)(nil)
	_ Backend = (*Bolt)(nil)
	_ Backend = (*Redis)(nil)
)

// DefaultDataDir is where the embedded store keeps its file when
// Config.DataDir is empty.
const DefaultDataDir = "./roomd-data"

// Config chooses and configures a store. The zero value is the embedded
// bbolt store in DefaultDataDir.
type Config struct {
	// RedisURL selects Redis (redis://[user:pass@]host:port/db). Empty means
	// the embedded store.
	RedisURL string
	// Redis configures the Redis store.
	Redis RedisOptions
	// DataDir is the embedded store's directory. Empty means DefaultDataDir.
	DataDir string
	// Bolt configures the embedded store.
	Bolt BoltOptions
	// Memory selects the in-memory store: nothing survives the process.
	// It may not be combined with RedisURL.
	Memory bool
}

// Open opens the store cfg chooses: Redis when RedisURL is set, memory when
// Memory is set, else bbolt in DataDir.
func Open(ctx context.Context, cfg Config) (Backend, error) {
	switch {
	case cfg.Memory && cfg.RedisURL != "":
		return nil, errors.New("store: Config.Memory and Config.RedisURL are exclusive")
	case cfg.Memory:
		return NewMemory(), nil
	case cfg.RedisURL != "":
		return OpenRedis(ctx, cfg.RedisURL, cfg.Redis)
	}
	dir := cfg.DataDir
	if dir == "" {
		dir = DefaultDataDir
	}
	return OpenBolt(dir, cfg.Bolt)
}
