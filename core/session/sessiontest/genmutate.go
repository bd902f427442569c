package sessiontest

import (
	"slices"
	"strconv"
	"strings"

	"github.com/roomd/roomd/core/session"
)

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
