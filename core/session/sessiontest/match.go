package sessiontest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/roomd/roomd/core/session"
)

// match.go: one match as the kit plays it: the script of actions drawn
// at random, each played and checked, the views every viewer is sent, and
// the script played again from a log, a checkpoint and through Replay.

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
