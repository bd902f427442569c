package client

import (
	"sync"
	"time"

	"github.com/roomd/roomd/internal/ids"
	"github.com/roomd/roomd/protocol"
)

// Tracker is the protocol's client side without the socket: it follows one
// client's position in its room from the messages the server sends — epoch,
// revision, seat, token, the actions still waiting for a receipt, the last
// result — and says what the transport must do about each (resync on a gap,
// resend on coming back, confirm a take-back). Remote runs it over a
// WebSocket and the local transport over an in-process room, so both behave
// the same by construction. It is safe for concurrent use.
type Tracker struct {
	mu         sync.Mutex
	state      ConnState
	epoch      string
	rev        uint64
	tick       uint64 // a real-time match's last tick seen
	seen       bool   // a snapshot has been seen
	seat       *int
	token      string
	pending    []protocol.Action // sent, no receipt yet, in order
	result     *protocol.Result
	resyncing  bool
	takingBack bool
	lastClose  int
	retryAfter time.Duration
}

// NewTracker returns a tracker that starts with a seat token (empty for
// none).
func NewTracker(token string) *Tracker {
	return &Tracker{state: StateConnecting, token: token}
}

// Step is what one server message asks of the transport, in this order:
// send Resend (actions that had no receipt, with their ids) before going
// online, emit Event when Emit, then send TakeBack; Resync instead of all
// of that when the message showed a gap.
type Step struct {
	// Token is a new seat token the server handed out, to keep.
	Token    string
	Event    Event
	Emit     bool
	Resync   *protocol.Action
	Resend   []protocol.Action
	Online   bool
	TakeBack *protocol.Action
}

// SetToken sets the seat token to present (one handed out by HTTP).
func (k *Tracker) SetToken(token string) {
	k.mu.Lock()
	k.token = token
	k.mu.Unlock()
}

// Hello returns the hello that opens a connection: the token, and the
// position last seen so that the server can tell the client is ahead.
func (k *Tracker) Hello(room, name string, watch bool, game protocol.GamePin) protocol.Hello {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.resyncing = false
	h := protocol.Hello{Type: protocol.TypeHello, Room: room, Token: k.token, Name: name, Watch: watch, Game: game}
	if k.seen {
		h.Epoch = k.epoch
		rev := k.rev
		h.Rev = &rev
	}
	return h
}

// Send prepares an action for sending: a fresh id when it has none, the
// newest revision seen when its Rev is zero. It is pending until its
// receipt. It fails with ErrStopped when closed and ErrOffline when not
// online.
func (k *Tracker) Send(a protocol.Action) (protocol.Action, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	switch k.state {
	case StateClosed:
		return a, ErrStopped
	case StateOnline:
	default:
		return a, ErrOffline
	}
	if a.ID == "" {
		a.ID = ids.Action()
	}
	if a.Rev == 0 {
		a.Rev = k.rev // the newest revision seen; a caller may pass the one it read
	}
	k.pending = append(k.pending, a)
	return a, nil
}

// Receive applies one decoded server message.
func (k *Tracker) Receive(msg protocol.ServerMessage, raw []byte) Step {
	st := Step{Event: Event{Raw: raw}, Emit: true}
	ev := &st.Event
	k.mu.Lock()
	defer k.mu.Unlock()
	switch {
	case msg.Welcome != nil:
		ev.Kind, ev.Welcome = EventWelcome, msg.Welcome
		k.seat = msg.Welcome.Seat
		if tok := msg.Welcome.Token; tok != "" {
			k.token, st.Token = tok, tok
		}
	case msg.Snapshot != nil:
		s := msg.Snapshot
		if k.seen && s.Epoch == k.epoch && s.Rev < k.rev {
			return Step{} // an older snapshot of the same epoch is ignored
		}
		ev.Kind, ev.Snapshot, ev.Resync = EventSnapshot, s, k.resyncing
		k.epoch, k.rev, k.seen, k.seat, k.resyncing, k.tick = s.Epoch, s.Rev, true, s.Seat, false, s.Tick
		if s.Result != nil {
			k.result = s.Result
		}
		if k.state != StateOnline {
			st.Resend = append(st.Resend, k.pending...)
			if k.takingBack {
				k.takingBack = false
				a := protocol.Action{Type: protocol.TypeReconnect, ID: ids.Action(), Rev: k.rev}
				k.pending = append(k.pending, a)
				st.TakeBack = &a
			}
		}
		st.Online = true
	case msg.Update != nil:
		u := msg.Update
		if u.Epoch != k.epoch || u.From != k.rev {
			if !k.resyncing {
				k.resyncing = true
				st.Resync = &protocol.Action{Type: protocol.TypeResync, ID: ids.Action(), Rev: u.From}
			}
			st.Emit = false
			return st
		}
		ev.Kind, ev.Update = EventUpdate, u
		k.rev = u.To
		if u.View != nil {
			k.tick = 0 // a match started (or ended): its ticks count from 1
		}
		if u.Seat != nil {
			k.seat = u.Seat
		}
		if u.Result != nil {
			k.result = u.Result
		}
	case msg.Tick != nil:
		tk := msg.Tick
		if tk.From != k.rev || tk.Tick != k.tick+1 {
			if !k.resyncing {
				k.resyncing = true
				st.Resync = &protocol.Action{Type: protocol.TypeResync, ID: ids.Action(), Rev: k.rev}
			}
			st.Emit = false
			return st
		}
		ev.Kind, ev.Tick = EventTick, tk
		k.rev, k.tick = tk.To, tk.Tick
	case msg.Receipt != nil:
		ev.Kind, ev.Receipt = EventReceipt, msg.Receipt
		for i, a := range k.pending {
			if a.ID == msg.Receipt.ID {
				k.pending = append(k.pending[:i], k.pending[i+1:]...)
				break
			}
		}
	case msg.Presence != nil:
		ev.Kind, ev.Presence = EventPresence, msg.Presence
	case msg.Notice != nil:
		ev.Kind, ev.Notice = EventNotice, msg.Notice
	case msg.Bye != nil:
		ev.Kind, ev.Bye = EventBye, msg.Bye
		if msg.Bye.Reconnect && msg.Bye.RetryAfterMs > 0 {
			k.retryAfter = time.Duration(msg.Bye.RetryAfterMs) * time.Millisecond
		}
	case msg.Pong != nil:
		ev.Kind, ev.Pong = EventPong, msg.Pong
	case msg.Chat != nil:
		ev.Kind, ev.Chat = EventChat, msg.Chat
	default:
		return Step{}
	}
	return st
}

// SetState moves the connection state; it reports whether it changed.
func (k *Tracker) SetState(s ConnState, closeCode int) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	changed := k.state != s
	k.state = s
	if closeCode != 0 {
		k.lastClose = closeCode
	}
	return changed
}

// TakingBack marks that the next snapshot follows a take-back (a reconnect
// action is sent then).
func (k *Tracker) TakingBack() {
	k.mu.Lock()
	k.takingBack = true
	k.mu.Unlock()
}

// RetryAfter returns (and forgets) the wait the server's last bye asked for.
func (k *Tracker) RetryAfter() time.Duration {
	k.mu.Lock()
	defer k.mu.Unlock()
	d := k.retryAfter
	k.retryAfter = 0
	return d
}

// State returns the connection state.
func (k *Tracker) State() ConnState {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.state
}

// Position returns the epoch and revision the client has seen.
func (k *Tracker) Position() (string, uint64) {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.epoch, k.rev
}

// Seat returns the client's seat, or -1 for a spectator or before a welcome.
func (k *Tracker) Seat() int {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.seat == nil {
		return -1
	}
	return *k.seat
}

// Token returns the seat token, once known.
func (k *Tracker) Token() string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.token
}

// Pending returns how many sent actions still wait for a receipt.
func (k *Tracker) Pending() int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return len(k.pending)
}

// LastClose returns the code of the last close, or 0.
func (k *Tracker) LastClose() int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.lastClose
}

// Result returns the last finished match's result, if any.
func (k *Tracker) Result() (protocol.Result, bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.result == nil {
		return protocol.Result{}, false
	}
	return *k.result, true
}
