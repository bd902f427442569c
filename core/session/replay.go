package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
)

// Record is a recorded game as replay takes it: the JSON form of the
// reference's {seed, config, log}, with an optional seat count (default 1).
type Record struct {
	Seed   Seed            `json:"seed"`
	Config json.RawMessage `json:"config"`
	Seats  int             `json:"seats,omitempty"`
	Log    []Entry         `json:"log"`
	// Ticks is how many ticks a fixed-step match ran (its entries carry the
	// tick each took effect at); 0 for a game driven by commands.
	Ticks uint64 `json:"ticks,omitempty"`
}

// Verdict is replay's answer, with the reference's key order.
type Verdict struct {
	Status string  `json:"status"`
	Time   float64 `json:"time"`
	Valid  bool    `json:"valid"`
	Reason *string `json:"reason"`
}

// Reasons replay gives, beyond the per-entry ones.
const (
	ReasonNonMonotonic = "non-monotonic timestamps"
	ReasonNotTerminal  = "log does not reach a terminal state"
)

// MaxRecordBytes bounds a record a decoder accepts.
const MaxRecordBytes = 8 << 20

// DecodeRecord parses a recorded game. It fails, naming the problem, when the
// input is not a JSON object with an integer seed, a config and a log array.
// A log entry without a timestamp still decodes (its T is NaN) so that
// replay can refuse it with a verdict.
func DecodeRecord(data []byte) (Record, error) {
	var rec Record
	if len(data) > MaxRecordBytes {
		return rec, fmt.Errorf("record is %d bytes, more than %d", len(data), MaxRecordBytes)
	}
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(data, &probe); err != nil {
		return rec, fmt.Errorf("record is not a JSON object: %w", err)
	}
	for _, k := range []string{"seed", "config", "log"} {
		if _, ok := probe[k]; !ok {
			return rec, fmt.Errorf("record has no %q", k)
		}
	}
	if err := json.Unmarshal(probe["seed"], &rec.Seed); err != nil {
		return rec, fmt.Errorf("record %w", err)
	}
	rec.Config = probe["config"]
	if t, ok := probe["ticks"]; ok {
		if err := json.Unmarshal(t, &rec.Ticks); err != nil {
			return rec, fmt.Errorf("record ticks must be a non-negative integer: %s", t)
		}
	}
	if s, ok := probe["seats"]; ok {
		if err := json.Unmarshal(s, &rec.Seats); err != nil {
			return rec, fmt.Errorf("record seats must be an integer: %s", s)
		}
	}
	if bytes.Equal(bytes.TrimSpace(probe["log"]), []byte("null")) || bytes.TrimSpace(probe["log"])[0] != '[' {
		return rec, errors.New("record log must be an array")
	}
	if err := json.Unmarshal(probe["log"], &rec.Log); err != nil {
		return rec, fmt.Errorf("record log: %w", err)
	}
	return rec, nil
}

// Replay re-runs a recorded game from its inputs and returns the recomputed
// verdict. It follows the reference (valid means monotonic timestamps and a
// terminal state, won or lost; ineffective moves are skipped as no-ops) and
// is stricter where the reference has holes: an invalid config, a missing or
// non-finite timestamp, or a malformed move (unknown type, coordinates off
// the board, a null move) make the verdict invalid with a reason naming the
// entry, instead of being copied.
func Replay(game Game, rec Record) Verdict {
	v, _ := ReplayMatch(game, rec)
	return v
}

// ReplayMatch is Replay that also returns the match as the log left it (nil
// when the config is invalid), for callers that want its final view.
func ReplayMatch(game Game, rec Record) (Verdict, Match) {
	seats := rec.Seats
	if seats == 0 {
		seats = 1
	}
	m, err := game.New(rec.Seed, rec.Config, seats)
	if err != nil {
		return invalid("", 0, fmt.Sprintf("invalid config: %v", err)), nil
	}
	if game.Info().Tick != nil {
		return replayTicks(game, m, rec, seats)
	}
	var (
		monotonic        = true
		prev             = math.Inf(-1)
		t0, tEnd         float64
		started, stopped bool
	)
	for i, e := range rec.Log {
		if math.IsNaN(e.T) || math.IsInf(e.T, 0) {
			return invalid(m.Status().Phase, 0, fmt.Sprintf("entry %d: missing or non-finite timestamp", i)), m
		}
		if e.T < prev {
			monotonic = false
		}
		prev = e.T
		if _, err := m.Apply(Command{Seat: e.Seat, Move: e.Move, T: e.T}); err != nil {
			var rej *Rejection
			if errors.As(err, &rej) && !rej.Malformed {
				continue // the reference's no-op: part of the timeline, no effect
			}
			return invalid(m.Status().Phase, 0, fmt.Sprintf("entry %d: malformed move: %v", i, err)), m
		}
		st := m.Status()
		if st.Started && !started {
			started, t0 = true, e.T
		}
		if st.Over && !stopped {
			stopped, tEnd = true, e.T
		}
	}
	st := m.Status()
	v := Verdict{Status: st.Phase}
	if started && stopped {
		v.Time = tEnd - t0
	}
	switch {
	case !monotonic:
		v.Reason = ptr(ReasonNonMonotonic)
	case !st.Over:
		v.Reason = ptr(ReasonNotTerminal)
	default:
		v.Valid = true
	}
	return v, m
}

// FirstRefused returns the index of the first entry of rec's log that the
// rules refuse when the record is replayed from its seed, and why; -1 when
// every entry is accepted (or the game has a fixed step, whose inputs are
// not refused but ignored). A room logs only the commands it accepted, so
// in a room's record a refused entry means its log was not played on the
// match its seed deals — Replay, which follows the reference, skips such
// entries as no-ops.
func FirstRefused(game Game, rec Record) (int, error) {
	if game.Info().Tick != nil {
		return -1, nil
	}
	seats := rec.Seats
	if seats == 0 {
		seats = 1
	}
	m, err := game.New(rec.Seed, rec.Config, seats)
	if err != nil {
		return 0, err
	}
	for i, e := range rec.Log {
		if _, err := m.Apply(Command{Seat: e.Seat, Move: e.Move, T: e.T}); err != nil {
			return i, err
		}
	}
	return -1, nil
}

// replayTicks replays a fixed-step match: its ticks, each with the inputs
// logged for it. Time is ticks.
func replayTicks(game Game, m Match, rec Record, seats int) (Verdict, Match) {
	s := newSession(game, m, Header{Seed: rec.Seed, Config: rec.Config, Seats: seats}, nil)
	for i, e := range rec.Log {
		switch {
		case math.IsNaN(e.T) || math.IsInf(e.T, 0):
			return invalid(m.Status().Phase, 0, fmt.Sprintf("entry %d: missing or non-finite timestamp", i)), m
		case e.Tick <= s.tick:
			return invalid(m.Status().Phase, 0, fmt.Sprintf("entry %d: input for tick %d after tick %d ran", i, e.Tick, s.tick)), m
		case rec.Ticks > 0 && e.Tick > rec.Ticks:
			return invalid(m.Status().Phase, 0, fmt.Sprintf("entry %d: input for tick %d of a match of %d ticks", i, e.Tick, rec.Ticks)), m
		}
		for s.tick+1 < e.Tick {
			if _, err := s.Advance(); err != nil {
				return invalid(m.Status().Phase, 0, err.Error()), m
			}
		}
		if _, err := s.Input(e.Seat, e.Move, e.T); err != nil {
			var rej *Rejection
			if errors.As(err, &rej) && rej.Malformed {
				return invalid(m.Status().Phase, 0, fmt.Sprintf("entry %d: malformed input: %v", i, err)), m
			}
			return invalid(m.Status().Phase, 0, fmt.Sprintf("entry %d: %v", i, err)), m
		}
	}
	for s.tick < rec.Ticks && !m.Status().Over {
		if _, err := s.Advance(); err != nil {
			return invalid(m.Status().Phase, 0, err.Error()), m
		}
	}
	st := m.Status()
	v := Verdict{Status: st.Phase, Time: s.Elapsed()}
	if !st.Over {
		v.Reason = ptr(ReasonNotTerminal)
	} else {
		v.Valid = true
	}
	return v, m
}

func invalid(status string, t float64, reason string) Verdict {
	return Verdict{Status: status, Time: t, Valid: false, Reason: &reason}
}

func ptr(s string) *string { return &s }
