//go:build !linux

package transport

import "errors"

// pollSupported is false: outside Linux every socket keeps its reader and
// writer goroutines (poll_linux.go).
const pollSupported = false

type poller struct{}

type epState struct{ p *poller }

func newPollers(*Server) []*poller { return nil }

func (p *poller) kick(*conn, *epState) {}

func (c *conn) canHandOver() bool { return false }

func (c *conn) handOver() bool { return false }

// writeFD and closeFD are never called: no socket here has a descriptor
// of its own (newSock).
func writeFD(int, []byte) (int, error) { return 0, errors.ErrUnsupported }

func closeFD(int) {}
