package snake

// The bounds of what the arena sends one viewer (session.Info's
// MaxViewBytes and MaxEventBytes), each the longest value of every field
// added up. Seats are one digit (MaxSeats is 8); a cell is [r,c] with at
// most two digits each, or one more for -1 (a die event's cell off the
// arena); a score is at most four digits (a snake grows by one cell for
// each food it eats, and fills at most the whole arena).

// maxRows and maxCols are the largest arena's (BoardLarge); a test checks
// that no board is larger.
const maxRows, maxCols = 32, 32

// maxViewBytes bounds a view. Bodies and food never share a cell, so the
// arena's cells, each in one of them at most, bound them all; a snake's
// fields are counted at their longest (a queue on every snake, though a
// view shows only the viewer's), and a running view's with a finished
// one's:
//
//	89 + 8·79 + 11 + 32·32·8 + 42 = 8966 bytes
//
// (the large arena filled by eight snakes of 128 cells, each with a queue
// of two, sends 8080: cells in the first ten rows and columns are shorter).
const maxViewBytes = len(`{"rows":32,"cols":32,"movesEvery":4,"start":60,"end":12060,"phase":"countdown","snakes":[`) +
	MaxSeats*len(`{"body":[],"dir":"right","alive":false,"score":1021,"queue":["right","right"]},`) +
	len(`],"food":[]`) +
	maxRows*maxCols*len(`[31,31],`) +
	len(`,"winners":[0,1,2,3,4,5,6,7],"why":"draw"}`)

// maxEventBytes bounds the events of one step for one viewer: its own
// turns (the queue holds QueueLen, and a step queues before it moves), go,
// move, a die or a food event for each snake (a snake that dies eats
// nothing) and over:
//
//	1 + 2·31 + 11 + 28 + 8·44 + 54 = 508 bytes
//
// (eight snakes dying together as the viewer turns twice send 495; go
// never comes with a move).
const maxEventBytes = len(`[`) +
	QueueLen*len(`{"t":"turn","s":7,"d":"right"},`) +
	len(`{"t":"go"},`) +
	len(`{"t":"move","d":"........"},`) +
	MaxSeats*len(`{"t":"die","s":7,"at":[32,31],"why":"body"},`) +
	len(`{"t":"over","winners":[0,1,2,3,4,5,6,7],"why":"draw"}]`)
