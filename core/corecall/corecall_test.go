package corecall

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/roomd/roomd/core/nim"
	"github.com/roomd/roomd/core/session"
	"github.com/roomd/roomd/core/session/sessiontest"
	"github.com/roomd/roomd/core/tictactoe"
)

func newCore() *Core { return New(session.NewRegistry(nim.Game, tictactoe.Game)) }

// call answers req and decodes the answer into a map.
func call(t *testing.T, c *Core, req string) map[string]json.RawMessage {
	t.Helper()
	var out map[string]json.RawMessage
	if err := json.Unmarshal(c.Call([]byte(req)), &out); err != nil {
		t.Fatalf("%s: the answer is not a JSON object: %v", req, err)
	}
	return out
}

// errorCode is the answer's error code, "" for none.
func errorCode(t *testing.T, c *Core, req string) string {
	t.Helper()
	var e struct{ Code, Message string }
	raw, ok := call(t, c, req)["error"]
	if !ok {
		return ""
	}
	json.Unmarshal(raw, &e)
	if e.Message == "" {
		t.Errorf("%s: error %s without a message", req, raw)
	}
	return e.Code
}

// A tic-tac-toe game through the core: the AI's moves, a refusal with the
// game's own code, every viewer's beats, and a save that replays to the
// same end.
func TestSession(t *testing.T) {
	c := newCore()
	opened := call(t, c, `{"op":"new","game":"tictactoe","seed":1,"config":{},"seats":2}`)
	if string(opened["session"]) != "1" || string(opened["pending"]) != "[0]" {
		t.Fatalf("new: %v", opened)
	}
	if code := errorCode(t, c, `{"op":"apply","session":1,"seat":1,"command":{"type":"mark","r":0,"c":0},"t":0}`); code != "game:NotYourTurn" {
		t.Fatalf("a move out of turn: %q", code)
	}
	for i := 0; ; i++ {
		if i > 9 {
			t.Fatal("ten moves and no end")
		}
		seat := i % 2
		cmd := call(t, c, fmt.Sprintf(`{"op":"ai","session":1,"seat":%d}`, seat))["command"]
		ans := call(t, c, fmt.Sprintf(`{"op":"apply","session":1,"seat":%d,"command":%s,"t":%d,"viewers":[-1,0,1]}`, seat, cmd, i*1000))
		var beats []json.RawMessage
		if err := json.Unmarshal(ans["beats"], &beats); err != nil || len(beats) != 3 {
			t.Fatalf("beats %s: %v", ans["beats"], err)
		}
		var st session.Status
		json.Unmarshal(ans["status"], &st)
		if st.Over {
			break
		}
	}
	saved := call(t, c, `{"op":"save","session":1}`)
	var h session.Header
	json.Unmarshal(saved["header"], &h)
	rec := fmt.Sprintf(`{"seed":%s,"config":%s,"seats":2,"log":%s}`, mustJSON(t, h.Seed), h.Config, saved["log"])
	replayed := call(t, c, `{"op":"replay","game":"tictactoe","record":`+rec+`}`)
	if !strings.Contains(string(replayed["verdict"]), `"valid":true`) ||
		string(replayed["view"]) != string(call(t, c, `{"op":"view","session":1,"viewer":-1}`)["view"]) {
		t.Fatalf("replay of the save: %v", replayed)
	}
	call(t, c, `{"op":"close","session":1}`)
	if code := errorCode(t, c, `{"op":"view","session":1,"viewer":-1}`); code != CodeNoSession {
		t.Fatalf("a closed session: %q", code)
	}
}

// Bad requests get an error naming the problem, never a panic.
func TestBadRequests(t *testing.T) {
	c := newCore()
	call(t, c, `{"op":"new","game":"nim","seed":1,"config":{},"seats":2}`)
	for req, code := range map[string]string{
		``:                                     CodeBadRequest,
		`[]`:                                   CodeBadRequest,
		`"call"`:                               CodeBadRequest,
		`{"op":1}`:                             CodeBadRequest,
		`{"op":"fly"}`:                         CodeBadRequest,
		`{"op":"new","game":"chess","seed":1}`: CodeUnknownGame,
		`{"op":"new","game":"nim","config":{},"seats":2}`:                                     CodeBadRequest,
		`{"op":"new","game":"nim","seed":1,"config":{"pile":0},"seats":2}`:                    CodeRefused,
		`{"op":"apply","session":9,"seat":0,"command":{}}`:                                    CodeNoSession,
		`{"op":"apply","session":1,"command":{"type":"take","n":1}}`:                          CodeBadRequest,
		`{"op":"apply","session":1,"seat":5,"command":{"type":"take","n":1}}`:                 CodeBadRequest,
		`{"op":"apply","session":1,"seat":0,"command":{"type":"take","n":9}}`:                 session.CodeInvalidMove,
		`{"op":"apply","session":1,"seat":0,"command":"take"}`:                                session.CodeMalformedInput,
		`{"op":"advance","session":1}`:                                                        CodeBadRequest,
		`{"op":"view","session":1,"viewer":2}`:                                                CodeBadRequest,
		`{"op":"view","session":1,"viewer":-2}`:                                               CodeBadRequest,
		`{"op":"apply","session":1,"seat":0,"command":{"type":"take","n":1},"viewers":[0,7]}`: CodeBadRequest,
		`{"op":"replay","game":"nim","record":{"seed":1}}`:                                    CodeBadRequest,
		`{"op":"games","pad":"` + strings.Repeat("x", MaxRequestBytes) + `"}`:                 CodeBadRequest,
	} {
		if got := errorCode(t, c, req); got != code {
			t.Errorf("%.80s: error %q, want %q", req, got, code)
		}
	}
	for i := 1; i < MaxSessions; i++ {
		call(t, c, `{"op":"new","game":"nim","seed":1,"config":{},"seats":2}`)
	}
	if code := errorCode(t, c, `{"op":"new","game":"nim","seed":1,"config":{},"seats":2}`); code != CodeTooMany {
		t.Fatalf("session %d: %q", MaxSessions+1, code)
	}
}

func mustJSON(t *testing.T, v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A game that panics answers engine-threw, and the core goes on.
func TestEngineThrew(t *testing.T) {
	c := New(session.NewRegistry(sessiontest.Boom, nim.Game))
	call(t, c, `{"op":"new","game":"boom","seed":1,"config":{},"seats":2}`)
	for _, req := range []string{`{"op":"apply","session":1,"seat":0,"command":{"boom":true}}`, `{"op":"ai","session":1,"seat":0}`} {
		if code := errorCode(t, c, req); code != CodeEngineThrew {
			t.Errorf("%s: %q", req, code)
		}
	}
	if ans := call(t, c, `{"op":"new","game":"nim","seed":1,"config":{},"seats":2}`); string(ans["session"]) != "2" {
		t.Fatalf("after a panic: %v", ans)
	}
}

// TestFollow: a page follows a match with the game's Go reducer: "follow"
// on the view it holds and an update's beats gives the view the core
// projects next; a game without a reducer, or a broken view, is refused.
func TestFollow(t *testing.T) {
	c := New(session.NewRegistry(tictactoe.Game, sessiontest.Tap))
	call(t, c, `{"op":"new","game":"tictactoe","seed":1,"config":{},"seats":2}`)
	held := call(t, c, `{"op":"view","session":1,"viewer":1}`)["view"]
	ans := call(t, c, `{"op":"apply","session":1,"seat":0,"command":{"type":"mark","r":1,"c":1},"t":0,"viewers":[1]}`)
	var beats []json.RawMessage
	json.Unmarshal(ans["beats"], &beats)
	got := call(t, c, fmt.Sprintf(`{"op":"follow","game":"tictactoe","view":%s,"beats":%s}`, held, beats[0]))["view"]
	if want := call(t, c, `{"op":"view","session":1,"viewer":1}`)["view"]; string(got) != string(want) {
		t.Fatalf("followed %s, the core's %s", got, want)
	}
	for req, want := range map[string]string{
		`{"op":"follow","game":"tap","view":{},"beats":[]}`:            CodeBadRequest,
		`{"op":"follow","game":"nope","view":{},"beats":[]}`:           CodeUnknownGame,
		`{"op":"follow","game":"tictactoe","view":[1],"beats":[]}`:     CodeBadRequest,
		`{"op":"follow","game":"tictactoe","view":{},"beats":{"a":1}}`: CodeBadRequest,
	} {
		if code := errorCode(t, c, req); code != want {
			t.Errorf("%s: %q, want %q", req, code, want)
		}
	}
}
