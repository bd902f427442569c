// Package fence holds what the store implementations share about fencing
// tokens.
package fence

import "time"

// First is the fencing token a room gets when it is created: the clock in
// microseconds, so that a code reused after its room expired never hands out
// a token an earlier holder of that code could still have.
func First(now time.Time) uint64 {
	if us := now.UnixMicro(); us > 0 {
		return uint64(us)
	}
	return 1
}
