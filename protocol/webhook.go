package protocol

import "encoding/json"

// Webhook event types (PROTOCOL.md §6): what roomd POSTs to the backend of
// the site that embeds it.
const (
	HookRoomCreated  = "room.created"
	HookPlayerJoined = "player.joined"
	HookPlayerLeft   = "player.left"
	HookMatchStarted = "match.started"
	HookMatchEnded   = "match.ended"
)

// WebhookEvent is the JSON body of one webhook POST. ID is unique: an event
// may arrive more than once (delivery is at least once), and the receiver
// deduplicates by it.
type WebhookEvent struct {
	ID   string          `json:"id"`
	Type string          `json:"type"`
	At   int64           `json:"at"` // host time, Unix ms
	Room string          `json:"room"`
	Game string          `json:"game"`
	Data json.RawMessage `json:"data"`
}

// HookPlayer is a seat in webhook events: its player id when the site
// signed the player in (§2.9).
type HookPlayer struct {
	Seat   int    `json:"seat"`
	Name   string `json:"name"`
	Player string `json:"player,omitempty"`
	AI     bool   `json:"ai,omitempty"`
}

// HookRoom is the data of room.created.
type HookRoom struct {
	Settings json.RawMessage `json:"settings"`
	Mode     string          `json:"mode"`
	Access   string          `json:"access"`
	Host     HookPlayer      `json:"host"`
	Daily    string          `json:"daily,omitempty"`
}

// HookSeat is the data of player.joined and player.left; Reason (left
// only) is "left", "removed" (by the host) or "gone" (the seat was given up
// after its player stayed away).
type HookSeat struct {
	HookPlayer
	Reason string `json:"reason,omitempty"`
}

// HookMatch is the data of match.started and match.ended. A match.ended
// carries the result as players get it — with the disclosed secret, the
// commitment and the moves: what a backend needs to check the match as
// §2.6 says (a daily's secret stays sealed until its day ends, §2.8) — and
// Ranked, whether it went on a leaderboard.
type HookMatch struct {
	Match      int          `json:"match"`
	Players    []HookPlayer `json:"players"`
	Commitment string       `json:"commitment,omitempty"`
	Result     *Result      `json:"result,omitempty"`
	Ranked     bool         `json:"ranked,omitempty"`
}
