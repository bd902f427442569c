// Package protocol is roomd's wire format: every message both ways as Go
// types, one JSON codec, the notice and close codes, and the JSON Schema
// generated from these types. It carries bytes and types, not room
// behaviour. PROTOCOL.md is its normative description.
package protocol

import "encoding/json"

// SocketPath is where a server serves the WebSocket endpoint.
const SocketPath = "/ws"

// Version is the protocol version a server speaks; it is part of the schema
// id and of GET /api/games.
const Version = 1

// Client → server message types.
const (
	TypeHello     = "hello"
	TypeCommand   = "command"
	TypeResign    = "resign"
	TypeControl   = "control"
	TypeReconnect = "reconnect"
	TypeLeave     = "leave"
	TypeResync    = "resync"
	TypePing      = "ping"
	// TypeChat sends a chat message (Action.Text); TypeReport reports one
	// (Action.Message, Action.Reason) to the server's operators.
	TypeChat   = "chat"
	TypeReport = "report"
)

// Server → client message types.
const (
	TypeWelcome  = "welcome"
	TypeSnapshot = "snapshot"
	TypeUpdate   = "update"
	TypeReceipt  = "receipt"
	TypePresence = "presence"
	TypeNotice   = "notice"
	TypeBye      = "bye"
	TypePong     = "pong"
	TypeTick     = "tick"
	// TypeChat (server → client) carries chat messages: new ones, or the
	// room's recent ones after a snapshot (Chat.History).
)

// GamePin names a game and the rules version a client or room runs.
type GamePin struct {
	ID           string `json:"id" jsonschema:"minLength=1"`
	Build        string `json:"build,omitempty"`
	RulesVersion string `json:"rulesVersion"`
}

// Hello opens a connection to one room: the first message a client sends.
type Hello struct {
	Type string `json:"type" jsonschema:"enum=hello"`
	// Room is the room code.
	Room string `json:"room" jsonschema:"minLength=1,maxLength=32"`
	// Token is the seat token from POST /api/rooms or an earlier welcome.
	// Without one, a player is given a new seat (lobby only) and a spectator
	// just watches.
	Token string `json:"token,omitempty" jsonschema:"maxLength=128"`
	Name  string `json:"name,omitempty" jsonschema:"maxLength=64"`
	// Watch asks to join as a spectator.
	Watch bool `json:"watch,omitempty"`
	// Invite is a locked room's invite: needed to take a seat there (and to
	// watch, when the host says so).
	Invite string  `json:"invite,omitempty" jsonschema:"maxLength=64"`
	Game   GamePin `json:"game"`
	// Epoch and Rev are what the client last saw of this room, if anything.
	Epoch string  `json:"epoch,omitempty"`
	Rev   *uint64 `json:"rev,omitempty"`
	// Auth is a JWT from the site that embeds roomd (§2.9): the player's
	// identity (sub) and name. Required when the server requires sign-in.
	Auth string `json:"auth,omitempty" jsonschema:"maxLength=8192"`
	// Player and PlayerName are the identity the server verified Auth as
	// (its sub and name claims): set by the server, never read from the
	// wire.
	Player     string `json:"-"`
	PlayerName string `json:"-"`
}

// Action is the common head of every client action. ID is fresh per action
// (a resend reuses it); Rev is the revision the client had seen.
type Action struct {
	Type string `json:"type" jsonschema:"enum=command,enum=resign,enum=control,enum=reconnect,enum=leave,enum=resync,enum=chat,enum=report"`
	ID   string `json:"id" jsonschema:"minLength=1,maxLength=64"`
	Rev  uint64 `json:"rev"`
	// Command is the game command, for type "command".
	Command json.RawMessage `json:"command,omitempty"`
	// Control is the room control, for type "control".
	Control *Control `json:"control,omitempty"`
	// Text is the message, for type "chat": plain text, at most
	// MaxChatRunes characters once cleaned.
	Text string `json:"text,omitempty" jsonschema:"maxLength=2000"`
	// Message is the id of the chat message reported, and Reason the
	// reporter's words (optional), for type "report".
	Message string `json:"message,omitempty" jsonschema:"maxLength=64"`
	Reason  string `json:"reason,omitempty" jsonschema:"maxLength=2000"`
}

// MaxChatRunes bounds a chat message (and a report's reason) once cleaned.
const MaxChatRunes = 200

// Chat is chat messages, oldest first: one just sent, or — with History —
// the room's recent messages, sent after a connection's snapshot.
type Chat struct {
	Type     string        `json:"type" jsonschema:"enum=chat"`
	Messages []ChatMessage `json:"messages"`
	History  bool          `json:"history,omitempty"`
}

// ChatMessage is one message as the room relays it: the text cleaned, the
// author named by the room (a seat's name, or a spectator's, marked).
type ChatMessage struct {
	ID   string `json:"id"`
	Seat *int   `json:"seat,omitempty"` // the author's seat; absent for a spectator
	Name string `json:"name"`
	Text string `json:"text"`
	At   int64  `json:"at"` // host time, Unix ms
}

// Room controls.
const (
	ControlReady      = "ready"
	ControlSettings   = "settings"
	ControlFillWithAI = "fill-with-ai"
	ControlRemoveSeat = "remove-seat"
	ControlStart      = "start"
	ControlRematch    = "rematch"
	ControlAccess     = "access"
	// ControlMute mutes (or unmutes) a seat's chat; ControlChat says
	// whether spectators may chat. Host only.
	ControlMute = "mute"
	ControlChat = "chat"
)

// Room access levels.
const (
	AccessPublic   = "public"   // listed, open to all
	AccessUnlisted = "unlisted" // the code is enough to join or watch (the default)
	AccessLocked   = "locked"   // joining needs the invite (watching too, with watchLocked)
)

// Control is a room control: readiness, settings, seats, start, rematch.
type Control struct {
	Op string `json:"op" jsonschema:"enum=ready,enum=settings,enum=fill-with-ai,enum=remove-seat,enum=start,enum=rematch,enum=access,enum=mute,enum=chat"`
	// Ready is the new readiness, for "ready".
	Ready bool `json:"ready,omitempty"`
	// Settings is the game config, for "settings" (host only, lobby only),
	// and, optional, the next match's config for "rematch" (a puzzle's next
	// level); the room keeps its canonical form.
	Settings json.RawMessage `json:"settings,omitempty"`
	// Seat is the seat to remove, for "remove-seat", or to mute, for "mute".
	Seat *int `json:"seat,omitempty"`
	// Muted is the seat's new chat state, for "mute".
	Muted bool `json:"muted,omitempty"`
	// SpectatorChat says whether spectators may chat, for "chat".
	SpectatorChat bool `json:"spectatorChat,omitempty"`
	// Count is how many AI seats to add, for "fill-with-ai" (zero means
	// enough to reach the mode's minimum, and at least one).
	Count int `json:"count,omitempty"`
	// Access and WatchLocked are the room's new access, for "access" (host
	// only): public, unlisted or locked, and whether watching a locked room
	// needs the invite too.
	Access      string `json:"access,omitempty" jsonschema:"enum=public,enum=unlisted,enum=locked"`
	WatchLocked bool   `json:"watchLocked,omitempty"`
}

// Ping asks for a pong; T is echoed back.
type Ping struct {
	Type string  `json:"type" jsonschema:"enum=ping"`
	T    float64 `json:"t,omitempty"`
}

// Welcome answers a hello: who this connection is in the room.
type Welcome struct {
	Type string `json:"type" jsonschema:"enum=welcome"`
	// Conn is the connection id (a ULID), for logs and support.
	Conn string `json:"conn"`
	// Seat is the connection's seat, or null for a spectator.
	Seat *int `json:"seat" jsonschema:"oneof_type=integer;null"`
	// Token is set only when this hello was given a new seat: the client
	// must keep it (by room code) to come back to the seat.
	Token string `json:"token,omitempty"`
	// HeartbeatMs is how often the server pings a silent client. A client
	// that hears nothing for as long pings the server, and counts it gone
	// when nothing answers for as long again (PROTOCOL.md §2).
	HeartbeatMs int `json:"heartbeatMs"`
}

// Snapshot is the recipient's whole picture of the room at one revision.
type Snapshot struct {
	Type  string `json:"type" jsonschema:"enum=snapshot"`
	Epoch string `json:"epoch"`
	Rev   uint64 `json:"rev"`
	// Seat is the recipient's seat; null for a spectator.
	Seat *int `json:"seat" jsonschema:"oneof_type=integer;null"`
	// View is the recipient's projection of the match, null in a lobby.
	View any  `json:"view"`
	Room Room `json:"room"`
	// Tick is the last tick the view includes, in a real-time room's
	// match (the next tick message is Tick+1).
	Tick uint64 `json:"tick,omitempty"`
	// Invite is a locked room's invite, for seated players only.
	Invite string `json:"invite,omitempty"`
	// Result is the last match's result, once it has ended.
	Result *Result `json:"result,omitempty"`
}

// Update is one accepted change, from revision From to To (= From+1, but
// in a real-time room's match, where inputs move the revision without an
// update of their own, From is the revision the last update or tick
// reached).
type Update struct {
	Type  string `json:"type" jsonschema:"enum=update"`
	Epoch string `json:"epoch"`
	From  uint64 `json:"from"`
	To    uint64 `json:"to"`
	// By is the seat whose action caused the change, or null for the room.
	By *int `json:"by" jsonschema:"oneof_type=integer;null"`
	// Beats are the recipient's projected game events, published once.
	Beats any `json:"beats,omitempty"`
	// Room is the room's new public info, when it changed.
	Room *Room `json:"room,omitempty"`
	// Seat is the recipient's seat when it changed (seats are renumbered
	// when one is removed in the lobby).
	Seat *int `json:"seat,omitempty"`
	// View is the recipient's new view when a match started, so that a
	// client never has to compute one, and on the update that ends a match,
	// with whatever the match hid until then (a race's boards).
	View any `json:"view,omitempty"`
	// Result is set on the update that ends a match.
	Result *Result `json:"result,omitempty"`
	// Invite is the room's new invite, for seated players, on the update
	// that locks the room.
	Invite string `json:"invite,omitempty"`
	// TurnClock is the match's turn clock after the change, on every update
	// of a running match with a clock (§2.12).
	TurnClock *TurnClock `json:"turnClock,omitempty"`
}

// Receipt answers one action: accepted at a revision, or refused with a
// notice. A resent action gets the same receipt.
type Receipt struct {
	Type string `json:"type" jsonschema:"enum=receipt"`
	ID   string `json:"id"`
	OK   bool   `json:"ok"`
	// Rev is the revision the action produced, when accepted.
	Rev uint64 `json:"rev,omitempty"`
	// Tick is the tick an accepted input of a real-time match takes
	// effect at.
	Tick   uint64  `json:"tick,omitempty"`
	Notice *Notice `json:"notice,omitempty"`
}

// Tick is one tick of a real-time room's match: what changed in it for the
// recipient (its projected beats, possibly none). Ticks come one per tick,
// numbered without gaps; a snapshot says which tick its view includes.
// From and To move the revision as updates do: the inputs accepted since
// the last update or tick have no update of their own.
type Tick struct {
	Type string `json:"type" jsonschema:"enum=tick"`
	From uint64 `json:"from"`
	To   uint64 `json:"to"`
	Tick uint64 `json:"tick"`
	// Beats are the recipient's projected game events of this tick.
	Beats any `json:"beats"`
}

// NoticeMessage is a notice sent on its own, outside a receipt.
type NoticeMessage struct {
	Type      string `json:"type" jsonschema:"enum=notice"`
	Code      string `json:"code"`
	Message   string `json:"message"`
	Temporary bool   `json:"temporary,omitempty"`
}

// Presence says who is connected; sent when it changes.
type Presence struct {
	Type       string `json:"type" jsonschema:"enum=presence"`
	Connected  []int  `json:"connected"`
	Spectators int    `json:"spectators"`
	Clocks     Clocks `json:"clocks"`
	// Paused is true while a real-time match waits for a player to come
	// back (PROTOCOL.md, "Real-time rooms").
	Paused bool `json:"paused,omitempty"`
	// StartsAt is room.startsAt as of this message: the host time (ms) a
	// quick-play room's countdown ends, absent when none runs.
	StartsAt int64 `json:"startsAt,omitempty"`
}

// Notice is a readable refusal or warning with a stable code, inside a
// receipt (a NoticeMessage carries one on its own).
type Notice struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	// Temporary is true when trying again later may succeed.
	Temporary bool `json:"temporary,omitempty"`
}

// Bye is the last message before a server-initiated close: whether and when
// to come back.
type Bye struct {
	Type string `json:"type" jsonschema:"enum=bye"`
	// Code is the close code that follows.
	Code   int    `json:"code"`
	Reason string `json:"reason"`
	// Reconnect says whether the client should come back.
	Reconnect bool `json:"reconnect"`
	// RetryAfterMs is when to come back, if Reconnect.
	RetryAfterMs int `json:"retryAfterMs,omitempty"`
	// URL is, with code 4009 (moved), the base URL of the node that now
	// owns the room, when the server knows it.
	URL string `json:"url,omitempty"`
}

// Pong answers a ping: T echoed, Now the server's clock (ms since the Unix
// epoch) for clock-offset estimates.
type Pong struct {
	Type string  `json:"type" jsonschema:"enum=pong"`
	T    float64 `json:"t,omitempty"`
	Now  int64   `json:"now"`
}

// Room phases.
const (
	PhaseLobby   = "lobby"
	PhaseRunning = "running"
	PhaseEnded   = "ended"
)

// Room is a room's public information, the same for every recipient.
type Room struct {
	Code  string `json:"code"`
	Phase string `json:"phase" jsonschema:"enum=lobby,enum=running,enum=ended,enum=closed"`
	// Host is the host's seat, or null when the host has no seat any more.
	Host     *int            `json:"host" jsonschema:"oneof_type=integer;null"`
	Seats    []SeatInfo      `json:"seats"`
	Settings json.RawMessage `json:"settings"`
	Mode     string          `json:"mode"`
	MinSeats int             `json:"minSeats"`
	MaxSeats int             `json:"maxSeats"`
	// AI says whether fill-with-ai is available in this mode.
	AI         bool    `json:"ai"`
	Game       GamePin `json:"game"`
	Connected  []int   `json:"connected"`
	Spectators int     `json:"spectators"`
	// Frozen is true while the room cannot accept changes (storage is
	// unavailable, or the server is shutting down).
	Frozen bool `json:"frozen"`
	// Match counts starts and rematches.
	Match  int    `json:"match"`
	Clocks Clocks `json:"clocks"`
	// Access is public, unlisted or locked; WatchLocked says whether
	// watching a locked room needs its invite.
	Access      string `json:"access" jsonschema:"enum=public,enum=unlisted,enum=locked"`
	WatchLocked bool   `json:"watchLocked,omitempty"`
	// SpectatorChat says whether spectators may chat (the host decides;
	// off by default).
	SpectatorChat bool `json:"spectatorChat,omitempty"`
	// Commitment is the hex SHA-256 of the secret the running (or last)
	// match draws its hidden state from: published when the match starts,
	// checked against result.seed once it is over (PROTOCOL.md, "Fair
	// play").
	Commitment string `json:"commitment,omitempty"`
	// Daily is the day (YYYY-MM-DD, UTC) of the ranked daily the room
	// plays (§2.8): its match's secret is that day's, disclosed when the
	// day ends.
	Daily string `json:"daily,omitempty"`
	// Rated is true in a rated room: one match between the two signed-in
	// players the rated pool paired, whose result changes their ratings
	// (PROTOCOL.md, "Ratings").
	Rated bool `json:"rated,omitempty"`
	// Quick is true in a room made by quick play: it starts its match by
	// itself, after a countdown, once its mode's minimum seats are taken
	// and connected (PROTOCOL.md, "Public rooms and quick play").
	Quick bool `json:"quick,omitempty"`
	// StartsAt is the host time (ms since the Unix epoch) a quick-play
	// room's countdown ends and its match starts; absent when no countdown
	// runs.
	StartsAt int64 `json:"startsAt,omitempty"`
	// Hz is the tick rate of a real-time game (0 for a game driven by
	// commands), and Paused says its running match waits for a player.
	Hz     int  `json:"hz,omitempty"`
	Paused bool `json:"paused,omitempty"`
	// TurnClock is the match's turn clock (settings.clock, §2.12): present
	// in a room with a clock once its first match has started.
	TurnClock *TurnClock `json:"turnClock,omitempty"`
}

// TurnClock is a match's turn clock as of room.clocks.now (or the update's
// moment): the time each seat has left, the seats whose clock runs, and
// the host time the first of them runs out (0 when none runs).
type TurnClock struct {
	RemainingMs []int64 `json:"remainingMs"`
	Running     []int   `json:"running"`
	Deadline    int64   `json:"deadline"`
}

// SeatInfo is one seat's public information.
type SeatInfo struct {
	Seat      int    `json:"seat"`
	Name      string `json:"name"`
	Ready     bool   `json:"ready"`
	AI        bool   `json:"ai"`
	Connected bool   `json:"connected"`
	// Muted: the host muted this seat's chat.
	Muted bool `json:"muted,omitempty"`
	// Player is the seat's player id from the site's sign-in (§2.9), when
	// it has one.
	Player string `json:"player,omitempty"`
}

// Clocks is the host's time, read at Now (ms since the Unix epoch). A client
// interpolates the match time as ElapsedMs + (its now − Now) while Running.
type Clocks struct {
	Now       int64   `json:"now"`
	ElapsedMs float64 `json:"elapsedMs"`
	Running   bool    `json:"running"`
	// StartedAt is when the match clock started (0 before).
	StartedAt float64 `json:"startedAt,omitempty"`
}

// Result is a finished match, as the host recorded it. Log, the match's
// moves, comes only with the update that ends the match; snapshots leave it
// out (GET /api/rooms/{code}/replay serves it).
type Result struct {
	Match   int     `json:"match"`
	Status  string  `json:"status"`
	TimeMs  float64 `json:"time"`
	Winners []int   `json:"winners"`
	// Seed is the match's secret, disclosed now that it is over: 64 hex
	// digits (ChaCha8's key), or an integer for a match that used the
	// reference generator (mulberry32: matches stored before secrets).
	// A daily match's secret stays sealed until its day ends (§2.8): Seed
	// is then absent and SealedUntil says when (Unix ms).
	Seed        json.RawMessage `json:"seed,omitempty" jsonschema:"oneof_type=integer;string"`
	SealedUntil int64           `json:"sealedUntil,omitempty"`
	// Commitment is the hex SHA-256 of the secret's 32 bytes, as published
	// in room.commitment when the match started (none for an integer seed).
	Commitment string          `json:"commitment,omitempty"`
	Config     json.RawMessage `json:"config"`
	Log        json.RawMessage `json:"log,omitempty"`
	// Ticks is how many ticks a real-time match ran.
	Ticks uint64 `json:"ticks,omitempty"`
	// Detail is what the game says of the ended match that its views do
	// not, in the game's own shape (§5): Minesweeper's wrong flags.
	Detail json.RawMessage `json:"detail,omitempty"`
	// TimedOut are the seats that ran out of time (status "timeout"), and
	// RemainingMs each seat's time left when a match with a turn clock
	// ended (§2.12).
	TimedOut    []int   `json:"timedOut,omitempty"`
	RemainingMs []int64 `json:"remainingMs,omitempty"`
}

// Replay is a room's last finished match as GET /api/rooms/{code}/replay
// serves it: what `roomd replay` and POST /api/replays take (game, seed,
// config, seats, log), with its result.
type Replay struct {
	Game         string `json:"game"`
	RulesVersion string `json:"rulesVersion"`
	// Seed is absent while a daily match's secret is sealed
	// (result.sealedUntil).
	Seed   json.RawMessage `json:"seed,omitempty" jsonschema:"oneof_type=integer;string"`
	Config json.RawMessage `json:"config"`
	Seats  int             `json:"seats"`
	Log    json.RawMessage `json:"log"`
	// Ticks is how many ticks a real-time match ran (its log's entries
	// carry the tick each input took effect at).
	Ticks  uint64 `json:"ticks,omitempty"`
	Result Result `json:"result"`
}
