package tsgen

import (
	"errors"
	"strings"
	"testing"
)

func TestGenerate(t *testing.T) {
	for _, tc := range []struct {
		name, schema, want string
	}{
		{
			name: "object: required, optional, nullable, enum, docs",
			schema: `{"$defs": {"Seat": {"description": "One seat.\nNumbered from 0.", "type": "object",
				"properties": {"seat": {"type": "integer", "description": "The number."}, "name": {"type": "string", "default": "Ann"},
				"host": {"oneOf": [{"type": "integer"}, {"type": "null"}]}, "phase": {"type": "string", "enum": ["lobby", "running"]},
				"kind": {"const": "seat"}, "data-x": {"type": ["string", "null"]}},
				"required": ["seat", "host"]}}}`,
			want: `
/**
 * One seat.
 * Numbered from 0.
 */
export interface Seat {
  /** The number. */
  seat: number;
  /** @default "Ann" */
  name?: string;
  host: number | null;
  phase?: "lobby" | "running";
  kind?: "seat";
  "data-x"?: string | null;
}
`,
		},
		{
			name: "refs, arrays, unions and open values",
			schema: `{"$defs": {"B": {"type": "object", "properties": {"list": {"type": "array", "items": {"$ref": "#/$defs/A"}},
				"mixed": {"type": "array", "items": {"oneOf": [{"type": "string"}, {"type": "integer"}]}}, "any": true, "none": false,
				"inner": {"type": "object", "properties": {"x": {"type": "number"}}, "required": ["x"]}, "map": {"type": "object",
				"additionalProperties": {"type": "boolean"}}}},
				"A": {"oneOf": [{"$ref": "#/$defs/B"}, {"type": "array", "minItems": 2, "items": {"$ref": "#/$defs/B"}}]}}}`,
			want: `
export type A = B | B[];

export interface B {
  list?: A[];
  mixed?: (string | number)[];
  any?: unknown;
  none?: never;
  inner?: {
    x: number;
  };
  map?: Record<string, boolean>;
}
`,
		},
		{
			name: "a long union, a root, conditions left out",
			schema: `{"$id": "x:schema", "description": "Anything.", "oneOf": [{"$ref": "#/$defs/U"}], "$defs": {
				"U": {"oneOf": [{"const": 1}, {"const": true}, {"const": null}, {"const": "s"}]},
				"C": {"type": "object", "properties": {"type": {"type": "string"}}, "allOf": [{"if": {"properties": {"type": {"const": "a"}}}, "then": {"required": ["type"]}}]}}}`,
			want: `// Schema: x:schema

/* eslint-disable */

/** Anything. */
export type Root = U;

export interface C {
  type?: string;
}

export type U =
  | 1
  | true
  | null
  | "s";
`,
		},
		{
			name:   "allOf of types: an intersection",
			schema: `{"$defs": {"A": {"type": "object", "properties": {"a": {"type": "string"}}}, "B": {"allOf": [{"$ref": "#/$defs/A"}, {"oneOf": [{"type": "string"}, {"type": "null"}]}]}}}`,
			want: `
export type B = A & (string | null);
`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := Generate([]byte(tc.schema), Options{Header: []string{"test"}})
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(string(out), "// test\n") {
				t.Errorf("no header:\n%s", out)
			}
			if !strings.Contains(string(out), tc.want) {
				t.Errorf("got:\n%s\nwant it to contain:\n%s", out, tc.want)
			}
		})
	}
}

func TestGenerateRefuses(t *testing.T) {
	for _, tc := range []struct{ name, schema string }{
		{"unknown keyword", `{"$defs": {"A": {"type": "object", "patternProperties": {"^x": true}}}}`},
		{"nested unknown keyword", `{"$defs": {"A": {"type": "object", "properties": {"a": {"not": {"type": "string"}}}}}}`},
		{"ref outside $defs", `{"$defs": {"A": {"$ref": "https://example.invalid/x"}}}`},
		{"ref to a missing def", `{"$defs": {"A": {"$ref": "#/$defs/B"}}}`},
		{"unknown type", `{"$defs": {"A": {"type": "float"}}}`},
		{"name that is not an identifier", `{"$defs": {"a-b": {"type": "string"}}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if out, err := Generate([]byte(tc.schema), Options{}); !errors.Is(err, ErrUnsupported) {
				t.Errorf("err %v, want ErrUnsupported; output:\n%s", err, out)
			}
		})
	}
	if _, err := Generate([]byte(`{"$defs": {"Root": {"type": "string"}}, "type": "string"}`), Options{}); err == nil {
		t.Error("a root named like a $defs entry was accepted")
	}
	if _, err := Generate([]byte(`{"a": 1} x`), Options{}); err == nil {
		t.Error("trailing data was accepted")
	}
}

// TestProtocol generates the protocol's declarations: every $defs entry
// once, and a header that says how to regenerate.
func TestProtocol(t *testing.T) {
	out, err := Protocol()
	if err != nil {
		t.Fatal(err)
	}
	s := string(out)
	if !strings.Contains(s, "DO NOT EDIT.") || !strings.Contains(s, "go generate ./web") {
		t.Errorf("header:\n%s", s[:min(len(s), 400)])
	}
	for _, name := range []string{"Hello", "Snapshot", "Update", "Receipt", "ServerFrame", "ClientMessage"} {
		if n := strings.Count(s, "export interface "+name+" ") + strings.Count(s, "export type "+name+" "); n != 1 {
			t.Errorf("%s declared %d times", name, n)
		}
	}
	if !strings.Contains(s, "export type ServerFrame = ServerMessage | ServerMessage[];") {
		t.Error("ServerFrame is not one message or a batch")
	}
	if !strings.Contains(s, "  seat: number | null;") {
		t.Error("no nullable seat")
	}
}
