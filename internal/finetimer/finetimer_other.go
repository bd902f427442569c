//go:build !linux

package finetimer

// Timer sleeps one goroutine at a time; here it is a Coarse.
type Timer struct{ *Coarse }

// New returns a Timer; Close releases it.
func New() (*Timer, error) { return &Timer{NewCoarse()}, nil }

// NewClock returns a Clock; here it is NewCoarseClock's.
func NewClock() (*Clock, error) { return NewCoarseClock(), nil }
