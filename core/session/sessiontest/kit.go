package sessiontest

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
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

// An action is one step of a match's script: a command of seat (for a
// fixed-step game, an input for the next tick), or a tick (tick true).
type action struct {
	kind string // "ai", "valid", "invalid", "padded", "unknown", "badseat", "tick"
	seat session.Seat
	cmd  []byte
}

func (a action) String() string {
	if a.kind == "tick" {
		return "a tick"
	}
	c := a.cmd
	if len(c) > 120 {
		c = append(c[:120:120], "…"...)
	}
	return fmt.Sprintf("%s command %q of seat %d", a.kind, c, a.seat)
}

// run is one match as the kit plays it.
type run struct {
	k       *kit
	seed    session.Seed
	config  json.RawMessage
	seats   int
	sess    *session.GameSession
	trace   strings.Builder
	cps     []*session.Checkpoint
	secret  string // the secret in hex, which nothing sent may contain before the end
	stopped bool
	// sameAI is true when the run replays a script on its own secret: the
	// AI, asked again, must choose what it chose.
	sameAI bool
	// follower plays each viewer's events on its view, as a client does
	// (nil for a game whose view has no Go reducer); followed holds those
	// views.
	follower session.Follower
	followed map[session.Seat]json.RawMessage
}

func (k *kit) newRun(seed session.Seed, config json.RawMessage, seats int) (*run, error) {
	now := 0.0
	clock := func() float64 { now += 1000; return now }
	sess, err := session.NewSession(k.g, seed, config, seats, clock)
	if err != nil {
		return nil, err
	}
	r := &run{k: k, seed: seed, config: config, seats: seats, sess: sess}
	if seed.Generator() == session.ChaCha8 {
		r.secret = strings.Trim(seed.String(), `"`)
	}
	if f, err := session.FollowerOf(k.g); err == nil {
		r.follower, r.followed = f, map[session.Seat]json.RawMessage{}
		for _, v := range Viewers(seats) {
			r.followed[v], _ = json.Marshal(sess.Match().View(v))
		}
	}
	return r, nil
}

// match plays one random match and checks it, then plays its script again
// (the same secret: the same everything), on a restore from every
// checkpoint, through Replay, and — for a game with no hidden state — on
// another secret (nothing may change).
func (k *kit) match(config json.RawMessage, seats int, key [session.SeedBytes]byte, keep bool) {
	k.t.Helper()
	seed := session.SecretSeed(key)
	r, err := k.newRun(seed, config, seats)
	if err != nil {
		k.errorf(checkConfig, "config %s with %d seats: %v", config, seats, err)
		return
	}
	k.played++
	var script []action
	for i := 0; i < k.steps && !r.stopped && !r.over(); i++ {
		for _, a := range r.choose() {
			script = append(script, a)
			r.do(a, true)
			if r.stopped {
				break
			}
		}
	}
	if r.stopped {
		return
	}
	if keep {
		k.script, k.scriptConfig, k.scriptSeats = slices.Clone(script), string(config), seats
	}
	where := fmt.Sprintf("config %s, %d seats, secret %x", config, seats, key[:4])
	again, _ := k.newRun(seed, config, seats)
	again.sameAI = true
	for _, a := range script {
		again.do(a, false)
	}
	if a, b := r.trace.String(), again.trace.String(); a != b {
		k.errorf(checkDeterminism, "%s: the same secret and commands played twice differ: %s", where, firstDiff(a, b))
	}
	k.replayed(r, where)
	if !session.Hides(k.g) {
		other, _ := k.newRun(session.SecretSeed(k.key()), config, seats)
		other.secret = r.secret
		for _, a := range script {
			other.do(a, false)
		}
		if a, b := r.trace.String(), other.trace.String(); a != b {
			k.errorf(checkHidden, "%s: the game declares no hidden state (session.Hider), yet what it shows depends on the secret: %s", where, firstDiff(a, b))
		}
	}
}

// over reports whether the match has ended (or, for a fixed-step game,
// whether it has).
func (r *run) over() bool { return r.sess.Status().Over }

// choose draws the next actions: a command for a command-driven game; for
// a fixed-step game, some inputs and a tick.
func (r *run) choose() []action {
	k := r.k
	m := r.sess.Match()
	if k.info.Tick == nil {
		pending := m.Pending()
		seat := session.Intn(k.src, r.seats)
		if len(pending) > 0 && session.Intn(k.src, 4) > 0 {
			seat = pending[session.Intn(k.src, len(pending))]
		}
		return []action{r.command(seat)}
	}
	var out []action
	for seat := range r.seats {
		if session.Intn(k.src, 3) == 0 {
			out = append(out, r.command(seat))
		}
	}
	return append(out, action{kind: "tick"})
}

// command draws one command of seat.
func (r *run) command(seat session.Seat) action {
	k := r.k
	valid := func() []byte {
		cmd := k.cmds.Valid(k.src)
		for try := 0; try < 4 && r.endsEarly(seat, cmd); try++ {
			cmd = k.cmds.Valid(k.src)
		}
		return cmd
	}
	roll := session.Intn(k.src, 100)
	if roll < 50 {
		if cmd, ok := r.sess.AIMove(seat); ok {
			return action{kind: "ai", seat: seat, cmd: cmd}
		}
		roll = 50 + session.Intn(k.src, 50)
	}
	switch {
	case roll < 72:
		return action{kind: "valid", seat: seat, cmd: valid()}
	case roll < 82:
		return action{kind: "invalid", seat: seat, cmd: k.cmds.Invalid(k.src)}
	case roll < 89:
		cmd, _ := Padded(k.src, valid())
		return action{kind: "padded", seat: seat, cmd: cmd}
	case roll < 95:
		cmd, _ := WithUnknown(k.src, valid())
		return action{kind: "unknown", seat: seat, cmd: cmd}
	}
	bad := []session.Seat{-2, session.Spectator, r.seats, r.seats + 7}
	return action{kind: "badseat", seat: bad[session.Intn(k.src, len(bad))], cmd: valid()}
}

// endsEarly reports whether cmd would end a match of a command-driven game
// in its first third (a concession, a reveal on a mine): tried on a copy
// rebuilt from the log, so that random commands do not end most matches
// before they have shown much.
func (r *run) endsEarly(seat session.Seat, cmd []byte) bool {
	k := r.k
	if k.info.Tick != nil || len(r.sess.Log()) >= k.steps/3 {
		return false
	}
	var ends bool
	catch(func() {
		cp, err := session.Restore(k.g, r.sess.Header(), nil, r.sess.Log(), 0, nil)
		if err != nil {
			return
		}
		t := 0.0
		if log := r.sess.Log(); len(log) > 0 {
			t = log[len(log)-1].T
		}
		if _, err := cp.ApplyAt(seat, cmd, t+1); err == nil {
			ends = cp.Status().Over
		}
	})
	return ends
}

// state is what a refused command must leave as it was.
func (r *run) state() string {
	m := r.sess.Match()
	out := Everything(panicTB{}, m, r.seats) + fmt.Sprintf("|log %d", len(r.sess.Log()))
	if cp, err := m.Checkpoint(); err == nil {
		out += "|" + string(cp)
	}
	return out
}

// do plays a, checking it as it goes (live is the first playing of the
// script, which checks the AI and keeps checkpoints).
func (r *run) do(a action, live bool) {
	k := r.k
	fmt.Fprintf(&r.trace, "\n%s:", a)
	if a.kind == "ai" && r.sameAI {
		if cmd, ok := r.sess.AIMove(a.seat); !ok || !bytes.Equal(cmd, a.cmd) {
			k.errorf(checkDeterminism, "asked again for seat %d at the same point of the same match, the AI chose %q, not %q", a.seat, cmd, a.cmd)
		}
	}
	var before string
	if live {
		before = r.state()
	}
	step, err, panicked := r.apply(a)
	if panicked != nil {
		k.errorf(checkBadInput, "%s: the rules panicked: %v", a, panicked)
		r.stopped = true
		return
	}
	if err != nil {
		var rej *session.Rejection
		code := err.Error()
		if errors.As(err, &rej) {
			code = rej.Code
		}
		fmt.Fprintf(&r.trace, " refused %s", code)
		if live {
			k.refused++
		}
		if a.kind == "ai" {
			k.errorf(checkAI, "the AI proposed %s, which the rules refuse: %v", a, err)
		}
		if a.kind == "badseat" && (rej == nil || !rej.Malformed) {
			k.errorf(checkBadInput, "%s: refused with %v, want a malformed-input rejection (game:NoSuchSeat)", a, err)
		}
		if live && a.kind != "tick" {
			if after := r.state(); after != before {
				k.errorf(checkBadInput, "%s was refused (%v) but changed the match: %s", a, err, firstDiff(before, after))
			}
		}
		return
	}
	if a.kind == "badseat" {
		k.errorf(checkBadInput, "%s was accepted: a seat that is not in the match", a)
	}
	if a.kind == "invalid" && k.schema != nil && !Valid(k.schema, string(a.cmd)) {
		k.errorf(checkBadInput, "%s was accepted, but the game's command schema refuses it: the decoder must refuse what the published schema does (a required key missing, a value out of range…)", a)
	}
	if live && a.kind != "tick" {
		k.accepted++
	}
	if a.kind != "tick" {
		r.canonical(a)
		if k.info.Tick != nil {
			return // queued for the next tick: nothing happened yet
		}
	}
	r.observe(step, live)
	if live {
		if cp, err := r.sess.Save(); err != nil {
			k.errorf(checkDeterminism, "checkpoint after %s: %v", a, err)
		} else if cp != nil {
			r.cps = append(r.cps, cp)
		}
	}
}

// apply plays a on the session, catching a panic.
func (r *run) apply(a action) (step session.Step, err error, panicked any) {
	defer func() {
		if v := recover(); v != nil {
			panicked = v
		}
	}()
	switch {
	case a.kind == "tick":
		step, err = r.sess.Advance()
	case r.k.info.Tick != nil:
		_, err = r.sess.Input(a.seat, a.cmd, float64(r.sess.Tick())*r.k.info.Tick.StepMs())
	default:
		step, err = r.sess.Apply(a.seat, a.cmd)
	}
	return step, err, nil
}

// canonical checks what the match logged of an accepted command.
func (r *run) canonical(a action) {
	k := r.k
	log := r.sess.Log()
	stored := []byte(log[len(log)-1].Move)
	var compact bytes.Buffer
	switch {
	case json.Compact(&compact, stored) != nil || !bytes.Equal(compact.Bytes(), stored):
		k.errorf(checkCanonical, "%s is logged as %q: not compact JSON", a, stored)
	case bytes.Contains(stored, []byte(UnknownField)):
		k.errorf(checkCanonical, "%s is logged as %q, with the unknown field it came with", a, stored)
	case !Valid(k.schema, string(stored)):
		k.errorf(checkCanonical, "%s is logged as %q, which the game's command schema refuses", a, stored)
	default:
		again, err := r.sess.Match().Check(session.Command{Seat: a.seat, Move: stored})
		if err != nil || !bytes.Equal(again, stored) {
			k.errorf(checkCanonical, "%s is logged as %q, which reads back as %q (%v)", a, stored, again, err)
		}
	}
	fmt.Fprintf(&r.trace, " logged %s", stored)
}

// observe records and checks what every viewer is sent after a step.
func (r *run) observe(step session.Step, live bool) {
	k := r.k
	m := r.sess.Match()
	over := m.Status().Over
	fmt.Fprintf(&r.trace, " status %s pending %v", Encode(panicTB{}, m.Status()), m.Pending())
	for _, v := range Viewers(r.seats) {
		view, err := json.Marshal(m.View(v))
		if err != nil {
			k.errorf(checkDeterminism, "viewer %d's view does not encode: %v", v, err)
			continue
		}
		beats, err := step.AppendBeats(nil, v)
		if err != nil {
			k.errorf(checkDeterminism, "viewer %d's events do not encode: %v", v, err)
			continue
		}
		fmt.Fprintf(&r.trace, "\n  %d (%d): %s %s", v, m.Audience(v), view, beats)
		if !live {
			continue
		}
		if r.follower != nil && !over {
			// (The update that ends a match carries the whole view: what
			// the match hid until then, a race's boards; nothing to follow.)
			got, err := r.follower.Apply(r.followed[v], beats)
			if err != nil || !bytes.Equal(got, view) {
				k.errorf(checkFollower, "viewer %d: its view with this step's events played on it (the game's View.Apply, as a client does) is not the view the server sends (%v): %s", v, err, firstDiff(string(view), string(got)))
			}
			r.followed[v] = view
		}
		k.maxView, k.maxEvents = max(k.maxView, len(view)), max(k.maxEvents, len(beats))
		if k.info.MaxViewBytes > 0 && len(view) > k.info.MaxViewBytes {
			k.errorf(checkBounds, "viewer %d's view is %d bytes, more than the declared MaxViewBytes %d", v, len(view), k.info.MaxViewBytes)
		}
		if k.info.MaxEventBytes > 0 && len(beats) > k.info.MaxEventBytes {
			k.errorf(checkBounds, "viewer %d's events of one step are %d bytes, more than the declared MaxEventBytes %d", v, len(beats), k.info.MaxEventBytes)
		}
		if r.secret != "" && !over && (bytes.Contains(view, []byte(r.secret)) || bytes.Contains(beats, []byte(r.secret))) {
			k.errorf(checkHidden, "viewer %d is sent the match's secret before the end", v)
		}
		secrets, hides := session.Secrets(m, v)
		if !hides {
			continue
		}
		for _, s := range secrets {
			if s.Tell == "" {
				continue
			}
			if bytes.Contains(view, []byte(s.Tell)) {
				k.errorf(checkHidden, "viewer %d's view shows %s (%s)", v, s.What, s.Tell)
			}
			if bytes.Contains(beats, []byte(s.Tell)) {
				k.errorf(checkHidden, "viewer %d's events show %s (%s)", v, s.What, s.Tell)
			}
		}
		if len(r.sess.Log())%3 == 0 || k.info.Tick != nil && r.sess.Tick()%8 == 0 {
			r.resample(v, view, secrets)
		}
	}
}

// resample checks Resample for viewer at this point of the match.
func (r *run) resample(v session.Seat, view []byte, secrets []session.Secret) {
	k := r.k
	m := r.sess.Match()
	before := Everything(panicTB{}, m, r.seats)
	var m2 session.Match
	if p := catch(func() { m2, _ = session.Resample(m, v, k.src) }); p != nil {
		k.errorf(checkHidden, "Resample for viewer %d panicked: %v", v, p)
		return
	}
	if after := Everything(panicTB{}, m, r.seats); after != before {
		k.errorf(checkHidden, "Resample for viewer %d changed the match it was given: %s", v, firstDiff(before, after))
	}
	view2, err := json.Marshal(m2.View(v))
	if err != nil || !bytes.Equal(view2, view) {
		k.errorf(checkHidden, "Resample for viewer %d changed what that viewer sees (the hidden state shows through): %s", v, firstDiff(string(view), string(view2)))
		return
	}
	if len(secrets) == 0 {
		return
	}
	k.resamples++
	if s2, _ := session.Secrets(m2, v); !slices.Equal(s2, secrets) {
		k.changed++
	}
}

// replayed checks that Replay of the log and a restore from every
// checkpoint end where the live match did.
func (k *kit) replayed(r *run, where string) {
	live := views(r.sess.Match(), r.seats)
	rec := session.Record{Seed: r.seed, Config: r.config, Seats: r.seats, Log: r.sess.Log(), Ticks: r.sess.Tick()}
	var (
		v session.Verdict
		m session.Match
	)
	if p := catch(func() { v, m = session.ReplayMatch(k.g, rec) }); p != nil {
		k.errorf(checkDeterminism, "%s: Replay of the log panicked: %v", where, p)
		return
	}
	if m == nil {
		k.errorf(checkDeterminism, "%s: Replay of the log: %+v", where, v)
		return
	}
	if got := views(m, r.seats); got != live {
		k.errorf(checkDeterminism, "%s: Replay of the log ends elsewhere than the live match: %s", where, firstDiff(live, got))
	}
	if st := r.sess.Status(); st.Over && (v.Status != st.Phase || !v.Valid || v.Time != r.sess.Elapsed()) {
		k.errorf(checkDeterminism, "%s: Replay's verdict %+v; the live match ended %s in %v ms", where, v, st.Phase, r.sess.Elapsed())
	}
	h := r.sess.Header()
	for _, cp := range append([]*session.Checkpoint{nil}, r.cps...) {
		var (
			back *session.GameSession
			err  error
		)
		if p := catch(func() { back, err = session.Restore(k.g, h, cp, r.sess.Log(), r.sess.Tick(), nil) }); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
		at := "its log alone"
		if cp != nil {
			at = fmt.Sprintf("the checkpoint after %d entries", cp.At)
		}
		if err != nil {
			k.errorf(checkDeterminism, "%s: restored from %s: %v", where, at, err)
			continue
		}
		if got := views(back.Match(), r.seats); got != live {
			k.errorf(checkDeterminism, "%s: restored from %s, the match differs from the live one: %s", where, at, firstDiff(live, got))
		}
	}
}

// views is a match's status, pending seats and every viewer's view: what a
// replay or a restore must rebuild. (Audiences group the viewers of the
// step just played, which a rebuilt match has not played.)
func views(m session.Match, seats int) string {
	out := Encode(panicTB{}, m.Status()) + Encode(panicTB{}, m.Pending())
	for _, v := range Viewers(seats) {
		out += fmt.Sprintf("|%d:%s", v, Encode(panicTB{}, m.View(v)))
	}
	return out
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
