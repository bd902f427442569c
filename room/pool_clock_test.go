package room

import (
	"encoding/json"
	"testing"
)

// FuzzSplitClock: whatever a client sends as settings, splitClock never
// panics; a clock it accepts is within the bounds, and its canonical form
// reads back as the same clock with the same pool key.
func FuzzSplitClock(f *testing.F) {
	for _, s := range []string{`{}`, `{"clock":{"moveMs":5000}}`, `{"clock":{"baseMs":300000,"incrementMs":2000}}`,
		`{"clock":{"baseMs":60000}}`, `{"clock":null}`, `{"clock":{"moveMs":1e3}}`, `{"clock":[]}`, `[]`, `{"clock":{"moveMs":-1}}`,
		`{"mode":"classic","clock":{"moveMs":3600000}}`, `{"clock":{"baseMs":10800001}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		rest, c, err := splitClock(json.RawMessage(data))
		if err != nil || c == nil {
			return
		}
		if c.MoveMs != 0 && (c.MoveMs < minMoveMs || c.MoveMs > maxMoveMs) ||
			c.MoveMs == 0 && (c.BaseMs < minBaseMs || c.BaseMs > maxBaseMs || c.IncrementMs < 0 || c.IncrementMs > maxIncrementMs) {
			t.Fatalf("clock %+v out of bounds from %q", *c, data)
		}
		var fields map[string]json.RawMessage
		if json.Unmarshal(rest, &fields) != nil {
			t.Fatalf("settings without the clock %q do not decode", rest)
		}
		if _, ok := fields["clock"]; ok {
			t.Fatalf("the clock stayed in %q", rest)
		}
		again, c2, err := splitClock(json.RawMessage(`{"clock":` + string(c.canonical()) + `}`))
		if err != nil || c2 == nil || *c2 != *c || c2.key() != c.key() || string(again) != `{}` {
			t.Fatalf("canonical %s reads back as %+v, %v", c.canonical(), c2, err)
		}
	})
}
