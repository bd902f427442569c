package cards

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/roomd/roomd/core/session"
)

// The JSON form of card definitions (§3). Decoding is strict: keys are
// matched exactly, duplicate and unknown keys are refused, each value must
// have its field's JSON type, and a field that the card's type (or an
// effect's "do", an aura's "kind") does not use is an unknown field.
// Whole numbers may be written 2 or 2.0. Decoding checks the form only;
// Validate checks the values (§3.6).

// DecodeCardFile decodes a card file: {"format": "roomd-cards/1",
// "cards": [...]}.
func DecodeCardFile(data []byte) ([]CardDef, error) {
	ms, err := session.Members(data)
	if err != nil {
		return nil, fmt.Errorf("card file: %w", err)
	}
	var format string
	var list json.RawMessage
	for _, m := range ms {
		switch m.Key {
		case "format":
			if err := json.Unmarshal(m.Value, &format); err != nil || format != FileFormat {
				return nil, fmt.Errorf("card file: format must be %q", FileFormat)
			}
		case "cards":
			list = m.Value
		default:
			return nil, fmt.Errorf("card file: unknown field %q", session.Clip(m.Key))
		}
	}
	if format == "" || list == nil {
		return nil, fmt.Errorf(`card file: "format" and "cards" are required`)
	}
	return DecodeCards(list)
}

// DecodeCards decodes a JSON array of card definitions. The error joins
// one CardError for each card refused.
func DecodeCards(data []byte) ([]CardDef, error) {
	var raws []json.RawMessage
	if err := json.Unmarshal(data, &raws); err != nil || raws == nil {
		return nil, fmt.Errorf("%w: the cards must be a JSON array of card objects", ErrInvalidCard)
	}
	defs := make([]CardDef, len(raws))
	var errs []error
	for i, raw := range raws {
		if err := decodeCard(raw, "#"+strconv.Itoa(i), &defs[i]); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return defs, nil
}

// UnmarshalJSON decodes one card definition strictly (see DecodeCards).
func (d *CardDef) UnmarshalJSON(data []byte) error {
	var c CardDef
	if err := decodeCard(data, "(unnamed)", &c); err != nil {
		return err
	}
	*d = c
	return nil
}

// cardDecoder decodes the members of one card, keeping its first error.
type cardDecoder struct {
	card string
	err  *CardError
}

func (c *cardDecoder) fail(field, format string, args ...any) {
	if c.err == nil {
		c.err = &CardError{Card: c.card, Field: field, Problem: fmt.Sprintf(format, args...)}
	}
}

func (c *cardDecoder) int32(field string, raw json.RawMessage) int32 {
	f, ok := session.Whole(raw)
	if !ok || f < math.MinInt32 || f > math.MaxInt32 {
		c.fail(field, "must be a whole number (32 bits)")
		return 0
	}
	return int32(f)
}

func (c *cardDecoder) string(field string, raw json.RawMessage) string {
	var s string
	if !bytes.HasPrefix(bytes.TrimSpace(raw), []byte(`"`)) || json.Unmarshal(raw, &s) != nil {
		c.fail(field, "must be a string")
	}
	return s
}

func (c *cardDecoder) bool(field string, raw json.RawMessage) bool {
	switch string(bytes.TrimSpace(raw)) {
	case "true":
		return true
	case "false":
		return false
	}
	c.fail(field, "must be true or false")
	return false
}

func (c *cardDecoder) array(field string, raw json.RawMessage) []json.RawMessage {
	var raws []json.RawMessage
	if !bytes.HasPrefix(bytes.TrimSpace(raw), []byte(`[`)) || json.Unmarshal(raw, &raws) != nil {
		c.fail(field, "must be an array")
		return nil
	}
	return raws
}

func (c *cardDecoder) object(field string, raw json.RawMessage) ([]session.Member, bool) {
	ms, err := session.Members(raw)
	if err != nil {
		c.fail(field, "must be a JSON object: %v", err)
		return nil, false
	}
	return ms, true
}

// decodeCard decodes raw into d; label names the card until its name is
// known.
func decodeCard(raw json.RawMessage, label string, d *CardDef) error {
	c := &cardDecoder{card: label}
	ms, _ := c.object("", raw)
	if c.err != nil {
		return c.err
	}
	if v, ok := session.Lookup(ms, "name"); ok {
		if name := c.string("name", v); name != "" {
			c.card = name
		}
	}
	seen := map[string]bool{}
	for _, m := range ms {
		seen[m.Key] = true
		switch m.Key {
		case "name":
			d.Name = c.string(m.Key, m.Value)
		case "type":
			d.Type = CardType(c.string(m.Key, m.Value))
		case "cost":
			d.Cost = c.int32(m.Key, m.Value)
		case "attack":
			d.Attack = c.int32(m.Key, m.Value)
		case "health":
			d.Health = c.int32(m.Key, m.Value)
		case "text":
			d.Text = c.string(m.Key, m.Value)
		case "set":
			d.Set = c.string(m.Key, m.Value)
		case "noun":
			d.Noun = c.string(m.Key, m.Value)
		case "keywords":
			raws := c.array(m.Key, m.Value)
			d.Keywords = make([]string, len(raws))
			for i, r := range raws {
				d.Keywords[i] = c.string(fmt.Sprintf("keywords[%d]", i), r)
			}
		case "token":
			d.Token = c.bool(m.Key, m.Value)
		case "ability":
			d.Ability = c.ability(m.Value)
		case "auras":
			raws := c.array(m.Key, m.Value)
			d.Auras = make([]Aura, len(raws))
			for i, r := range raws {
				d.Auras[i] = c.aura(fmt.Sprintf("auras[%d]", i), r)
			}
		case "target":
			d.Target = TargetKind(c.string(m.Key, m.Value))
		case "effects":
			d.Effects = c.effects(m.Key, m.Value)
		default:
			c.fail(m.Key, "unknown field")
		}
	}
	for _, f := range []string{"name", "type", "cost", "text"} {
		if !seen[f] {
			c.fail(f, "is required")
		}
	}
	var need, refuse []string
	switch d.Type {
	case "":
	default:
		c.fail("type", "unknown type %q (minion or spell)", session.Clip(string(d.Type)))
	case Minion:
		need, refuse = []string{"attack", "health", "noun"}, []string{"target", "effects"}
	case Spell:
		need, refuse = []string{"effects"}, []string{"attack", "health", "noun", "keywords", "ability", "auras"}
	}
	for _, f := range need {
		if !seen[f] {
			c.fail(f, "is required for a %s", d.Type)
		}
	}
	for _, f := range refuse {
		if seen[f] {
			c.fail(f, "unknown field for a %s", d.Type)
		}
	}
	if c.err != nil {
		return c.err
	}
	return nil
}

func (c *cardDecoder) ability(raw json.RawMessage) *Ability {
	a := &Ability{}
	seen := map[string]bool{}
	ms, _ := c.object("ability", raw)
	for _, m := range ms {
		seen[m.Key] = true
		field := "ability." + m.Key
		switch m.Key {
		case "when":
			a.When = When(c.string(field, m.Value))
		case "top":
			a.Top = c.string(field, m.Value)
		case "bottom":
			a.Bottom = c.string(field, m.Value)
		case "effects":
			a.Effects = c.effects(field, m.Value)
		default:
			c.fail(field, "unknown field")
		}
	}
	for _, f := range []string{"when", "top", "bottom", "effects"} {
		if !seen[f] {
			c.fail("ability."+f, "is required")
		}
	}
	return a
}

// effectFields are the fields of each effect besides "do" (§3.3).
var effectFields = map[Do][]string{
	DoDamage:      {"amount", "to"},
	DoSplitDamage: {"amount", "among"},
	DoDestroy:     {"to"},
	DoDraw:        {"count"},
	DoGainArmor:   {"amount"},
	DoSummon:      {"card", "count"},
	DoSpawnText:   {"word"},
	DoAssemble:    {},
}

func (c *cardDecoder) effects(field string, raw json.RawMessage) []Effect {
	raws := c.array(field, raw)
	effects := make([]Effect, len(raws))
	for i, r := range raws {
		effects[i] = c.effect(fmt.Sprintf("%s[%d]", field, i), r)
	}
	return effects
}

func (c *cardDecoder) effect(path string, raw json.RawMessage) Effect {
	var e Effect
	ms, isObject := c.object(path, raw)
	v, ok := session.Lookup(ms, "do")
	if !ok {
		if isObject {
			c.fail(path+".do", "is required")
		}
		return e
	}
	e.Do = Do(c.string(path+".do", v))
	fields, known := effectFields[e.Do]
	if !known {
		c.fail(path+".do", "unknown do %q", session.Clip(string(e.Do)))
		return e
	}
	seen := map[string]bool{}
	for _, m := range ms {
		field := path + "." + m.Key
		if m.Key == "do" {
			continue
		}
		if !contains(fields, m.Key) {
			c.fail(field, "unknown field for %q", e.Do)
			continue
		}
		seen[m.Key] = true
		switch m.Key {
		case "amount":
			e.Amount = c.int32(field, m.Value)
		case "count":
			e.Count = c.int32(field, m.Value)
		case "to":
			e.To = Selector(c.string(field, m.Value))
		case "among":
			e.Among = Selector(c.string(field, m.Value))
		case "card":
			e.Card = c.string(field, m.Value)
		case "word":
			e.Word = c.string(field, m.Value)
		}
	}
	for _, f := range fields {
		if !seen[f] {
			c.fail(path+"."+f, "is required for %q", e.Do)
		}
	}
	return e
}

// auraFields are the fields of each aura kind besides "kind" (§3.5).
var auraFields = map[AuraKind][]string{
	StatsAura:      {"to", "attack", "health"},
	MultiplierAura: {"trigger", "factor", "stacking", "scope"},
}

func (c *cardDecoder) aura(path string, raw json.RawMessage) Aura {
	var a Aura
	ms, isObject := c.object(path, raw)
	v, ok := session.Lookup(ms, "kind")
	if !ok {
		if isObject {
			c.fail(path+".kind", "is required")
		}
		return a
	}
	a.Kind = AuraKind(c.string(path+".kind", v))
	fields, known := auraFields[a.Kind]
	if !known {
		c.fail(path+".kind", "unknown kind %q", session.Clip(string(a.Kind)))
		return a
	}
	seen := map[string]bool{}
	for _, m := range ms {
		field := path + "." + m.Key
		if m.Key == "kind" {
			continue
		}
		if !contains(fields, m.Key) {
			c.fail(field, "unknown field for a %s aura", a.Kind)
			continue
		}
		seen[m.Key] = true
		switch m.Key {
		case "to":
			a.To = Selector(c.string(field, m.Value))
		case "attack":
			a.Attack = c.int32(field, m.Value)
		case "health":
			a.Health = c.int32(field, m.Value)
		case "trigger":
			a.Trigger = When(c.string(field, m.Value))
		case "factor":
			a.Factor = c.int32(field, m.Value)
		case "stacking":
			a.Stacking = c.string(field, m.Value)
		case "scope":
			a.Scope = c.string(field, m.Value)
		}
	}
	for _, f := range fields {
		if !seen[f] {
			c.fail(path+"."+f, "is required for a %s aura", a.Kind)
		}
	}
	return a
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// The canonical JSON form: fields in the order of §3.1, absent fields left
// out (a minion's attack, health and noun and a spell's effects are
// always written).

type cardWire struct {
	Name     string     `json:"name"`
	Type     CardType   `json:"type"`
	Cost     int32      `json:"cost"`
	Attack   *int32     `json:"attack,omitempty"`
	Health   *int32     `json:"health,omitempty"`
	Text     string     `json:"text"`
	Set      string     `json:"set,omitempty"`
	Noun     *string    `json:"noun,omitempty"`
	Keywords []string   `json:"keywords,omitempty"`
	Token    bool       `json:"token,omitempty"`
	Ability  *Ability   `json:"ability,omitempty"`
	Auras    []Aura     `json:"auras,omitempty"`
	Target   TargetKind `json:"target,omitempty"`
	Effects  *[]Effect  `json:"effects,omitempty"`
}

// MarshalJSON writes the card in the format of §3.
func (d CardDef) MarshalJSON() ([]byte, error) {
	w := cardWire{Name: d.Name, Type: d.Type, Cost: d.Cost, Text: d.Text, Set: d.Set,
		Keywords: d.Keywords, Token: d.Token, Ability: d.Ability, Auras: d.Auras, Target: d.Target}
	if d.Type == Spell || len(d.Effects) > 0 {
		effects := d.Effects
		if effects == nil {
			effects = []Effect{}
		}
		w.Effects = &effects
	}
	if d.Type != Spell || d.Attack != 0 || d.Health != 0 || d.Noun != "" {
		w.Attack, w.Health, w.Noun = &d.Attack, &d.Health, &d.Noun
	}
	return json.Marshal(w)
}

// MarshalJSON writes the ability in the format of §3.2.
func (a Ability) MarshalJSON() ([]byte, error) {
	effects := a.Effects
	if effects == nil {
		effects = []Effect{}
	}
	return json.Marshal(struct {
		When    When     `json:"when"`
		Top     string   `json:"top"`
		Bottom  string   `json:"bottom"`
		Effects []Effect `json:"effects"`
	}{a.When, a.Top, a.Bottom, effects})
}

// MarshalJSON writes "do" and the fields of that effect (§3.3).
func (e Effect) MarshalJSON() ([]byte, error) {
	b := []byte(`{"do":`)
	b = appendJSONString(b, string(e.Do))
	for _, f := range effectFields[e.Do] {
		b = append(b, ',')
		b = appendJSONString(b, f)
		b = append(b, ':')
		switch f {
		case "amount":
			b = strconv.AppendInt(b, int64(e.Amount), 10)
		case "count":
			b = strconv.AppendInt(b, int64(e.Count), 10)
		case "to":
			b = appendJSONString(b, string(e.To))
		case "among":
			b = appendJSONString(b, string(e.Among))
		case "card":
			b = appendJSONString(b, e.Card)
		case "word":
			b = appendJSONString(b, e.Word)
		}
	}
	return append(b, '}'), nil
}

// MarshalJSON writes "kind" and the fields of that kind (§3.5).
func (a Aura) MarshalJSON() ([]byte, error) {
	b := []byte(`{"kind":`)
	b = appendJSONString(b, string(a.Kind))
	for _, f := range auraFields[a.Kind] {
		b = append(b, ',')
		b = appendJSONString(b, f)
		b = append(b, ':')
		switch f {
		case "to":
			b = appendJSONString(b, string(a.To))
		case "attack":
			b = strconv.AppendInt(b, int64(a.Attack), 10)
		case "health":
			b = strconv.AppendInt(b, int64(a.Health), 10)
		case "trigger":
			b = appendJSONString(b, string(a.Trigger))
		case "factor":
			b = strconv.AppendInt(b, int64(a.Factor), 10)
		case "stacking":
			b = appendJSONString(b, a.Stacking)
		case "scope":
			b = appendJSONString(b, a.Scope)
		}
	}
	return append(b, '}'), nil
}

func appendJSONString(b []byte, s string) []byte {
	q, _ := json.Marshal(s)
	return append(b, q...)
}
