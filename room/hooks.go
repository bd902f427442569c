package room

import (
	"context"
	"encoding/json"

	"github.com/roomd/roomd/internal/ids"
	"github.com/roomd/roomd/protocol"
	"github.com/roomd/roomd/store"
)

// hooks.go makes the webhook events of a room (PROTOCOL.md §6): a room's
// creation, players joining and leaving, matches starting and ending. An
// event is made as its entry is accepted and stored in the same write as
// the entry (store.Outbox.AppendWith), so an acknowledged change always
// has its event, and a crash loses neither; package transport/webhook
// delivers them from the store's outbox, at least once. Events are made
// only live: rebuilding a room from its entries makes none again.

// hookEvent encodes one event for the outbox.
func hookEvent(typ, room, game string, at int64, data any) (store.Event, error) {
	raw, err := json.Marshal(data)
	if err != nil {
		return store.Event{}, err
	}
	id := ids.New()
	body, err := json.Marshal(protocol.WebhookEvent{ID: id, Type: typ, At: at, Room: room, Game: game, Data: raw})
	if err != nil {
		return store.Event{}, err
	}
	return store.Event{ID: id, Data: body, Due: at}, nil
}

// hooks reports whether rooms make webhook events.
func (m *Manager) hooks() bool { return m.cfg.Webhooks && m.cfg.Outbox != nil }

// hookPlayer is seat i as events name it.
func (st *state) hookPlayer(i int) protocol.HookPlayer {
	p := st.Players[i]
	return protocol.HookPlayer{Seat: i, Name: p.Name, Player: p.Player, AI: p.AI}
}

// hook queues an event of the room for the batch's write.
func (r *Room) hook(typ string, at int64, data any) {
	if !r.m.hooks() {
		return
	}
	ev, err := hookEvent(typ, r.code, r.st.Game, at, data)
	if err != nil {
		r.log.Error("webhook event not encoded", "type", typ, "err", err)
		return
	}
	r.b.events = append(r.b.events, ev)
}

// leaving is who an entry takes out of the room, read before it applies:
// the seat a leave or a removal gives up.
func (r *Room) leaving(e *entry) (protocol.HookSeat, bool) {
	var id, reason string
	switch e.Kind {
	case kindLeave:
		id, reason = e.By, "left"
		if e.Aid == "" {
			reason = "gone" // the room gave the seat up (SeatGrace)
		}
	case kindRemove:
		id, reason = e.Target, "removed"
	default:
		return protocol.HookSeat{}, false
	}
	i := r.st.seatOf(id)
	if i < 0 || r.st.Players[i].Gone {
		return protocol.HookSeat{}, false
	}
	return protocol.HookSeat{HookPlayer: r.st.hookPlayer(i), Reason: reason}, true
}

// hooksFor queues the events of an applied entry; left is the seat it
// took out (from leaving), ranked whether its match's result went to the
// leaderboards.
func (r *Room) hooksFor(e *entry, eff effect, left *protocol.HookSeat, ranked bool) {
	if !r.m.hooks() {
		return
	}
	st := r.st
	switch e.Kind {
	case kindJoin:
		for _, p := range e.Players {
			if i := st.seatOf(p.ID); i >= 0 {
				r.hook(protocol.HookPlayerJoined, e.T, protocol.HookSeat{HookPlayer: st.hookPlayer(i)})
			}
		}
	}
	if left != nil {
		r.hook(protocol.HookPlayerLeft, e.T, left)
	}
	if eff.started && st.sess != nil {
		r.hook(protocol.HookMatchStarted, e.T, protocol.HookMatch{Match: st.Match, Players: st.hookPlayers(), Commitment: st.sess.Seed().Commitment()})
	}
	if eff.ended && st.Result != nil {
		res := st.resultWire(true, e.T)
		r.hook(protocol.HookMatchEnded, e.T, protocol.HookMatch{Match: st.Result.Match, Players: st.hookPlayers(), Commitment: res.Commitment, Result: res, Ranked: ranked})
	}
}

func (st *state) hookPlayers() []protocol.HookPlayer {
	out := make([]protocol.HookPlayer, len(st.Players))
	for i := range st.Players {
		out[i] = st.hookPlayer(i)
	}
	return out
}

// hookCreated stores a new room's room.created event. It is not in the
// room's first write (the store creates rooms and keeps events apart): a
// crash between the two loses it, before the creator has heard of the room.
func (m *Manager) hookCreated(ctx context.Context, st *state, at int64) {
	if !m.hooks() {
		return
	}
	data := protocol.HookRoom{Settings: st.Settings, Mode: st.setup.Mode.ID, Access: st.access(), Host: st.hookPlayer(0)}
	if st.Daily != nil {
		data.Daily = st.Daily.Day
	}
	ev, err := hookEvent(protocol.HookRoomCreated, st.Code, st.Game, at, data)
	if err != nil {
		m.cfg.Logger.Error("webhook event not encoded", "type", protocol.HookRoomCreated, "err", err)
		return
	}
	ctx, cancel := context.WithTimeout(ctx, m.cfg.StoreTimeout)
	defer cancel()
	dropped, err := m.cfg.Outbox.Enqueue(ctx, []store.Event{ev})
	switch {
	case err != nil:
		m.cfg.Logger.Error("webhook event not stored", "type", protocol.HookRoomCreated, "room", st.Code, "err", err)
	case dropped > 0:
		m.cfg.Logger.Error("webhook outbox full: event dropped", "type", protocol.HookRoomCreated, "room", st.Code)
		m.cfg.Metrics.observeHooksDropped(dropped)
	case m.cfg.HooksQueued != nil:
		m.cfg.HooksQueued()
	}
}
