// Package corecall is the game core behind one entry point that takes a
// request in JSON and answers in JSON: what the browser's local core
// (cmd/roomwasm, WebAssembly) exposes to JavaScript, and what the native
// build answers too, so that the two can be compared byte for byte.
//
// A request is an object with an "op" and the op's members:
//
//	{"op":"games"}                                          → {"games":[Info…]}
//	{"op":"new","game":ID,"seed":SEED,"config":{…},"seats":N}
//	                                                        → {"session":H,"header":{…},"status":{…},"pending":[…]}
//	{"op":"apply","session":H,"seat":S,"command":{…},"t":MS,"viewers":[V…]}
//	                                                        → {"move":{…},"beats":[[…]…],"status":{…},"pending":[…]}
//	{"op":"input","session":H,"seat":S,"command":{…},"t":MS} → {"tick":T}   (a real-time game's input)
//	{"op":"advance","session":H,"viewers":[V…]}             → {"tick":T,"beats":[[…]…],"status":{…}}
//	{"op":"view","session":H,"viewer":V}                    → {"view":{…}}
//	{"op":"ai","session":H,"seat":S}                        → {"command":{…}|null}
//	{"op":"save","session":H}                               → {"header":{…},"log":[…],"ticks":T}
//	{"op":"replay","game":ID,"record":{seed,config,seats,log,ticks}}
//	                                                        → {"verdict":{…},"view":{…}}
//	{"op":"close","session":H}                              → {}
//	{"op":"follow","game":ID,"view":{…},"beats":[…]}        → {"view":{…}}
//
// "follow" plays one update's beats on a viewer's view with the game's own
// Go reducer (session.Follower): a page that follows a room's match with
// it writes no JavaScript copy of the game's View.Apply (unknown-game, or
// bad-request for a game whose view has no reducer).
//
// A viewer is a seat or -1 (a spectator); "beats" holds, for each viewer
// asked, the beats of the command that viewer may see. "t" is the time of
// a command in ms; the core reads no clock. Every failure is
// {"error":{"code":…,"message":…}}, with a refused command's own code
// (game:NotYourTurn, …). Nothing here reads a clock, draws randomness or
// does I/O: a session is its game's pure rules.
package corecall

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/roomd/roomd/core/session"
)

// Limits of one Core: sessions open at once, and a request's size.
const (
	MaxSessions     = 64
	MaxRequestBytes = session.MaxRecordBytes + 1<<10
)

// Error codes of the core's own failures (a refused command keeps the
// game's code).
const (
	CodeBadRequest  = "bad-request"
	CodeUnknownGame = "unknown-game"
	CodeNoSession   = "no-session"
	CodeTooMany     = "too-many-sessions"
	CodeRefused     = "refused"
)

// Core holds the sessions of one caller (one page).
type Core struct {
	games    *session.Registry
	sessions map[int]*session.GameSession
	next     int
}

// New returns a core over games.
func New(games *session.Registry) *Core {
	return &Core{games: games, sessions: map[int]*session.GameSession{}}
}

// request is every member any op takes.
type request struct {
	Op      string          `json:"op"`
	Game    string          `json:"game"`
	Seed    session.Seed    `json:"seed"`
	Config  json.RawMessage `json:"config"`
	Seats   int             `json:"seats"`
	Session int             `json:"session"`
	Seat    *int            `json:"seat"`
	Viewer  int             `json:"viewer"`
	Viewers []int           `json:"viewers"`
	Command json.RawMessage `json:"command"`
	T       float64         `json:"t"`
	Record  json.RawMessage `json:"record"`
	View    json.RawMessage `json:"view"`
	Beats   json.RawMessage `json:"beats"`
}

// failure is an error with the code the caller sees.
type failure struct{ code, message string }

func (f *failure) Error() string { return f.message }

func fail(code, format string, args ...any) error {
	return &failure{code, fmt.Sprintf(format, args...)}
}

// CodeEngineThrew is the answer to a request during which a game's code
// panicked (a bug): the session may be broken, the core goes on.
const CodeEngineThrew = "engine-threw"

// Call answers one request. It never panics: whatever the bytes, the
// answer is JSON (a game that panics answers CodeEngineThrew, so that the
// page's core — one program for every session — lives on).
func (c *Core) Call(data []byte) (answer []byte) {
	defer func() {
		if v := recover(); v != nil {
			answer, _ = json.Marshal(map[string]map[string]string{"error": {"code": CodeEngineThrew, "message": fmt.Sprint("the game failed: ", v)}})
		}
	}()
	out, err := c.call(data)
	if err == nil {
		b, merr := json.Marshal(out)
		if merr == nil {
			return b
		}
		err = fail(CodeBadRequest, "encoding the answer: %v", merr)
	}
	code, message := CodeBadRequest, err.Error()
	var f *failure
	var rej *session.Rejection
	switch {
	case errors.As(err, &rej):
		code, message = rej.Code, rej.Reason
	case errors.As(err, &f):
		code = f.code
	}
	b, _ := json.Marshal(map[string]map[string]string{"error": {"code": code, "message": message}})
	return b
}

func (c *Core) call(data []byte) (any, error) {
	if len(data) > MaxRequestBytes {
		return nil, fail(CodeBadRequest, "a request of %d bytes; at most %d", len(data), MaxRequestBytes)
	}
	var r request
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fail(CodeBadRequest, "a request must be a JSON object: %v", err)
	}
	switch r.Op {
	case "games":
		return map[string]any{"games": c.games.Games()}, nil
	case "new":
		return c.newSession(r)
	case "replay":
		return c.replay(r)
	case "follow":
		return c.follow(r)
	case "apply", "input", "advance", "view", "ai", "save", "close":
	default:
		return nil, fail(CodeBadRequest, "unknown op %q", session.Clip(r.Op))
	}
	s, ok := c.sessions[r.Session]
	if !ok {
		return nil, fail(CodeNoSession, "no session %d", r.Session)
	}
	for _, v := range append([]int{r.Viewer}, r.Viewers...) {
		if v < session.Spectator || v >= s.Seats() {
			return nil, fail(CodeBadRequest, "viewer %d: a viewer is -1 (a spectator) or a seat from 0 to %d", v, s.Seats()-1)
		}
	}
	switch r.Op {
	case "apply":
		seat, err := seatOf(r, s)
		if err != nil {
			return nil, err
		}
		st, err := s.ApplyAt(seat, r.Command, r.T)
		if err != nil {
			return nil, err
		}
		beats, err := beatsFor(st, r.Viewers)
		if err != nil {
			return nil, err
		}
		return map[string]any{"move": st.Move(), "beats": beats, "status": s.Status(), "pending": pending(s)}, nil
	case "input":
		seat, err := seatOf(r, s)
		if err != nil {
			return nil, err
		}
		tick, err := s.Input(seat, r.Command, r.T)
		if err != nil {
			return nil, err
		}
		return map[string]any{"tick": tick}, nil
	case "advance":
		st, err := s.Advance()
		if err != nil {
			return nil, err
		}
		beats, err := beatsFor(st, r.Viewers)
		if err != nil {
			return nil, err
		}
		return map[string]any{"tick": s.Tick(), "beats": beats, "status": s.Status()}, nil
	case "view":
		return map[string]any{"view": s.Match().View(r.Viewer)}, nil
	case "ai":
		seat, err := seatOf(r, s)
		if err != nil {
			return nil, err
		}
		cmd, ok := s.AIMove(seat)
		if !ok {
			cmd = nil
		}
		return map[string]any{"command": cmd}, nil
	case "save":
		return map[string]any{"header": s.Header(), "log": s.Log(), "ticks": s.Tick()}, nil
	default: // close
		delete(c.sessions, r.Session)
		return struct{}{}, nil
	}
}

func (c *Core) newSession(r request) (any, error) {
	g, ok := c.games.Lookup(r.Game)
	if !ok {
		return nil, fail(CodeUnknownGame, "unknown game %q", session.Clip(r.Game))
	}
	if len(c.sessions) >= MaxSessions {
		return nil, fail(CodeTooMany, "%d sessions are open; close one first", MaxSessions)
	}
	if r.Seed.IsZero() {
		return nil, fail(CodeBadRequest, "a session needs a seed")
	}
	config := r.Config
	if len(config) == 0 {
		config = json.RawMessage(`{}`)
	}
	s, err := session.NewSession(g, r.Seed, config, r.Seats, nil)
	if err != nil {
		return nil, fail(CodeRefused, "%v", err)
	}
	c.next++
	c.sessions[c.next] = s
	return map[string]any{"session": c.next, "header": s.Header(), "status": s.Status(), "pending": pending(s)}, nil
}

func (c *Core) replay(r request) (any, error) {
	g, ok := c.games.Lookup(r.Game)
	if !ok {
		return nil, fail(CodeUnknownGame, "unknown game %q", session.Clip(r.Game))
	}
	rec, err := session.DecodeRecord(r.Record)
	if err != nil {
		return nil, fail(CodeBadRequest, "%v", err)
	}
	verdict, m := session.ReplayMatch(g, rec)
	out := map[string]any{"verdict": verdict}
	if m != nil {
		out["view"] = m.View(session.Spectator)
	}
	return out, nil
}

// seatOf is the request's seat, which must be one of the session's.
func seatOf(r request, s *session.GameSession) (int, error) {
	if r.Seat == nil || *r.Seat < 0 || *r.Seat >= s.Seats() {
		return 0, fail(CodeBadRequest, "a seat from 0 to %d is needed", s.Seats()-1)
	}
	return *r.Seat, nil
}

// beatsFor returns each viewer's beats of a step.
func beatsFor(st session.Step, viewers []int) ([]json.RawMessage, error) {
	out := make([]json.RawMessage, 0, len(viewers))
	for _, v := range viewers {
		b, err := st.AppendBeats(nil, v)
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}

// pending lists the seats that may move, never null.
func pending(s *session.GameSession) []int {
	return append([]int{}, s.Match().Pending()...)
}

// follow plays beats on a view with the game's reducer.
func (c *Core) follow(r request) (any, error) {
	g, ok := c.games.Lookup(r.Game)
	if !ok {
		return nil, fail(CodeUnknownGame, "no game %q", session.Clip(r.Game))
	}
	f, err := session.FollowerOf(g)
	if err != nil {
		return nil, fail(CodeBadRequest, "%v", err)
	}
	v, err := f.Apply(r.View, r.Beats)
	if err != nil {
		return nil, fail(CodeBadRequest, "%v", err)
	}
	return map[string]json.RawMessage{"view": v}, nil
}
