package room

import "time"

// Metrics receives the rooms' measurements. A nil *Metrics records nothing.
// (The Prometheus collectors are filled in with the metrics work.)
type Metrics struct{}

func (m *Metrics) observeAppend(d time.Duration, entries int, err error)           {}
func (m *Metrics) observeCommand(game string, received, done time.Time, err error) {}
func (m *Metrics) observeResync()                                                  {}
func (m *Metrics) observeRejected(code string)                                     {}
