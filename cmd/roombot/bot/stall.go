package bot

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/roomd/roomd/protocol"
	"github.com/roomd/roomd/transport/client"
)

// Turn clocks and the stall chaos (--clock, --stall): the rooms are
// created with a turn clock (settings.clock, PROTOCOL.md §2.12), and a
// player bot, with probability --stall per match, stops moving on purpose
// for that match. It then checks that the match ends on its clock: an
// update with result.status "timeout" naming its seat in result.timedOut,
// within --stall-tolerance of the deadline it was last shown — measured on
// the bot's own clock, from the receipt of the last turn clock that showed
// its seat running plus the time that clock gave it — and exactly once
// (one update ends the match). The lateness is the "stall-timeout"
// latency (its max is the report's figure; an end before the deadline is
// recorded as 0 and checked against the same tolerance), and the
// stall/… counts say how the stalled matches ended.

// defaultStallTolerance is how far from the deadline shown the timeout
// may land (--stall-tolerance): the 100 ms on an idle server.
const defaultStallTolerance = 100 * time.Millisecond

// Violations of the turn clock.
const (
	vStallLate    = "stall-timeout-late"    // the timeout landed further than --stall-tolerance from the deadline shown
	vStallTwice   = "stall-timeout-twice"   // more than one update ended the match
	vStallMissing = "stall-timeout-missing" // a stalled seat's deadline passed and the match ended otherwise
	vStallWrong   = "stall-timeout-wrong"   // a timeout result that does not name the seat that ran out
)

// latStall is the stalled matches' timeouts: how late each landed after
// the deadline the bot was shown (microseconds; early counts as 0).
const latStall = "stall-timeout"

// stallConfig is --clock and --stall.
type stallConfig struct {
	Clock string  `json:"clock,omitempty"` // --clock as given: 3s, or 3m+2s
	P     float64 `json:"stall,omitempty"` // --stall: a player's chance per match to stall
	// Tolerance is --stall-tolerance: how far from its deadline a
	// stalled seat's timeout may land.
	Tolerance time.Duration `json:"tolerance,omitempty"`
	// setting is settings.clock for Clock, nil without one.
	setting json.RawMessage
}

// stallFlags defines --clock and --stall on fs.
func stallFlags(fs *flag.FlagSet, c *stallConfig) {
	fs.StringVar(&c.Clock, "clock", "", "")
	fs.Float64Var(&c.P, "stall", 0, "")
	fs.DurationVar(&c.Tolerance, "stall-tolerance", defaultStallTolerance, "")
}

// parse checks the flags and reads the clock.
func (c *stallConfig) parse() error {
	if c.P < 0 || c.P > 1 {
		return errors.New("--stall is a probability from 0 to 1")
	}
	if c.Tolerance <= 0 || c.Tolerance > time.Minute {
		return errors.New("--stall-tolerance must be positive and at most 1m")
	}
	c.setting = nil
	if c.Clock == "" {
		if c.P > 0 {
			return errors.New("--stall needs rooms with a turn clock: give --clock too")
		}
		return nil
	}
	set, err := parseClock(c.Clock)
	if err != nil {
		return err
	}
	c.setting = set
	return nil
}

// parseClock reads a turn clock: D (a limit per move, e.g. 3s) or B+I (a
// chess clock: B for the match, I added after each turn, e.g. 3m+2s),
// within the server's bounds (PROTOCOL.md §2.12).
func parseClock(s string) (json.RawMessage, error) {
	bad := func(why string) error {
		return fmt.Errorf("--clock %q: %s (want a limit per move such as 3s, or a chess clock such as 3m+2s)", s, why)
	}
	dur := func(x string) (int64, error) {
		d, err := time.ParseDuration(strings.TrimSpace(x))
		if err != nil || d%time.Millisecond != 0 {
			return 0, bad("durations in whole milliseconds")
		}
		return d.Milliseconds(), nil
	}
	base, inc, chess := strings.Cut(s, "+")
	b, err := dur(base)
	if err != nil {
		return nil, err
	}
	if !chess {
		if b < 1000 || b > 3_600_000 {
			return nil, bad("a move's limit is 1s to 1h")
		}
		return json.RawMessage(fmt.Sprintf(`{"moveMs":%d}`, b)), nil
	}
	i, err := dur(inc)
	if err != nil {
		return nil, err
	}
	if b < 1000 || b > 10_800_000 || i < 0 || i > 600_000 {
		return nil, bad("a chess clock is 1s to 3h, plus 0 to 10m a turn")
	}
	return json.RawMessage(fmt.Sprintf(`{"baseMs":%d,"incrementMs":%d}`, b, i)), nil
}

// withClock adds the turn clock to a game's room settings.
func (c *stallConfig) withClock(settings json.RawMessage) (json.RawMessage, error) {
	if c.setting == nil {
		return settings, nil
	}
	m := map[string]json.RawMessage{}
	if len(settings) > 0 && string(settings) != "null" {
		if err := json.Unmarshal(settings, &m); err != nil {
			return nil, fmt.Errorf("--clock: the game's settings are not an object: %w", err)
		}
	}
	m["clock"] = c.setting
	return json.Marshal(m)
}

// stallState is a player bot's stall of one match.
type stallState struct {
	match    int       // the match last decided for
	on       bool      // the bot stalls in it
	deadline time.Time // its seat's deadline on the bot's clock, from the last turn clock showing it running; zero when not running
	gen      int       // the connection generation that clock came on
	ends     int       // updates that ended the match
	judged   bool
}

// stalling reports whether the player holds its moves: it stalls the
// running match.
func (b *bot) stalling() bool {
	return b.stall.on && b.info != nil && b.info.Phase == protocol.PhaseRunning && b.info.Match == b.stall.match
}

// watchStall follows the turn clock and the ends of matches for the stall
// chaos, after the bot has handled ev (its room info is the event's).
func (b *bot) watchStall(ev client.Event, now time.Time) {
	if b.sc.cfg.Stall.setting == nil || b.role == roleSpectator {
		return
	}
	var (
		tc     *protocol.TurnClock
		res    *protocol.Result
		update bool
	)
	switch ev.Kind {
	case client.EventUpdate:
		u := ev.Update
		tc, res, update = u.TurnClock, u.Result, true
		if tc == nil && u.Room != nil {
			tc = u.Room.TurnClock
		}
	case client.EventSnapshot:
		tc = ev.Snapshot.Room.TurnClock
		if ev.Snapshot.Room.Phase == protocol.PhaseEnded {
			res = ev.Snapshot.Result
		}
	default:
		return
	}
	s := &b.stall
	if info := b.info; info != nil && info.Phase == protocol.PhaseRunning && info.Match != s.match {
		*s = stallState{match: info.Match, on: b.rng.Float64() < b.sc.cfg.Stall.P}
		if s.on {
			b.sc.st.count("stall/matches", 1)
		}
	}
	if tc != nil && res == nil && b.seat >= 0 && b.seat < len(tc.RemainingMs) {
		s.deadline = time.Time{}
		if slices.Contains(tc.Running, b.seat) {
			s.deadline, s.gen = now.Add(time.Duration(tc.RemainingMs[b.seat])*time.Millisecond), b.gen
		}
	}
	if res == nil || res.Match != s.match {
		return
	}
	if update {
		s.ends++
		if s.ends > 1 {
			b.sc.viol.add(vStallTwice, "%s: match %d of room %s ended by %d updates", b.name, res.Match, b.room.code, s.ends)
		}
	}
	if s.judged {
		return
	}
	s.judged = true
	mine := slices.Contains(res.TimedOut, b.seat)
	st := b.sc.st
	switch {
	case res.Status == "timeout" && len(res.TimedOut) == 0:
		b.sc.viol.add(vStallWrong, "%s: match %d of room %s ended on time naming no seat", b.name, res.Match, b.room.code)
	case !s.on:
		if mine {
			st.count("stall/timeout-not-stalling", 1) // a socket away, or a slow bot
		}
	case res.Status == "timeout" && mine:
		st.count("stall/timeouts", 1)
		if !update || s.deadline.IsZero() || s.gen != b.gen {
			// Seen in a snapshot, or the clock came on another socket:
			// the bot cannot time it.
			st.count("stall/timeouts-unmeasured", 1)
			return
		}
		late, tol := now.Sub(s.deadline), b.sc.cfg.Stall.Tolerance
		st.latency(latStall, max(late, 0))
		if late > tol || late < -tol {
			b.sc.viol.add(vStallLate, "%s: match %d of room %s timed out %v from the deadline it was shown (tolerance %v)",
				b.name, res.Match, b.room.code, late.Round(time.Millisecond), tol)
		}
	case res.Status == "timeout":
		st.count("stall/other-timed-out", 1) // both stalled, the other's clock first
	case !s.deadline.IsZero() && now.Sub(s.deadline) > b.sc.cfg.Stall.Tolerance && s.gen == b.gen:
		b.sc.viol.add(vStallMissing, "%s: match %d of room %s ended %q %v after its seat's deadline, not on time",
			b.name, res.Match, b.room.code, res.Status, now.Sub(s.deadline).Round(time.Millisecond))
	default:
		st.count("stall/ended-"+res.Status, 1) // the run's end resigned it before the deadline
	}
}
