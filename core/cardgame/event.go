package cardgame

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/roomd/roomd/core/cards"
)

// Event types of the duel's own; the engine's events (§7) keep their
// types (cards.EventSummoned, …).
const (
	EventTurn   = "turn"
	EventPlay   = "play"
	EventAttack = "attack"
	EventEnd    = "end"
)

// Event is one delta of an update. Its JSON form depends on Type, with
// exactly these members in this order:
//
//	{"type":"turn","seat":S,"turn":N,"mana":M,"maxMana":M}     a turn starts
//	{"type":"play","seat":S,"id":ID,"card":NAME,"cost":C}      a card leaves the hand
//	    (…,"target":ID when it has one, …,"spell":true for a spell, which
//	    goes to the graveyard)
//	{"type":"attack","seat":S,"attacker":ID,"defender":ID}
//	{"type":"end","phase":P}  (…,"winner":W once won, …,"conceded":true)
//	{"type":"Summoned","id":ID,"seat":S,"card":NAME,"attack":A,"health":H,"order":O}
//	    (…,"taunt":true for a Taunt minion)
//	{"type":"Damaged","target":ID,"amount":A}
//	{"type":"Triggered","source":ID,"trigger":T}
//	{"type":"Destroyed","id":ID}
//	{"type":"DeathPhase","round":R}
//	{"type":"Drew","player":P,"id":ID}
//	    (…,"card":NAME,"cost":C for the drawing seat, and for every viewer
//	    with …,"burned":true when the card went to the graveyard from a
//	    full hand)
//	{"type":"Fatigue","player":P}
//	{"type":"ArmorGained","player":P,"amount":A}
//	{"type":"StatsChanged","id":ID,"attack":A,"health":H}
//	{"type":"SpellCast","card":NAME}
//
// The engine's events are those of §7 with the additions above; the rules
// keep every name in Drew, and ProjectEvents drops it for the viewers that
// may not see it.
type Event struct {
	Type string
	// Seat is the seat of a turn, play, attack, Summoned, and the player of
	// Drew, Fatigue and ArmorGained.
	Seat int
	// Turn, Mana and MaxMana are a turn's.
	Turn          int
	Mana, MaxMana int32
	// ID is the card of a play, Summoned, Destroyed, Drew, StatsChanged.
	ID ID
	// Target is a play's chosen target (0: none) or Damaged's target.
	Target ID
	// Attacker and Defender are an attack's.
	Attacker, Defender ID
	// Source and Trigger are Triggered's; Round is DeathPhase's.
	Source  ID
	Trigger string
	Round   uint32
	// Amount is Damaged's and ArmorGained's.
	Amount int32
	// Card is a card's name (play, Summoned, SpellCast, and Drew where
	// shown); Cost its cost (play, Drew where shown).
	Card string
	Cost int32
	// Attack, Health, Order and Taunt describe a minion (Summoned,
	// StatsChanged).
	Attack, Health int32
	Order          uint32
	Taunt          bool
	// Burned is a Drew into a full hand.
	Burned bool
	// Spell is a play of a spell.
	Spell bool
	// Phase, Winner and Conceded are an end's; Winner is -1 for none.
	Phase    string
	Winner   int
	Conceded bool
}

// fromEngine converts an event of the engine's log.
func fromEngine(e cards.Event) Event {
	out := Event{Type: string(e.Type), ID: e.ID, Target: e.Target, Source: e.Source, Amount: e.Amount,
		Trigger: e.Trigger, Round: e.Round, Seat: int(e.Player), Attack: e.Attack, Health: e.Health, Card: e.Card}
	return out
}

// MarshalJSON writes the event's form (see Event); an event of a type
// the game does not send is an error.
func (e Event) MarshalJSON() ([]byte, error) { return e.appendJSON(make([]byte, 0, 96)) }

// AppendJSON appends the event's form to b (session.JSONAppender: a room
// encodes beats without encoding/json). An event of a type the game does
// not send — a bug of the rules, which MarshalJSON reports — is written
// as its type alone.
func (e *Event) AppendJSON(b []byte) []byte {
	b, _ = e.appendJSON(b)
	return b
}

func (e *Event) appendJSON(b []byte) ([]byte, error) {
	b = append(b, `{"type":`...)
	b = appendString(b, e.Type)
	num := func(key string, v int64) {
		b = append(b, ',', '"')
		b = append(b, key...)
		b = append(b, '"', ':')
		b = strconv.AppendInt(b, v, 10)
	}
	str := func(key, v string) {
		b = append(b, ',', '"')
		b = append(b, key...)
		b = append(b, '"', ':')
		b = appendString(b, v)
	}
	flag := func(key string, v bool) {
		if v {
			b = append(b, ',', '"')
			b = append(b, key...)
			b = append(b, `":true`...)
		}
	}
	switch e.Type {
	case EventTurn:
		num("seat", int64(e.Seat))
		num("turn", int64(e.Turn))
		num("mana", int64(e.Mana))
		num("maxMana", int64(e.MaxMana))
	case EventPlay:
		num("seat", int64(e.Seat))
		num("id", int64(e.ID))
		str("card", e.Card)
		num("cost", int64(e.Cost))
		if e.Target != 0 {
			num("target", int64(e.Target))
		}
		flag("spell", e.Spell)
	case EventAttack:
		num("seat", int64(e.Seat))
		num("attacker", int64(e.Attacker))
		num("defender", int64(e.Defender))
	case EventEnd:
		str("phase", e.Phase)
		if e.Winner >= 0 {
			num("winner", int64(e.Winner))
		}
		flag("conceded", e.Conceded)
	case string(cards.EventSummoned):
		num("id", int64(e.ID))
		num("seat", int64(e.Seat))
		str("card", e.Card)
		num("attack", int64(e.Attack))
		num("health", int64(e.Health))
		num("order", int64(e.Order))
		flag("taunt", e.Taunt)
	case string(cards.EventDamaged):
		num("target", int64(e.Target))
		num("amount", int64(e.Amount))
	case string(cards.EventTriggered):
		num("source", int64(e.Source))
		str("trigger", e.Trigger)
	case string(cards.EventDestroyed):
		num("id", int64(e.ID))
	case string(cards.EventDeathPhase):
		num("round", int64(e.Round))
	case string(cards.EventDrew):
		num("player", int64(e.Seat))
		num("id", int64(e.ID))
		if e.Card != "" {
			str("card", e.Card)
			num("cost", int64(e.Cost))
		}
		flag("burned", e.Burned)
	case string(cards.EventFatigue):
		num("player", int64(e.Seat))
	case string(cards.EventArmorGained):
		num("player", int64(e.Seat))
		num("amount", int64(e.Amount))
	case string(cards.EventStatsChanged):
		num("id", int64(e.ID))
		num("attack", int64(e.Attack))
		num("health", int64(e.Health))
	case string(cards.EventSpellCast):
		str("card", e.Card)
	default:
		return append(b, '}'), fmt.Errorf("cardgame: event of unknown type %q", e.Type)
	}
	return append(b, '}'), nil
}

// appendString appends s as encoding/json writes it: card names and the
// engine's words need no escape and are copied; anything else goes
// through encoding/json (which also escapes <, > and &).
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x80 || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s)
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// eventWire is every member any event may have, for decoding.
type eventWire struct {
	Type     string `json:"type"`
	Seat     *int   `json:"seat"`
	Player   *int   `json:"player"`
	Turn     int    `json:"turn"`
	Mana     int32  `json:"mana"`
	MaxMana  int32  `json:"maxMana"`
	ID       ID     `json:"id"`
	Target   ID     `json:"target"`
	Attacker ID     `json:"attacker"`
	Defender ID     `json:"defender"`
	Source   ID     `json:"source"`
	Trigger  string `json:"trigger"`
	Round    uint32 `json:"round"`
	Amount   int32  `json:"amount"`
	Card     string `json:"card"`
	Cost     int32  `json:"cost"`
	Attack   int32  `json:"attack"`
	Health   int32  `json:"health"`
	Order    uint32 `json:"order"`
	Taunt    bool   `json:"taunt"`
	Burned   bool   `json:"burned"`
	Spell    bool   `json:"spell"`
	Phase    string `json:"phase"`
	Winner   *int   `json:"winner"`
	Conceded bool   `json:"conceded"`
}

// UnmarshalJSON decodes an event, for Go clients.
func (e *Event) UnmarshalJSON(data []byte) error {
	var w eventWire
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	out := Event{Type: w.Type, Turn: w.Turn, Mana: w.Mana, MaxMana: w.MaxMana, ID: w.ID, Target: w.Target,
		Attacker: w.Attacker, Defender: w.Defender, Source: w.Source, Trigger: w.Trigger, Round: w.Round,
		Amount: w.Amount, Card: w.Card, Cost: w.Cost, Attack: w.Attack, Health: w.Health, Order: w.Order,
		Taunt: w.Taunt, Burned: w.Burned, Spell: w.Spell, Phase: w.Phase, Winner: -1, Conceded: w.Conceded}
	switch {
	case w.Seat != nil:
		out.Seat = *w.Seat
	case w.Player != nil:
		out.Seat = *w.Player
	}
	if w.Winner != nil {
		out.Winner = *w.Winner
	}
	if _, err := out.MarshalJSON(); err != nil {
		return err
	}
	*e = out
	return nil
}
