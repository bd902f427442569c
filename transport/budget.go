package transport

import (
	"math"
	"time"
)

// Every frame a client sends counts: a message, each fragment of one, a
// ping, a pong, a close. A socket has a budget of frames and of bytes,
// before its hello and after it, on whichever path reads it; a frame past
// either closes the socket with 4029 at once (wsReader). The message rate
// limit (Config.RateLimit) is a separate, gentler rule on top: it refuses
// actions with receipts before it closes.
//
// Each budget is a GCRA (a token bucket kept as one time: when the socket's
// spending so far would be paid off at the budget's rate). A frame costs
// frameCost of it and its bytes byteCost each; a frame that would put the
// socket more than the burst ahead of now is refused. So a socket may send
// Burst frames (or bytes) at once, and Rate a second after that: a flood at
// full speed is closed after Burst of either.

// maxFragments is the most frames one message may come in (64: a message
// of 64 frames is far more than any client splits one into).
const maxFragments = 64

// wsLimits are what a server's sockets may send: the largest message, and
// the frame budget (times in nanoseconds of the server's monotonic clock).
type wsLimits struct {
	msg        int64 // the largest message, in bytes (Config.ReadLimit)
	fragments  int   // the most frames in one message
	frameCost  int64 // one frame
	frameBurst int64 // how far ahead a socket's frames may run
	byteCost   int64 // one byte, in 1/65536 ns (a multiplication per frame, not a division)
	byteBurst  int64 // how far ahead its bytes may run
}

// newLimits makes the limits from cfg (its defaults applied).
func newLimits(cfg *Config) wsLimits {
	frameCost := int64(math.Max(1, float64(time.Second)/float64(cfg.FrameRate)))
	byteRate := max(cfg.ByteRate, 1)
	return wsLimits{
		msg:        cfg.ReadLimit,
		fragments:  maxFragments,
		frameCost:  frameCost,
		frameBurst: int64(cfg.FrameBurst) * frameCost,
		byteCost:   max(1, int64(time.Second)<<16/byteRate),
		byteBurst:  int64(math.Min(float64(cfg.ByteBurst)*float64(time.Second)/float64(byteRate), math.MaxInt64/4)),
	}
}

// frameBudget is one socket's spending: when its frames, and its bytes,
// would be paid off. Its zero value is a full budget.
type frameBudget struct {
	frames int64
	bytes  int64
}

// take charges one frame of n bytes at now (the server's monotonic clock,
// in nanoseconds); it reports false, charging nothing, when the socket
// is over its budget of frames or of bytes, and which.
func (b *frameBudget) take(l *wsLimits, now int64, n int) (ok bool, what string) {
	frames := max(b.frames, now) + l.frameCost
	bytes := max(b.bytes, now) + int64(n)*l.byteCost>>16
	switch {
	case frames-now > l.frameBurst:
		return false, "frames"
	case bytes-now > l.byteBurst:
		return false, "bytes"
	}
	b.frames, b.bytes = frames, bytes
	return true, ""
}
