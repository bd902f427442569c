package minesweeper

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/roomd/roomd/core/session"
)

// secretSeed draws a secret seed from keys, a deterministic generator.
func secretSeed(keys *rand.Rand) session.Seed {
	var key [session.SeedBytes]byte
	for i := range key {
		key[i] = byte(keys.Uint32())
	}
	return session.SecretSeed(key)
}

// randomMove returns a move the rules accept for seat: the solver's half
// the time, else a reveal of any hidden cell (a mine, often, late in the
// game), a flag toggle or a chord.
func randomMove(rng *rand.Rand, s *State, seat session.Seat) Move {
	if rng.IntN(2) == 0 {
		if m, ok := (Rules{}).Choose(s.Project(seat), seat, nil); ok {
			return m
		}
	}
	cells, cols := s.boardOf(seat).g.Cells(), s.cfg.Cols
	var hidden, unrevealed, chords []int
	for k, cl := range cells {
		switch cl.st {
		case Hidden:
			hidden = append(hidden, k)
			unrevealed = append(unrevealed, k)
		case Flagged:
			unrevealed = append(unrevealed, k)
		case Revealed:
			if s.checkChord(cells, k/cols, k%cols) == nil {
				chords = append(chords, k)
			}
		}
	}
	pick := func(ks []int, typ MoveType) (Move, bool) {
		if len(ks) == 0 {
			return Move{}, false
		}
		k := ks[rng.IntN(len(ks))]
		return Move{Type: typ, R: k / cols, C: k % cols}, true
	}
	for {
		var m Move
		var ok bool
		switch rng.IntN(4) {
		case 0, 1:
			m, ok = pick(hidden, Reveal)
		case 2:
			m, ok = pick(unrevealed, Flag)
		default:
			m, ok = pick(chords, Chord)
		}
		if ok {
			return m
		}
	}
}

// hiddenTally counts, over many resamples, those whose viewer had a
// hidden state that could change, and those in which it did.
type hiddenTally struct{ could, did int }

// TestHiddenMines plays random matches of every mode from secret seeds,
// through the erased Game, and after every move checks for every viewer
// (each seat and a spectator) what the game kit checks: Secrets lists every
// mine the viewer's projection does not show (and the seed while a board is
// fresh), no Tell is in the viewer's projection or events, Resample leaves
// the state untouched and every projection byte for byte the same, shares
// nothing with the state, keeps its invariants, and moves the hidden mines
// in most draws.
func TestHiddenMines(t *testing.T) {
	tests := []struct {
		config string
		seats  int
	}{
		{`{"mode":"solo","level":"beginner"}`, 1},
		{`{"mode":"solo","level":"custom","rows":5,"cols":6,"mines":24}`, 1}, // no mine-free 3×3
		{`{"mode":"coop","level":"intermediate"}`, 3},
		{`{"mode":"coop","level":"custom","rows":6,"cols":6,"mines":8}`, 2},
		{`{"mode":"race","level":"beginner"}`, 2},
		{`{"mode":"race","level":"custom","rows":5,"cols":5,"mines":5}`, 4},
	}
	keys := rand.New(rand.NewPCG(1, 2))
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%s %d seats", tc.config, tc.seats), func(t *testing.T) {
			var tally hiddenTally
			for game := range 12 {
				sess, err := session.NewSession(Game, secretSeed(keys), json.RawMessage(tc.config), tc.seats, nil)
				if err != nil {
					t.Fatal(err)
				}
				rng := rand.New(rand.NewPCG(uint64(game), 7))
				checkHidden(t, sess.Match(), nil, rng, &tally)
				for move := 0; len(sess.Match().Pending()) > 0; move++ {
					if move > 500 {
						t.Fatal("the match does not end")
					}
					pending := sess.Match().Pending()
					seat := pending[rng.IntN(len(pending))]
					m := randomMove(rng, typedState(t, sess.Match()), seat)
					step, err := sess.Apply(seat, m.AppendJSON(nil))
					if err != nil {
						t.Fatalf("seat %d %v: %v", seat, m, err)
					}
					checkHidden(t, sess.Match(), step, rng, &tally)
				}
			}
			t.Logf("Resample changed the secrets in %d of %d draws that could change them", tally.did, tally.could)
			if tally.could == 0 || tally.did*10 < tally.could*9 {
				t.Errorf("Resample changed the secrets in %d of %d draws that could change them", tally.did, tally.could)
			}
		})
	}
}

// checkHidden checks m after step (nil at the start) for every viewer.
func checkHidden(t *testing.T, m session.Match, step session.Step, rng *rand.Rand, tally *hiddenTally) {
	t.Helper()
	s := typedState(t, m)
	viewers := []session.Seat{session.Spectator}
	for seat := range s.seats {
		viewers = append(viewers, seat)
	}
	views := func(s *State) [][]byte {
		out := make([][]byte, len(viewers))
		for i, v := range viewers {
			out[i] = mustJSON(t, Rules{}.Project(s, v))
		}
		return out
	}
	before, print := views(s), fingerprint(s)
	for i, v := range viewers {
		if !bytes.Equal(before[i], mustJSON(t, m.View(v))) {
			t.Fatalf("viewer %d: the match's view is not the rules' projection", v)
		}
		beats := []byte("[]")
		if step != nil {
			var err error
			if beats, err = step.AppendBeats(nil, v); err != nil {
				t.Fatal(err)
			}
		}
		secrets := Rules{}.Secrets(s, v)
		checkSecretsComplete(t, s, v, secrets)
		for _, sc := range secrets {
			if bytes.Contains(before[i], []byte(sc.Tell)) {
				t.Fatalf("viewer %d's view gives away %s (%s):\n%s", v, sc.What, sc.Tell, before[i])
			}
			if bytes.Contains(beats, []byte(sc.Tell)) {
				t.Fatalf("viewer %d's events give away %s (%s):\n%s", v, sc.What, sc.Tell, beats)
			}
		}

		r := Rules{}.Resample(s, v, session.NewRNG(rng.Int64()))
		if print != fingerprint(s) || !slices.EqualFunc(before, views(s), bytes.Equal) {
			t.Fatalf("viewer %d: Resample changed the state", v)
		}
		for j, w := range viewers {
			if got := mustJSON(t, Rules{}.Project(r, w)); !bytes.Equal(got, before[j]) {
				t.Fatalf("resampled for viewer %d, viewer %d sees\n%s\nnot\n%s", v, w, got, before[j])
			}
		}
		checkResampled(t, s, r)
		if canChange(s) {
			tally.could++
			if !slices.Equal(secrets, Rules{}.Secrets(r, v)) {
				tally.did++
			}
		}
	}
}

// checkSecretsComplete checks that secrets names every mine viewer's
// projection does not show, twice, and the seed exactly while a board is
// fresh and the match runs.
func checkSecretsComplete(t *testing.T, s *State, viewer session.Seat, secrets []session.Secret) {
	t.Helper()
	want, fresh := 0, false
	for i := range s.boards {
		b := &s.boards[i]
		if !b.placed {
			fresh = true
			continue
		}
		shown := 0
		if !s.race || viewer == i {
			shown = b2i(exploded(b))
		}
		want += 2 * (s.cfg.Mines - shown)
	}
	if fresh {
		want++
	}
	if s.over {
		want = 0
	}
	if len(secrets) != want {
		t.Fatalf("viewer %d: %d secrets, want %d (over=%v, fresh=%v)", viewer, len(secrets), want, s.over, fresh)
	}
	seed := slices.ContainsFunc(secrets, func(sc session.Secret) bool { return sc.Tell == s.seed.String() })
	if seed != (fresh && !s.over) {
		t.Fatalf("viewer %d: the seed is a secret: %v, with a fresh board: %v (over=%v)", viewer, seed, fresh, s.over)
	}
}

// checkResampled checks that r, resampled from s, shares no cell with it
// and keeps every invariant of a state: each placed board's mine count,
// adjacency and flag counter, and every cell's status and every revealed
// cell as s has them (a partial chord leaves the revealed counter behind
// the revealed cells: it is kept as it is).
func checkResampled(t *testing.T, s, r *State) {
	t.Helper()
	if r == s {
		t.Fatal("Resample returned the state itself")
	}
	if s.over && fingerprint(r) != fingerprint(s) {
		t.Fatal("Resample changed a match that is over")
	}
	for i := range r.boards {
		b, sb := &r.boards[i], &s.boards[i]
		cells, scells := b.g.Cells(), sb.g.Cells()
		if &cells[0] == &scells[0] {
			t.Fatalf("board %d: the resampled state shares its cells", i)
		}
		if b.phase != sb.phase || b.placed != sb.placed || b.revealed != sb.revealed || b.flags != sb.flags {
			t.Fatalf("board %d: resampled to %+v from %+v", i, *b, *sb)
		}
		if !b.placed {
			if !slices.Equal(cells, scells) {
				t.Fatalf("board %d: a fresh board changed", i)
			}
			continue
		}
		want := slices.Clone(cells)
		count(want, r.cfg.Rows, r.cfg.Cols)
		mines, flags := 0, 0
		for k, cl := range cells {
			mines += b2i(cl.mine)
			flags += b2i(cl.st == Flagged)
			if cl.adj != want[k].adj || cl.st != scells[k].st || (cl.st == Revealed && cl != scells[k]) {
				t.Fatalf("board %d cell %d: resampled to %+v from %+v (adjacency %d)", i, k, cl, scells[k], want[k].adj)
			}
		}
		if mines != r.cfg.Mines || flags != b.flags {
			t.Fatalf("board %d: %d mines, %d flags; want %d, %d", i, mines, flags, r.cfg.Mines, b.flags)
		}
	}
	fresh := slices.ContainsFunc(s.boards, func(b board) bool { return !b.placed })
	if redrawn := fresh && !s.over && s.seed.Generator() == session.ChaCha8; redrawn != (r.seed != s.seed) {
		t.Fatalf("seed %v resampled to %v (fresh board: %v, over: %v)", s.seed, r.seed, fresh, s.over)
	}
}

// canChange reports whether some hidden state of s can be drawn otherwise:
// a placed board whose free cells hold some mines but not only mines, or a
// fresh board (the seed).
func canChange(s *State) bool {
	if s.over {
		return false
	}
	for i := range s.boards {
		b := &s.boards[i]
		if !b.placed {
			return true
		}
		free, mines := freeCells(s, b)
		if mines > 0 && mines < free {
			return true
		}
	}
	return false
}

// freeCells counts b's unrevealed cells with no revealed neighbour and the
// mines among them.
func freeCells(s *State, b *board) (free, mines int) {
	cells, rows, cols := b.g.Cells(), s.cfg.Rows, s.cfg.Cols
	var buf [8]int32
	for k, cl := range cells {
		if cl.st == Revealed || slices.ContainsFunc(around(rows, cols, k/cols, k%cols, buf[:0]), func(nk int32) bool { return cells[nk].st == Revealed }) {
			continue
		}
		free++
		mines += b2i(cl.mine)
	}
	return free, mines
}

// TestReferenceSeedIsPublic: a reference (integer) seed is no secret and
// Resample keeps it, and the zero seed neither.
func TestReferenceSeedIsPublic(t *testing.T) {
	for _, seed := range []session.Seed{session.IntSeed(7), {}} {
		cfg, err := DecodeConfig([]byte(`{"mode":"race","level":"beginner"}`))
		if err != nil {
			t.Fatal(err)
		}
		s, err := NewState(seed, cfg, 2)
		if err != nil {
			t.Fatal(err)
		}
		if got := (Rules{}).Secrets(s, session.Spectator); len(got) != 0 {
			t.Errorf("seed %v: fresh boards have secrets %v", seed, got)
		}
		if _, err := s.apply(0, Move{Type: Reveal, R: 4, C: 4}); err != nil {
			t.Fatal(err)
		}
		if r := (Rules{}).Resample(s, 1, session.NewRNG(3)); r.seed != seed {
			t.Errorf("seed %v resampled to %v", seed, r.seed)
		}
		if got := len((Rules{}).Secrets(s, 1)); got != 2*cfg.Mines {
			t.Errorf("seed %v: seat 1 has %d secrets, want one pair per mine of board 0", seed, got)
		}
	}
}

// TestSecretSeedsDiffer: matches from secret seeds one bit apart, given the
// same moves, have other secrets for a spectator, before any mine is
// placed (the seed) and after (the mines).
func TestSecretSeedsDiffer(t *testing.T) {
	keys := rand.New(rand.NewPCG(3, 4))
	for _, tc := range []struct {
		config string
		seats  int
		moves  []play
	}{
		{`{"mode":"solo","level":"beginner"}`, 1, []play{mv(0, Reveal, 4, 4)}},
		{`{"mode":"coop","level":"expert"}`, 2, []play{mv(1, Reveal, 0, 0), mv(0, Flag, 15, 29)}},
		{`{"mode":"race","level":"beginner"}`, 3, []play{mv(0, Reveal, 4, 4), mv(2, Reveal, 0, 8), mv(1, Reveal, 4, 4)}},
	} {
		for n := range 64 {
			var key [session.SeedBytes]byte
			for i := range key {
				key[i] = byte(keys.Uint32())
			}
			flipped := key
			flipped[n%session.SeedBytes] ^= 1 << (n % 8)
			a, err := session.NewSession(Game, session.SecretSeed(key), json.RawMessage(tc.config), tc.seats, nil)
			if err != nil {
				t.Fatal(err)
			}
			b, err := session.NewSession(Game, session.SecretSeed(flipped), json.RawMessage(tc.config), tc.seats, nil)
			if err != nil {
				t.Fatal(err)
			}
			for i := 0; ; i++ {
				sa, _ := session.Secrets(a.Match(), session.Spectator)
				sb, _ := session.Secrets(b.Match(), session.Spectator)
				if len(sa) == 0 || slices.Equal(sa, sb) {
					t.Fatalf("%s, bit %d flipped, after %d moves: a spectator's secrets are alike: %d", tc.config, n, i, len(sa))
				}
				if i == len(tc.moves) {
					break
				}
				p := tc.moves[i]
				for _, s := range []*session.GameSession{a, b} {
					if _, err := s.Apply(p.seat, json.RawMessage(p.move)); err != nil {
						t.Fatalf("%s move %d: %v", tc.config, i, err)
					}
				}
			}
		}
	}
}

// TestSecretsTellLeaks plants the leaks the Tells are for and checks that
// they are caught: running boards projected as if finished show the view
// form of every hidden mine; explode and end events that list the mines
// (as a race's explode would if settleRace did not drop them) have the
// event form of every mine; JSON that carries the seed has its Tell. The
// honest view and events of the same states have none.
func TestSecretsTellLeaks(t *testing.T) {
	keys := rand.New(rand.NewPCG(5, 6))
	t.Run("solo", func(t *testing.T) {
		cfg, _ := DecodeConfig([]byte(`{"level":"intermediate"}`))
		s, err := NewState(secretSeed(keys), cfg, 1)
		if err != nil {
			t.Fatal(err)
		}
		seed := (Rules{}).Secrets(s, 0)
		if len(seed) != 1 {
			t.Fatalf("a fresh board's secrets: %v", seed)
		}
		carried := mustJSON(t, struct{ Seed session.Seed }{s.seed})
		if !bytes.Contains(carried, []byte(seed[0].Tell)) {
			t.Errorf("%s does not give away %s", carried, seed[0].Tell)
		}
		honest, err := s.apply(0, Move{Type: Reveal, R: 8, C: 8})
		if err != nil {
			t.Fatal(err)
		}
		finished := View{Config: cfg.Raw(), Phase: PhaseLost, Cells: s.project(&s.boards[0], true)}
		listed := Event{Type: EventExplode, R: 0, C: 0, Mines: s.mines(&s.boards[0])}
		checkPlanted(t, (Rules{}).Secrets(s, 0), finished.AppendJSON(nil), listed.AppendJSON(nil),
			mustJSON(t, s.Project(0)), mustJSON(t, honest))
	})
	t.Run("race", func(t *testing.T) {
		cfg, _ := DecodeConfig([]byte(`{"mode":"race","level":"beginner"}`))
		s, err := NewState(secretSeed(keys), cfg, 3)
		if err != nil {
			t.Fatal(err)
		}
		var honest [][]Event
		for seat, at := range []int{0, 4} { // seat 0 opens a corner, seat 1 the middle; board 2 stays fresh
			events, err := s.apply(seat, Move{Type: Reveal, R: at, C: at})
			if err != nil {
				t.Fatal(err)
			}
			honest = append(honest, events)
		}
		// What a race would send if it listed the mines of a board that
		// explodes while it runs, and every board's cells.
		over := s.Clone()
		over.over = true
		listed := append(Event{Type: EventExplode, Seat: 0, Tagged: true, Mines: s.mines(&s.boards[0])}.AppendJSON(nil),
			Event{Type: EventEnd, Seat: 1, Tagged: true, Mines: s.mines(&s.boards[1])}.AppendJSON(nil)...)
		for _, v := range []session.Seat{session.Spectator, 0, 1, 2} {
			secrets := (Rules{}).Secrets(s, v)
			seed := slices.IndexFunc(secrets, func(sc session.Secret) bool { return sc.Tell == s.seed.String() })
			if seed < 0 {
				t.Fatalf("viewer %d: board 2 is fresh, and the seed is no secret", v)
			}
			var events []byte
			for _, e := range honest {
				events = append(events, mustJSON(t, (Rules{}).ProjectEvents(s, e, v))...)
			}
			checkPlanted(t, slices.Delete(secrets, seed, seed+1), over.Project(v).AppendJSON(nil), listed, mustJSON(t, s.Project(v)), events)
		}
	})
}

// checkPlanted checks that each secret's Tell is in exactly one of the two
// leaks, as many in each (a mine is two secrets), and in neither honest
// output.
func checkPlanted(t *testing.T, secrets []session.Secret, viewLeak, eventLeak, view, events []byte) {
	t.Helper()
	caught := [2]int{}
	for _, sc := range secrets {
		inView, inEvent := bytes.Contains(viewLeak, []byte(sc.Tell)), bytes.Contains(eventLeak, []byte(sc.Tell))
		if inView == inEvent {
			t.Errorf("%s (%s): in the leaked view %v, in the leaked event %v", sc.What, sc.Tell, inView, inEvent)
		}
		caught[0] += b2i(inView)
		caught[1] += b2i(inEvent)
		if bytes.Contains(view, []byte(sc.Tell)) || bytes.Contains(events, []byte(sc.Tell)) {
			t.Errorf("%s (%s) is in the honest view or events", sc.What, sc.Tell)
		}
	}
	if caught[0] == 0 || caught[0] != caught[1] {
		t.Errorf("of %d secrets, %d catch the leaked view and %d the leaked event: want one of each for every mine", len(secrets), caught[0], caught[1])
	}
}

// TestSendBounds checks the lengths Info's bounds are made of against the
// encoders, then builds the largest view and events a match can send and
// checks they are within the bounds, and the bounds within 4× of them.
func TestSendBounds(t *testing.T) {
	progress := Event{Type: EventProgress, Seat: 3, Tagged: true, Phase: PhaseActive, Revealed: maxCells, Safe: maxCells, Flags: maxCells}
	board := View{Config: json.RawMessage(`{}`), Phase: PhaseActive, Race: true,
		Boards: []BoardView{{Seat: 3, Phase: PhaseActive, Revealed: maxCells, Safe: maxCells, Flags: maxCells, Visible: true}}}
	revealed := Event{Type: EventReveal, Cells: []RevealedCell{{R: MaxSide - 1, C: MaxSide - 1, Adjacent: 8}}}
	explode := Event{Type: EventExplode, R: 0, C: 0, Mines: []Pos{{R: MaxSide - 1, C: MaxSide - 1}}}
	for _, tc := range []struct {
		name string
		got  int
		want int
	}{
		{"config", len(Config{Rows: MaxSide, Cols: MaxSide, Mines: maxCells - 1, Mode: ModeCoop}.Canonical()), maxConfigBytes},
		{"view frame", len(View{Race: true, Phase: PhaseActive}.AppendJSON(nil)) - len("null"), maxViewFrame},
		{"board frame", len(board.AppendJSON(nil)) - len(`{"config":{},"phase":"active","mode":"race","boards":[]}`) + len(","), maxBoardFrame},
		{"view cell", len(ViewCell{R: MaxSide - 1, C: MaxSide - 1, Status: Revealed, Adjacent: 8}.AppendJSON(nil)) + len(","), maxViewCell},
		{"event frame", len(progress.AppendJSON(nil)) + len(","), maxEventFrame},
		{"revealed cell", len(revealed.AppendJSON(nil)) - len(`{"type":"reveal","cells":[]}`) + len(","), maxRevealedCell},
		{"mine", len(explode.AppendJSON(nil)) - len(`{"type":"explode","r":0,"c":0,"mines":[]}`) + len(","), maxMinePos},
	} {
		if tc.got != tc.want {
			t.Errorf("the longest %s is %d bytes; the bounds count %d", tc.name, tc.got, tc.want)
		}
	}

	worstView, worstEvents := 0, 0
	measure := func(m session.Match, step session.Step) {
		t.Helper()
		for v := session.Spectator; v < typedState(t, m).seats; v++ {
			worstView = max(worstView, len(mustJSON(t, m.View(v))))
			beats, err := step.AppendBeats(nil, v)
			if err != nil {
				t.Fatal(err)
			}
			worstEvents = max(worstEvents, len(beats))
		}
	}
	custom := func(mode Mode, mines int) json.RawMessage {
		return Config{Rows: MaxSide, Cols: MaxSide, Mines: mines, Mode: mode}.Canonical()
	}
	apply := func(sess *session.GameSession, seat session.Seat, typ MoveType, k int) {
		t.Helper()
		step, err := sess.Apply(seat, moveJSON(typ, k/MaxSide, k%MaxSide))
		if err != nil {
			t.Fatalf("seat %d %v %d: %v", seat, typ, k, err)
		}
		measure(sess.Match(), step)
	}
	mineOf := func(sess *session.GameSession, seat session.Seat) int {
		return slices.IndexFunc(typedState(t, sess.Match()).boards[seat].g.Cells(), func(c cell) bool { return c.mine && c.st == Hidden })
	}
	keys := rand.New(rand.NewPCG(7, 8))

	// A solo board without mines, opened whole by one reveal.
	solo, err := session.NewSession(Game, secretSeed(keys), custom(ModeSolo, 0), 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	apply(solo, 0, Reveal, 0)

	// A race of four on the largest board with one mine: three seats flag
	// (1,1), open all but it and the mine, and hit the mine; the fourth opens
	// its board whole. Every board is then listed with every cell.
	race, err := session.NewSession(Game, secretSeed(keys), custom(ModeRace, 1), maxRaceSeats, nil)
	if err != nil {
		t.Fatal(err)
	}
	for seat := range maxRaceSeats - 1 {
		apply(race, seat, Flag, MaxSide+1)
		apply(race, seat, Reveal, 0)
		apply(race, seat, Reveal, mineOf(race, seat))
	}
	apply(race, maxRaceSeats-1, Reveal, 0)
	if st := race.Status(); !st.Over || len(st.Outcome.Winners) != 1 {
		t.Fatalf("the race of one mine: %+v", st)
	}

	// A race of four on the largest board with two safe cells: every seat
	// opens one and hits a mine; the last explosion lists every board's
	// mines.
	mines, err := session.NewSession(Game, secretSeed(keys), custom(ModeRace, maxCells-2), maxRaceSeats, nil)
	if err != nil {
		t.Fatal(err)
	}
	for seat := range maxRaceSeats {
		apply(mines, seat, Reveal, 0)
	}
	for seat := range maxRaceSeats {
		apply(mines, seat, Reveal, mineOf(mines, seat))
	}
	if st := mines.Status(); !st.Over || st.Phase != "lost" {
		t.Fatalf("the race of mines: %+v", st)
	}

	t.Logf("largest view %d bytes (bound %d), largest events %d bytes (bound %d)", worstView, maxViewBytes, worstEvents, maxEventBytes)
	for _, b := range []struct {
		name         string
		worst, bound int
	}{{"view", worstView, Info.MaxViewBytes}, {"events", worstEvents, Info.MaxEventBytes}} {
		if b.worst > b.bound || b.bound > 4*b.worst {
			t.Errorf("the largest %s is %d bytes; the bound %d is not between it and 4× it", b.name, b.worst, b.bound)
		}
	}
}
