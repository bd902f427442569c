package sessiontest

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/roomd/roomd/core/session"
)

// The subset of JSON Schema that Commands compiles, and checks values against.

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
		src, ok := session.IntSeed(int64(i)+1).Source(), false
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
