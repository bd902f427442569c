package minesweeper

import (
	"encoding/json"
	"strconv"

	"github.com/roomd/roomd/core/session"
)

// Rules is Minesweeper's session.Rules, session.AI and session.Hider. It
// holds nothing: the zero value is ready and safe for concurrent use.
type Rules struct{}

var (
	_ session.Rules[Config, *State, Move, Event, View] = Rules{}
	_ session.Mover[*State, Move, Event]               = Rules{}
	_ session.Checkpointer[Config, *State]             = Rules{}
	_ session.AI[Move, View]                           = Rules{}
	_ session.Hider[*State]                            = Rules{}
)

// maxRaceSeats bounds a race's seats, and so its boards.
const maxRaceSeats = 4

// Modes of Info, in the order listed.
var modes = []session.Mode{
	{ID: string(ModeSolo), Name: "Solo", MinSeats: 1, MaxSeats: 1},
	{ID: string(ModeCoop), Name: "Co-op", MinSeats: 1, MaxSeats: 4, AI: true},
	{ID: string(ModeRace), Name: "Race", MinSeats: 2, MaxSeats: maxRaceSeats, AI: true},
}

// Bounds of what one viewer is sent (Info.MaxViewBytes and MaxEventBytes).
// A board has at most MaxSide² = 10,000 cells, of two-digit coordinates at
// most, and a race at most maxRaceSeats = 4 boards. Every length below is
// that of the longest JSON of its kind, with the comma that follows it in a
// list; a test checks each against the encoders.
const (
	maxCells = MaxSide * MaxSide // 10,000

	// The config echoed in views: the canonical form rooms keep (67 bytes).
	// A config given to Game.New with keys of its own is echoed as given
	// and may go beyond MaxViewBytes.
	maxConfigBytes = len(`{"mode":"coop","level":"custom","rows":100,"cols":100,"mines":9999}`)
	// A view but its config and boards: 54 bytes.
	maxViewFrame = len(`{"config":,"phase":"active","mode":"race","boards":[]}`)
	// A race board but its cells: 83 bytes.
	maxBoardFrame = len(`{"seat":3,"phase":"active","revealed":10000,"safe":10000,"flags":10000,"cells":[]},`)
	// A view's cell: 62 bytes.
	maxViewCell = len(`{"r":99,"c":99,"status":"revealed","adjacent":8,"mine":false},`)

	// An event but its list of cells or mines: the progress event is the
	// longest, 90 bytes.
	maxEventFrame = len(`{"type":"progress","seat":3,"phase":"active","revealed":10000,"safe":10000,"flags":10000},`)
	// A reveal event's cell: 29 bytes.
	maxRevealedCell = len(`{"r":99,"c":99,"adjacent":8},`)
	// An explode or end event's mine: 16 bytes.
	maxMinePos = len(`{"r":99,"c":99},`)
	// One step's events: the mover's (a reveal and a win at most) and, when
	// it ends a race, one end event for each other board.
	maxStepEvents = 2 + maxRaceSeats - 1

	// Every board of a race listed whole once it is over:
	// 54 + 67 + 4 × (83 + 10,000 × 62) = 2,480,453 bytes.
	maxViewBytes = maxViewFrame + maxConfigBytes + maxRaceSeats*(maxBoardFrame+maxCells*maxViewCell)
	// The array's brackets, five frames, one board revealed whole and the
	// mines of the three others (an explode lists fewer than a reveal):
	// 2 + 5 × 90 + 10,000 × 29 + 3 × 10,000 × 16 = 770,452 bytes.
	maxEventBytes = 2 + maxStepEvents*maxEventFrame + maxCells*maxRevealedCell + (maxRaceSeats-1)*maxCells*maxMinePos
)

// Info describes the game to rooms and clients.
var Info = session.Info{
	ID:           "minesweeper",
	Name:         "Minesweeper",
	RulesVersion: "minesweeper/1",
	Modes:        modes,
	// Leaderboards rank cleared boards by the host's time, lower first;
	// only the standard levels have lists (a custom board has none).
	Ranking:       &session.Ranking{By: session.RankTime, Boards: levelIDs()},
	MaxViewBytes:  maxViewBytes,
	MaxEventBytes: maxEventBytes,
	ConfigSchema:  []byte(ConfigSchema),
	CommandSchema: []byte(CommandSchema),
}

// Game is the erased, JSON-driven form of the rules, for registries.
var Game = session.Define(session.Definition[Config, *State, Move, Event, View]{
	Info:  Info,
	Rules: Rules{},
	Setup: Setup,
})

// Setup reports the mode a config is played in and its leaderboard.
func Setup(c Config) (session.Setup, error) {
	if err := c.Validate(); err != nil {
		return session.Setup{}, err
	}
	m := c.ModeOrSolo()
	for _, mode := range modes {
		if mode.ID == string(m) {
			return session.Setup{Mode: mode, Board: c.Board()}, nil
		}
	}
	return session.Setup{}, configError("unknown mode %q", m)
}

// Init starts a match.
func (Rules) Init(seed session.Seed, c Config, seats int) (*State, error) {
	return NewState(seed, c, seats)
}

// Apply plays m for seat. The errors are *session.Rejection: Malformed for
// moves no genuine client sends (an unknown type, coordinates off the
// board, a seat not in the match), otherwise ineffective moves, the
// reference's silent no-ops (see errors.go). s is unchanged on error.
func (Rules) Apply(s *State, in session.Input[Move]) (*State, []Event, error) {
	events, err := s.apply(in.Seat, in.Move)
	return s, events, err
}

// Status reports the match's phase and outcome: the winners are every seat
// when a solo or coop board is won, the first seat to clear its board in a
// race; a match is ranked (by its time) when a board was cleared.
func (Rules) Status(s *State) session.Status {
	p := s.Phase()
	st := session.Status{Phase: p.String(), Started: p != PhaseFresh, Over: s.over}
	if s.over {
		st.Outcome.Detail = s.wrongFlags()
	}
	switch {
	case !s.over:
	case s.race && s.winner >= 0:
		st.Outcome = session.Outcome{Winners: []session.Seat{s.winner}, Ranked: true}
	case !s.race && p == PhaseWon:
		st.Outcome.Winners = make([]session.Seat, s.seats)
		for i := range st.Outcome.Winners {
			st.Outcome.Winners[i] = i
		}
		st.Outcome.Ranked = true
	}
	return st
}

// wrongFlags is the ended match's detail: the flags on cells without a
// mine, by board, as {"wrongFlags":[{"seat":0,"r":1,"c":2},…]} (seat is the
// board's: 0 but in a race); nil when there are none.
func (s *State) wrongFlags() json.RawMessage {
	var b []byte
	for seat := range s.boards {
		g := s.boards[seat].g
		for k, c := range g.Cells() {
			if c.st != Flagged || c.mine {
				continue
			}
			if b == nil {
				b = append(b, `{"wrongFlags":[`...)
			} else {
				b = append(b, ',')
			}
			b = append(b, `{"seat":`...)
			b = strconv.AppendInt(b, int64(seat), 10)
			b = append(b, `,"r":`...)
			b = strconv.AppendInt(b, int64(k/g.Cols()), 10)
			b = append(b, `,"c":`...)
			b = strconv.AppendInt(b, int64(k%g.Cols()), 10)
			b = append(b, '}')
		}
	}
	if b == nil {
		return nil
	}
	return append(b, "]}"...)
}

// Pending lists the seats that may move: every seat while a solo or coop
// board is open, and in a race every seat whose board is still open.
func (Rules) Pending(s *State) []session.Seat {
	if s.over {
		return nil
	}
	out := make([]session.Seat, 0, s.seats)
	for i := range s.seats {
		if !s.race || !s.boards[i].phase.Terminal() {
			out = append(out, i)
		}
	}
	return out
}

// Project returns viewer's view.
func (Rules) Project(s *State, viewer session.Seat) View { return s.Project(viewer) }

// ProjectEvents returns the events viewer may see. Solo and coop events
// are for everyone. While a race runs, a seat gets its own board's events
// and, for each other board that changed (a flag included), one progress
// event; a spectator gets one progress event for each board that changed.
// The events that end a race are everyone's, unchanged: every board is
// public from then on (see Project).
func (Rules) ProjectEvents(s *State, events []Event, viewer session.Seat) []Event {
	if !s.race || s.over {
		return events
	}
	out := make([]Event, 0, len(events))
	var told [maxRaceSeats]bool
	for _, e := range events {
		switch {
		case e.Seat == viewer:
			out = append(out, e)
		case e.Seat < 0 || e.Seat >= len(s.boards) || told[e.Seat]:
		default:
			told[e.Seat] = true
			out = append(out, s.progress(e.Seat))
		}
	}
	return out
}

// progress is seat's board as a progress event.
func (s *State) progress(seat session.Seat) Event {
	b := &s.boards[seat]
	return Event{Type: EventProgress, Seat: seat, Tagged: true, Phase: b.phase, Revealed: b.revealed, Safe: s.cfg.Safe(), Flags: b.flags}
}

// Audience is 0 for every viewer of a solo or coop match, and of a race
// once it is over (everyone sees every board); while a race runs it is 0
// for spectators and seat+1 for a seat.
func (Rules) Audience(s *State, viewer session.Seat) int {
	if !s.race || s.over || viewer < 0 || viewer >= s.seats {
		return 0
	}
	return viewer + 1
}

// Choose picks seat's next move from its view (see Solver): the solver's
// choice is a function of the view alone, so it draws nothing from src.
func (Rules) Choose(v View, seat session.Seat, _ session.Source) (Move, bool) {
	sv := solverPool.Get().(*Solver)
	defer solverPool.Put(sv)
	return sv.Choose(v, seat)
}
