package session_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/roomd/roomd/core/session"
)

type strictInner struct {
	X int `json:"x"`
}

type strictMove struct {
	Type  string            `json:"type"`
	Col   int               `json:"col"`
	Small uint8             `json:"small,omitempty"`
	Ok    bool              `json:"ok,omitempty"`
	F     float64           `json:"f,omitempty"`
	In    strictInner       `json:"in,omitzero"`
	List  []int             `json:"list,omitempty"`
	Pair  [2]int            `json:"pair,omitzero"`
	Tags  map[string]string `json:"tags,omitempty"`
	Skip  int               `json:"-"`
	NoTag int               `json:",omitempty"`
}

// TestStrict: keys as the schema names them, once, known, present unless
// omitempty or omitzero; integers whole and in range; every refusal a
// malformed rejection naming the key.
func TestStrict(t *testing.T) {
	good := []struct {
		in   string
		want strictMove
	}{
		{`{"type":"drop","col":3}`, strictMove{Type: "drop", Col: 3}},
		{`{"type":"drop","col":3.0}`, strictMove{Type: "drop", Col: 3}},
		{` { "col" : -2 , "type": ""} `, strictMove{Col: -2}},
		{`{"type":"a","col":0,"small":255,"ok":true,"f":1.5}`, strictMove{Type: "a", Small: 255, Ok: true, F: 1.5}},
		{`{"in":{"x":7},"list":[1,2],"pair":[3,4],"tags":{"a":"b"},"type":"a","col":1}`, strictMove{Type: "a", Col: 1, In: strictInner{7}, List: []int{1, 2}, Pair: [2]int{3, 4}, Tags: map[string]string{"a": "b"}}},
		{`{"NoTag":9,"type":"a","col":1}`, strictMove{Type: "a", Col: 1, NoTag: 9}},
	}
	for _, c := range good {
		var m strictMove
		if err := session.Strict([]byte(c.in), &m); err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		if m.Type != c.want.Type || m.Col != c.want.Col || m.Small != c.want.Small || m.Ok != c.want.Ok || m.F != c.want.F ||
			m.In != c.want.In || len(m.List) != len(c.want.List) || m.Pair != c.want.Pair || len(m.Tags) != len(c.want.Tags) || m.NoTag != c.want.NoTag {
			t.Errorf("%s: %+v, want %+v", c.in, m, c.want)
		}
	}
	bad := map[string]string{
		`{"Type":"drop"}`:                 `unknown field "Type"`,
		`{}`:                              `missing field "type"`,
		`{"col":1}`:                       `missing field "type"`,
		`{"type":"drop"}`:                 `missing field "col"`,
		`{"type":"drop","col":1,"in":{}}`: `missing field "in.x"`,
		`{"col":1,"col":2}`:               "duplicate key",
		`{"zz":1}`:                        `unknown field "zz"`,
		`{"col":1.5}`:                     `"col" must be an integer`,
		`{"col":"1"}`:                     `"col" must be an integer`,
		`{"col":null}`:                    `"col" must not be null`,
		`{"small":256}`:                   `"small" must be a non-negative integer in range`,
		`{"small":-1}`:                    `"small" must be a non-negative integer in range`,
		`{"col":1e300}`:                   `"col" must be an integer in range`,
		`{"type":3}`:                      `"type" must be a JSON string`,
		`{"ok":"yes"}`:                    `"ok" must be a JSON boolean`,
		`{"in":{"x":1,"y":2}}`:            `unknown field "in.y"`,
		`{"list":[1,"a"]}`:                `"list[1]" must be an integer`,
		`{"pair":[1]}`:                    `"pair" must have 2 items`,
		`{"Skip":1}`:                      `unknown field "Skip"`,
		`[]`:                              "must be a JSON object",
		`{"col":1} x`:                     "must be a JSON object",
		`{"col":1,}`:                      "must be a JSON object",
	}
	for in, want := range bad {
		var m strictMove
		err := session.Strict([]byte(in), &m)
		var rej *session.Rejection
		if !errors.As(err, &rej) || !rej.Malformed || rej.Code != session.CodeMalformedInput || !strings.Contains(rej.Reason, want) {
			t.Errorf("%s: %v, want a malformed rejection with %q", in, err, want)
		}
	}
	if err := session.Strict([]byte(`{}`), strictMove{}); err == nil {
		t.Error("Strict took a struct that is not a pointer")
	}
}
