package tictactoe

// Bounds of what one viewer is sent (session.Info.MaxViewBytes and
// MaxEventBytes). The longest view is a finished board with its winner and
// line,
//
//	{"board":["XOX","OXO","XOX"],"turn":1,"phase":"draw","winner":1,"line":[[0,0],[1,1],[2,2]]}
//
// 91 bytes; a step's events are at most a mark and the end,
//
//	[{"type":"mark","seat":1,"r":2,"c":2},{"type":"end","phase":"won","winner":1,"line":[[0,0],[1,1],[2,2]]}]
//
// 106 bytes. The bounds leave room for a phase name of up to 40 bytes.
const (
	maxViewBytes  = 160
	maxEventBytes = 160
)
