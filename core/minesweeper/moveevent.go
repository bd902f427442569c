package minesweeper

// MoveEventTypes is the vocabulary of move events (spec §9).
var MoveEventTypes = [...]string{"reveal", "flag", "unflag", "chord"}

// MoveEvent is the reference's typed onMove record of an effective move:
// {"type","r","c","t","seq"}. Type is reveal (a losing reveal included),
// chord, or flag/unflag by the flag event's new state; R and C are the
// move's; T is its log timestamp; Seq counts effective moves from 1.
type MoveEvent struct {
	Type string  `json:"type"`
	R    int     `json:"r"`
	C    int     `json:"c"`
	T    float64 `json:"t"`
	Seq  int     `json:"seq"`
}

// NewMoveEvent classifies move m, which produced events, at time t as the
// seq-th move event. It reports false for a move without events (the
// reference's null: nothing is emitted and seq does not advance); in roomd
// such moves are rejected before they get here.
func NewMoveEvent(m Move, events []Event, t float64, seq int) (MoveEvent, bool) {
	if len(events) == 0 {
		return MoveEvent{}, false
	}
	me := MoveEvent{R: m.R, C: m.C, T: t, Seq: seq}
	switch m.Type {
	case Reveal:
		me.Type = "reveal"
	case Chord:
		me.Type = "chord"
	case Flag:
		me.Type = "unflag"
		for _, e := range events {
			if e.Type == EventFlag && e.Flagged {
				me.Type = "flag"
			}
		}
	default:
		return MoveEvent{}, false
	}
	return me, true
}
