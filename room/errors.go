package room

import (
	"errors"
	"strings"

	"github.com/roomd/roomd/protocol"
)

// Sentinel errors.
var (
	ErrNoRoom       = errors.New("room: no such room")
	ErrClosed       = errors.New("room: closed")
	ErrBusy         = errors.New("room: mailbox full")
	ErrShuttingDown = errors.New("room: server shutting down")
	ErrUnknownGame  = errors.New("room: unknown game")
	ErrBadSettings  = errors.New("room: invalid settings")
	ErrRoomFull     = errors.New("room: no free seat")
	ErrNotLobby     = errors.New("room: the match has started")
	ErrStorage      = errors.New("room: storage unavailable")
	ErrTooManyRooms = errors.New("room: this server holds as many rooms as it may")
	ErrLocked       = errors.New("room: locked; its invite is needed")

	// Rated quick play (pool.go).
	ErrNoPool       = errors.New("room: this server has no rated quick play")
	ErrNotRatedMode = errors.New("room: rated quick play is for the rated modes")
	ErrQueued       = errors.New("room: the player is waiting for a rated match already")
	ErrPoolFull     = errors.New("room: the pool is full")
	ErrNoTicket     = errors.New("room: no such ticket (it was cancelled, or lapsed unpolled)")
	ErrPaired       = errors.New("room: the ticket is paired already")
)

// refusal is a client-facing refusal of an action: a notice code (from
// protocol) and words.
type refusal struct {
	code, msg string
}

func (r *refusal) Error() string { return r.code + ": " + r.msg }

func refuse(code, msg string) *refusal { return &refusal{code: code, msg: msg} }

func asRefusal(err error) (*refusal, bool) {
	var rf *refusal
	ok := errors.As(err, &rf)
	return rf, ok
}

func (r *refusal) notice() *protocol.Notice {
	return &protocol.Notice{Code: r.code, Message: r.msg}
}

// rulesRefusal reports whether a refusal's code is the game's rules
// refusing a command (a game: code, or a command it could not read), not
// the room's (storage, limits).
func rulesRefusal(code string) bool {
	return strings.HasPrefix(code, "game:") || code == protocol.CodeInvalidCommand
}

// clipMove is a move for a message: at most 120 bytes of it.
func clipMove(move []byte) string {
	if len(move) > 120 {
		return string(move[:120]) + "…"
	}
	return string(move)
}
