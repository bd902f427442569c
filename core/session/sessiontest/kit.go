package sessiontest

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/roomd/roomd/core/session"
)

// Reporter is what the game kit needs of a *testing.T: a test of the kit
// itself passes a recorder, to see the kit fail on planted faults.
type Reporter interface {
	Helper()
	Errorf(format string, args ...any)
}

// Option adjusts one run of the kit.
type Option func(*kit)

// Configs sets the configs the kit plays, as JSON. By default it plays
// {"mode": id} for every mode the game lists (a generic client creates a
// mode that way, so every game must accept it).
func Configs(configs ...string) Option { return func(k *kit) { k.configs = configs } }

// Matches sets how many random matches the kit plays for each config and
// seat count; zero means 6.
func Matches(n int) Option { return func(k *kit) { k.matches = n } }

// Steps bounds the commands (or, for a fixed-step game, the ticks) of one
// match; zero means 240.
func Steps(n int) Option { return func(k *kit) { k.steps = n } }

// Hints sets strings the random commands draw their string fields from
// half of the time (a game's card names, say), so that more of them are
// legal.
func Hints(strs ...string) Option { return func(k *kit) { k.hints = strs } }

// Run is the game kit: what every game must pass, whoever wrote it. Over
// many seeded matches (Matches per config and seat count, each up to Steps
// commands), played by the game's AI and by random commands drawn from its
// command schema (legal, illegal, malformed, padded, with unknown fields,
// from seats that are not in the match), it checks:
//
//   - determinism: the same secret and commands give byte-identical views,
//     events, results and AI choices; the live match, session.Replay of its
//     log, and a restore from every checkpoint (and from none) agree;
//   - bad input: no command makes the rules panic, a refused command
//     changes nothing (views, status, checkpoint, log), and a command the
//     command schema refuses is refused;
//   - canonical input: what a match logs of an accepted command is compact
//     JSON the command schema accepts, without the padding or unknown
//     fields it came with, and reads back to the same bytes;
//   - bounded output: every view and every step's events stay within
//     Info.MaxViewBytes and Info.MaxEventBytes, which the game must declare;
//   - the AI: every command it proposes is accepted;
//   - hidden information: nothing sent to a viewer before the end contains
//     the match's secret, nor the Tell of anything session.Hider.Secrets
//     says that viewer must not learn; Resample keeps the viewer's
//     projection byte for byte and the original untouched, and changes the
//     hidden state in most draws; a game that declares no hidden state
//     shows nothing that depends on the secret;
//   - randomness: flipping any of the secret's bits 0, 31, 32, 63, 64, 127,
//     128 and 255 changes the hidden state for at least one of 32 secrets;
//     and two secrets whose first 32-bit outputs are equal (a birthday
//     search) give different hidden states, which a game that narrowed its
//     secret to 32 bits cannot.
//
// Every check reports at most a few failures, each naming the game, the
// check and the command.
func Run(t Reporter, g session.Game, opts ...Option) {
	t.Helper()
	k := &kit{t: t, g: g, info: g.Info(), matches: 6, steps: 240, reported: map[string]int{}}
	for _, o := range opts {
		o(k)
	}
	if k.matches <= 0 {
		k.matches = 6
	}
	if k.steps <= 0 {
		k.steps = 240
	}
	k.run()
}

// maxReports bounds the failures one check reports.
const maxReports = 4

type kit struct {
	t        Reporter
	g        session.Game
	info     session.Info
	configs  []string
	matches  int
	steps    int
	hints    []string
	cmds     *Commands
	schema   *jsonschema.Schema
	reported map[string]int
	src      *kitRand

	maxView, maxEvents        int
	resamples, changed        int
	played, accepted, refused int
	script                    []action // the first match's, for the randomness checks
	scriptConfig              string
	scriptSeats               int
}

func (k *kit) errorf(check, format string, args ...any) {
	k.t.Helper()
	k.reported[check]++
	if n := k.reported[check]; n > maxReports {
		return
	}
	k.t.Errorf("%s: %s: %s", k.info.ID, check, fmt.Sprintf(format, args...))
}

// Checks, as the kit names them in failures.
const (
	checkDeterminism = "determinism"
	checkBadInput    = "bad input"
	checkCanonical   = "canonical input"
	checkBounds      = "bounded output"
	checkAI          = "the AI"
	checkHidden      = "hidden information"
	checkBits        = "randomness (bit flips)"
	checkNarrowing   = "randomness (narrowing)"
	checkConfig      = "configs"
	checkFollower    = "the view's reducer"
)

func (k *kit) run() {
	k.t.Helper()
	k.src = newKitRand(k.info.ID)
	var err error
	if k.cmds, err = NewCommands(k.info.CommandSchema); err != nil {
		k.errorf(checkCanonical, "the command schema: %v", err)
		return
	}
	k.cmds.Hints(k.hints...)
	if k.schema, err = compileSchema(k.info.CommandSchema); err != nil {
		k.errorf(checkCanonical, "the command schema: %v", err)
		return
	}
	if k.info.MaxViewBytes <= 0 || k.info.MaxEventBytes <= 0 {
		k.errorf(checkBounds, "Info.MaxViewBytes (%d) and MaxEventBytes (%d) must be declared: the most a view, and one step's events, may take for one viewer", k.info.MaxViewBytes, k.info.MaxEventBytes)
	}
	switch {
	case k.info.TurnClock && k.info.Tick != nil:
		k.errorf(checkConfig, "Info.TurnClock with Info.Tick: a real-time game has no turns to time")
	case k.info.OnTimeout != "" && k.info.OnTimeout != session.TimeoutResign && k.info.OnTimeout != session.TimeoutAI:
		k.errorf(checkConfig, "Info.OnTimeout %q: want %q, %q or none", k.info.OnTimeout, session.TimeoutResign, session.TimeoutAI)
	case k.info.OnTimeout == session.TimeoutAI && !slices.ContainsFunc(k.info.Modes, func(m session.Mode) bool { return m.AI }):
		k.errorf(checkConfig, "Info.OnTimeout %q needs a mode with an AI", k.info.OnTimeout)
	}
	configs := k.configs
	if configs == nil {
		for _, m := range k.info.Modes {
			b, _ := json.Marshal(map[string]string{"mode": m.ID})
			configs = append(configs, string(b))
		}
	}
	for _, cfg := range configs {
		setup, err := k.g.Configure(json.RawMessage(cfg))
		if err != nil {
			k.errorf(checkConfig, "config %s is refused: %v (GET /api/games lists the mode; a generic client creates it as {\"mode\": id})", cfg, err)
			continue
		}
		k.decoder(setup.Config, setup.Mode.MinSeats)
		for _, seats := range seatCounts(setup.Mode) {
			for i := range k.matches {
				k.match(setup.Config, seats, k.key(), i == 0 && k.script == nil)
			}
		}
	}
	if l, ok := k.t.(interface{ Logf(string, ...any) }); ok {
		l.Logf("%s: %d matches, %d commands accepted, %d refused; largest view %d bytes (declared %d), largest step's events %d (declared %d); %d resamples, %d changed the hidden state",
			k.info.ID, k.played, k.accepted, k.refused, k.maxView, k.info.MaxViewBytes, k.maxEvents, k.info.MaxEventBytes, k.resamples, k.changed)
	}
	if k.resamples > 0 && k.changed*2 < k.resamples {
		k.errorf(checkHidden, "Resample changed the hidden state in %d of %d draws: it must redraw what the viewer does not know", k.changed, k.resamples)
	}
	if session.Hides(k.g) && k.script != nil {
		k.bits()
		k.narrowing()
	}
}

// decoderTries is how many broken commands decoder tries on a game.
const decoderTries = 400

// decoder checks that the game refuses what its command schema refuses:
// of decoderTries broken commands (every mutation of Invalid), none the
// schema refuses may be taken — played by a seat whose turn it is at the
// start of a fresh match (Match.Check, which decodes it to be queued, for
// a fixed-step game). Random matches meet few of them at a point where
// the rules would take them.
func (k *kit) decoder(config json.RawMessage, seats int) {
	key := k.key()
	for range decoderTries {
		cmd := k.cmds.Invalid(k.src)
		if Valid(k.schema, string(cmd)) {
			continue
		}
		r, err := k.newRun(session.SecretSeed(key), config, max(seats, 1))
		if err != nil {
			return // the matches report it
		}
		m := r.sess.Match()
		seat := 0
		if p := m.Pending(); len(p) > 0 {
			seat = p[0]
		}
		var taken json.RawMessage
		func() {
			defer func() { _ = recover() }() // a panic is the matches' to report
			if k.info.Tick != nil {
				taken, _ = m.Check(session.Command{Seat: seat, Move: cmd})
			} else if _, err := r.sess.Apply(seat, cmd); err == nil {
				log := r.sess.Log()
				taken = log[len(log)-1].Move
			}
		}()
		if taken != nil {
			k.errorf(checkBadInput, "the command %q of seat %d was taken, as %s, but the game's command schema refuses it: the game must refuse what its published schema does (a required key missing, a value out of range…)", cmd, seat, taken)
			return
		}
	}
}

// seatCounts are the seat counts the kit plays a mode with.
func seatCounts(m session.Mode) []int {
	out := []int{m.MinSeats}
	if m.MaxSeats > m.MinSeats {
		out = append(out, m.MaxSeats)
	}
	return out
}

// key draws a match secret.
func (k *kit) key() [session.SeedBytes]byte {
	var key [session.SeedBytes]byte
	for i := 0; i < len(key); i += 8 {
		binary.LittleEndian.PutUint64(key[i:], k.src.next())
	}
	return key
}

// hidden plays the kit's script on key and returns, after each action,
// the hidden state as a spectator cannot see it: its Secrets, but for the
// secret itself (every game's differs with the secret; what it was turned
// into is the question).
func (k *kit) hidden(key [session.SeedBytes]byte) []string {
	seed := session.SecretSeed(key)
	r, err := k.newRun(seed, json.RawMessage(k.scriptConfig), k.scriptSeats)
	if err != nil {
		return nil
	}
	own := strings.Trim(seed.String(), `"`)
	var out []string
	for _, a := range k.script {
		if p := catch(func() { r.apply(a) }); p != nil {
			break
		}
		secrets, _ := session.Secrets(r.sess.Match(), session.Spectator)
		var b strings.Builder
		for _, s := range secrets {
			if !strings.Contains(s.Tell, own) {
				b.WriteString(s.What + "=" + s.Tell + ";")
			}
		}
		out = append(out, b.String())
	}
	return out
}

// Bits of the secret the bit-flip check flips.
var flippedBits = []int{0, 31, 32, 63, 64, 127, 128, 255}

// bits checks that each sampled bit of the secret reaches the hidden state.
func (k *kit) bits() {
	changes := make([]bool, len(flippedBits))
	for range 32 {
		key := k.key()
		base := k.hidden(key)
		for i, bit := range flippedBits {
			if changes[i] {
				continue
			}
			flipped := key
			flipped[bit/8] ^= 1 << (bit % 8)
			if !slices.Equal(k.hidden(flipped), base) {
				changes[i] = true
			}
		}
	}
	for i, bit := range flippedBits {
		if !changes[i] {
			k.errorf(checkBits, "flipping bit %d of the secret never changed the hidden state (32 secrets, the same commands): that bit does not reach the game", bit)
		}
	}
}

// narrowing checks that secrets with the same first 32-bit output give
// different hidden states: a game that seeds a 32-bit generator from that
// output gives the same for every such pair. A game whose hidden state is
// small (hidden Nim's two secret numbers: 9 deals) may deal one pair alike
// by chance, so it has collidingPairs pairs, and one must differ.
func (k *kit) narrowing() {
	pairs := collidingSecrets()
	for _, p := range pairs {
		if !slices.Equal(k.hidden(p[0]), k.hidden(p[1])) {
			return
		}
	}
	k.errorf(checkNarrowing, "%d pairs of secrets whose first 32-bit outputs are equal (%x… and %x…, …) each give the same hidden state: the game narrows its secret to 32 bits (draw from seed.Source() or seed.Stream() itself)",
		len(pairs), pairs[0][0][:4], pairs[0][1][:4])
}

// catch runs f and returns what it panicked with.
func catch(f func()) (p any) {
	defer func() { p = recover() }()
	f()
	return nil
}

// firstDiff shows where two texts part.
func firstDiff(a, b string) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	from := max(0, i-80)
	clip := func(s string) string {
		end := min(len(s), i+80)
		if from > len(s) {
			return ""
		}
		return s[from:end]
	}
	return fmt.Sprintf("at byte %d: …%s… against …%s…", i, clip(a), clip(b))
}

// panicTB is a TB for the helpers the kit calls on values it knows encode.
type panicTB struct{}

func (panicTB) Helper()                           {}
func (panicTB) Fatalf(format string, args ...any) { panic(fmt.Sprintf(format, args...)) }

// compileSchema compiles a command schema.
func compileSchema(schema json.RawMessage) (s *jsonschema.Schema, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%v", p)
		}
	}()
	return Schema(panicTB{}, "command.schema.json", schema), nil
}
