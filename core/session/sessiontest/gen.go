package sessiontest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
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

var pointerEscaper = strings.NewReplacer("~", "~0", "/", "~1")

// compile compiles the schema v found at path.
func compile(v value, path string) (*node, error) {
	at := "at " + strconv.Quote(path)
	if path == "" {
		at = "at its root"
	}
	o, ok := v.(*object)
	if !ok {
		return nil, fmt.Errorf("%s: a schema must be an object, not %s", at, encode(v))
	}
	n := &node{path: path, min: -maxSafe, max: maxSafe, maxLen: -1}
	var (
		keywords []string // the ones that constrain, in order
		required []string
		props    *object
	)
	for i, m := range o.members {
		if o.has(m.key, i) {
			return nil, fmt.Errorf("%s: keyword %q appears twice", at, m.key)
		}
		if annotations[m.key] {
			continue
		}
		keywords = append(keywords, m.key)
		bad := func(want string) error {
			return fmt.Errorf("%s: keyword %q must be %s, not %s", at, m.key, want, encode(m.val))
		}
		switch m.key {
		case "type":
			s, _ := m.val.(string)
			if s != "object" && s != "integer" && s != "string" {
				return nil, bad(`"object", "integer" or "string" (the others are not supported)`)
			}
			n.typ = s
		case "properties":
			if props, ok = m.val.(*object); !ok {
				return nil, bad("an object")
			}
		case "required":
			arr, ok := m.val.([]value)
			if !ok {
				return nil, bad("an array of strings")
			}
			for _, e := range arr {
				s, ok := e.(string)
				if !ok || slices.Contains(required, s) {
					return nil, bad("an array of distinct strings")
				}
				required = append(required, s)
			}
		case "additionalProperties":
			b, ok := m.val.(bool)
			if !ok {
				return nil, bad("true or false (a schema is not supported)")
			}
			n.closed = !b
		case "const", "enum":
			vals := []value{m.val}
			if m.key == "enum" {
				if vals, ok = m.val.([]value); !ok || len(vals) == 0 {
					return nil, bad("a non-empty array")
				}
			}
			for _, e := range vals {
				switch e.(type) {
				case *object, []value:
					return nil, bad("made of strings, numbers, booleans or null")
				}
			}
			if n.enum != nil {
				return nil, fmt.Errorf("%s: keyword %q beside the other of const and enum is not supported", at, m.key)
			}
			n.enum = vals
		case "minimum", "maximum", "minLength", "maxLength":
			l, _ := m.val.(lit)
			f, ok := session.Whole(json.RawMessage(l))
			length := strings.HasSuffix(m.key, "Length")
			if !ok || math.Abs(f) > maxSafe || length && (f < 0 || f > math.MaxInt32 || m.key == "minLength" && f > maxGenLen) {
				return nil, bad("an integer within ±2^53 (a length from 0 to 2^31-1, a minLength at most 4096)")
			}
			switch m.key {
			case "minimum":
				n.min, n.hasMin = int64(f), true
			case "maximum":
				n.max, n.hasMax = int64(f), true
			case "minLength":
				n.minLen = int(f)
			default:
				n.maxLen = int(f)
			}
		case "oneOf":
			arr, ok := m.val.([]value)
			if !ok || len(arr) == 0 {
				return nil, bad("a non-empty array of schemas")
			}
			for i, e := range arr {
				alt, err := compile(e, path+"/oneOf/"+strconv.Itoa(i))
				if err != nil {
					return nil, err
				}
				n.oneOf = append(n.oneOf, alt)
			}
		default:
			return nil, fmt.Errorf("%s: keyword %q is not supported", at, m.key)
		}
	}
	needs := map[string]string{"properties": "object", "required": "object", "additionalProperties": "object",
		"minimum": "integer", "maximum": "integer", "minLength": "string", "maxLength": "string"}
	for _, k := range keywords {
		if n.oneOf != nil && k != "oneOf" {
			return nil, fmt.Errorf("%s: keyword %q beside oneOf is not supported", at, k)
		}
		if t, ok := needs[k]; ok && n.typ != t {
			return nil, fmt.Errorf("%s: keyword %q needs \"type\": %q", at, k, t)
		}
	}
	if n.typ == "" && n.enum == nil && n.oneOf == nil {
		return nil, fmt.Errorf("%s: a schema needs type, const, enum or oneOf", at)
	}
	if props != nil {
		for i, m := range props.members {
			if props.has(m.key, i) {
				return nil, fmt.Errorf("%s: property %q appears twice", at, m.key)
			}
			sub, err := compile(m.val, path+"/properties/"+pointerEscaper.Replace(m.key))
			if err != nil {
				return nil, err
			}
			n.props = append(n.props, prop{name: m.key, required: slices.Contains(required, m.key), schema: sub})
		}
	}
	for _, r := range required {
		if n.prop(r) == nil {
			return nil, fmt.Errorf("%s: keyword \"required\" names %q, which is not in properties", at, r)
		}
	}
	if n.min > n.max || (n.maxLen >= 0 && n.minLen > n.maxLen) {
		return nil, fmt.Errorf("%s: the minimum is above the maximum", at)
	}
	if n.typ != "" {
		for _, e := range n.enum {
			if !n.acceptsType(e) {
				return nil, fmt.Errorf("%s: the value %s is not of its type %q or out of its limits", at, encode(e), n.typ)
			}
		}
	}
	return n, nil
}

func (n *node) prop(name string) *prop {
	for i := range n.props {
		if n.props[i].name == name {
			return &n.props[i]
		}
	}
	return nil
}

// isObject reports whether n accepts only objects, and some.
func (n *node) isObject() bool {
	if n.oneOf == nil {
		return n.typ == "object"
	}
	return !slices.ContainsFunc(n.oneOf, func(alt *node) bool { return !alt.isObject() })
}

// separable checks that every oneOf alternative under n yields values the
// oneOf accepts, drawing from a fixed source (inner alternatives first).
func (c *Commands) separable(n *node) error {
	for _, p := range n.props {
		if err := c.separable(p.schema); err != nil {
			return err
		}
	}
	for i, alt := range n.oneOf {
		if err := c.separable(alt); err != nil {
			return err
		}
		src, ok := session.NewRNG(int64(i)+1), false
		for range 256 {
			if ok = n.accepts(c.gen(alt, src)); ok {
				break
			}
		}
		if !ok {
			return fmt.Errorf("at %q: the values of this oneOf alternative match another one too", alt.path)
		}
	}
	return nil
}

// accepts reports whether the schema n accepts v, reading strings as a
// decoder that replaces each invalid UTF-8 byte with U+FFFD does, and
// duplicate keys as the last one wins.
func (n *node) accepts(v value) bool {
	if n.oneOf != nil {
		matches := 0
		for _, alt := range n.oneOf {
			if alt.accepts(v) {
				matches++
			}
		}
		return matches == 1
	}
	if n.enum != nil && !slices.ContainsFunc(n.enum, func(e value) bool { return equal(e, v) }) {
		return false
	}
	return n.acceptsType(v)
}

// acceptsType is accepts without const, enum and oneOf.
func (n *node) acceptsType(v value) bool {
	switch n.typ {
	case "object":
		o, ok := v.(*object)
		if !ok {
			return false
		}
		last := map[string]value{}
		for _, m := range o.members {
			last[lenient(m.key)] = m.val
		}
		for _, p := range n.props {
			if _, ok := last[p.name]; !ok && p.required {
				return false
			}
		}
		for k, val := range last {
			if p := n.prop(k); p != nil && !p.schema.accepts(val) || p == nil && n.closed {
				return false
			}
		}
	case "integer":
		l, ok := v.(lit)
		r, okr := new(big.Rat).SetString(string(l))
		if !ok || !okr || !r.IsInt() {
			return false
		}
		return (!n.hasMin || r.Cmp(big.NewRat(n.min, 1)) >= 0) && (!n.hasMax || r.Cmp(big.NewRat(n.max, 1)) <= 0)
	case "string":
		s, ok := v.(string)
		if !ok {
			return false
		}
		k := utf8.RuneCountInString(lenient(s))
		return k >= n.minLen && (n.maxLen < 0 || k <= n.maxLen)
	}
	return true
}

// equal reports whether two scalars are the same JSON value.
func equal(a, b value) bool {
	switch a := a.(type) {
	case nil:
		return b == nil
	case bool:
		bb, ok := b.(bool)
		return ok && a == bb
	case string:
		bs, ok := b.(string)
		return ok && lenient(a) == lenient(bs)
	case lit:
		bl, ok := b.(lit)
		ra, oka := new(big.Rat).SetString(string(a))
		rb, okb := new(big.Rat).SetString(string(bl))
		return ok && oka && okb && ra.Cmp(rb) == 0
	}
	return false
}

// lenient is s as encoding/json decodes it: each byte that is not part
// of valid UTF-8 becomes U+FFFD.
func lenient(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for _, r := range s { // ranging yields U+FFFD for each invalid byte
		b.WriteRune(r)
	}
	return b.String()
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

func encode(v value) []byte { return appendValue(nil, v) }

func appendValue(b []byte, v value) []byte {
	switch v := v.(type) {
	case nil:
		return append(b, "null"...)
	case bool:
		return strconv.AppendBool(b, v)
	case lit:
		return append(b, v...)
	case string:
		return appendString(b, v)
	case []value:
		b = append(b, '[')
		for i, e := range v {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendValue(b, e)
		}
		return append(b, ']')
	case *object:
		b = append(b, '{')
		for i, m := range v.members {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, m.key)
			b = append(b, ':')
			b = appendValue(b, m.val)
		}
		return append(b, '}')
	}
	panic(fmt.Sprintf("sessiontest: no JSON for %T", v))
}

// appendString writes s quoted, escaping only what JSON requires: any
// other byte, even one that is not UTF-8, is written as is.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '"' || c == '\\' || c < 0x20 {
			b = append(b, s[start:i]...)
			if c < 0x20 {
				b = fmt.Appendf(b, `\u%04x`, c)
			} else {
				b = append(b, '\\', c)
			}
			start = i + 1
		}
	}
	return append(append(b, s[start:]...), '"')
}

// shuffle shuffles the members of every object in v.
func shuffle(v value, src session.Source) {
	switch v := v.(type) {
	case []value:
		for _, e := range v {
			shuffle(e, src)
		}
	case *object:
		for i := len(v.members) - 1; i > 0; i-- {
			j := session.Intn(src, i+1)
			v.members[i], v.members[j] = v.members[j], v.members[i]
		}
		for _, m := range v.members {
			shuffle(m.val, src)
		}
	}
}

// appendSpace writes whitespace half of the time (always if force).
func appendSpace(b []byte, src session.Source, force bool) []byte {
	if !force && session.Intn(src, 2) == 0 {
		return b
	}
	for range 1 + session.Intn(src, 3) {
		b = append(b, " \t\n\r"[session.Intn(src, 4)])
	}
	return b
}

// appendPadded writes v with whitespace around its tokens and some
// characters of its strings escaped; force puts whitespace after the first
// token.
func appendPadded(b []byte, v value, src session.Source, force bool) []byte {
	switch v := v.(type) {
	case string:
		return appendEscaped(b, v, src)
	case []value:
		b = append(b, '[')
		for i, e := range v {
			if i > 0 {
				b = append(appendSpace(b, src, false), ',')
			}
			b = appendSpace(b, src, force && i == 0)
			b = appendPadded(b, e, src, false)
		}
		return append(appendSpace(b, src, force && len(v) == 0), ']')
	case *object:
		b = append(b, '{')
		for i, m := range v.members {
			if i > 0 {
				b = append(appendSpace(b, src, false), ',')
			}
			b = appendSpace(b, src, force && i == 0)
			b = append(appendSpace(appendEscaped(b, m.key, src), src, false), ':')
			b = appendPadded(appendSpace(b, src, false), m.val, src, false)
		}
		return append(appendSpace(b, src, force && len(v.members) == 0), '}')
	}
	return appendValue(b, v)
}

// appendEscaped writes s quoted, with one character in eight (and half of
// the slashes) written as an escape that means the same.
func appendEscaped(b []byte, s string, src session.Source) []byte {
	b = append(b, '"')
	hex := [2]string{"%04x", "%04X"}
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[i]) // not UTF-8: written as is, as appendString does
		case r == '/' && session.Intn(src, 2) == 0:
			b = append(b, `\/`...)
		case r == '"' || r == '\\' || r < 0x20 || session.Intn(src, 8) == 0:
			f := `\u` + hex[session.Intn(src, 2)]
			if r > 0xFFFF {
				r -= 0x10000
				b = fmt.Appendf(b, f+f, 0xD800+(r>>10), 0xDC00+(r&0x3FF))
			} else {
				b = fmt.Appendf(b, f, r)
			}
		default:
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}

// mutation is a way Invalid breaks a valid command.
type mutation int

const (
	mMissing       mutation = iota // a required member removed
	mWrongType                     // a member's value of another type: "1", 1.5, -0.5, 0, 7, true, false, null, [], [v], {}, {"v":v}
	mRange                         // an integer out of range: minimum-1, maximum+1, -1, 2^32, 2^64, ±1e30, 1e400, -2^63-1, 99999999999999999999
	mUnknownEnum                   // a const or enum string changed: "zz_unknown", "", upper-cased, spaced, with "\u0000", cut, doubled
	mExtra                         // an unknown member where additionalProperties is false
	mDuplicate                     // a member repeated with the same or another valid value: strict decoders refuse it
	mKeyCase                       // a key in another case ("Type", "TYPE"), which encoding/json would match
	mNotObject                     // the command replaced: 0, 1, -1, 1.5, "x", the command as a JSON string, true, false, null, [], [command]
	mDeep                          // a value, or the command, nested 64, 1000 or 10001 arrays or objects deep
	mLongString                    // a string of maxLength+1 code points, or of 100 KiB
	mShortString                   // a string of minLength-1 code points
	mBadUTF8                       // bytes that are not UTF-8 in a key or a string
	mBadLiteral                    // a value replaced by what JSON lacks: 01, +1, .5, 1., 1e, 0x1, NaN, Infinity, 'x', True, undefined...
	mNUL                           // a raw NUL byte anywhere
	mTruncate                      // the text cut short, possibly to nothing
	mTrailing                      // something after the object: a second copy, }, ], a comma, x, 0, a comment...
	mTrailingComma                 // a comma after the last member, before the first, or before the object
	numMutations
)

var mutationNames = [numMutations]string{"missing required", "wrong type", "out of range", "unknown const",
	"extra member", "duplicate key", "key case", "not an object", "deep nesting", "long string", "short string",
	"invalid UTF-8", "bad literal", "NUL byte", "truncated", "trailing data", "stray comma"}

func (m mutation) String() string { return mutationNames[m] }

// invalid is Invalid, also saying which mutation it made.
func (c *Commands) invalid(src session.Source) ([]byte, mutation) {
	for range maxTries {
		m := mutation(session.Intn(src, int(numMutations)))
		if b, ok := c.mutate(m, c.gen(c.root, src), src); ok {
			return b, m
		}
	}
	b := encode(c.gen(c.root, src)) // an object: every proper prefix is not JSON
	return b[:session.Intn(src, len(b))], mTruncate
}

// site is a member of an object of a command.
type site struct {
	o *object
	i int
}

func (s site) m() *member { return &s.o.members[s.i] }

func objects(v value, visit func(*object)) {
	switch v := v.(type) {
	case []value:
		for _, e := range v {
			objects(e, visit)
		}
	case *object:
		visit(v)
		for _, m := range v.members {
			objects(m.val, visit)
		}
	}
}

// mutate applies m to the valid command v; ok is false if m does not apply
// to v or left a command that the schema accepts.
func (c *Commands) mutate(m mutation, v value, src session.Source) (b []byte, ok bool) {
	pick := func(n int) int { return session.Intn(src, n) }
	var (
		objs  []*object
		sites []site
	)
	objects(v, func(o *object) {
		objs = append(objs, o)
		for i := range o.members {
			sites = append(sites, site{o, i})
		}
	})
	choose := func(fits func(*member) bool) (site, bool) {
		var cands []site
		for _, s := range sites {
			if fits(s.m()) {
				cands = append(cands, s)
			}
		}
		if len(cands) == 0 {
			return site{}, false
		}
		return cands[pick(len(cands))], true
	}
	all := func(*member) bool { return true }
	b = encode(v)
	switch m {
	case mNUL:
		return slices.Insert(b, pick(len(b)+1), 0), true
	case mTruncate:
		return b[:pick(len(b))], true
	case mTrailing:
		tails := []string{string(b), "}", "]", ",", "x", "0", " 1", `"`, " null", "\n{", " /* c */", "//c", ";"}
		return append(b, tails[pick(len(tails))]...), true
	case mTrailingComma:
		switch pick(3) {
		case 0:
			return slices.Insert(b, len(b)-1, ','), true
		case 1:
			return slices.Insert(b, 1, ','), true
		}
		return append([]byte{','}, b...), true
	case mBadLiteral:
		bad := []lit{"01", "+1", ".5", "1.", "1e", "-", "0x1", "1_000", "NaN", "Infinity", "-Infinity", "'x'", "True", "nul", "undefined", `"x`}
		if s, ok := choose(all); ok {
			s.m().val = bad[pick(len(bad))]
			return encode(v), true
		}
		return []byte(bad[pick(len(bad))]), true
	case mDuplicate:
		s, ok := choose(all)
		if !ok {
			return nil, false
		}
		d := *s.m()
		if d.schema != nil && pick(2) == 0 {
			d.val = c.gen(d.schema, src)
		}
		s.o.members = slices.Insert(s.o.members, pick(len(s.o.members)+1), d)
		return encode(v), true
	}
	// The other mutations change values; the schema must refuse the result.
	var s site
	switch m {
	case mMissing:
		s, ok = choose(func(mb *member) bool { return mb.required })
		if ok {
			s.o.members = slices.Delete(s.o.members, s.i, s.i+1)
		}
	case mWrongType:
		if s, ok = choose(all); ok {
			val := s.m().val
			wrong := []value{lit("1.5"), lit("-0.5"), lit("0"), lit("7"), string(encode(val)), true, false, nil,
				[]value{}, []value{val}, &object{}, &object{members: []member{{key: "v", val: val}}}}
			s.m().val = wrong[pick(len(wrong))]
		}
	case mRange:
		if s, ok = choose(func(mb *member) bool { return mb.schema != nil && mb.schema.typ == "integer" }); ok {
			n := s.m().schema
			out := []lit{"-1", "4294967296", "18446744073709551616", "99999999999999999999", "1e30", "-1e30", "1e400", "-9223372036854775809"}
			for _, end := range []struct {
				has bool
				v   int64
			}{{n.hasMin, n.min - 1}, {n.hasMax, n.max + 1}} {
				if end.has { // twice as likely as the others
					out = append(out, lit(strconv.FormatInt(end.v, 10)), lit(strconv.FormatInt(end.v, 10)))
				}
			}
			s.m().val = out[pick(len(out))]
		}
	case mUnknownEnum:
		if s, ok = choose(func(mb *member) bool {
			_, str := mb.val.(string)
			return str && mb.schema != nil && mb.schema.enum != nil
		}); ok {
			str := s.m().val.(string)
			other := []string{"zz_unknown", "", strings.ToUpper(str), str + " ", " " + str, str + "\x00", str + str, str[:len(str)/2]}
			s.m().val = other[pick(len(other))]
		}
	case mExtra:
		var open []*object
		for _, o := range objs {
			if o.schema != nil && o.schema.closed {
				open = append(open, o)
			}
		}
		if ok = len(open) > 0; ok {
			o := open[pick(len(open))]
			keys := slices.DeleteFunc([]string{"zz_extra", "", "__proto__", "constructor", "Type", "TYPE", "type "},
				func(k string) bool { return o.schema.prop(k) != nil })
			vals := []value{lit("1"), "x", nil, true, []value{}, &object{}}
			o.members = slices.Insert(o.members, pick(len(o.members)+1), member{key: keys[pick(len(keys))], val: vals[pick(len(vals))]})
		}
	case mKeyCase:
		if s, ok = choose(func(mb *member) bool { return strings.ToUpper(mb.key) != mb.key }); ok {
			k := s.m().key
			if s.m().key = strings.ToUpper(k); pick(2) == 0 && strings.ToUpper(k[:1]) != k[:1] {
				s.m().key = strings.ToUpper(k[:1]) + k[1:]
			}
		}
	case mNotObject:
		other := []value{lit("0"), lit("1"), lit("-1"), lit("1.5"), "x", string(b), true, false, nil, []value{}, []value{v}}
		v, ok = other[pick(len(other))], true
	case mDeep:
		var deep value = lit("1")
		arrays := pick(2) == 0
		for range []int{64, 1000, 10001}[pick(3)] {
			if arrays {
				deep = []value{deep}
			} else {
				deep = &object{members: []member{{key: "a", val: deep}}}
			}
		}
		if s, ok = choose(all); ok && pick(2) == 0 {
			s.m().val = deep
		} else {
			v, ok = deep, true
		}
	case mLongString:
		if s, ok = choose(func(mb *member) bool { _, str := mb.val.(string); return str }); ok {
			long := []string{strings.Repeat("a", hugeLen)}
			if n := s.m().schema; n != nil && n.maxLen >= 0 && n.maxLen < hugeLen {
				long = append(long, strings.Repeat("a", n.maxLen+1))
			}
			s.m().val = long[pick(len(long))]
		}
	case mShortString:
		if s, ok = choose(func(mb *member) bool { return mb.schema != nil && mb.schema.typ == "string" && mb.schema.minLen > 0 }); ok {
			s.m().val = strings.Repeat("a", s.m().schema.minLen-1)
		}
	case mBadUTF8:
		if s, ok = choose(all); ok {
			bad := []string{"\xff", "\xfe", "\x80", "\xc3\x28", "\xc0\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xe2\x82"}[pick(8)]
			mb := s.m()
			if str, isStr := mb.val.(string); isStr && pick(2) == 0 {
				i := pick(len(str) + 1)
				mb.val = str[:i] + bad + str[i:]
			} else {
				i := pick(len(mb.key) + 1)
				mb.key = mb.key[:i] + bad + mb.key[i:]
			}
		}
	}
	dup := false // made by accident: a strict decoder would refuse it for that
	objects(v, func(o *object) {
		for i, mb := range o.members {
			dup = dup || slices.ContainsFunc(o.members[:i], func(p member) bool { return lenient(p.key) == lenient(mb.key) })
		}
	})
	if !ok || dup || c.root.accepts(v) {
		return nil, false
	}
	return encode(v), true
}
