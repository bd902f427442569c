package main

import (
	"strings"

	"github.com/roomd/roomd/core/babagame"
	"github.com/roomd/roomd/core/cardgame"
	"github.com/roomd/roomd/core/minesweeper"
	"github.com/roomd/roomd/core/nim"
	"github.com/roomd/roomd/core/session"
	"github.com/roomd/roomd/core/snake"
	"github.com/roomd/roomd/core/spellgridgame"
	"github.com/roomd/roomd/core/tictactoe"
)

// registry returns every game this build serves.
func registry() *session.Registry {
	return session.NewRegistry(babagame.Game, cardgame.Game, minesweeper.Game, nim.Game, snake.Game, spellgridgame.Game, tictactoe.Game)
}

func gameIDs() string {
	var ids []string
	for _, g := range registry().Games() {
		ids = append(ids, g.ID)
	}
	return strings.Join(ids, ", ")
}
