package protocol

import (
	"encoding/json"
	"testing"

	"pgregory.net/rapid"
)

// TestAppendMatchesEncode: the hand-written encoders give exactly what
// encoding/json gives for the same values.
func TestAppendMatchesEncode(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		str := rapid.String()
		var notice *Notice
		if rapid.Bool().Draw(t, "refused") {
			notice = &Notice{Code: str.Draw(t, "code"), Message: str.Draw(t, "msg"), Temporary: rapid.Bool().Draw(t, "temp")}
		}
		r := Receipt{Type: TypeReceipt, ID: str.Draw(t, "id"), OK: notice == nil, Rev: rapid.Uint64().Draw(t, "rev"), Notice: notice}
		if rapid.Bool().Draw(t, "tick?") {
			r.Tick = rapid.Uint64().Draw(t, "rtick")
		}
		want, _ := Encode(r)
		got := AppendReceipt(nil, &r)
		if string(got) != string(want) {
			t.Fatalf("receipt\n got %s\nwant %s", got, want)
		}
		u := Update{Type: TypeUpdate, Epoch: str.Draw(t, "epoch"), From: rapid.Uint64().Draw(t, "from"), To: rapid.Uint64().Draw(t, "to")}
		if rapid.Bool().Draw(t, "by") {
			by := rapid.IntRange(0, 3).Draw(t, "seat")
			u.By = &by
		}
		if rapid.Bool().Draw(t, "seat?") {
			seat := rapid.IntRange(0, 3).Draw(t, "own")
			u.Seat = &seat
		}
		if rapid.Bool().Draw(t, "room?") {
			u.Room = &Room{Code: str.Draw(t, "code"), Phase: PhaseRunning, Settings: json.RawMessage(`{}`), Seats: []SeatInfo{}}
		}
		if rapid.Bool().Draw(t, "result?") {
			u.Result = &Result{Status: "won", Winners: []int{0}, Config: json.RawMessage(`{}`), Log: json.RawMessage(`[]`)}
		}
		if rapid.Bool().Draw(t, "invite?") {
			u.Invite = str.Draw(t, "invite")
		}
		beats := []map[string]any{{"type": str.Draw(t, "beat")}}
		u.Beats = beats
		want, _ = Encode(u)
		raw, _ := json.Marshal(beats)
		got, err := AppendUpdate(nil, &u, raw)
		if err != nil || string(got) != string(want) {
			t.Fatalf("update\n got %s\nwant %s", got, want)
		}
		u.Beats = nil
		want, _ = Encode(u)
		got, _ = AppendUpdate(nil, &u, nil)
		if string(got) != string(want) {
			t.Fatalf("update without beats\n got %s\nwant %s", got, want)
		}
		tk := Tick{Type: TypeTick, From: rapid.Uint64().Draw(t, "tfrom"), To: rapid.Uint64().Draw(t, "tto"), Tick: rapid.Uint64().Draw(t, "tick"), Beats: beats}
		want, _ = Encode(tk)
		if got = AppendTick(nil, &tk, raw); string(got) != string(want) {
			t.Fatalf("tick\n got %s\nwant %s", got, want)
		}
		tk.Beats = []any{}
		want, _ = Encode(tk)
		if got = AppendTick(nil, &tk, nil); string(got) != string(want) {
			t.Fatalf("tick without beats\n got %s\nwant %s", got, want)
		}
	})
}

func TestAppendStringEscapes(t *testing.T) {
	for _, s := range []string{"", "plain", `q"b\s`, "\x00\x1f\n\r\t\b\f", "<a>&", "\u2028\u2029", "é漢字", "bad\xffutf8"} {
		want, _ := json.Marshal(s)
		if got := AppendString(nil, s); string(got) != string(want) {
			t.Errorf("%q: got %s want %s", s, got, want)
		}
	}
}

// TestAppendActionMatchesEncode: AppendAction gives what encoding/json
// gives, for commands it writes by hand and those it hands on (white
// space, escapes, invalid JSON, other fields).
func TestAppendActionMatchesEncode(t *testing.T) {
	commands := []string{``, `{"type":"reveal","r":1,"c":2}`, `{"type":"flag", "r":1}`, `{"t":"<b>&"}`, `{"t":"\u2028"}`,
		"{\"t\":\"\u2028\"}", `[1,2.5e3,null,true]`, `"x"`, `{"a":`, `{"a":1}}`, ` 1`}
	rapid.Check(t, func(t *rapid.T) {
		a := Action{Type: rapid.SampledFrom([]string{TypeCommand, TypeResign, TypeResync}).Draw(t, "type"),
			ID: rapid.String().Draw(t, "id"), Rev: rapid.Uint64().Draw(t, "rev")}
		if rapid.Bool().Draw(t, "drawn command") {
			a.Command = json.RawMessage(rapid.String().Draw(t, "command"))
		} else {
			a.Command = json.RawMessage(rapid.SampledFrom(commands).Draw(t, "listed command"))
		}
		switch rapid.IntRange(0, 4).Draw(t, "extra") {
		case 1:
			a.Control = &Control{Op: "kick"}
		case 2:
			a.Text = rapid.String().Draw(t, "text")
		}
		want, wantErr := json.Marshal(a)
		got, err := AppendAction([]byte("x"), &a)
		if (err != nil) != (wantErr != nil) || err == nil && string(got) != "x"+string(want) {
			t.Fatalf("action %+v\n got %s (%v)\nwant %s (%v)", a, got, err, want, wantErr)
		}
	})
}

// BenchmarkEncodeCommand: a client's move, by hand (AppendAction, into a
// buffer of about its size as transport/client does) and through
// encoding/json (Encode).
func BenchmarkEncodeCommand(b *testing.B) {
	a := Action{Type: TypeCommand, ID: "01JEXAMPLEACTIONID0000000", Rev: 1234, Command: json.RawMessage(`{"type":"reveal","r":12,"c":7}`)}
	b.Run("append", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := AppendAction(make([]byte, 0, 64+len(a.ID)+len(a.Command)), &a); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encode", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := Encode(a); err != nil {
				b.Fatal(err)
			}
		}
	})
}
