package protocol

// Notice codes. Game rejections use the game's own "game:" codes (for
// example game:NotYourTurn); these are the room's and the connection's.
const (
	// Refusals of an action (in a receipt).
	CodeWrongSeat          = "wrong-seat"          // the action needs a seat this connection does not hold
	CodeStale              = "stale"               // the revision the client saw is not current enough; a snapshot follows
	CodeRateLimited        = "rate-limited"        // too many actions; slow down (temporary)
	CodeInvalidCommand     = "invalid-command"     // not a command of this game (bad JSON, wrong shape)
	CodeInvalidControl     = "invalid-control"     // unknown control, or its arguments are wrong
	CodeNotHost            = "not-host"            // only the host may do this
	CodeWrongPhase         = "wrong-phase"         // not in this room phase (e.g. a command in the lobby)
	CodeRoomFull           = "room-full"           // no free seat
	CodeNotReady           = "not-ready"           // start refused: seats not ready or too few
	CodeInvalidSettings    = "invalid-settings"    // the game refused the settings
	CodeStorageUnavailable = "storage-unavailable" // could not be stored; resend the same action later (temporary)
	CodeMatchFull          = "match-full"          // the match has logged as many moves as it may; resign or finish it
	CodeEngineThrew        = "engine-threw"        // the game's code failed on this action; nothing changed (logged on the server)
	CodeMuted              = "muted"               // the host muted this seat's chat
	CodeAuthRequired       = "auth-required"       // sign-in required, or the sign-in token was refused (the message says why)
	CodeOffline            = "offline"             // (client side) not connected; the action was not sent

	// Notices of their own.
	CodeInvalidMessage = "invalid-message" // a frame that is not a valid message
	CodeUnknownType    = "unknown-type"    // a message type this server does not know
	CodeNameReplaced   = "name-replaced"   // the name was taken; the message says the name given
	CodeUpdateRequired = "update-required" // the client's rules version differs from the room's
	CodeBadToken       = "bad-token"       // the seat token is not one of this room's
	CodeNoRoom         = "no-room"         // no room with this code
	CodeHelloFirst     = "hello-first"     // the first message must be a hello
	CodeSeatRemoved    = "seat-removed"    // the host removed this seat
	CodeEpochChanged   = "epoch-changed"   // the room came back with less than the client saw
	CodeInviteRequired = "invite-required" // a locked room: a seat (or watching, when the host says so) needs the invite
	CodeTooMany        = "too-many"        // a limit was reached (spectators, sockets, rooms); the message names it (temporary)
	CodeInternal       = "internal"        // roomd could not encode a message for this client (a bug); resync
)

// Close codes, as PROTOCOL.md §2.3 lists them. 1000 and 4001 to 4006 are
// terminal: a client must not reconnect on its own (Terminal). 4000, 4008,
// 4013 and 4029 ask it to come back, after retryAfterMs or its backoff, as
// do 1001, 1002, 1007, 1009 and 1011.
const (
	CloseNormal        = 1000 // normal closure (roomd does not start one): stop
	CloseGoingAway     = 1001 // the peer is going away (roomd does not send it; a proxy may)
	CloseProtocolError = 1002 // a frame RFC 6455 forbids, repeated invalid messages, or no hello in time
	CloseInvalidData   = 1007 // a text message, or a close reason, that is not UTF-8
	CloseTooBig        = 1009 // a message larger than the read limit
	CloseInternal      = 1011 // an internal error (roomd does not send it; a proxy may)

	CloseRestarting     = 4000 // the server is restarting: come back after retryAfterMs
	CloseReplaced       = 4001 // a newer tab took this seat (terminal; a take-back reopens)
	CloseLeft           = 4002 // the client left its seat, or the host removed it (terminal; forget the token)
	CloseUpdateRequired = 4003 // the client's rules version differs (terminal)
	CloseRoomClosed     = 4004 // the room is closed or does not exist (terminal; forget the token)
	CloseLocked         = 4005 // a locked room, and no (or a wrong) invite (terminal)
	CloseBadToken       = 4006 // the seat token is not one of this room's seats (terminal; forget the token)
	CloseUnauthorized   = 4007 // sign-in required, or the token was refused (terminal until the client has a new token)
	CloseSlow           = 4008 // the client read too slowly; reconnect and resync
	CloseMoved          = 4009 // the room moved to another node: reconnect after retryAfterMs, to the bye's url when given
	CloseTryLater       = 4013 // a limit was reached (the notice names it); come back after retryAfterMs
	CloseRateLimited    = 4029 // flooding: past the frame budget, or sustained after rate-limit notices; reconnect after backoff
)

// Terminal reports whether a client must stop reconnecting after code.
func Terminal(code int) bool {
	switch code {
	case CloseNormal, CloseReplaced, CloseLeft, CloseUpdateRequired, CloseRoomClosed, CloseLocked, CloseBadToken, CloseUnauthorized:
		return true
	}
	return false
}

// ForgetsToken reports whether, after code, the client's seat token opens
// nothing any more: the seat or the room is gone, or the token never was
// one of the room's. The client forgets it.
func ForgetsToken(code int) bool {
	switch code {
	case CloseLeft, CloseRoomClosed, CloseBadToken:
		return true
	}
	return false
}

// ValidCloseCode says whether an endpoint may send code in a close frame
// (RFC 6455 §7.4): 1000 to 1014 but for 1004 (reserved), 1005 (no code)
// and 1006 (no close frame), then 3000 to 4999.
func ValidCloseCode(code int) bool {
	switch {
	case code >= 3000 && code <= 4999:
		return true
	case code >= 1000 && code <= 1014:
		return code != 1004 && code != 1005 && code != 1006
	}
	return false
}
