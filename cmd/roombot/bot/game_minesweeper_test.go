package bot

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/roomd/roomd/core/minesweeper"
	"github.com/roomd/roomd/core/session"
)

// msFrames plays whole Minesweeper matches with the game's AI on every
// seat and returns what each viewer (every seat and a spectator) got, in
// the server's encodings: the views at the start, after some commands and
// at the end, and every command's beats.
func msFrames(t testing.TB, mode minesweeper.Mode, level string, seats int, seed int64) (views, beats [][]byte) {
	t.Helper()
	vfs, _ := msMatchFrames(t, mode, level, seats, seed)
	for _, vf := range vfs {
		views = append(views, vf.views...)
		beats = append(beats, vf.beats...)
	}
	return views, beats
}

// msViewerFrames is what one viewer got of a match: its first view, each
// command's beats, and the views after some commands and at the end.
type msViewerFrames struct {
	viewer session.Seat
	start  []byte
	beats  [][]byte
	views  [][]byte
}

// msMatchFrames plays a match as msFrames does and returns each viewer's
// frames, and the match's log as a result carries it.
func msMatchFrames(t testing.TB, mode minesweeper.Mode, level string, seats int, seed int64) ([]*msViewerFrames, []byte) {
	t.Helper()
	config, _ := json.Marshal(map[string]string{"mode": string(mode), "level": level})
	now := 0.0
	s, err := session.NewSession(minesweeper.Game, session.IntSeed(seed), config, seats, func() float64 { now += 1000; return now })
	if err != nil {
		t.Fatal(err)
	}
	m := s.Match()
	out := []*msViewerFrames{{viewer: session.Spectator}}
	for i := range seats {
		out = append(out, &msViewerFrames{viewer: i})
	}
	addViews := func() {
		for _, vf := range out {
			b, err := json.Marshal(m.View(vf.viewer))
			if err != nil {
				t.Fatal(err)
			}
			if vf.start == nil {
				vf.start = b
			}
			vf.views = append(vf.views, b)
		}
	}
	addViews()
	for n := 0; !s.Status().Over; n++ {
		if n > 2000 {
			t.Fatal("no end after 2000 commands")
		}
		pending := m.Pending()
		if len(pending) == 0 {
			t.Fatal("nobody to move in a running match")
		}
		seat := pending[n%len(pending)]
		raw, ok := m.AIMove(seat, session.IntSeed(7).Source())
		if !ok {
			t.Fatalf("no AI move for seat %d", seat)
		}
		step, err := s.Apply(seat, raw)
		if err != nil {
			continue // a move another seat's made pointless
		}
		for _, vf := range out {
			b, err := step.AppendBeats(nil, vf.viewer)
			if err != nil {
				t.Fatal(err)
			}
			vf.beats = append(vf.beats, b)
		}
		if n%5 == 0 {
			addViews()
		}
	}
	addViews()
	log, err := json.Marshal(s.Played())
	if err != nil {
		t.Fatal(err)
	}
	return out, log
}

// TestMinesweeperFastDecode checks the hand-written decoders against the
// game's own on every frame of real matches in each mode: the same views
// and beats, and the fast path taken for every solo and co-op frame and
// every race beat (a race's views go to the game's decoder). Forms the
// server does not write must go to the game's decoder too.
func TestMinesweeperFastDecode(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		mode  minesweeper.Mode
		level string
		seats int
	}{
		{minesweeper.ModeSolo, "beginner", 1},
		{minesweeper.ModeCoop, "beginner", 2},
		{minesweeper.ModeCoop, "intermediate", 3},
		{minesweeper.ModeRace, "beginner", 2},
		{minesweeper.ModeRace, "intermediate", 3},
	} {
		for seed := int64(1); seed <= 3; seed++ {
			t.Run(fmt.Sprintf("%s-%s-%d", c.mode, c.level, seed), func(t *testing.T) {
				views, beats := msFrames(t, c.mode, c.level, c.seats, seed)
				for _, raw := range views {
					var want minesweeper.View
					if err := json.Unmarshal(raw, &want); err != nil {
						t.Fatalf("the game's decoder: %v on %s", err, raw)
					}
					got, ok := decodeMinesweeperView(raw)
					if ok != (c.mode != minesweeper.ModeRace) {
						t.Fatalf("fast path taken: %v for %s", ok, raw)
					}
					if ok && !reflect.DeepEqual(got, want) {
						t.Fatalf("view %s\nfast    %+v\ngeneral %+v", raw, got, want)
					}
				}
				for _, raw := range beats {
					var want []minesweeper.Event
					if err := json.Unmarshal(raw, &want); err != nil {
						t.Fatalf("the game's decoder: %v on %s", err, raw)
					}
					got, ok := decodeMinesweeperBeats(raw)
					if !ok {
						t.Fatalf("the fast path refused %s", raw)
					}
					if !reflect.DeepEqual(got, want) {
						t.Fatalf("beats %s\nfast    %+v\ngeneral %+v", raw, got, want)
					}
				}
			})
		}
	}

	a := minesweeperAdapter{}
	for _, s := range []string{
		`[ {"type":"win"}]`,
		`[{"type":"win"}] `,
		`[{"type":"flag","r":1,"c":2,"flagged":true,"x":1}]`,
		`[{"type":"flag","c":2,"r":1,"flagged":true}]`,
		`[{"type":"flag","r":-1,"c":2,"flagged":true}]`,
		`[{"type":"flag","r":01,"c":2,"flagged":true}]`,
		`[{"type":"flag","r":1234567890,"c":2,"flagged":true}]`,
		`[{"type":"explode","r":1,"c":2}]`,                                        // a single board's explode names its mines
		`[{"type":"progress","phase":"active","revealed":1,"safe":71,"flags":0}]`, // no seat
		`[{"type":"jump"}]`,
		`[{"type":"reveal\u0022,"cells":[]}]`,
	} {
		if _, ok := decodeMinesweeperBeats([]byte(s)); ok {
			t.Errorf("the fast path took beats %s", s)
		}
		var want []minesweeper.Event
		wantErr := json.Unmarshal([]byte(s), &want)
		got, err := a.decodeBeats([]byte(s))
		if (err == nil) != (wantErr == nil) || err == nil && !reflect.DeepEqual(got, want) {
			t.Errorf("beats %s: adapter %+v, %v; game %+v, %v", s, got, err, want, wantErr)
		}
	}
	cfg := `{"rows":9,"cols":9,"mines":10,"mode":"coop"}`
	for _, s := range []string{
		`{"config":` + cfg + `,"phase":"active","cells":[{"r":9,"c":0,"status":"flagged"}]}`, // off the board
		`{"config":` + cfg + `,"phase":"active","cells":[{"r":0,"c":0,"status":"flagged"}],"x":1}`,
		`{"config":` + cfg + `,"phase":"active","cells":[{"r":0,"c":0,"status":"lit"}]}`,
		`{"config":` + cfg + `,"phase":"active","cells":[{"r":0,"c":0,"status":"revealed","mine":false}]}`,
		`{"config":` + cfg + `,"phase":"sleeping","cells":[]}`,
		`{"config":{"rows":9,"cols":9,"mines":10,"extra":{"a":1}},"phase":"active","cells":[]}`,
		`{"config":{"rows":9},"phase":"active","cells":[]}`,
		`{"config":` + cfg + `,"phase":"active","mode":"race","boards":[]}`,
		`{"config":` + cfg + `, "phase":"active","cells":[]}`,
		`{"config":` + cfg + `,"phase":"active","cells":[]}x`,
	} {
		if _, ok := decodeMinesweeperView([]byte(s)); ok {
			t.Errorf("the fast path took view %s", s)
		}
		var want minesweeper.View
		wantErr := json.Unmarshal([]byte(s), &want)
		got, err := a.decodeView([]byte(s))
		if (err == nil) != (wantErr == nil) || err == nil && !reflect.DeepEqual(got, msView{View: want}) {
			t.Errorf("view %s: adapter %+v, %v; game %+v, %v", s, got, err, want, wantErr)
		}
	}
}

// BenchmarkMinesweeperDecode decodes a co-op match's frames as a bot
// does, by the adapter (the fast path) and by the game's decoder
// (encoding/json): per update's beats, and per view (a match's last,
// with every cell, is the costliest).
func BenchmarkMinesweeperDecode(b *testing.B) {
	views, beats := msFrames(b, minesweeper.ModeCoop, "beginner", 2, 7)
	end := views[len(views)-1]
	a := minesweeperAdapter{}
	b.Run("beats/adapter", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			if _, err := a.decodeBeats(beats[i%len(beats)]); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("beats/encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			var evs []minesweeper.Event
			if err := json.Unmarshal(beats[i%len(beats)], &evs); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("end-view/adapter", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := a.decodeView(end); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("end-view/encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var v minesweeper.View
			if err := json.Unmarshal(end, &v); err != nil {
				b.Fatal(err)
			}
		}
	})
	_, log := msMatchFrames(b, minesweeper.ModeCoop, "beginner", 2, 7)
	b.Run("result-log/adapter", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if !json.Valid(log) {
				b.Fatal("invalid")
			}
			if _, ok := decodeMinesweeperLog(log); !ok {
				b.Fatal("refused")
			}
		}
	})
	b.Run("result-log/encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var l []msLogEntry
			if err := json.Unmarshal(log, &l); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestMinesweeperQueuedBeats follows real matches twice, playing each
// update's beats at once and queueing them to be played when the view is
// read (at random points, as moves and checks come): the views must be the
// same at every read. Beats that fail among queued ones are played one
// update after another instead: the same view, the failure named with its
// own update's bytes.
func TestMinesweeperQueuedBeats(t *testing.T) {
	t.Parallel()
	g := gameFor(t, "minesweeper")
	rng := rand.New(rand.NewPCG(1, 2))
	for _, mode := range []minesweeper.Mode{minesweeper.ModeSolo, minesweeper.ModeCoop, minesweeper.ModeRace} {
		seats := 2
		if mode == minesweeper.ModeSolo {
			seats = 1
		}
		for seed := int64(1); seed <= 4; seed++ {
			vfs, _ := msMatchFrames(t, mode, "intermediate", seats, seed)
			for _, vf := range vfs {
				each, queued := g.newFollower(), g.newFollower()
				if err := setView(each, vf.start); err != nil {
					t.Fatal(err)
				}
				if err := setView(queued, vf.start); err != nil {
					t.Fatal(err)
				}
				for i, raw := range vf.beats {
					evs, err := queued.decodeBeats(raw)
					if err != nil {
						t.Fatal(err)
					}
					queued.queue(evs, raw)
					if err := applyBeats(each, raw); err != nil {
						t.Fatalf("%s seed %d viewer %d, update %d: %v", mode, seed, vf.viewer, i, err)
					}
					if rng.IntN(3) == 0 || i == len(vf.beats)-1 {
						if a, b := each.encode(), queued.encode(); string(a) != string(b) {
							t.Fatalf("%s seed %d viewer %d after update %d:\neach   %s\nqueued %s", mode, seed, vf.viewer, i, a, b)
						}
					}
				}
				if f := queued.failures(); len(f) != 0 {
					t.Fatalf("%s: failures %v", mode, f)
				}
			}
		}
	}

	vfs, _ := msMatchFrames(t, minesweeper.ModeCoop, "beginner", 2, 3)
	vf := vfs[1]
	if len(vf.beats) < 4 {
		t.Fatalf("a match of %d commands", len(vf.beats))
	}
	bad := []byte(`[{"type":"flag","r":99,"c":0,"flagged":true}]`)
	seq := [][]byte{vf.beats[0], vf.beats[1], bad, vf.beats[2], vf.beats[3]}
	each, queued := g.newFollower(), g.newFollower()
	for _, f := range []follower{each, queued} {
		if err := setView(f, vf.start); err != nil {
			t.Fatal(err)
		}
	}
	var eachErrs int
	for _, raw := range seq {
		evs, err := queued.decodeBeats(raw)
		if err != nil {
			t.Fatal(err)
		}
		queued.queue(evs, raw)
		if applyBeats(each, raw) != nil {
			eachErrs++
		}
	}
	queued.sync()
	fails := queued.failures()
	if eachErrs != 1 || len(fails) != 1 || string(fails[0].raw) != string(bad) || fails[0].err == nil {
		t.Fatalf("played one by one: %d errors; queued: %+v", eachErrs, fails)
	}
	if a, b := each.encode(), queued.encode(); string(a) != string(b) {
		t.Fatalf("after a failure:\neach   %s\nqueued %s", a, b)
	}
	if f := queued.failures(); f != nil {
		t.Fatalf("failures taken twice: %v", f)
	}

	// A follower that nobody reads (a spectator without checks) keeps at
	// most maxQueued updates unplayed.
	f := g.newFollower()
	if err := setView(f, vf.start); err != nil {
		t.Fatal(err)
	}
	flag := []byte(`[{"type":"flag","r":0,"c":0,"flagged":true}]`)
	evs, err := f.decodeBeats(flag)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 * maxQueued {
		f.queue(evs, flag)
		if n := len(f.(*viewFollower[msView, minesweeper.Event]).queued); n >= maxQueued {
			t.Fatalf("%d updates queued", n)
		}
	}
}

// BenchmarkMinesweeperFollow is a co-op player's work on the updates of a
// match as roombot does it: each update's beats decoded and followed, and
// a move chosen every second update (a two-player room at the same rate
// each). "each" plays every update's beats at once (before), "queued"
// when the move is chosen.
func BenchmarkMinesweeperFollow(b *testing.B) {
	g, _ := roombotGames.lookup("minesweeper")
	vfs, _ := msMatchFrames(b, minesweeper.ModeCoop, "intermediate", 2, 5)
	vf := vfs[1]
	for _, mode := range []string{"each", "queued"} {
		b.Run(mode, func(b *testing.B) {
			b.ReportAllocs()
			f := g.newFollower()
			i := 0
			for b.Loop() {
				if i%len(vf.beats) == 0 {
					if err := setView(f, vf.start); err != nil {
						b.Fatal(err)
					}
				}
				raw := vf.beats[i%len(vf.beats)]
				evs, err := f.decodeBeats(raw)
				if err != nil {
					b.Fatal(err)
				}
				if mode == "each" {
					err = f.applyDecoded(evs)
				} else {
					f.queue(evs, raw)
				}
				if err != nil {
					b.Fatal(err)
				}
				if i%2 == 1 {
					f.choose(1)
				}
				i++
			}
		})
	}
}

// TestMinesweeperLogDecode checks the result log's hand-written reader
// against encoding/json on the logs of real matches in each mode (seat 0's
// entries name no seat), and that other forms go to encoding/json.
func TestMinesweeperLogDecode(t *testing.T) {
	t.Parallel()
	for _, mode := range []minesweeper.Mode{minesweeper.ModeSolo, minesweeper.ModeCoop, minesweeper.ModeRace} {
		seats := 3
		if mode == minesweeper.ModeSolo {
			seats = 1
		}
		_, log := msMatchFrames(t, mode, "beginner", seats, 11)
		var want []msLogEntry
		if err := json.Unmarshal(log, &want); err != nil {
			t.Fatal(err)
		}
		got, ok := decodeMinesweeperLog(log)
		if !ok || len(want) == 0 || !reflect.DeepEqual(got, want) {
			t.Fatalf("%s log %s:\nfast    %v %+v\ngeneral %+v", mode, log, ok, got, want)
		}
	}
	for _, s := range []string{
		`[{"seat":"1","move":{"type":"reveal","r":1,"c":1},"t":1}]`,
		`[{"move":{"type":"reveal","r":1,"c":1},"t":1,"seat":1}]`,
		`[{"move":{"type":"reveal","r":{"x":1},"c":1},"t":1}]`,
		`[{"move":{"type":"reveal","r":1,"c":1},"t":1} ]`,
		`[{"seat":-1,"move":{"type":"reveal","r":1,"c":1},"t":1}]`,
	} {
		if _, ok := decodeMinesweeperLog([]byte(s)); ok {
			t.Errorf("the fast path took %s", s)
		}
	}
	if got, ok := decodeMinesweeperLog([]byte(`[{"move":{"type":"reveal","r":1,"c":2},"t":1.5e3,"tick":7},{"seat":2,"move":{"type":"flag","r":0,"c":0},"t":-0.5}]`)); !ok ||
		len(got) != 2 || got[0].Seat != 0 || string(got[0].Move) != `{"type":"reveal","r":1,"c":2}` || got[1].Seat != 2 {
		t.Errorf("ticks, exponents, seats: %v %+v", ok, got)
	}
}
