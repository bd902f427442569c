// Package sortable encodes numbers as uint64s whose big-endian bytes order
// like the numbers: keys of bbolt buckets and Redis members that sort right.
package sortable

import "math"

// Float encodes f so that bytes order like numbers (-0 before +0; NaN has
// no place and must be refused before).
func Float(f float64) uint64 {
	u := math.Float64bits(f)
	if u&(1<<63) != 0 {
		return ^u
	}
	return u | 1<<63
}

// Int encodes i so that bytes order like numbers.
func Int(i int64) uint64 { return uint64(i) ^ 1<<63 }

// Ranked returns v as it is ordered ascending on a board: v, or -v when
// higher values rank first. Zero is always +0, so that it sorts as one value.
func Ranked(v float64, higher bool) float64 {
	if higher {
		v = -v
	}
	if v == 0 {
		return 0
	}
	return v
}
