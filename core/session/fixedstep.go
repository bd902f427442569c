package session

import "math"

// Rate is a fixed-step game's simulation rate.
type Rate struct {
	// Hz is how many steps (ticks) run per second of host time.
	Hz int `json:"hz" jsonschema:"minimum=1"`
	// MaxCatchUp bounds the steps run at once after a stall (a paused
	// process, a slow host); the rest of the backlog is dropped and counted
	// as skipped, rather than freezing the room while it catches up. Zero
	// means a tenth of a second's worth (at least 1).
	MaxCatchUp int `json:"maxCatchUp,omitempty"`
}

// StepMs is the length of one step in ms.
func (r Rate) StepMs() float64 { return 1000 / float64(r.Hz) }

func (r Rate) maxCatchUp() int {
	if r.MaxCatchUp > 0 {
		return r.MaxCatchUp
	}
	return max(r.Hz/10, 1)
}

// FixedStep is seed 001's fixed-step runner as a pure accumulator: the
// caller (a room's timer) tells it the host time, and it says how many steps
// are due. Time is ticks: a match's elapsed time is its tick count times the
// step length, and paused time never becomes ticks. It reads no clock.
type FixedStep struct {
	rate    Rate
	step    float64
	acc     float64 // host time not yet turned into steps, ms
	last    float64 // host time of the last Advance, ms
	running bool
	skipped uint64
}

// NewFixedStep returns a paused runner for rate. Hz must be positive.
func NewFixedStep(rate Rate) *FixedStep {
	if rate.Hz <= 0 {
		rate.Hz = 1
	}
	return &FixedStep{rate: rate, step: rate.StepMs()}
}

// Rate returns the runner's rate.
func (f *FixedStep) Rate() Rate { return f.rate }

// Running reports whether the runner is started and not paused.
func (f *FixedStep) Running() bool { return f.running }

// Resume starts (or restarts after Pause) at host time now, from a fresh
// accumulator: the first step is due one step length later.
func (f *FixedStep) Resume(now float64) {
	f.running, f.last, f.acc = true, now, 0
}

// Pause stops the runner; no time passes for it until Resume.
func (f *FixedStep) Pause() { f.running, f.acc = false, 0 }

// Advance adds the host time since the last call and returns how many steps
// are due now (at most the rate's catch-up bound) and how many were dropped
// because the backlog was larger. A clock that went backwards adds nothing.
func (f *FixedStep) Advance(now float64) (steps, skipped int) {
	if !f.running {
		return 0, 0
	}
	if d := now - f.last; d > 0 && !math.IsInf(d, 0) && !math.IsNaN(d) {
		f.acc += d
	}
	f.last = now
	due := int(f.acc / f.step)
	if limit := f.rate.maxCatchUp(); due > limit {
		skipped = due - limit
		f.skipped += uint64(skipped)
		due = limit
		f.acc -= float64(skipped) * f.step
	}
	f.acc -= float64(due) * f.step
	return due, skipped
}

// Alpha is how far host time is into the next step, in [0, 1): a renderer
// interpolates between the last two ticks with it.
func (f *FixedStep) Alpha() float64 {
	if !f.running {
		return 0
	}
	return min(max(f.acc/f.step, 0), math.Nextafter(1, 0))
}

// Until returns the host time in ms from now (the time of the last Advance)
// until the next step is due; +Inf when paused.
func (f *FixedStep) Until() float64 {
	if !f.running {
		return math.Inf(1)
	}
	return max(f.step-f.acc, 0)
}

// Skipped returns how many steps were dropped in all.
func (f *FixedStep) Skipped() uint64 { return f.skipped }
