//go:build !linux

package transport

// pollSupported is false: outside Linux every socket keeps its reader and
// writer goroutines (poll_linux.go).
const pollSupported = false

type poller struct{}

type epState struct{ p *poller }

func newPollers(*Server) []*poller { return nil }

func (p *poller) kick(*conn, *epState) {}

func (c *conn) canHandOver() bool { return false }

func (c *conn) handOver() bool { return false }
