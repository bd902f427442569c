package tictactoe

import "slices"

// View is what every viewer sees (nothing is hidden, so seats and
// spectators get the same):
//
//	{"board":["X..",".O.","..."],"turn":0,"phase":"active"}
//
// "board" is the grid's rows, top first, one character per square: 'X',
// 'O' or '.' for an empty one. "turn" is the seat to mark next (0 plays X,
// 1 plays O; it alternates with every mark, the last included). "phase" is
// "active", "won" or "draw"; a won view adds "winner" (a seat) and "line",
// the three squares of the winning line:
//
//	{"board":["XXX","OO.","..."],"turn":1,"phase":"won","winner":0,
//	 "line":[{"r":0,"c":0},{"r":0,"c":1},{"r":0,"c":2}]}
type View struct {
	Board  [Size]string `json:"board"`
	Turn   Seat         `json:"turn"`
	Phase  string       `json:"phase"`
	Winner *Seat        `json:"winner,omitempty"`
	Line   []Cell       `json:"line,omitempty"`
}

// Apply updates a view with the events of an update, so that a client that
// starts from a view and applies each update's events holds the view the
// server would project. Unknown events, and marks off the view's grid, are
// ignored.
func (v *View) Apply(events []Event) {
	for _, e := range events {
		switch e.Type {
		case EventMark:
			if e.R < 0 || e.R >= Size || e.C < 0 || e.C >= len(v.Board[e.R]) {
				continue
			}
			row := []byte(v.Board[e.R])
			row[e.C] = Mark(e.Seat)
			v.Board[e.R] = string(row)
			v.Turn = (e.Seat + 1) % Seats
		case EventEnd:
			v.Phase, v.Winner, v.Line = e.Phase, nil, nil
			if e.Winner != nil {
				w := *e.Winner
				v.Winner, v.Line = &w, slices.Clone(e.Line)
			}
		}
	}
}
