// Package client is roomd's Go client: the client side of the protocol
// (PROTOCOL.md), for bots, load tools, tests and any Go program that plays
// in a room.
//
// A Remote plays in a room on a server over a WebSocket. Create a room
// (POST /api/rooms) or take a seat over HTTP, then Dial with the room's
// code and the seat's token; the Remote keeps the connection: it rejoins
// after a lost socket with its token and the position it saw (epoch and
// revision), resends the actions that had no receipt with their ids, asks
// for a resync on a gap, backs off between attempts (DefaultBackoff), and
// stops for good on the close codes that say so (protocol.Terminal). What
// happens comes as Events, on a channel or through a Handler. A Tracker is
// that protocol without the socket; transport/local runs one over a room
// in this process.
//
// # Sockets
//
// Each connection is read by a goroutine of its own, which decodes the
// server's messages and hands them on (to the events channel, or to
// Config.Handler right there); Send writes on the caller's goroutine. The
// upgrade goes through net/http (Config.HTTPClient: its proxy and TLS
// settings), and the frames through github.com/gobwas/ws, which checks
// them (RFC 6455: masks, control frames, fragments, UTF-8 of text, the
// read limit). A program with thousands of Remotes (a bot or load tool)
// sets a Handler, so that a message costs no hand-off between goroutines.
//
// # A silent server
//
// A server that stops talking without closing — a host gone, a network
// cut, a process frozen — is found by the heartbeat: once a socket has
// read nothing for the server's heartbeat (the welcome's heartbeatMs;
// Config.Heartbeat, 15 s by default, until the welcome), the client sends
// a WebSocket ping, which roomd answers wherever the socket is read; if
// nothing at all is read for another heartbeat after it, the server is
// gone: the socket is closed and the client reconnects as after any lost
// socket (its state goes to reconnecting with close code -1). Anything
// read counts as the server's answer, so a server that talks is never
// pinged. A server silent from the moment of its last message is so left
// within 2 × heartbeatMs, plus a grace: the lateness of two timer firings
// and the socket's teardown — about 1 to 2 ms on an idle machine (the
// tests measure 401–402 ms at 200 ms), and the tests allow 100 ms for a
// loaded one. The grace has no upper bound of its own when the client,
// not the server, is late: a socket whose reader is away from its read (a
// Handler or an events consumer holding it) is not
// counted silent, but looked at again a quarter of a heartbeat later.
//
// # Closing
//
// Close (and the end of Start's context) ends a connected socket with the
// close handshake: a close frame with 1000 (normal closure; 1001, going
// away, for the context's end), then a wait of at most Config.CloseTimeout
// (1 s by default) for the server's close, then TCP is closed. A server's
// close is answered with its own code when RFC 6455 lets an endpoint send
// it (§7.4), 1000 when it had none, 1002 when its code is one no endpoint
// may send (1005, 1006 and 1015 are never written) and 1007 when its reason
// is not UTF-8. Nothing is written after a close frame. Drop cuts the
// socket without a close frame, as a network failure would (for tests).
package client
