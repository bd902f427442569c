//go:build !linux

package client

import "errors"

// poller is empty outside Linux: NewPoll fails, and a Remote reads its
// socket on a goroutine of its own.
type poller struct{}

// NewPoll fails: a Poll needs Linux's epoll.
func NewPoll(PollConfig) (*Poll, error) { return nil, errors.New("client: a Poll needs Linux") }

// Close does nothing.
func (p *Poll) Close() error { return nil }

func (p *Poll) serve(*sock) error { return errPollClosed }

func (p *Poll) drop(*sock) {}

func (p *Poll) unread(*sock) bool { return false }
