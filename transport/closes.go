package transport

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/roomd/roomd/protocol"
)

// Every connection's end has a reason: one of a fixed set (never a
// client's words), counted in roomd_closes_total{reason} and logged once,
// when the socket is released, with the code the server sent, the client's
// address, the room and how long the socket lived.
//
// The level says who should look. Warn: the server cut a client that may
// have done nothing wrong (slow, a write or a ping timed out, the room's
// storage or node could not be reached, roomd itself failed) — what an
// operator looks for when players lose their sockets. Info: a client broke
// the rules (a frame RFC 6455 forbids, a flood, a message too big, invalid
// UTF-8, too many invalid messages, no hello, a quota) — client misbehaviour
// is not the operator's alarm (STYLE.md) — or the socket ended for a reason
// of the server's life (a restart, a move, the room closed), or without a
// word from the client (gone, or a write failed: usually the same). Debug:
// what the client asked for (its own close, replaced by a newer tab, left,
// refused a seat it may not have). Each reason's lines are rate-limited (a
// burst of closeLogBurst, then one a second), and the next line logged says
// how many were left out: an attack, or a mass disconnection, costs a few
// lines, and the counter has every one.

// closeReason is why a connection ended.
type closeReason uint8

const (
	whyNone            closeReason = iota // not known yet
	whyPeerClose                          // the client sent a close frame
	whyPeerGone                           // it went away without one (end of stream, reset)
	whyWriteError                         // a write failed (usually the client is gone)
	whyWriteTimeout                       // a write waited past WriteTimeout: cut, no close frame
	whyPingTimeout                        // a ping went unanswered for a heartbeat: cut, no close frame
	whySlow                               // the outbox overflowed: 4008
	whyProtocol                           // a frame RFC 6455 forbids: 1002
	whyInvalidUTF8                        // a text message or close reason not UTF-8: 1007
	whyTooBig                             // a message past the read limit: 1009
	whyFrameFlood                         // past the frame budget, or a message in more than 64 frames: 4029
	whyMessageFlood                       // rate-limited messages past AbuseLimit: 4029
	whyInvalidMessages                    // more than MaxInvalid invalid messages: 1002
	whyHelloTimeout                       // no hello within HelloTimeout: 1002
	whyQuota                              // a per-address quota, or the room's spectators: 4013
	whyUnauthorized                       // sign-in required or refused: 4007
	whyRoomClosed                         // the room closed, or there is none: 4004
	whyReplaced                           // a newer connection took the seat: 4001
	whyLeft                               // left the seat, or removed: 4002
	whyUpdateRequired                     // 4003
	whyInviteRequired                     // 4005
	whyBadToken                           // 4006
	whyMoved                              // the room moved to another node: 4009
	whyRestart                            // the server is stopping: 4000
	whyUnavailable                        // the room's storage or node cannot be reached: 4000
	whyInternal                           // roomd failed (a code it does not know, a socket no poller took)
	numReasons
)

var reasonLabels = [numReasons]string{
	whyNone: "unknown", whyPeerClose: "peer_close", whyPeerGone: "peer_gone", whyWriteError: "write_error",
	whyWriteTimeout: "write_timeout", whyPingTimeout: "ping_timeout", whySlow: "slow", whyProtocol: "protocol",
	whyInvalidUTF8: "invalid_utf8", whyTooBig: "too_big", whyFrameFlood: "frame_flood", whyMessageFlood: "message_flood",
	whyInvalidMessages: "invalid_messages", whyHelloTimeout: "hello_timeout", whyQuota: "quota",
	whyUnauthorized: "unauthorized", whyRoomClosed: "room_closed", whyReplaced: "replaced", whyLeft: "left",
	whyUpdateRequired: "update_required", whyInviteRequired: "invite_required", whyBadToken: "bad_token",
	whyMoved: "moved", whyRestart: "restart", whyUnavailable: "unavailable", whyInternal: "internal",
}

var reasonLevels = [numReasons]slog.Level{
	whyNone: slog.LevelWarn, whyPeerClose: slog.LevelDebug, whyPeerGone: slog.LevelInfo, whyWriteError: slog.LevelInfo,
	whyWriteTimeout: slog.LevelWarn, whyPingTimeout: slog.LevelWarn, whySlow: slog.LevelWarn, whyProtocol: slog.LevelInfo,
	whyInvalidUTF8: slog.LevelInfo, whyTooBig: slog.LevelInfo, whyFrameFlood: slog.LevelInfo, whyMessageFlood: slog.LevelInfo,
	whyInvalidMessages: slog.LevelInfo, whyHelloTimeout: slog.LevelInfo, whyQuota: slog.LevelInfo,
	whyUnauthorized: slog.LevelInfo, whyRoomClosed: slog.LevelInfo, whyReplaced: slog.LevelDebug, whyLeft: slog.LevelDebug,
	whyUpdateRequired: slog.LevelDebug, whyInviteRequired: slog.LevelDebug, whyBadToken: slog.LevelDebug,
	whyMoved: slog.LevelInfo, whyRestart: slog.LevelInfo, whyUnavailable: slog.LevelWarn, whyInternal: slog.LevelWarn,
}

func (r closeReason) String() string { return reasonLabels[r] }

// reasonOf is the reason of a close with code that the room or the room's
// node (relayed) asked for; reason tells a restart's 4000 from storage's.
func reasonOf(code int, reason string) closeReason {
	switch code {
	case protocol.CloseNormal:
		return whyPeerClose // only ever an echo of a client's close
	case protocol.CloseProtocolError:
		return whyProtocol
	case closeInvalidData:
		return whyInvalidUTF8
	case protocol.CloseTooBig:
		return whyTooBig
	case protocol.CloseRestarting:
		if reason == "server restarting" {
			return whyRestart
		}
		return whyUnavailable
	case protocol.CloseReplaced:
		return whyReplaced
	case protocol.CloseLeft:
		return whyLeft
	case protocol.CloseUpdateRequired:
		return whyUpdateRequired
	case protocol.CloseRoomClosed:
		return whyRoomClosed
	case protocol.CloseLocked:
		return whyInviteRequired
	case protocol.CloseBadToken:
		return whyBadToken
	case protocol.CloseUnauthorized:
		return whyUnauthorized
	case protocol.CloseSlow:
		return whySlow
	case protocol.CloseMoved:
		return whyMoved
	case protocol.CloseTryLater:
		return whyQuota
	case protocol.CloseRateLimited:
		return whyMessageFlood
	}
	return whyInternal
}

// refusalReason is the reason of a frame the reader refused.
func refusalReason(err *wsError) closeReason {
	switch err.code {
	case closeInvalidData:
		return whyInvalidUTF8
	case closeTooBig:
		return whyTooBig
	case closeFlood:
		return whyFrameFlood
	}
	return whyProtocol
}

// closeNote is how a connection ended: set once, by the first to know.
type closeNote struct {
	why    closeReason
	code   int    // the close code the server sent or echoed; 0: none
	detail string // the server's words (never a client's)
}

// noteEnd records why the connection ends, unless that is known already.
func (c *conn) noteEnd(why closeReason, code int, detail string) {
	if why != whyNone {
		c.end.CompareAndSwap(nil, &closeNote{why: why, code: code, detail: detail})
	}
}

// ended counts and logs the connection's end; its socket is released.
func (c *conn) ended() {
	n := c.end.Load()
	if n == nil {
		n = &closeNote{why: whyPeerGone}
	}
	c.srv.cfg.Metrics.closed(n.why)
	c.srv.closes.log(c, n)
}

// closeLogBurst is how many close lines of one reason may come at once;
// then one a second.
const closeLogBurst = 10

// closeLog writes the close lines, each reason's rate-limited.
type closeLog struct {
	logger *slog.Logger
	mu     sync.Mutex
	lines  [numReasons]logBucket
}

type logBucket struct {
	tokens  float64
	last    time.Time
	skipped int // lines left out since the last one written
}

func (l *closeLog) init(logger *slog.Logger) {
	l.logger = logger
	for i := range l.lines {
		l.lines[i].tokens = closeLogBurst
	}
}

// allow takes a line of reason why at now; it reports whether to write it
// and how many of its lines were left out before it.
func (l *closeLog) allow(why closeReason, now time.Time) (ok bool, skipped int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	b := &l.lines[why]
	if !b.last.IsZero() {
		b.tokens = min(closeLogBurst, b.tokens+now.Sub(b.last).Seconds())
	}
	b.last = now
	if b.tokens < 1 {
		b.skipped++
		return false, 0
	}
	b.tokens--
	skipped, b.skipped = b.skipped, 0
	return true, skipped
}

func (l *closeLog) log(c *conn, n *closeNote) {
	level := reasonLevels[n.why]
	ctx := context.Background()
	if l.logger == nil || !l.logger.Enabled(ctx, level) {
		return
	}
	ok, skipped := l.allow(n.why, time.Now())
	if !ok {
		return
	}
	attrs := []slog.Attr{slog.String("reason", n.why.String()), slog.Int("code", n.code), slog.String("conn", c.id),
		slog.String("addr", c.addr.String())}
	if r := c.room.Load(); r != nil {
		attrs = append(attrs, slog.String("room", r.Code()))
	}
	if c.born != 0 {
		attrs = append(attrs, slog.Duration("age", time.Since(time.Unix(0, c.born)).Round(time.Millisecond)))
	}
	if n.detail != "" {
		attrs = append(attrs, slog.String("detail", n.detail))
	}
	if skipped > 0 {
		attrs = append(attrs, slog.Int("skipped", skipped))
	}
	l.logger.LogAttrs(ctx, level, "connection closed", attrs...)
}
