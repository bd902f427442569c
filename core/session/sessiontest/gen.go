package sessiontest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/roomd/roomd/core/session"
)

// Commands generates random commands from a game's command schema
// (session.Info.CommandSchema), to fuzz the game with: Valid ones the
// schema accepts and Invalid ones it refuses. It knows the subset of JSON
// Schema (draft 2020-12) that the games use. Valid and Invalid only read
// the Commands and may run concurrently; Hints must not run beside them.
type Commands struct {
	root  *node
	hints []string
}

// UnknownField is the member WithUnknown adds to a command, with the value 1.
const UnknownField = "zz_unknown"

const (
	maxSafe   = 1 << 53 // integers beyond it are not exact in float64
	maxGenLen = 4096    // the longest string Valid draws, in code points
	maxTries  = 1000    // draws before giving up
	hugeLen   = 100 << 10
)

// node is one compiled (sub)schema.
type node struct {
	path           string  // JSON pointer to it in the schema, for errors
	typ            string  // "object", "integer", "string" or "" (none)
	enum           []value // the values of const or enum; nil if neither
	oneOf          []*node
	props          []prop // in the schema's order
	closed         bool   // additionalProperties: false
	min, max       int64  // ±maxSafe when absent
	hasMin, hasMax bool
	minLen, maxLen int // maxLen is -1 when absent
}

type prop struct {
	name     string
	required bool
	schema   *node
}

// A value is a JSON value as the generator builds it: nil (null), bool,
// lit, string (any bytes, not necessarily UTF-8), []value or *object.
type value any

// lit is a JSON number written as is; a malformed command may hold any
// token in one.
type lit string

// object is a JSON object whose members keep their order and duplicates.
type object struct {
	schema  *node // the object schema it was drawn from; nil if none
	members []member
}

type member struct {
	key      string
	val      value
	schema   *node // the property's schema; nil for an unknown member
	required bool
}

// annotations are the keywords that say nothing about validity.
var annotations = map[string]bool{"$schema": true, "$id": true, "$comment": true,
	"title": true, "description": true, "examples": true, "default": true}

// NewCommands compiles schema: type (object, integer or string),
// properties, required, additionalProperties (true or false), const, enum
// (of strings, numbers, booleans or null), minimum, maximum, minLength,
// maxLength and oneOf; the annotations $schema, $id, $comment, title,
// description, examples and default are ignored. Any other keyword is an
// error that names it, and so is a root that is not an object schema (or a
// oneOf of them), limits that leave no value, or a oneOf alternative whose
// values another alternative accepts as well.
func NewCommands(schema json.RawMessage) (*Commands, error) {
	doc, err := parse(schema)
	if err != nil {
		return nil, fmt.Errorf("sessiontest: command schema: %w", err)
	}
	root, err := compile(doc, "")
	if err != nil {
		return nil, fmt.Errorf("sessiontest: command schema %w", err)
	}
	if !root.isObject() {
		return nil, errors.New("sessiontest: command schema must have type object, or be a oneOf of such schemas")
	}
	c := &Commands{root: root}
	if err := c.separable(root); err != nil {
		return nil, fmt.Errorf("sessiontest: command schema %w", err)
	}
	return c, nil
}

// Hints sets the strings that Valid draws a string property from half of
// the time, such as the card names a game knows; only those whose length
// fits the property are drawn, and strings that are not UTF-8 are dropped.
// It replaces the previous hints (none at first).
func (c *Commands) Hints(strs ...string) {
	c.hints = c.hints[:0:0]
	for _, s := range strs {
		if utf8.ValidString(s) {
			c.hints = append(c.hints, s)
		}
	}
}

// Valid returns a random command that the schema accepts, compact, its
// members in the schema's order. Each alternative of a oneOf is equally
// likely, every required property is there and each optional one with
// probability 1/2; const and enum values are drawn exactly. An integer is
// 11 times in 16 uniform within minimum..minimum+15 (up to the maximum), 2
// in 16 the minimum, 2 in 16 the maximum and 1 in 16 uniform over the whole
// range (without a minimum: near 0, and ±2^53 stand for absent limits). A
// string is half of the time one of the hints that fit, else made of a
// small alphabet (ASCII and a few multi-byte characters), its length in
// code points mostly within minLength..minLength+15, 1 in 8 minLength and 1
// in 8 maxLength (at most 4096; minLength+16 without maxLength).
func (c *Commands) Valid(src session.Source) json.RawMessage {
	return encode(c.gen(c.root, src))
}

// Invalid returns a random command that the schema refuses, or that is
// not one JSON value at all, or that repeats a key (which strict decoders
// such as session.Members refuse): a valid command with one mutation, each
// kind equally likely among those that apply. The schema refuses these: a
// required member removed; a value of another type ("1", 1.5, true, null,
// [], [v], {"v":v}...); an integer out of range (minimum-1, maximum+1, -1,
// 2^32, 2^64, ±1e30, 1e400...); a const or enum string changed (unknown,
// empty, upper-cased, spaced, with "\u0000", cut); an unknown member where
// additionalProperties is false; a key in another case ("TYPE", which
// encoding/json would match); no object (a number, a string, the command as
// a JSON string, true, null, [], [command]); a value or the command nested
// 64, 1000 or 10001 arrays or objects deep; a string of maxLength+1 code
// points or of 100 KiB, or of minLength-1; bytes that are not UTF-8 in a key
// or a const string (where a decoder's U+FFFD changes the meaning). Not JSON:
// a literal JSON lacks (01, +1, .5, 0x1, NaN, 'x', True, undefined...); a
// raw NUL byte; the text cut short; data after the object (a second copy,
// "}", a comment...); a stray comma. Last, a key repeated. A mutation that
// leaves a command the schema accepts (an extra member where
// additionalProperties is not false, say) is drawn again.
func (c *Commands) Invalid(src session.Source) []byte {
	b, _ := c.invalid(src)
	return b
}

// Padded re-encodes cmd, one JSON object, as another text of the same value
// that a strict decoder must read alike: whitespace (space, tab, line feed,
// carriage return) between tokens, every object's members shuffled, and
// some characters of strings written as escapes (\u0074, \/). The result
// always differs from cmd's compact form. A game must store the command in
// its canonical form, without any of these.
func Padded(src session.Source, cmd json.RawMessage) ([]byte, error) {
	o, err := parseObject(cmd)
	if err != nil {
		return nil, fmt.Errorf("sessiontest: padded: %w", err)
	}
	shuffle(o, src)
	return appendPadded(nil, o, src, true), nil
}

// WithUnknown returns cmd, one JSON object, compact with the member
// "zz_unknown":1 (UnknownField) inserted at a random place among its
// members. A game must refuse it where its schema says additionalProperties
// is false, and otherwise never store it. cmd must not have the member yet.
func WithUnknown(src session.Source, cmd json.RawMessage) ([]byte, error) {
	o, err := parseObject(cmd)
	if err != nil {
		return nil, fmt.Errorf("sessiontest: with unknown: %w", err)
	}
	if o.has(UnknownField, -1) {
		return nil, fmt.Errorf("sessiontest: with unknown: the command has %q already", UnknownField)
	}
	o.members = slices.Insert(o.members, session.Intn(src, len(o.members)+1), member{key: UnknownField, val: lit("1")})
	return encode(o), nil
}

// parse reads one JSON value, keeping the order and duplicates of members.
func parse(data []byte) (value, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := parseValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("data after the JSON value")
	}
	return v, nil
}

func parseObject(data []byte) (*object, error) {
	v, err := parse(data)
	if o, ok := v.(*object); ok || err != nil {
		return o, err
	}
	return nil, session.ErrNotObject
}

func parseValue(dec *json.Decoder) (value, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		o, arr := &object{}, []value{}
		for dec.More() {
			var k json.Token
			if t == '{' {
				if k, err = dec.Token(); err != nil {
					return nil, err
				}
			}
			v, err := parseValue(dec)
			if err != nil {
				return nil, err
			}
			key, _ := k.(string) // the decoder allows only strings as keys
			o.members, arr = append(o.members, member{key: key, val: v}), append(arr, v)
		}
		if _, err := dec.Token(); err != nil || t == '[' {
			return arr, err
		}
		return o, nil
	case json.Number:
		return lit(t), nil
	}
	return tok, nil // string, bool or nil
}

// has reports whether the first i members of o (all if i < 0) have key.
func (o *object) has(key string, i int) bool {
	if i < 0 {
		i = len(o.members)
	}
	return slices.ContainsFunc(o.members[:i], func(m member) bool { return m.key == key })
}

// gen draws a value that n accepts.
func (c *Commands) gen(n *node, src session.Source) value {
	switch {
	case n.oneOf != nil:
		alt := n.oneOf[session.Intn(src, len(n.oneOf))]
		for range maxTries {
			if v := c.gen(alt, src); n.accepts(v) {
				return v
			}
		}
		panic(fmt.Sprintf("sessiontest: no value drawn from %q is accepted by this oneOf alternative only", alt.path))
	case n.enum != nil:
		return n.enum[session.Intn(src, len(n.enum))]
	}
	switch n.typ {
	case "object":
		o := &object{schema: n}
		for _, p := range n.props {
			if p.required || session.Intn(src, 2) == 0 {
				o.members = append(o.members, member{p.name, c.gen(p.schema, src), p.schema, p.required})
			}
		}
		return o
	case "integer":
		return lit(strconv.FormatInt(drawInt(src, n), 10))
	}
	return c.drawString(src, n)
}

func drawInt(src session.Source, n *node) int64 {
	anchor := n.min
	if !n.hasMin {
		anchor = min(max(0, n.min), n.max)
	}
	switch r := session.Intn(src, 16); {
	case r < 2:
		return n.min
	case r < 4:
		return n.max
	case r < 5:
		return n.min + int64(uniform(src, uint64(n.max-n.min)))
	}
	return anchor + int64(session.Intn(src, int(min(16, n.max-anchor+1))))
}

// uniform returns a number in [0, span], as good as uniform for a span up
// to 2^54.
func uniform(src session.Source, span uint64) uint64 {
	return (uint64(src.Uint32())<<32 | uint64(src.Uint32())) % (span + 1)
}

// alphabet is what Valid's strings are made of: one character each.
var alphabet = []string{"a", "b", "c", "x", "y", "z", "A", "Z", "0", "1", "9", " ", "-", "_", ".", "é", "ß", "Ж", "日", "😀"}

func (c *Commands) drawString(src session.Source, n *node) string {
	if len(c.hints) > 0 && session.Intn(src, 2) == 0 {
		var fits []string
		for _, h := range c.hints {
			if k := utf8.RuneCountInString(h); k >= n.minLen && (n.maxLen < 0 || k <= n.maxLen) {
				fits = append(fits, h)
			}
		}
		if len(fits) > 0 {
			return fits[session.Intn(src, len(fits))]
		}
	}
	lo, hi := n.minLen, n.maxLen
	if hi < 0 {
		hi = lo + 16
	}
	hi = min(hi, max(lo, maxGenLen))
	k := lo + session.Intn(src, min(hi-lo, 15)+1)
	switch session.Intn(src, 8) {
	case 0:
		k = lo
	case 1:
		k = hi
	}
	var b strings.Builder
	for range k {
		b.WriteString(alphabet[session.Intn(src, len(alphabet))])
	}
	return b.String()
}
