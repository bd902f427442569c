package snake

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/roomd/roomd/core/session"
	"github.com/roomd/roomd/core/session/sessiontest"
)

var viewers = sessiontest.Viewers

// secretSeeds returns n secret seeds whose keys come from a fixed
// generator, so that every run plays the same matches.
func secretSeeds(n int) []session.Seed {
	gen := rand.NewChaCha8([32]byte{'s', 'n', 'a', 'k', 'e'})
	out := make([]session.Seed, n)
	for i := range out {
		var key [session.SeedBytes]byte
		_, _ = gen.Read(key[:]) // never fails
		out[i] = session.SecretSeed(key)
	}
	return out
}

// resampled counts the resamplings that changed the hidden state.
type resampled struct{ draws, changed int }

// hiddenMatch is a match the test plays, with what checking it needs.
type hiddenMatch struct {
	s      *session.GameSession
	seed   session.Seed
	config json.RawMessage
	seats  int
}

// checkpoint is the match's whole state.
func (h *hiddenMatch) checkpoint(t *testing.T) []byte {
	t.Helper()
	cp, err := h.s.Match().Checkpoint()
	if err != nil {
		t.Fatal(err)
	}
	return cp
}

// checkSent checks what every viewer of the match is sent after a step:
// no Tell of what it must not know, and nothing larger than the game's
// bounds.
func (h *hiddenMatch) checkSent(t *testing.T, step session.Step) {
	t.Helper()
	info, m := Game.Info(), h.s.Match()
	for _, viewer := range viewers(h.seats) {
		secrets, ok := session.Secrets(m, viewer)
		if !ok {
			t.Fatal("snake declares no hidden information")
		}
		view := encode(t, m.View(viewer))
		beats, err := step.AppendBeats(nil, viewer)
		if err != nil {
			t.Fatalf("events of %d: %v", viewer, err)
		}
		for _, sec := range secrets {
			if strings.Contains(view, sec.Tell) {
				t.Fatalf("tick %d: the view of %d gives away %s (%s): %s", h.s.Tick(), viewer, sec.What, sec.Tell, view)
			}
			if bytes.Contains(beats, []byte(sec.Tell)) {
				t.Fatalf("tick %d: the events of %d give away %s (%s): %s", h.s.Tick(), viewer, sec.What, sec.Tell, beats)
			}
		}
		if len(view) > info.MaxViewBytes || len(beats) > info.MaxEventBytes {
			t.Fatalf("tick %d: viewer %d gets a view of %d bytes and events of %d, more than %d and %d",
				h.s.Tick(), viewer, len(view), len(beats), info.MaxViewBytes, info.MaxEventBytes)
		}
	}
}

// checkResample resamples the match for every viewer and checks the copy:
// the viewer's view and the spectator's are byte for byte the match's,
// every seat sees the same arena (its own queue aside), the match itself
// is unchanged, the copy is a state the rules accept and shares nothing
// with the match (a tick played on it changes nothing of the match), and
// the hidden state was drawn again.
func (h *hiddenMatch) checkResample(t *testing.T, src session.Source, rng *rand.Rand, count *resampled) {
	t.Helper()
	m, tick := h.s.Match(), h.s.Tick()
	before, cp := everything(t, m, h.seats), h.checkpoint(t)
	for _, viewer := range viewers(h.seats) {
		secrets, _ := session.Secrets(m, viewer)
		r, ok := session.Resample(m, viewer, src)
		if !ok {
			t.Fatal("snake declares no hidden information")
		}
		if got, want := encode(t, r.View(viewer)), encode(t, m.View(viewer)); got != want {
			t.Fatalf("tick %d: resampled for %d, its view is\n%s\nnot\n%s", tick, viewer, got, want)
		}
		if got, want := encode(t, r.View(session.Spectator)), encode(t, m.View(session.Spectator)); got != want {
			t.Fatalf("tick %d: resampled for %d, the spectator's view is\n%s\nnot\n%s", tick, viewer, got, want)
		}
		for _, other := range viewers(h.seats) {
			if got, want := public(t, r.View(other)), public(t, m.View(other)); got != want {
				t.Fatalf("tick %d: resampled for %d, seat %d sees the arena as\n%s\nnot\n%s", tick, viewer, other, got, want)
			}
		}
		if got := everything(t, m, h.seats); got != before {
			t.Fatalf("tick %d: resampling for %d changed the match:\n%s\nwas\n%s", tick, viewer, got, before)
		}
		if got := h.checkpoint(t); !bytes.Equal(got, cp) {
			t.Fatalf("tick %d: resampling for %d changed the match:\n%s\nwas\n%s", tick, viewer, got, cp)
		}
		rcp, err := r.Checkpoint()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Game.Resume(h.seed, h.config, h.seats, rcp); err != nil {
			t.Fatalf("tick %d: resampled for %d, the rules refuse the copy: %v\n%s", tick, viewer, err, rcp)
		}
		if _, err := r.Advance(tick+1, randomTurns(rng, h.seats)); err != nil {
			t.Fatal(err)
		}
		if got := h.checkpoint(t); !bytes.Equal(got, cp) {
			t.Fatalf("tick %d: a tick of the copy resampled for %d changed the match:\n%s\nwas\n%s", tick, viewer, got, cp)
		}
		count.draws++
		if after, _ := session.Secrets(r, viewer); !slices.Equal(after, secrets) {
			count.changed++
		}
	}
}

// public is a view as JSON without any queue.
func public(t *testing.T, v any) string {
	t.Helper()
	pv := v.(View)
	pv.Snakes = slices.Clone(pv.Snakes)
	for i := range pv.Snakes {
		pv.Snakes[i].Queue = nil
	}
	return encode(t, pv)
}

// randomTurns is one tick's random inputs: a turn for each seat one time
// in three.
func randomTurns(rng *rand.Rand, seats int) []session.Command {
	var out []session.Command
	for seat := range seats {
		if rng.IntN(3) == 0 {
			out = append(out, session.Command{Seat: seat, Move: command(Dir(1 + rng.IntN(4)))})
		}
	}
	return out
}

// Random matches from secret seeds on every board and speed with two to
// the most seats, steered by the AI and by random turns: after every tick
// no viewer is sent a Tell of what it must not know nor more than the
// bounds, and at ticks drawn at random Resample passes for every viewer.
func TestHiddenStaysHidden(t *testing.T) {
	n := 24
	if testing.Short() {
		n = 6
	}
	rng := rand.New(rand.NewPCG(3, 4))
	src := session.SecretSeed([32]byte{'r', 'e'}).Source()
	var count resampled
	for i, seed := range secretSeeds(n) {
		b := boards[i%len(boards)]
		speed := speeds[i/len(boards)%len(speeds)].id
		seats := MinSeats + rng.IntN(b.MaxSeats-MinSeats+1)
		config := fmt.Sprintf(`{"board":%q,"speed":%q,"timeLimit":%d,"food":%d}`, b.ID, speed, MinTimeLimit, 1+rng.IntN(MaxFood))
		t.Run(fmt.Sprintf("%s %s %d seats #%d", b.ID, speed, seats, i), func(t *testing.T) {
			s, err := session.NewSession(Game, seed, json.RawMessage(config), seats, nil)
			if err != nil {
				t.Fatal(err)
			}
			h := &hiddenMatch{s: s, seed: seed, config: json.RawMessage(config), seats: seats}
			steer := rng.Float64() // how often the AI steers a seat
			h.checkResample(t, src, rng, &count)
			for !s.Status().Over {
				at := float64(s.Tick()+1) * 50
				for _, seat := range s.Match().Pending() {
					switch x := rng.Float64(); {
					case x < steer/4:
						if c, ok := s.AIMove(seat); ok {
							_, _ = s.Input(seat, c, at) // valid by construction
						}
					case x < steer/4+0.05:
						_, _ = s.Input(seat, command(Dir(1+rng.IntN(4))), at)
					}
				}
				step, err := s.Advance()
				if err != nil {
					t.Fatal(err)
				}
				h.checkSent(t, step)
				if rng.IntN(25) == 0 || s.Status().Over {
					h.checkResample(t, src, rng, &count)
				}
			}
		})
	}
	// The key is drawn again every time.
	if count.draws < 20*n || count.changed != count.draws {
		t.Fatalf("Resample changed the secrets in %d draws of %d", count.changed, count.draws)
	}
	t.Logf("Resample changed the secrets in %d draws of %d", count.changed, count.draws)
}

// Secrets names the key in three encodings, the next food and the other
// seats' queues, by their Tells; once over, the key alone.
func TestHiddenSecretsList(t *testing.T) {
	s := world(t, small, 70, []Cell{{0, 0}},
		sn(Right, 0, Cell{5, 5}, Cell{5, 4}, Cell{5, 3}),
		sn(Left, 1, Cell{9, 5}, Cell{9, 6}, Cell{9, 7}),
		sn(Up, 0))
	Rules{}.Step(s, 71, []session.Input[Move]{turn(0, Up), turn(1, Up), turn(1, Right)})
	next, ok := s.nextFood()
	if !ok {
		t.Fatal("no next food")
	}
	const zero = `the food key 0000000000000000000000000000000000000000000000000000000000000000`
	key := []string{
		zero + ", in hex|" + strings.Repeat("00", 32),
		zero + ", in base64|AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
		zero + ", as numbers|[" + strings.Repeat("0,", 31) + "0]",
	}
	food := fmt.Sprintf(`the next food, on [%d %d]|{"t":"food","at":[%d,%d]}`, next[0], next[1], next[0], next[1])
	seat0 := []string{
		`seat 0's queued turn 1, up|{"t":"turn","s":0,"d":"up"}`,
		`seat 0's queue [up]|{"body":[[5,5],[5,4],[5,3]],"dir":"right","alive":true,"score":0,"queue":["up"]}`,
	}
	seat1 := []string{
		`seat 1's queued turn 1, up|{"t":"turn","s":1,"d":"up"}`,
		`seat 1's queued turn 2, right|{"t":"turn","s":1,"d":"right"}`,
		`seat 1's queue [up right]|{"body":[[9,5],[9,6],[9,7]],"dir":"left","alive":true,"score":1,"queue":["up","right"]}`,
	}
	join := func(parts ...[]string) []string { return slices.Concat(parts...) }
	tests := []struct {
		viewer Seat
		want   []string
	}{
		{0, join(key, []string{food}, seat1)},
		{1, join(key, []string{food}, seat0)},
		{2, join(key, []string{food}, seat0, seat1)},
		{session.Spectator, join(key, []string{food}, seat0, seat1)},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.viewer), func(t *testing.T) {
			if got := list(Rules{}.Secrets(s, tt.viewer)); !slices.Equal(got, tt.want) {
				t.Errorf("Secrets:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
	s.timeUp()
	if got := list(Rules{}.Secrets(s, session.Spectator)); !slices.Equal(got, key) {
		t.Errorf("Secrets once over:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(key, "\n"))
	}
}

// list writes secrets as What|Tell.
func list(secrets []session.Secret) []string {
	out := make([]string, len(secrets))
	for i, s := range secrets {
		out[i] = s.What + "|" + s.Tell
	}
	return out
}

// Resample keeps the viewer's queue and draws every other live seat's
// again, of every length the queue allows and by the queue's rules; it
// draws a new key and keeps the food and the draws made.
func TestHiddenResampleQueues(t *testing.T) {
	s := world(t, small, 70, []Cell{{0, 0}, {15, 15}},
		sn(Right, 0, Cell{5, 5}, Cell{5, 4}, Cell{5, 3}),
		sn(Left, 1, Cell{9, 5}, Cell{9, 6}, Cell{9, 7}),
		sn(Down, 0, Cell{12, 2}, Cell{11, 2}, Cell{10, 2}),
		sn(Up, 0))
	Rules{}.Step(s, 71, []session.Input[Move]{turn(0, Up), turn(0, Left), turn(1, Up)})
	cp, err := Rules{}.Checkpoint(s)
	if err != nil {
		t.Fatal(err)
	}
	src := session.IntSeed(9).Source()
	lengths := make(map[[2]int]int) // seat, length → draws
	for range 300 {
		r := Rules{}.Resample(s, 0, src)
		if r.secret == s.secret || r.draws != s.draws {
			t.Fatalf("resampled key %x after %d draws, was %x after %d", r.secret, r.draws, s.secret, s.draws)
		}
		if got, want := encode(t, r.foodCells()), encode(t, s.foodCells()); got != want {
			t.Fatalf("resampled food %s, was %s", got, want)
		}
		if got := r.snakes[0].queue[:r.snakes[0].queued]; !slices.Equal(got, []Dir{Up, Left}) {
			t.Fatalf("seat 0's queue resampled to %v", got)
		}
		if r.snakes[3].queued != 0 {
			t.Fatalf("dead seat 3 queued %v", r.snakes[3].queue)
		}
		for _, j := range []int{1, 2} {
			lengths[[2]int{j, r.snakes[j].queued}]++
		}
		rcp, err := Rules{}.Checkpoint(r)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := (Rules{}).Resume(session.IntSeed(1), small, 4, rcp); err != nil {
			t.Fatalf("the rules refuse the resampled state: %v\n%s", err, rcp)
		}
		Rules{}.Step(r, 72, []session.Input[Move]{turn(1, Down), turn(2, Left)})
		if again, _ := (Rules{}).Checkpoint(s); !bytes.Equal(again, cp) {
			t.Fatalf("resampling or playing the copy changed the state:\n%s\nwas\n%s", again, cp)
		}
	}
	for _, j := range []int{1, 2} {
		for n := range QueueLen + 1 {
			if lengths[[2]int{j, n}] < 50 {
				t.Errorf("seat %d's queue drawn with %d turns %d times in 300", j, n, lengths[[2]int{j, n}])
			}
		}
	}
}

// A different seed makes a different key, as every viewer's Secrets show:
// for each bit of a secret seed flipped, and among many seeds.
func TestHiddenKeyFollowsSeed(t *testing.T) {
	secretsOf := func(seed session.Seed) string {
		m, err := Game.New(seed, nil, 2)
		if err != nil {
			t.Fatal(err)
		}
		secrets, _ := session.Secrets(m, session.Spectator)
		return strings.Join(list(secrets), "\n")
	}
	var key [session.SeedBytes]byte
	copy(key[:], "a secret seed for the snake test")
	base := secretsOf(session.SecretSeed(key))
	for bit := range 8 * session.SeedBytes {
		flipped := key
		flipped[bit/8] ^= 1 << (bit % 8)
		if secretsOf(session.SecretSeed(flipped)) == base {
			t.Fatalf("flipping bit %d of the seed leaves the secrets as they were", bit)
		}
	}
	seen := make(map[string]bool)
	for _, seed := range secretSeeds(2000) {
		s := secretsOf(seed)
		if seen[s] {
			t.Fatalf("two seeds make the same secrets:\n%s", s)
		}
		seen[s] = true
	}
}

// The bounds hold for the largest arena full of snakes, each with the
// longest queue, running and over, and for eight snakes dying together as
// the viewer turns twice; and they are no more than four times that.
func TestHiddenBounds(t *testing.T) {
	for _, b := range boards {
		if b.Rows > maxRows || b.Cols > maxCols || b.MaxSeats > MaxSeats {
			t.Fatalf("board %s is %d×%d for %d seats: the bounds count on at most %d×%d for %d", b.ID, b.Rows, b.Cols, b.MaxSeats, maxRows, maxCols, MaxSeats)
		}
	}
	info := Game.Info()
	large := Config{Board: BoardLarge, Speed: SpeedSlow, TimeLimit: MaxTimeLimit}

	// Eight snakes of 128 cells each, in bands of four rows, winding from
	// their head at the band's bottom left.
	full := func(phase string) *State {
		rows := maxRows / MaxSeats
		snakes := make([]snakeCheckpoint, MaxSeats)
		for i := range snakes {
			var path []Cell
			for r := range rows {
				for c := range maxCols {
					if r%2 == 1 {
						c = maxCols - 1 - c
					}
					path = append(path, Cell{i*rows + r, c})
				}
			}
			slices.Reverse(path)
			snakes[i] = snakeCheckpoint{Body: path, Dir: Left, Alive: true, Score: len(path) - StartLength}
			if phase == PhaseRunning {
				snakes[i].Queue = []Dir{Down, Right}
			}
		}
		cp := checkpoint{Tick: 100, Phase: phase, Snakes: snakes, Food: []Cell{}, Key: zeroKey}
		if phase == PhaseOver {
			cp.Winners, cp.Why = []Seat{0, 1, 2, 3, 4, 5, 6, 7}, WhyTime
		}
		s, err := Rules{}.Resume(session.IntSeed(1), large, MaxSeats, []byte(encode(t, cp)))
		if err != nil {
			t.Fatalf("full arena: %v", err)
		}
		return s
	}
	view := 0
	for _, s := range []*State{full(PhaseRunning), full(PhaseOver)} {
		for _, v := range viewers(MaxSeats) {
			view = max(view, len(encode(t, Rules{}.Project(s, v))))
		}
	}

	// Eight snakes side by side under the top wall, heading up; seat 7
	// turns right, then down, and runs into the right wall.
	var snakes []snakeCheckpoint
	for i := range MaxSeats {
		c := maxCols - MaxSeats + i
		snakes = append(snakes, sn(Up, 0, Cell{0, c}, Cell{1, c}, Cell{2, c}))
	}
	s := world(t, Config{Board: BoardLarge}, 62, nil, snakes...)
	_, evs := Rules{}.Step(s, 63, []session.Input[Move]{turn(7, Right), turn(7, Down)})
	events := 0
	for _, v := range viewers(MaxSeats) {
		events = max(events, len(eventsJSON(t, Rules{}.ProjectEvents(s, evs, v))))
	}
	if !(Rules{}).Status(s).Over {
		t.Fatalf("the eight snakes did not all die: %s", eventsJSON(t, evs))
	}

	t.Logf("largest view %d bytes (bound %d), largest events %d (bound %d)", view, info.MaxViewBytes, events, info.MaxEventBytes)
	if view > info.MaxViewBytes || 4*view < info.MaxViewBytes {
		t.Errorf("largest view %d bytes, bound %d", view, info.MaxViewBytes)
	}
	if events > info.MaxEventBytes || 4*events < info.MaxEventBytes {
		t.Errorf("largest events %d bytes, bound %d", events, info.MaxEventBytes)
	}
}

// A resampled copy shares nothing with its original: the two play on side
// by side, each the same as a state of its own (the original's twin built
// alike, the copy's resumed from its checkpoint), events included.
func TestHiddenResampleSharesNothing(t *testing.T) {
	build := func() *State {
		return world(t, small, 62, []Cell{{4, 9}, {9, 2}},
			sn(Right, 0, Cell{4, 5}, Cell{4, 4}, Cell{4, 3}),
			sn(Left, 0, Cell{9, 6}, Cell{9, 7}, Cell{9, 8}))
	}
	s, sTwin := build(), build()
	for i, src := range []session.Source{session.IntSeed(3).Source(), session.IntSeed(4).Source()} {
		r := Rules{}.Resample(s, session.Spectator, src)
		cp, err := Rules{}.Checkpoint(r)
		if err != nil {
			t.Fatal(err)
		}
		rTwin, err := Rules{}.Resume(session.IntSeed(1), small, 2, cp)
		if err != nil {
			t.Fatal(err)
		}
		for tick := uint64(63 + 12*i); tick < uint64(75+12*i); tick++ {
			in := []session.Input[Move]{turn(0, Up), turn(1, Down)}
			if tick%2 == 0 {
				in = []session.Input[Move]{turn(0, Right), turn(1, Left)}
			}
			_, events := Rules{}.Step(s, tick, in)
			_, rEvents := Rules{}.Step(r, tick, in)
			_, twinEvents := Rules{}.Step(sTwin, tick, in)
			_, rTwinEvents := Rules{}.Step(rTwin, tick, in)
			if got, want := eventsJSON(t, events), eventsJSON(t, twinEvents); got != want {
				t.Fatalf("tick %d: the original's events are %s, its twin's %s", tick, got, want)
			}
			if got, want := eventsJSON(t, rEvents), eventsJSON(t, rTwinEvents); got != want {
				t.Fatalf("tick %d: the copy's events are %s, its twin's %s", tick, got, want)
			}
			if got, want := finalWorld(t, s), finalWorld(t, sTwin); got != want {
				t.Fatalf("tick %d: the original is\n%s\nits twin\n%s", tick, got, want)
			}
			if got, want := finalWorld(t, r), finalWorld(t, rTwin); got != want {
				t.Fatalf("tick %d: the copy is\n%s\nits twin\n%s", tick, got, want)
			}
		}
	}
}
