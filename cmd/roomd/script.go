package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
)

// `roomd script ENGINE` drives one of seed 003's engines from outside: JSON
// lines on stdin, one harness call per line, {"call": NAME, "args": [...]},
// NAME being the call's name in the engine's specification
// (../shared/specs/baba.md, card-engine.md); one JSON line per call on
// stdout, {"ok": true, "value": V} or {"ok": false, "error": "message"}
// (the engine's state unchanged). Each reply is written before the next
// line is read, so a driver may wait for an id before it sends the call
// that uses it. stdout carries replies only; diagnostics go to stderr.

// scriptEngine is one engine behind the harness: Call runs one call of its
// specification with the call's JSON arguments and returns its value (nil
// for null). An error is the call's failure; the engine must then be as it
// was before the call.
type scriptEngine interface {
	Call(name string, args []json.RawMessage) (any, error)
}

// scriptEngines are the engines `roomd script` drives, by name. Each
// engine's adapter registers itself from its own file (script_*.go).
var scriptEngines = map[string]func() scriptEngine{}

// maxScriptLine bounds one line of a script.
const maxScriptLine = 4 << 20

type scriptCall struct {
	Call string            `json:"call"`
	Args []json.RawMessage `json:"args"`
}

type scriptReply struct {
	OK    bool   `json:"ok"`
	Value any    `json:"value"`
	Error string `json:"error,omitempty"`
}

func scriptUsage() string {
	names := make([]string, 0, len(scriptEngines))
	for name := range scriptEngines {
		names = append(names, name)
	}
	slices.Sort(names)
	return `Usage: roomd script ENGINE < calls.jsonl

Drives a game engine of seed 003 from outside: one harness call per input
line, {"call": NAME, "args": [...]}, NAME a call of the engine's
specification; one reply line per call, {"ok": true, "value": V} or
{"ok": false, "error": "message"}. ENGINE is one of: ` + strings.Join(names, ", ") + ".\n"
}

// scriptMain implements `roomd script ENGINE`.
func scriptMain(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) != 1 || args[0] == "-h" || args[0] == "--help" || args[0] == "-help" {
		fmt.Fprint(stderr, scriptUsage())
		if len(args) == 1 {
			return 0
		}
		return 2
	}
	newEngine, ok := scriptEngines[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "roomd script: unknown engine %q\n%s", args[0], scriptUsage())
		return 2
	}
	engine := newEngine()
	in := bufio.NewReaderSize(stdin, 64<<10)
	out := bufio.NewWriter(stdout)
	for n := 1; ; n++ {
		line, err := readScriptLine(in)
		if errors.Is(err, io.EOF) && len(line) == 0 {
			return 0
		}
		var reply scriptReply
		switch {
		case err != nil && !errors.Is(err, io.EOF):
			reply.Error = fmt.Sprintf("line %d: %v", n, err)
		case len(strings.TrimSpace(string(line))) == 0:
			continue
		default:
			reply = runScriptLine(engine, line)
		}
		b, merr := json.Marshal(reply)
		if merr != nil {
			b, _ = json.Marshal(scriptReply{Error: fmt.Sprintf("line %d: the reply does not encode: %v", n, merr)})
		}
		out.Write(b)
		out.WriteByte('\n')
		if err := out.Flush(); err != nil {
			fmt.Fprintf(stderr, "roomd script: %v\n", err)
			return 1
		}
		if errors.Is(err, io.EOF) {
			return 0
		}
	}
}

// readScriptLine reads one line, at most maxScriptLine bytes (a longer one
// is skipped to its end and refused).
func readScriptLine(in *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, isPrefix, err := in.ReadLine()
		if len(line)+len(chunk) > maxScriptLine {
			for isPrefix && err == nil {
				_, isPrefix, err = in.ReadLine()
			}
			if err != nil && !errors.Is(err, io.EOF) {
				return nil, err
			}
			return []byte{}, fmt.Errorf("a line is longer than %d bytes", maxScriptLine)
		}
		line = append(line, chunk...)
		if err != nil {
			return line, err
		}
		if !isPrefix {
			return line, nil
		}
	}
}

// runScriptLine decodes and runs one call; a panic of the engine is a
// failed call, not the end of the script.
func runScriptLine(engine scriptEngine, line []byte) (reply scriptReply) {
	var c scriptCall
	if err := json.Unmarshal(line, &c); err != nil {
		return scriptReply{Error: fmt.Sprintf("not a call {\"call\": NAME, \"args\": [...]}: %v", err)}
	}
	if c.Call == "" {
		return scriptReply{Error: `a call needs "call", the name of a call of the specification`}
	}
	defer func() {
		if v := recover(); v != nil {
			reply = scriptReply{Error: fmt.Sprintf("%s: the engine failed: %v", c.Call, v)}
		}
	}()
	v, err := engine.Call(c.Call, c.Args)
	if err != nil {
		return scriptReply{Error: fmt.Sprintf("%s: %v", c.Call, err)}
	}
	return scriptReply{OK: true, Value: v}
}

// scriptFunc is one call of an engine's table of calls: the most
// arguments it takes and what it does with them on engine state S.
type scriptFunc[S any] struct {
	args int
	run  func(s S, args []json.RawMessage) (any, error)
}

// scriptLookup finds name in an engine's table and checks the number of
// its arguments.
func scriptLookup[S any](calls map[string]scriptFunc[S], name string, args []json.RawMessage) (scriptFunc[S], error) {
	c, ok := calls[name]
	if !ok {
		names := make([]string, 0, len(calls))
		for n := range calls {
			names = append(names, n)
		}
		slices.Sort(names)
		return c, fmt.Errorf("no such call; the calls are %s", strings.Join(names, ", "))
	}
	if len(args) > c.args {
		return c, fmt.Errorf("%d arguments; the call takes at most %d", len(args), c.args)
	}
	return c, nil
}

// scriptArg decodes argument i of a call into v; a missing argument is an
// error unless optional, when v is left as it is and false is returned.
func scriptArg(args []json.RawMessage, i int, v any, optional bool) (bool, error) {
	if i >= len(args) || (optional && string(args[i]) == "null") {
		if optional {
			return false, nil
		}
		return false, fmt.Errorf("argument %d is missing", i+1)
	}
	if err := json.Unmarshal(args[i], v); err != nil {
		return false, fmt.Errorf("argument %d: %v", i+1, err)
	}
	return true, nil
}
