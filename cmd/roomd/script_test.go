package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os/exec"
	"reflect"
	"testing"
)

// scriptAnswer is one reply of `roomd script`, as a driver reads it, with
// the call it answers.
type scriptAnswer struct {
	Raw   string
	Call  string // the call's name, from the line sent
	OK    *bool
	Value json.RawMessage
	Error *string
}

// runScript pipes lines to the real binary's `roomd script engine` and
// returns its replies, one per line: more or fewer, or a reply that is not
// {"ok": …, "value": …}, fails the test.
func runScript(t *testing.T, engine string, lines []string) []scriptAnswer {
	t.Helper()
	var in bytes.Buffer
	for _, l := range lines {
		in.WriteString(l + "\n")
	}
	cmd := exec.Command(roomdBinary(t), "script", engine)
	cmd.Stdin = &in
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("roomd script %s: %v\n%s", engine, err, stderr.String())
	}
	var replies []scriptAnswer
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		n := len(replies)
		if n >= len(lines) {
			t.Fatalf("more replies than calls: %s", sc.Text())
		}
		var r struct {
			OK    *bool   `json:"ok"`
			Error *string `json:"error"`
		}
		var members map[string]json.RawMessage
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil || json.Unmarshal(sc.Bytes(), &members) != nil || r.OK == nil || members["value"] == nil {
			t.Fatalf("line %d: reply %s: %v (every reply has ok and value)", n+1, sc.Text(), err)
		}
		var c scriptCall
		json.Unmarshal([]byte(lines[n]), &c)
		replies = append(replies, scriptAnswer{Raw: sc.Text(), Call: c.Call, OK: r.OK, Value: members["value"], Error: r.Error})
	}
	if len(replies) != len(lines) {
		t.Fatalf("%d replies to %d calls; stderr: %s", len(replies), len(lines), stderr.String())
	}
	return replies
}

// jsonEqual reports whether a and b are the same JSON value.
func jsonEqual(a, b json.RawMessage) bool {
	var va, vb any
	if json.Unmarshal(a, &va) != nil || json.Unmarshal(b, &vb) != nil {
		return false
	}
	return reflect.DeepEqual(va, vb)
}
