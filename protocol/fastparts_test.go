package protocol

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// TestDecodeRoomMatchesUnmarshal: decodeRoom gives what json.Unmarshal
// gives for rooms as roomd writes them and for rooms it hands on to
// encoding/json (escapes, negative numbers, nulls, unknown or repeated
// keys, white space), and refuses what json.Unmarshal refuses.
func TestDecodeRoomMatchesUnmarshal(t *testing.T) {
	str := rapid.OneOf(rapid.StringMatching(`[a-zA-Z0-9/ .-]{0,12}`), rapid.String())
	num := rapid.OneOf(rapid.IntRange(0, 40), rapid.IntRange(-3, 3), rapid.Int())
	rapid.Check(t, func(t *rapid.T) {
		r := Room{Code: str.Draw(t, "code"), Phase: str.Draw(t, "phase"), Mode: str.Draw(t, "mode"),
			MinSeats: num.Draw(t, "min"), MaxSeats: num.Draw(t, "max"), AI: rapid.Bool().Draw(t, "ai"),
			Game:       GamePin{ID: str.Draw(t, "id"), Build: str.Draw(t, "build"), RulesVersion: str.Draw(t, "rules")},
			Spectators: num.Draw(t, "spectators"), Frozen: rapid.Bool().Draw(t, "frozen"), Match: num.Draw(t, "match"),
			Clocks: Clocks{Now: rapid.Int64().Draw(t, "now"), ElapsedMs: rapid.Float64().Draw(t, "elapsed"),
				Running: rapid.Bool().Draw(t, "running"), StartedAt: rapid.Float64().Draw(t, "started")},
			Access: str.Draw(t, "access"), WatchLocked: rapid.Bool().Draw(t, "wl"), SpectatorChat: rapid.Bool().Draw(t, "sc"),
			Commitment: str.Draw(t, "commitment"), Daily: str.Draw(t, "daily"), Hz: num.Draw(t, "hz"), Paused: rapid.Bool().Draw(t, "paused"),
			Settings: json.RawMessage(rapid.SampledFrom([]string{`{}`, `{"rows":9,"cols":9}`, `null`, `[1,2]`, `{ "a" : [ ] }`}).Draw(t, "settings"))}
		if rapid.Bool().Draw(t, "host?") {
			h := num.Draw(t, "host")
			r.Host = &h
		}
		switch rapid.IntRange(0, 2).Draw(t, "seats?") {
		case 1:
			r.Seats = []SeatInfo{}
		case 2:
			for i := range rapid.IntRange(1, 4).Draw(t, "n seats") {
				r.Seats = append(r.Seats, SeatInfo{Seat: i, Name: str.Draw(t, "name"), Ready: rapid.Bool().Draw(t, "ready"),
					AI: rapid.Bool().Draw(t, "sai"), Connected: rapid.Bool().Draw(t, "conn"), Muted: rapid.Bool().Draw(t, "muted"),
					Player: str.Draw(t, "player")})
			}
		}
		switch rapid.IntRange(0, 2).Draw(t, "connected?") {
		case 1:
			r.Connected = []int{}
		case 2:
			r.Connected = rapid.SliceOfN(num, 1, 4).Draw(t, "connected")
		}
		data, err := json.Marshal(r)
		if err != nil {
			t.Skip(err) // a float json cannot write (NaN, ±Inf)
		}
		s := string(data)
		switch rapid.IntRange(0, 5).Draw(t, "edit") {
		case 1: // white space
			s = strings.ReplaceAll(s, ",", " ,\n ")
		case 2: // a repeated key: the last one counts
			s = strings.Replace(s, `{"code":`, `{"match":7,"code":`, 1)
		case 3: // a key json matches without regard to case
			s = strings.Replace(s, `"phase":`, `"Phase":`, 1)
		case 4: // an unknown key
			s = strings.Replace(s, `"mode":`, `"extra":[1],"mode":`, 1)
		case 5: // a null where a value goes
			s = strings.Replace(s, `"mode":`+mustJSON(r.Mode), `"mode":null`, 1)
		}
		var want Room
		wantErr := json.Unmarshal([]byte(s), &want)
		got, ok := decodeRoom([]byte(s))
		if ok != (wantErr == nil) || ok && !reflect.DeepEqual(*got, want) {
			t.Fatalf("%s\n got %+v (%v)\nwant %+v (%v)", s, *got, ok, want, wantErr)
		}
	})
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// The fast path does read what roomd writes, and refuses the rest.
func TestDecodeRoomFastPath(t *testing.T) {
	host := 0
	r := Room{Code: "ABC123", Phase: PhaseRunning, Host: &host, Seats: []SeatInfo{{Seat: 0, Name: "r1-host0", Connected: true}},
		Settings: json.RawMessage(`{"rows":9,"cols":9,"mines":10}`), Mode: "coop", MinSeats: 1, MaxSeats: 4,
		Game: GamePin{ID: "minesweeper", RulesVersion: "minesweeper/1"}, Connected: []int{0}, Match: 3,
		Clocks: Clocks{Now: 1765000000000, ElapsedMs: 1234.5, Running: true, StartedAt: 1764999998765.5}, Access: "public",
		Commitment: strings.Repeat("ab", 32)}
	data, _ := json.Marshal(r)
	var got Room
	if !decodeRoomFast(data, &got) || !reflect.DeepEqual(got, r) {
		t.Fatalf("fast path: %+v from %s", got, data)
	}
	for _, in := range []string{`{"code":"A\u00e9"}`, `{"host":-1}`, `{"code":"a","code":"b"}`, `{"Code":"a"}`, `{"game":{}}`} {
		if decodeRoomFast([]byte(in), new(Room)) {
			t.Errorf("the fast path read %s", in)
		}
	}
}

func BenchmarkDecodeRoom(b *testing.B) {
	host := 0
	r := Room{Code: "ABC123", Phase: PhaseRunning, Host: &host, Seats: []SeatInfo{{Seat: 0, Name: "r1-host0", Connected: true}, {Seat: 1, Name: "r1-guest1", Connected: true}},
		Settings: json.RawMessage(`{"rows":9,"cols":9,"mines":10}`), Mode: "coop", MinSeats: 1, MaxSeats: 4,
		Game: GamePin{ID: "minesweeper", RulesVersion: "minesweeper/1"}, Connected: []int{0, 1}, Match: 3,
		Clocks: Clocks{Now: 1765000000000, ElapsedMs: 1234.5, Running: true}, Access: "public", Commitment: strings.Repeat("ab", 32)}
	data, _ := json.Marshal(r)
	b.Run("fast", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, ok := decodeRoom(data); !ok {
				b.Fatal("refused")
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var r Room
			if err := json.Unmarshal(data, &r); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestDecodeResultMatchesUnmarshal: decodeResult, copying or aliasing its
// raw parts, gives what json.Unmarshal gives, and refuses what it refuses.
func TestDecodeResultMatchesUnmarshal(t *testing.T) {
	str := rapid.OneOf(rapid.StringMatching(`[a-z0-9]{0,12}`), rapid.String())
	num := rapid.OneOf(rapid.IntRange(0, 40), rapid.IntRange(-3, 3))
	raws := rapid.SampledFrom([]string{``, `null`, `{}`, `{"level":"beginner"}`, `[{"seat":0,"command":{"type":"reveal","r":1,"c":2}}]`,
		`"` + strings.Repeat("ab", 32) + `"`, `12345`, `-1.5e3`, `"a\"b\u00e9"`, `true`, `[[[]]]`})
	rapid.Check(t, func(t *rapid.T) {
		r := Result{Match: num.Draw(t, "match"), Status: str.Draw(t, "status"), TimeMs: rapid.Float64().Draw(t, "time"),
			Seed: json.RawMessage(raws.Draw(t, "seed")), SealedUntil: rapid.Int64().Draw(t, "sealed"), Commitment: str.Draw(t, "commitment"),
			Config: json.RawMessage(raws.Draw(t, "config")), Log: json.RawMessage(raws.Draw(t, "log")),
			Ticks: rapid.Uint64().Draw(t, "ticks"), Detail: json.RawMessage(raws.Draw(t, "detail"))}
		if len(r.Config) == 0 {
			r.Config = json.RawMessage(`{}`) // not omitempty: encoding/json cannot write an empty one
		}
		switch rapid.IntRange(0, 2).Draw(t, "winners?") {
		case 1:
			r.Winners = []int{}
		case 2:
			r.Winners = rapid.SliceOfN(num, 1, 3).Draw(t, "winners")
		}
		data, err := json.Marshal(r)
		if err != nil {
			t.Skip(err)
		}
		s := string(data)
		switch rapid.IntRange(0, 3).Draw(t, "edit") {
		case 1:
			s = strings.ReplaceAll(s, ",", " ,\t")
		case 2:
			s = strings.Replace(s, `{"match":`, `{"status":"x","match":`, 1)
		case 3:
			s = strings.Replace(s, `"status":`, `"unknown":1,"status":`, 1)
		}
		var want Result
		wantErr := json.Unmarshal([]byte(s), &want)
		for _, alias := range []bool{false, true} {
			got, ok := decodeResult([]byte(s), alias)
			if ok != (wantErr == nil) || ok && !reflect.DeepEqual(*got, want) {
				t.Fatalf("alias %v: %s\n got %+v (%v)\nwant %+v (%v)", alias, s, *got, ok, want, wantErr)
			}
		}
	})
	r := Result{Match: 2, Status: "won", TimeMs: 81234.5, Winners: []int{0, 1}, Seed: json.RawMessage(`"` + strings.Repeat("ab", 32) + `"`),
		Commitment: strings.Repeat("cd", 32), Config: json.RawMessage(`{"level":"beginner"}`), Log: json.RawMessage(`[{"seat":0,"command":{"type":"reveal","r":1,"c":1}}]`)}
	data, _ := json.Marshal(r)
	var got Result
	if !decodeResultFast(data, &got, false) || !reflect.DeepEqual(got, r) {
		t.Fatalf("fast path: %+v from %s", got, data)
	}
}

func BenchmarkDecodeResult(b *testing.B) {
	var log strings.Builder
	log.WriteString(`[`)
	for i := range 40 {
		if i > 0 {
			log.WriteString(`,`)
		}
		log.WriteString(`{"seat":0,"command":{"type":"reveal","r":1,"c":1},"at":1234}`)
	}
	log.WriteString(`]`)
	r := Result{Match: 2, Status: "won", TimeMs: 81234.5, Winners: []int{0, 1}, Seed: json.RawMessage(`"` + strings.Repeat("ab", 32) + `"`),
		Commitment: strings.Repeat("cd", 32), Config: json.RawMessage(`{"level":"beginner"}`), Log: json.RawMessage(log.String())}
	data, _ := json.Marshal(r)
	b.Run("fast", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, ok := decodeResult(data, false); !ok {
				b.Fatal("refused")
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var r Result
			if err := json.Unmarshal(data, &r); err != nil {
				b.Fatal(err)
			}
		}
	})
}
