package session

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strings"
	"sync"
)

// Strict decodes data, one JSON object, into the struct v points to, the
// way the published schemas read it: every key must be the JSON name of
// one of the struct's exported fields exactly (encoding/json would match
// any case), appear once, and be known. A field tagged omitempty or
// omitzero may be missing, which leaves it as it is; any other is
// required, as the encoder always writes it (so every canonical form has
// it, and a schema should list it as required). Fields take:
//
//   - integers (int, uint and their sized kinds): whole numbers within the
//     kind's range only (2 and 2.0 alike, as JSON Schema's "integer");
//   - float64 and float32, string, bool: their JSON values (null refused);
//   - structs, strictly too; slices and arrays of these, and maps from
//     strings to these (an array or object, never null);
//   - anything with an UnmarshalJSON or UnmarshalText of its own, through
//     it.
//
// Every refusal is a malformed *Rejection (CodeMalformedInput) naming the
// key. It is what DecodeMove and a config's decoding use for a type that
// has no UnmarshalJSON: a game whose config and commands are plain structs
// with json tags writes no decoder.
func Strict(data []byte, v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() || rv.Elem().Kind() != reflect.Struct {
		return fmt.Errorf("session: Strict needs a pointer to a struct, not %T", v)
	}
	if err := strictValue(bytes.TrimSpace(data), rv.Elem(), ""); err != nil {
		return err
	}
	return nil
}

// strictField is one field of a struct as Strict reads it.
type strictField struct {
	name     string // its JSON key
	index    []int
	required bool // neither omitempty nor omitzero
}

var strictFields sync.Map // reflect.Type → []strictField

// fieldsOf lists the exported fields of struct type t by their JSON keys,
// as encoding/json names them (the tag's name, else the field's), skipping
// fields tagged "-"; embedded structs' fields are promoted.
func fieldsOf(t reflect.Type) []strictField {
	if fs, ok := strictFields.Load(t); ok {
		return fs.([]strictField)
	}
	var out []strictField
	for _, f := range reflect.VisibleFields(t) {
		if !f.IsExported() || (f.Anonymous && f.Type.Kind() == reflect.Struct) {
			continue
		}
		name, required := f.Name, true
		if tag, ok := f.Tag.Lookup("json"); ok {
			n, opts, _ := strings.Cut(tag, ",")
			if n == "-" && opts == "" {
				continue
			}
			if n != "" {
				name = n
			}
			for o := range strings.SplitSeq(opts, ",") {
				if o == "omitempty" || o == "omitzero" {
					required = false
				}
			}
		}
		out = append(out, strictField{name: name, index: f.Index, required: required})
	}
	strictFields.Store(t, out)
	return out
}

var (
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[interface{ UnmarshalText([]byte) error }]()
)

func strictValue(raw []byte, v reflect.Value, path string) error {
	bad := func(format string, args ...any) error {
		where := "the value"
		if path != "" {
			where = fmt.Sprintf("%q", Clip(path))
		}
		return Malformed(CodeMalformedInput, "%s %s", where, fmt.Sprintf(format, args...))
	}
	if v.CanAddr() && (v.Addr().Type().Implements(jsonUnmarshaler) || v.Addr().Type().Implements(textUnmarshaler)) {
		if err := json.Unmarshal(raw, v.Addr().Interface()); err != nil {
			if rej, ok := err.(*Rejection); ok {
				return rej
			}
			return bad("is not valid: %v", err)
		}
		return nil
	}
	if bytes.Equal(raw, []byte("null")) {
		return bad("must not be null")
	}
	switch v.Kind() {
	case reflect.Struct:
		ms, err := Members(raw)
		if err != nil {
			return bad("must be a JSON object: %v", err)
		}
		fields := fieldsOf(v.Type())
		seen := make([]bool, len(fields))
		for _, m := range ms {
			i := -1
			for j, f := range fields {
				if f.name == m.Key {
					i = j
					break
				}
			}
			key := m.Key
			if path != "" {
				key = path + "." + m.Key
			}
			if i < 0 {
				return Malformed(CodeMalformedInput, "unknown field %q", Clip(key))
			}
			if err := strictValue(m.Value, v.FieldByIndex(fields[i].index), key); err != nil {
				return err
			}
			seen[i] = true
		}
		for i, f := range fields {
			if f.required && !seen[i] {
				key := f.name
				if path != "" {
					key = path + "." + f.name
				}
				return Malformed(CodeMalformedInput, "missing field %q", Clip(key))
			}
		}
		return nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		f, ok := Whole(raw)
		if !ok || f < math.MinInt64 || f >= math.MaxInt64 || v.OverflowInt(int64(f)) {
			return bad("must be an integer in range, got %s", Clip(string(raw)))
		}
		v.SetInt(int64(f))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		f, ok := Whole(raw)
		if !ok || f < 0 || f >= math.MaxUint64 || v.OverflowUint(uint64(f)) {
			return bad("must be a non-negative integer in range, got %s", Clip(string(raw)))
		}
		v.SetUint(uint64(f))
	case reflect.Float32, reflect.Float64, reflect.String, reflect.Bool:
		p := reflect.New(v.Type())
		if err := json.Unmarshal(raw, p.Interface()); err != nil {
			return bad("must be a JSON %s, got %s", jsonKind(v.Kind()), Clip(string(raw)))
		}
		v.Set(p.Elem())
	case reflect.Slice, reflect.Array:
		var items []json.RawMessage
		if err := json.Unmarshal(raw, &items); err != nil {
			return bad("must be an array")
		}
		if v.Kind() == reflect.Array && len(items) != v.Len() {
			return bad("must have %d items, not %d", v.Len(), len(items))
		}
		if v.Kind() == reflect.Slice {
			v.Set(reflect.MakeSlice(v.Type(), len(items), len(items)))
		}
		for i, it := range items {
			if err := strictValue(it, v.Index(i), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	case reflect.Map:
		if v.Type().Key().Kind() != reflect.String {
			return bad("is a map with non-string keys, which JSON has not")
		}
		ms, err := Members(raw)
		if err != nil {
			return bad("must be a JSON object: %v", err)
		}
		v.Set(reflect.MakeMapWithSize(v.Type(), len(ms)))
		for _, m := range ms {
			e := reflect.New(v.Type().Elem()).Elem()
			if err := strictValue(m.Value, e, path+"."+m.Key); err != nil {
				return err
			}
			v.SetMapIndex(reflect.ValueOf(m.Key).Convert(v.Type().Key()), e)
		}
	default:
		return fmt.Errorf("session: Strict cannot decode a %s (%s)", v.Kind(), path)
	}
	return nil
}

func jsonKind(k reflect.Kind) string {
	switch k {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	}
	return "number"
}
