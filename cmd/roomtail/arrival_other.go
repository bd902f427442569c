//go:build !linux

package main

import "net/http"

// arrivalDial: the arrival times are Linux's (SO_TIMESTAMPNS); elsewhere
// they are unknown.
func arrivalDial() (*http.Client, func() int64) {
	return http.DefaultClient, func() int64 { return 0 }
}
