//go:build !linux

package main

import "errors"

// watchPoll is Linux's (epoll): elsewhere spectators read through
// coder/websocket, a goroutine each.
type watchPoll struct{}

func newWatchPoll() (*watchPoll, error) { return nil, errors.New("no watch poller on this system") }

func (w *watchPoll) add(*player, *rawSocket) error { return errors.New("no watch poller") }
func (w *watchPoll) start()                        {}
func (w *watchPoll) stop()                         {}
