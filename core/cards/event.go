package cards

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/roomd/roomd/core/session"
)

// EventType is a GameEvent's "type" (§7).
type EventType string

// Event types (§7), with the fields each carries.
const (
	EventSummoned     EventType = "Summoned"     // ID
	EventDamaged      EventType = "Damaged"      // Target, Amount
	EventTriggered    EventType = "Triggered"    // Source, Trigger
	EventDestroyed    EventType = "Destroyed"    // ID
	EventDeathPhase   EventType = "DeathPhase"   // Round
	EventDrew         EventType = "Drew"         // Player, ID
	EventFatigue      EventType = "Fatigue"      // Player
	EventArmorGained  EventType = "ArmorGained"  // Player, Amount
	EventStatsChanged EventType = "StatsChanged" // ID, Attack, Health
	EventSpellCast    EventType = "SpellCast"    // Card
)

// Event is a GameEvent of §7. Type says which fields belong to it (see the
// EventType constants); the others are zero. Its JSON form is the seed's:
// the type tag, then that type's fields in the seed's order, every one
// always written, such as {"type":"Damaged","target":7,"amount":2}.
type Event struct {
	Type    EventType
	ID      ID
	Target  ID
	Source  ID
	Amount  int32
	Trigger string
	Round   uint32
	Player  Player
	Attack  int32
	Health  int32
	Card    string
}

// Summoned is Summoned{id}: a minion entered a board.
func Summoned(id ID) Event { return Event{Type: EventSummoned, ID: id} }

// Damaged is Damaged{target, amount}: amount is the whole amount dealt,
// Armor's share included.
func Damaged(target ID, amount int32) Event {
	return Event{Type: EventDamaged, Target: target, Amount: amount}
}

// Triggered is Triggered{source, trigger}: one activation of an ability.
func Triggered(source ID, trigger string) Event {
	return Event{Type: EventTriggered, Source: source, Trigger: trigger}
}

// Destroyed is Destroyed{id}: a minion was removed in a Death Creation
// Step.
func Destroyed(id ID) Event { return Event{Type: EventDestroyed, ID: id} }

// DeathPhase is DeathPhase{round}: the round-th Death Phase of the
// Sequence starts.
func DeathPhase(round uint32) Event { return Event{Type: EventDeathPhase, Round: round} }

// Drew is Drew{player, id}: p drew card id (into a full hand too).
func Drew(p Player, id ID) Event { return Event{Type: EventDrew, Player: p, ID: id} }

// Fatigue is Fatigue{player}: p drew from an empty deck.
func Fatigue(p Player) Event { return Event{Type: EventFatigue, Player: p} }

// ArmorGained is ArmorGained{player, amount}.
func ArmorGained(p Player, amount int32) Event {
	return Event{Type: EventArmorGained, Player: p, Amount: amount}
}

// StatsChanged is StatsChanged{id, attack, health}, with the minion's new
// current attack and health.
func StatsChanged(id ID, attack, health int32) Event {
	return Event{Type: EventStatsChanged, ID: id, Attack: attack, Health: health}
}

// SpellCast is SpellCast{card}.
func SpellCast(card string) Event { return Event{Type: EventSpellCast, Card: card} }

func (e Event) String() string {
	b, err := e.MarshalJSON()
	if err != nil {
		return fmt.Sprintf("%#v", e)
	}
	return string(b)
}

// MarshalJSON writes the event's type and its type's fields in the seed's
// order, zero values included.
func (e Event) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, 64)
	b = append(b, `{"type":"`...)
	b = append(b, e.Type...)
	b = append(b, '"')
	num := func(key string, v int64) {
		b = append(b, `,"`...)
		b = append(b, key...)
		b = append(b, `":`...)
		b = strconv.AppendInt(b, v, 10)
	}
	switch e.Type {
	case EventSummoned, EventDestroyed:
		num("id", int64(e.ID))
	case EventDamaged:
		num("target", int64(e.Target))
		num("amount", int64(e.Amount))
	case EventTriggered:
		num("source", int64(e.Source))
		b = append(b, `,"trigger":`...)
		b = appendJSONString(b, e.Trigger)
	case EventDeathPhase:
		num("round", int64(e.Round))
	case EventDrew:
		num("player", int64(e.Player))
		num("id", int64(e.ID))
	case EventFatigue:
		num("player", int64(e.Player))
	case EventArmorGained:
		num("player", int64(e.Player))
		num("amount", int64(e.Amount))
	case EventStatsChanged:
		num("id", int64(e.ID))
		num("attack", int64(e.Attack))
		num("health", int64(e.Health))
	case EventSpellCast:
		b = append(b, `,"card":`...)
		b = appendJSONString(b, e.Card)
	default:
		return nil, fmt.Errorf("cards: unknown event type %q", session.Clip(string(e.Type)))
	}
	return append(b, '}'), nil
}

// eventFields are the JSON fields of each event type, in order.
var eventFields = map[EventType][]string{
	EventSummoned:     {"id"},
	EventDamaged:      {"target", "amount"},
	EventTriggered:    {"source", "trigger"},
	EventDestroyed:    {"id"},
	EventDeathPhase:   {"round"},
	EventDrew:         {"player", "id"},
	EventFatigue:      {"player"},
	EventArmorGained:  {"player", "amount"},
	EventStatsChanged: {"id", "attack", "health"},
	EventSpellCast:    {"card"},
}

// UnmarshalJSON decodes an event of a known type: exactly the type tag and
// every field of its type.
func (e *Event) UnmarshalJSON(data []byte) error {
	ms, err := session.Members(data)
	if err != nil {
		return fmt.Errorf("cards event: %w", err)
	}
	raw, ok := session.Lookup(ms, "type")
	var t EventType
	if !ok || json.Unmarshal(raw, &t) != nil {
		return fmt.Errorf(`cards event: "type" must be a string`)
	}
	fields, known := eventFields[t]
	if !known {
		return fmt.Errorf("cards event: unknown type %q", session.Clip(string(t)))
	}
	if len(ms) != len(fields)+1 {
		return fmt.Errorf("cards event: %s has exactly the fields %v", t, fields)
	}
	out := Event{Type: t}
	for _, f := range fields {
		raw, ok := session.Lookup(ms, f)
		if !ok {
			return fmt.Errorf("cards event: %s needs %q", t, f)
		}
		var err error
		switch f {
		case "id":
			err = json.Unmarshal(raw, &out.ID)
		case "target":
			err = json.Unmarshal(raw, &out.Target)
		case "source":
			err = json.Unmarshal(raw, &out.Source)
		case "amount":
			err = json.Unmarshal(raw, &out.Amount)
		case "trigger":
			err = json.Unmarshal(raw, &out.Trigger)
		case "round":
			err = json.Unmarshal(raw, &out.Round)
		case "player":
			err = json.Unmarshal(raw, &out.Player)
		case "attack":
			err = json.Unmarshal(raw, &out.Attack)
		case "health":
			err = json.Unmarshal(raw, &out.Health)
		case "card":
			err = json.Unmarshal(raw, &out.Card)
		}
		if err != nil {
			return fmt.Errorf("cards event: %s.%s: %v", t, f, err)
		}
	}
	*e = out
	return nil
}
