package store

import "errors"

// Sentinel errors. Implementations wrap them with the operation's name;
// test them with errors.Is.
var (
	ErrNotFound = errors.New("store: room not found")
	ErrExists   = errors.New("store: room exists")
	ErrFenced   = errors.New("store: lease lost to a newer holder")
	ErrClosed   = errors.New("store: closed")
	// ErrGap is returned by Append when the first entry's revision does not
	// follow the last stored one.
	ErrGap = errors.New("store: revision gap")
	// ErrTooLarge is returned by Claim for a key or value over the limits
	// (MaxClaimKey, MaxClaimValue).
	ErrTooLarge = errors.New("store: claim too large")
)
