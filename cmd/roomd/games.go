package main

import (
	"strings"

	"github.com/roomd/roomd/core/games"
	"github.com/roomd/roomd/core/session"
)

// registry returns every game this build serves.
func registry() *session.Registry { return games.Registry() }

func gameIDs() string {
	var ids []string
	for _, g := range registry().Games() {
		ids = append(ids, g.ID)
	}
	return strings.Join(ids, ", ")
}
