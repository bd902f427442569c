package client

import (
	"context"
	"errors"

	"github.com/roomd/roomd/protocol"
)

// Transport is what a game client talks to, whether the game runs in this
// process (LocalTransport) or in a room on a server (Remote), as in
// the core design's Transport: start, send, events, result. Every method is
// asynchronous in spirit: Send returns once the action is on its way; its
// receipt and effects arrive as events.
type Transport interface {
	// Start begins: a LocalTransport starts its session, a Remote
	// connects (and keeps reconnecting until Close or a terminal close).
	Start(ctx context.Context) error
	// Send sends one action, filling in a fresh action id and the revision
	// seen, and returns the id.
	Send(ctx context.Context, a protocol.Action) (string, error)
	// Events delivers snapshots, updates, receipts, presence, notices and
	// connection-state changes, in order. It is closed when the transport
	// stops for good.
	Events() <-chan Event
	// State is the connection state.
	State() ConnState
	// Position returns the epoch and revision of the room the client has
	// seen (the last snapshot or update applied).
	Position() (epoch string, rev uint64)
	// Seat returns the client's seat, or -1 for a spectator or before a
	// welcome.
	Seat() int
	// Pending returns how many sent actions still wait for a receipt.
	Pending() int
	// Result returns the last finished match's result, if any.
	Result() (protocol.Result, bool)
	// Close stops the transport and releases its goroutines.
	Close() error
}

// Chaos is what a Remote offers beyond Transport for testing a server's
// guarantees: cutting the socket, resending an action as is, and writing
// frames that bypass the protocol.
type Chaos interface {
	Drop()
	Resend(ctx context.Context, a protocol.Action) error
	SendRaw(ctx context.Context, frame []byte) error
}

var (
	_ Transport = (*Remote)(nil)
	_ Chaos     = (*Remote)(nil)
)

// ConnState is a client's connection state.
type ConnState string

// Connection states, as the browser client's indicator shows them.
const (
	StateConnecting   ConnState = "connecting"
	StateOnline       ConnState = "online"
	StateReconnecting ConnState = "reconnecting"
	StateClosed       ConnState = "closed"
)

// EventKind says which field of an Event is set.
type EventKind string

// Event kinds.
const (
	EventState    EventKind = "state"
	EventWelcome  EventKind = "welcome"
	EventSnapshot EventKind = "snapshot"
	EventUpdate   EventKind = "update"
	EventReceipt  EventKind = "receipt"
	EventPresence EventKind = "presence"
	EventNotice   EventKind = "notice"
	EventBye      EventKind = "bye"
	EventPong     EventKind = "pong"
	EventTick     EventKind = "tick"
	EventChat     EventKind = "chat"
)

// Event is one thing that happened to a transport.
type Event struct {
	Kind     EventKind
	State    ConnState
	Welcome  *protocol.Welcome
	Snapshot *protocol.Snapshot
	Update   *protocol.Update
	Receipt  *protocol.Receipt
	Presence *protocol.Presence
	Notice   *protocol.NoticeMessage
	Bye      *protocol.Bye
	Pong     *protocol.Pong
	Tick     *protocol.Tick
	Chat     *protocol.Chat
	// Close is the close code that ended the connection, with EventState.
	Close int
	// URL is, in a Remote's events, the base URL of the node the message
	// came through; with EventState, the node connected through (online)
	// or whose connection ended (reconnecting, closed).
	URL string
	// Raw is the frame as received (remote only), for tests that inspect
	// every byte a client gets.
	Raw []byte
	// Resync is true on a snapshot that answered a gap or a stale action.
	Resync bool
}

// ErrOffline is returned by Send while a Remote is not connected:
// the action was not sent (the browser client shows an offline notice).
var ErrOffline = errors.New("transport: offline; the action was not sent")

// ErrStopped is returned after the transport stopped for good.
var ErrStopped = errors.New("transport: stopped")
