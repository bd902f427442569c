package sessiontest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/roomd/roomd/core/minesweeper"
	"github.com/roomd/roomd/core/session"
)

// splitmix is the tests' session.Source: SplitMix64, high halves.
type splitmix struct{ s uint64 }

func (r *splitmix) Uint32() uint32 {
	r.s += 0x9e3779b97f4a7c15
	z := r.s
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return uint32((z ^ z>>31) >> 32)
}

const genDraws = 3000

type commandSchema struct {
	name string
	text []byte
}

// commandSchemas returns every game's command schema: the files
// core/*/schema/command.schema.json and minesweeper's constant.
func commandSchemas(t *testing.T) []commandSchema {
	t.Helper()
	files, err := filepath.Glob("../../*/schema/command.schema.json")
	if err != nil || len(files) < 6 {
		t.Fatalf("command schemas: %v, %d files", err, len(files))
	}
	var out []commandSchema
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, commandSchema{filepath.Base(filepath.Dir(filepath.Dir(f))), b})
	}
	return append(out, commandSchema{"minesweeper", []byte(minesweeper.CommandSchema)})
}

func mustCommands(t *testing.T, s commandSchema) *Commands {
	t.Helper()
	c, err := NewCommands(s.text)
	if err != nil {
		t.Fatalf("%s: %v", s.name, err)
	}
	return c
}

// validProblems draws n commands from gen and lists those that are not
// compact JSON objects, with distinct keys, that sch accepts.
func validProblems(sch *jsonschema.Schema, gen func(session.Source) []byte, n int) (cmds [][]byte, problems []string) {
	src := &splitmix{1}
	for range n {
		b := gen(src)
		var compact bytes.Buffer
		_, err := session.Members(b)
		switch {
		case err != nil:
			problems = append(problems, fmt.Sprintf("%s: %v", clipCmd(b), err))
		case !Valid(sch, string(b)):
			problems = append(problems, fmt.Sprintf("%s: refused by the schema", clipCmd(b)))
		case json.Compact(&compact, b) != nil || !bytes.Equal(compact.Bytes(), b):
			problems = append(problems, fmt.Sprintf("%s: not compact", clipCmd(b)))
		}
		cmds = append(cmds, b)
	}
	return cmds, problems
}

// refusal says why a strict decoder checking against sch refuses b: "not
// JSON", "schema" (which reads duplicate keys as the last one wins),
// "duplicate key"; "" if it accepts b.
func refusal(sch *jsonschema.Schema, b []byte) string {
	if !json.Valid(b) {
		return "not JSON"
	}
	if !Valid(sch, string(b)) {
		return "schema"
	}
	if _, err := session.Members(b); err != nil && strings.Contains(err.Error(), "duplicate key") {
		return "duplicate key"
	}
	return ""
}

// invalidProblems draws n malformed commands from gen and lists those not
// refused for the reason their mutation gives.
func invalidProblems(sch *jsonschema.Schema, gen func(session.Source) ([]byte, mutation), n int) (kinds map[mutation]int, problems []string) {
	src, seen := &splitmix{2}, map[string]string{} // the same 100 KiB commands recur
	kinds = map[mutation]int{}
	for range n {
		b, m := gen(src)
		kinds[m]++
		got, ok := seen[string(b)]
		if !ok {
			got = refusal(sch, b)
			seen[string(b)] = got
		}
		want := "schema"
		switch m {
		case mNUL, mTruncate, mTrailing, mTrailingComma, mBadLiteral:
			want = "not JSON"
		case mDuplicate:
			want = "duplicate key"
		}
		if got == "" || got != want && m != mDeep {
			problems = append(problems, fmt.Sprintf("%s %s: refused for %q, want %q", m, clipCmd(b), got, want))
		}
	}
	return kinds, problems
}

func clipCmd(b []byte) string {
	if len(b) > 80 {
		return fmt.Sprintf("%q… (%d bytes)", b[:80], len(b))
	}
	return fmt.Sprintf("%q", b)
}

func compileDoc(t *testing.T, name string, doc any) *jsonschema.Schema {
	t.Helper()
	c := jsonschema.NewCompiler()
	if err := c.AddResource(name, doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile(name)
	if err != nil {
		t.Fatal(err)
	}
	return sch
}

// coverageProblems lists what valid commands cmds never show of the schema
// text: an alternative of its oneOf, a value of a const or enum, an
// optional property present and absent, an integer's minimum and maximum
// (and, over a wide range, values near the minimum and far from it), a
// string's shortest and longest lengths.
func coverageProblems(t *testing.T, text []byte, cmds [][]byte) []string {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	alts := []any{doc}
	if oneOf, ok := doc.(map[string]any)["oneOf"].([]any); ok {
		alts = oneOf
	}
	type stats struct {
		seen            map[string]bool // "present", "absent", values, "len=k"
		minV, maxV      *big.Rat
		nearMin, farMin int
	}
	var problems []string
	for i, alt := range alts {
		sch := compileDoc(t, fmt.Sprintf("alt%d.json", i), alt)
		props, _ := alt.(map[string]any)["properties"].(map[string]any)
		st := map[string]*stats{}
		for name := range props {
			st[name] = &stats{seen: map[string]bool{}}
		}
		matched := 0
		for _, b := range cmds {
			inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
			if err != nil || sch.Validate(inst) != nil {
				continue
			}
			matched++
			obj := inst.(map[string]any)
			for name, ps := range props {
				s := st[name]
				v, ok := obj[name]
				if !ok {
					s.seen["absent"] = true
					continue
				}
				s.seen["present"] = true
				s.seen[fmt.Sprint(v)] = true
				if str, ok := v.(string); ok {
					s.seen[fmt.Sprintf("len=%d", utf8.RuneCountInString(str))] = true
				}
				if n, ok := v.(json.Number); ok {
					r, _ := new(big.Rat).SetString(n.String())
					if s.minV == nil || r.Cmp(s.minV) < 0 {
						s.minV = r
					}
					if s.maxV == nil || r.Cmp(s.maxV) > 0 {
						s.maxV = r
					}
					if lo, ok := ps.(map[string]any)["minimum"].(json.Number); ok {
						d, _ := new(big.Rat).SetString(lo.String())
						if d.Sub(r, d).Cmp(big.NewRat(15, 1)) <= 0 {
							s.nearMin++
						} else if d.Cmp(big.NewRat(1<<20, 1)) > 0 {
							s.farMin++
						}
					}
				}
			}
		}
		if matched == 0 {
			problems = append(problems, fmt.Sprintf("alternative %d never drawn", i))
			continue
		}
		required, _ := alt.(map[string]any)["required"].([]any)
		for name, ps := range props {
			s, p := st[name], ps.(map[string]any)
			want := []string{"present"}
			if !slices.Contains(required, any(name)) {
				want = append(want, "absent")
			}
			if c, ok := p["const"]; ok {
				want = append(want, fmt.Sprint(c))
			}
			for _, e := range anySlice(p["enum"]) {
				want = append(want, fmt.Sprint(e))
			}
			if n, ok := p["minLength"].(json.Number); ok {
				want = append(want, "len="+n.String())
			}
			if n, ok := p["maxLength"].(json.Number); ok {
				want = append(want, "len="+n.String())
			}
			for _, w := range want {
				if !s.seen[w] {
					problems = append(problems, fmt.Sprintf("alternative %d, %q: never %s", i, name, w))
				}
			}
			for _, end := range []struct {
				key string
				got *big.Rat
			}{{"minimum", s.minV}, {"maximum", s.maxV}} {
				if n, ok := p[end.key].(json.Number); ok {
					want, _ := new(big.Rat).SetString(n.String())
					if end.got == nil || end.got.Cmp(want) != 0 {
						problems = append(problems, fmt.Sprintf("alternative %d, %q: %s %s never drawn", i, name, end.key, n))
					}
				}
			}
			if lo, ok := p["minimum"].(json.Number); ok && s.seen["present"] {
				if hi, ok := p["maximum"].(json.Number); ok && len(hi.String()) > 8 && s.farMin == 0 {
					problems = append(problems, fmt.Sprintf("alternative %d, %q: never far from minimum %s", i, name, lo))
				}
				if s.nearMin == 0 {
					problems = append(problems, fmt.Sprintf("alternative %d, %q: never near minimum %s", i, name, lo))
				}
			}
		}
	}
	return problems
}

func anySlice(v any) []any { s, _ := v.([]any); return s }

func reportProblems(t *testing.T, what string, problems []string) {
	t.Helper()
	if len(problems) > 0 {
		t.Errorf("%s: %d problems, first ones:\n%s", what, len(problems), strings.Join(problems[:min(len(problems), 8)], "\n"))
	}
}

func TestCommandsValid(t *testing.T) {
	for _, s := range commandSchemas(t) {
		t.Run(s.name, func(t *testing.T) {
			c := mustCommands(t, s)
			sch := Schema(t, s.name, s.text)
			cmds, problems := validProblems(sch, func(src session.Source) []byte { return c.Valid(src) }, genDraws)
			reportProblems(t, "Valid", problems)
			reportProblems(t, "Valid's coverage", coverageProblems(t, s.text, cmds))
		})
	}
}

func TestCommandsIntegersNearMinimum(t *testing.T) {
	c, err := NewCommands([]byte(`{"type":"object","properties":{"id":{"type":"integer","minimum":1,"maximum":4294967295}},"required":["id"]}`))
	if err != nil {
		t.Fatal(err)
	}
	src := &splitmix{3}
	near := 0
	for range genDraws {
		var cmd struct{ ID uint64 }
		if err := json.Unmarshal(c.Valid(src), &cmd); err != nil {
			t.Fatal(err)
		}
		if cmd.ID <= 16 {
			near++
		}
	}
	if near < genDraws*6/10 || near > genDraws*9/10 {
		t.Errorf("%d of %d ids within minimum..minimum+15, want most but not all", near, genDraws)
	}
}

func TestCommandsInvalid(t *testing.T) {
	all := map[mutation]bool{}
	for _, s := range commandSchemas(t) {
		t.Run(s.name, func(t *testing.T) {
			c := mustCommands(t, s)
			kinds, problems := invalidProblems(Schema(t, s.name, s.text), c.invalid, 2000)
			reportProblems(t, "Invalid", problems)
			if len(kinds) < 13 {
				t.Errorf("Invalid made only %d kinds of mutation: %v", len(kinds), kinds)
			}
			for m := range kinds {
				all[m] = true
			}
		})
	}
	for m := range numMutations {
		if !all[m] {
			t.Errorf("no schema got the mutation %s", m)
		}
	}
}

func TestCommandsHints(t *testing.T) {
	c, err := NewCommands([]byte(`{"type":"object","properties":{"card":{"type":"string","minLength":1,"maxLength":64}},"required":["card"],"additionalProperties":false}`))
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("x", 65)
	c.Hints("Fireball", "Zap", long, "bad\xff", "")
	src, seen := &splitmix{4}, map[string]int{}
	for range genDraws {
		var cmd struct{ Card string }
		if err := json.Unmarshal(c.Valid(src), &cmd); err != nil {
			t.Fatal(err)
		}
		seen[cmd.Card]++
	}
	if hinted := seen["Fireball"] + seen["Zap"]; hinted < genDraws*4/10 || hinted > genDraws*6/10 {
		t.Errorf("%d of %d cards from the hints, want about half", hinted, genDraws)
	}
	if seen[long] > 0 || seen["bad\ufffd"] > 0 || seen[""] > 0 {
		t.Errorf("drew a hint that does not fit: %v", seen)
	}
}

func TestCommandsDeterministic(t *testing.T) {
	s := commandSchemas(t)[0]
	run := func(seed uint64) string {
		c, src := mustCommands(t, s), &splitmix{seed}
		var out []byte
		for range 200 {
			out = append(append(out, c.Valid(src)...), c.Invalid(src)...)
		}
		return string(out)
	}
	if run(7) != run(7) {
		t.Error("the same source gave other commands")
	}
	if run(7) == run(8) {
		t.Error("two sources gave the same commands")
	}
}

func decodeCmd(t *testing.T, b []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s: %v", clipCmd(b), err)
	}
	return v
}

func memberKeys(t *testing.T, b []byte) []string {
	t.Helper()
	ms, err := session.Members(b)
	if err != nil {
		t.Fatalf("%s: %v", clipCmd(b), err)
	}
	var out []string
	for _, m := range ms {
		out = append(out, m.Key)
	}
	return out
}

func TestPadded(t *testing.T) {
	var spaced, reordered, escaped bool
	for _, s := range commandSchemas(t) {
		c, sch, src := mustCommands(t, s), Schema(t, s.name, s.text), &splitmix{5}
		for range 500 {
			cmd := c.Valid(src)
			p, err := Padded(src, cmd)
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Equal(p, cmd) || !Valid(sch, string(p)) || !reflect.DeepEqual(decodeCmd(t, p), decodeCmd(t, cmd)) {
				t.Fatalf("%s: Padded(%s) = %s", s.name, cmd, p)
			}
			spaced = spaced || bytes.ContainsAny(p, "\t\n\r")
			escaped = escaped || bytes.Contains(p, []byte(`\u`))
			reordered = reordered || !slices.Equal(memberKeys(t, p), memberKeys(t, cmd))
		}
	}
	if !spaced || !reordered || !escaped {
		t.Errorf("Padded never: tab or newline %v, reordered %v, escaped %v", spaced, reordered, escaped)
	}
	for _, bad := range []string{`[1]`, `{"a":1`, `{} {}`, `"x"`} {
		if _, err := Padded(&splitmix{}, json.RawMessage(bad)); err == nil {
			t.Errorf("Padded(%s) made no error", bad)
		}
	}
}

func TestWithUnknown(t *testing.T) {
	for _, s := range commandSchemas(t) {
		c, sch, src := mustCommands(t, s), Schema(t, s.name, s.text), &splitmix{6}
		closed := bytes.Contains(s.text, []byte(`"additionalProperties": false`))
		for range 200 {
			cmd := c.Valid(src)
			u, err := WithUnknown(src, cmd)
			if err != nil {
				t.Fatal(err)
			}
			v := decodeCmd(t, u).(map[string]any)
			if v[UnknownField] != 1.0 || len(memberKeys(t, u)) != len(memberKeys(t, cmd))+1 {
				t.Fatalf("%s: WithUnknown(%s) = %s", s.name, cmd, u)
			}
			delete(v, UnknownField)
			if !reflect.DeepEqual(v, decodeCmd(t, cmd)) || Valid(sch, string(u)) == closed {
				t.Fatalf("%s: WithUnknown(%s) = %s, schema accepts it: %v", s.name, cmd, u, !closed)
			}
		}
	}
	if _, err := WithUnknown(&splitmix{}, json.RawMessage(`{"zz_unknown":2}`)); err == nil {
		t.Error("WithUnknown added a second zz_unknown")
	}
}

func TestNewCommandsRefuses(t *testing.T) {
	for _, tc := range []struct{ schema, want string }{
		{`{"type":"object","properties":{"n":{"type":"integer","exclusiveMinimum":0}}}`, `"exclusiveMinimum" is not supported`},
		{`{"type":"object","properties":{"s":{"type":"string","pattern":"a"}}}`, `"pattern" is not supported`},
		{`{"type":"object","allOf":[]}`, `"allOf" is not supported`},
		{`{"$ref":"#/x"}`, `"$ref" is not supported`},
		{`{"type":"object","properties":{"b":{"type":"boolean"}}}`, `"type" must be`},
		{`{"type":"object","additionalProperties":{}}`, `"additionalProperties" must be true or false`},
		{`{"type":"object","properties":{"n":{"type":"integer","minimum":3,"maximum":2}}}`, "minimum is above"},
		{`{"type":"object","properties":{"n":{"type":"integer","minimum":0.5}}}`, `"minimum" must be an integer`},
		{`{"type":"object","properties":{"n":{"minimum":1}}}`, `"minimum" needs "type": "integer"`},
		{`{"type":"object","required":["a"]}`, `names "a"`},
		{`{"type":"object","properties":{"a":{"enum":[]}}}`, `"enum" must be a non-empty array`},
		{`{"type":"object","properties":{"a":{"enum":[{}]}}}`, `"enum" must be made of`},
		{`{"type":"object","properties":{"a":{"type":"integer","const":"x"}}}`, `not of its type`},
		{`{"type":"object","properties":{"a":{}}}`, "needs type, const, enum or oneOf"},
		{`{"type":"object","properties":{"a":true}}`, "must be an object"},
		{`{"type":"integer"}`, "must have type object"},
		{`{"type":"object","oneOf":[{"type":"object"}]}`, `"type" beside oneOf`},
		{`{"oneOf":[{"type":"object"},{"type":"object"}]}`, `"/oneOf/0": the values of this oneOf alternative match another`},
		{`{"type":"object","type":"object"}`, "appears twice"},
		{`{"type":"object"`, "command schema"},
	} {
		_, err := NewCommands(json.RawMessage(tc.schema))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("NewCommands(%s) = %v, want an error with %q", tc.schema, err, tc.want)
		}
	}
}

// TestChecksCatchBrokenGenerators shows that the checks above fail for
// generators that are wrong.
func TestChecksCatchBrokenGenerators(t *testing.T) {
	byName := map[string]commandSchema{}
	for _, s := range commandSchemas(t) {
		byName[s.name] = s
	}
	nim, baba := byName["nim"], byName["babagame"]
	sch := Schema(t, "nim", nim.text)

	wide := mustCommands(t, nim)
	wide.root.prop("n").schema.max = 4 // genDraws n = 4, which the schema refuses
	if _, problems := validProblems(sch, func(src session.Source) []byte { return wide.Valid(src) }, 500); len(problems) == 0 {
		t.Error("a generator drawing n up to 4 passed the validity check")
	}

	narrow := mustCommands(t, nim)
	narrow.root.prop("n").schema.max = 2 // never genDraws the maximum, 3
	cmds, _ := validProblems(sch, func(src session.Source) []byte { return narrow.Valid(src) }, 500)
	if problems := coverageProblems(t, nim.text, cmds); len(problems) == 0 {
		t.Error("a generator never drawing n = 3 passed the coverage check")
	}

	half := mustCommands(t, baba)
	half.root.oneOf = half.root.oneOf[:1] // only steps, never undo or restart
	cmds, _ = validProblems(Schema(t, "babagame", baba.text), func(src session.Source) []byte { return half.Valid(src) }, 500)
	if problems := coverageProblems(t, baba.text, cmds); len(problems) == 0 {
		t.Error("a generator without the second alternative passed the coverage check")
	}

	c := mustCommands(t, nim)
	for _, m := range []mutation{mWrongType, mDuplicate, mTruncate} {
		valid := func(src session.Source) ([]byte, mutation) { return c.Valid(src), m }
		if _, problems := invalidProblems(sch, valid, 100); len(problems) != 100 {
			t.Errorf("valid commands labelled %s passed the invalidity check", m)
		}
	}
	dup := func(src session.Source) ([]byte, mutation) { // duplicate keys, labelled a schema violation
		b, _ := c.mutate(mDuplicate, c.gen(c.root, src), src)
		return b, mMissing
	}
	if _, problems := invalidProblems(sch, dup, 100); len(problems) != 100 {
		t.Error("duplicate keys passed as a schema violation")
	}
}
