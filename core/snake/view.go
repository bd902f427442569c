package snake

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
)

// View is what a viewer sees. Everyone sees the whole arena; a seat's view
// adds its own snake's queued turns:
//
//	{"rows":24,"cols":24,"movesEvery":3,"start":60,"end":2460,"phase":"running",
//	 "snakes":[{"body":[[6,5],[6,4],[6,3]],"dir":"right","alive":true,"score":0,"queue":["up"]},
//	           {"body":[],"dir":"left","alive":false,"score":2}],
//	 "food":[[3,9],[12,20]]}
//
// "rows" and "cols" are the arena's size; "movesEvery" the ticks between
// two moves; "start" the tick the countdown ends at (Countdown) and "end"
// the last tick. "phase" is "countdown", "running" or "over". Each snake,
// by seat, has its "body" ([r,c] cells, head first; [] once dead), its
// "dir", whether it is "alive" and its "score" (food eaten); "queue", the
// turns it has queued, is on the viewer's own snake only, and only when
// not empty. "food" lists the food in row-major order. Once over, the view
// adds "winners" (sorted seats; [] when nobody won) and "why" ("last",
// "draw", "time" or "dead").
type View struct {
	Rows       int
	Cols       int
	MovesEvery int
	Start      uint64
	End        uint64
	Phase      string
	Snakes     []ViewSnake
	Food       []Cell
	// Winners and Why are set once Phase is PhaseOver.
	Winners []Seat
	Why     string
}

// ViewSnake is one snake of a view.
type ViewSnake struct {
	Body  []Cell
	Dir   Dir
	Alive bool
	Score int
	// Queue is the snake's queued turns: on the viewer's own snake only.
	Queue []Dir
}

// AppendJSON appends the view's JSON to b.
func (v *View) AppendJSON(b []byte) []byte {
	b = strconv.AppendInt(append(b, `{"rows":`...), int64(v.Rows), 10)
	b = strconv.AppendInt(append(b, `,"cols":`...), int64(v.Cols), 10)
	b = strconv.AppendInt(append(b, `,"movesEvery":`...), int64(v.MovesEvery), 10)
	b = strconv.AppendUint(append(b, `,"start":`...), v.Start, 10)
	b = strconv.AppendUint(append(b, `,"end":`...), v.End, 10)
	b = appendString(append(b, `,"phase":`...), v.Phase)
	b = append(b, `,"snakes":[`...)
	for i := range v.Snakes {
		if i > 0 {
			b = append(b, ',')
		}
		b = v.Snakes[i].appendJSON(b)
	}
	b = appendCells(append(b, `],"food":`...), v.Food)
	if v.Phase == PhaseOver {
		b = append(b, `,"winners":[`...)
		for i, w := range v.Winners {
			if i > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendInt(b, int64(w), 10)
		}
		b = appendString(append(b, `],"why":`...), v.Why)
	}
	return append(b, '}')
}

// appendJSON appends the snake's JSON, as a view has it, to b.
func (sn *ViewSnake) appendJSON(b []byte) []byte {
	b = appendCells(append(b, `{"body":`...), sn.Body)
	b = appendDir(append(b, `,"dir":`...), sn.Dir)
	b = strconv.AppendBool(append(b, `,"alive":`...), sn.Alive)
	b = strconv.AppendInt(append(b, `,"score":`...), int64(sn.Score), 10)
	if len(sn.Queue) > 0 {
		b = append(b, `,"queue":[`...)
		for j, d := range sn.Queue {
			if j > 0 {
				b = append(b, ',')
			}
			b = appendDir(b, d)
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

func appendCells(b []byte, cells []Cell) []byte {
	b = append(b, '[')
	for i, c := range cells {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendCell(b, c)
	}
	return append(b, ']')
}

// appendDir appends a direction's name as a JSON string ("" for none).
func appendDir(b []byte, d Dir) []byte {
	b = append(b, '"')
	if d.Valid() {
		b = append(b, dirNames[d]...)
	}
	return append(b, '"')
}

// MarshalJSON writes the view in the form documented on View.
func (v View) MarshalJSON() ([]byte, error) { return v.AppendJSON(nil), nil }

type viewWire struct {
	Rows       int         `json:"rows"`
	Cols       int         `json:"cols"`
	MovesEvery int         `json:"movesEvery"`
	Start      uint64      `json:"start"`
	End        uint64      `json:"end"`
	Phase      string      `json:"phase"`
	Snakes     []snakeWire `json:"snakes"`
	Food       []Cell      `json:"food"`
	Winners    []Seat      `json:"winners"`
	Why        string      `json:"why"`
}

type snakeWire struct {
	Body  []Cell `json:"body"`
	Dir   Dir    `json:"dir"`
	Alive bool   `json:"alive"`
	Score int    `json:"score"`
	Queue []Dir  `json:"queue"`
}

// UnmarshalJSON decodes a view in the form MarshalJSON writes, for Go
// clients.
func (v *View) UnmarshalJSON(data []byte) error {
	var w viewWire
	if err := json.Unmarshal(data, &w); err != nil {
		return fmt.Errorf("snake view: %w", err)
	}
	out := View{Rows: w.Rows, Cols: w.Cols, MovesEvery: w.MovesEvery, Start: w.Start, End: w.End, Phase: w.Phase,
		Snakes: make([]ViewSnake, len(w.Snakes)), Food: w.Food, Winners: w.Winners, Why: w.Why}
	for i, s := range w.Snakes {
		out.Snakes[i] = ViewSnake{Body: s.Body, Dir: s.Dir, Alive: s.Alive, Score: s.Score, Queue: s.Queue}
	}
	*v = out
	return nil
}

// Apply updates a view with the events of one step as ProjectEvents gave
// them to the view's viewer, so that a client that starts from a view and
// applies each step's events holds the view the server would project.
// Events of seats the view does not have are ignored.
func (v *View) Apply(events []Event) {
	for i := range events {
		e := &events[i]
		switch e.Type {
		case EventTurn:
			if sn := v.snake(e.Seat); sn != nil {
				sn.Queue = append(sn.Queue, e.Dir)
			}
		case EventGo:
			v.Phase = PhaseRunning
		case EventMove:
			v.move(e.Moves)
		case EventDie:
			if sn := v.snake(e.Seat); sn != nil {
				sn.Body, sn.Alive, sn.Queue = []Cell{}, false, nil
			}
		case EventFood:
			if k, found := slices.BinarySearchFunc(v.Food, e.At, compareCells); !found {
				v.Food = slices.Insert(v.Food, k, e.At)
			}
		case EventOver:
			v.Phase, v.Why = PhaseOver, e.Why
			v.Winners = append([]Seat{}, e.Winners...)
			for i := range v.Snakes {
				v.Snakes[i].Queue = nil
			}
		}
	}
}

// move applies a move event as the server moves: each snake that moved
// takes its first queued turn (if the view has its queue) and its
// direction; it eats the food on its new head (keeping its tail and
// scoring a point) or else loses its tail; then the new heads are placed.
func (v *View) move(m Moves) {
	n := min(m.N, len(v.Snakes), MaxSeats)
	var (
		heads [MaxSeats]Cell
		moved [MaxSeats]bool
	)
	for i := range n {
		sn := &v.Snakes[i]
		d := dirOfChar(m.D[i])
		if d == 0 || len(sn.Body) == 0 {
			continue
		}
		moved[i] = true
		if len(sn.Queue) > 0 {
			sn.Queue = sn.Queue[1:]
			if len(sn.Queue) == 0 {
				sn.Queue = nil
			}
		}
		sn.Dir = d
		heads[i] = Cell{sn.Body[0][0] + dirDelta[d][0], sn.Body[0][1] + dirDelta[d][1]}
		if k, found := slices.BinarySearchFunc(v.Food, heads[i], compareCells); found {
			v.Food = slices.Delete(v.Food, k, k+1)
			sn.Score++
		} else {
			sn.Body = sn.Body[:len(sn.Body)-1]
		}
	}
	for i := range n {
		if moved[i] {
			v.Snakes[i].Body = slices.Insert(v.Snakes[i].Body, 0, heads[i])
		}
	}
}

// snake returns the view's snake of seat, or nil.
func (v *View) snake(seat Seat) *ViewSnake {
	if seat < 0 || seat >= len(v.Snakes) {
		return nil
	}
	return &v.Snakes[seat]
}

// compareCells orders cells row-major.
func compareCells(a, b Cell) int {
	if a[0] != b[0] {
		return a[0] - b[0]
	}
	return a[1] - b[1]
}
