package minesweeper

import (
	"encoding/json"
	"errors"
	"math"
	"testing"

	"github.com/roomd/roomd/core/session"
)

// The seed corpora live in testdata/fuzz/<FuzzName>/; a few seeds are also
// added here so the fuzzers start from the interesting shapes.

// FuzzDecodeMove: no input panics; the hand-written decoder accepts no
// invalid JSON; an accepted move agrees with encoding/json's reading of the
// same document and survives a round trip; every error is a malformed
// rejection.
func FuzzDecodeMove(f *testing.F) {
	for _, s := range []string{
		`{"type":"reveal","r":0,"c":0}`,
		`{"type":"chord","r":15,"c":29,"extra":[{"x":null}]}`,
		`{"type":"flag","r":1e0,"c":-0}`,
		`{"type":"re\u0076eal","r":1,"c":2}`,
		`{"type":"dig","r":0,"c":0}`,
		`{"type":"reveal","r":1.5,"c":"1"}`,
		`{"type":"reveal","r":0,"r":1,"c":0}`,
		`null`,
		`{"type":"reveal","r":99999999999,"c":0}`,
		`{"type":"flag","r":999999999,"c":05}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var direct Move
		derr := direct.UnmarshalJSON(data)
		m, err := session.DecodeMove[Move](data)
		var fast Move
		if fast.ParseCanonical(data) && (derr != nil || fast != direct) {
			t.Fatalf("ParseCanonical(%q) = %+v; UnmarshalJSON %+v, %v", data, fast, direct, derr)
		}
		if derr != nil {
			var rej *session.Rejection
			if !errors.As(derr, &rej) || !rej.Malformed {
				t.Fatalf("error %v is not a malformed rejection", derr)
			}
			// session.DecodeMove trims with bytes.TrimSpace, which also
			// strips non-JSON space (\v, \f, U+0085, U+00A0); only valid
			// JSON must be judged alike.
			if err == nil && json.Valid(data) {
				t.Fatalf("DecodeMove accepts %q that UnmarshalJSON refuses: %v", data, derr)
			}
			return
		}
		if !json.Valid(data) {
			t.Fatalf("accepted invalid JSON %q", data)
		}
		if err != nil || m != direct {
			t.Fatalf("DecodeMove %+v, %v; UnmarshalJSON %+v", m, err, direct)
		}
		var generic map[string]any
		if err := json.Unmarshal(data, &generic); err != nil {
			t.Fatalf("encoding/json: %v", err)
		}
		r, rok := generic["r"].(float64)
		c, cok := generic["c"].(float64)
		if generic["type"] != direct.Type.String() || !rok || !cok || r != float64(direct.R) || c != float64(direct.C) || r != math.Trunc(r) {
			t.Fatalf("%q: decoded %+v, encoding/json reads %v", data, direct, generic)
		}
		var back Move
		if err := json.Unmarshal(mustJSON(t, direct), &back); err != nil || back != direct {
			t.Fatalf("round trip %+v: %+v %v", direct, back, err)
		}
	})
}

// FuzzDecodeConfig: no input panics; an accepted config is valid, echoes
// its input compacted, and plays (Init and a first reveal terminate).
func FuzzDecodeConfig(f *testing.F) {
	for _, s := range []string{
		`{"rows":9,"cols":9,"mines":10,"id":"beginner","name":"Noobs"}`,
		`{"level":"expert","mode":"race"}`,
		`{"level":"custom","rows":3,"cols":3,"mines":8}`,
		`{"rows":3,"cols":3,"mines":9}`,
		`{"rows":9.5,"cols":9,"mines":10}`,
		`{}`,
		`{"level":"nightmare","rows":20}`,
		`[]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := DecodeConfig(data)
		if err != nil {
			var rej *session.Rejection
			if !errors.As(err, &rej) || rej.Code != session.CodeInvalidConfig {
				t.Fatalf("error %v is not an invalid-config rejection", err)
			}
			return
		}
		if err := c.Validate(); err != nil {
			t.Fatalf("decoded an invalid config: %v", err)
		}
		if !json.Valid(c.Raw()) || string(c.Raw()) != string(compact(t, data)) {
			t.Fatalf("echo %s of %s", c.Raw(), data)
		}
		seats, _ := seatRange(c.ModeOrSolo())
		s, err := NewState(session.IntSeed(1), c, seats)
		if err != nil {
			t.Fatalf("init: %v", err)
		}
		if _, err := s.apply(0, Move{Reveal, c.Rows - 1, c.Cols - 1}); err != nil {
			t.Fatalf("first reveal: %v", err)
		}
	})
}

// FuzzReplayRecord: no record panics DecodeRecord or Replay, and a valid
// verdict is a finished game.
func FuzzReplayRecord(f *testing.F) {
	for _, s := range []string{
		`{"seed":42,"config":{"rows":9,"cols":9,"mines":10},"log":[{"move":{"type":"reveal","r":0,"c":0},"t":1},{"move":{"type":"reveal","r":0,"c":4},"t":2}]}`,
		`{"seed":1,"config":{"level":"beginner","mode":"race"},"seats":2,"log":[{"seat":1,"move":{"type":"reveal","r":4,"c":4},"t":0},{"move":{"type":"flag","r":0,"c":0},"t":0}]}`,
		`{"seed":5,"config":{"rows":4,"cols":4,"mines":8},"log":[{"move":{"type":"reveal","r":1,"c":1}},{"move":null,"t":3}]}`,
		`{"seed":42,"config":{"rows":9,"cols":9,"mines":10},"log":[{"move":{"type":"reveal","r":6,"c":9},"t":1}]}`,
		`{"seed":42,"config":{"rows":3,"cols":3,"mines":9},"log":[]}`,
		`{"seed":42,"config":{"level":"expert","mode":"coop"},"seats":9,"log":[]}`,
		`{"seed":-1,"config":null,"log":[null]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		rec, err := session.DecodeRecord(data)
		if err != nil {
			return
		}
		if len(rec.Log) > 2000 {
			rec.Log = rec.Log[:2000]
		}
		v := session.Replay(Game, rec)
		if v.Valid != (v.Reason == nil) {
			t.Fatalf("verdict %+v", v)
		}
		if v.Valid && v.Status != "won" && v.Status != "lost" {
			t.Fatalf("valid verdict on a %s game", v.Status)
		}
	})
}
