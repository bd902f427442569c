package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/roomd/roomd/core/minesweeper"
	"github.com/roomd/roomd/core/nim"
	"github.com/roomd/roomd/protocol"
)

// follower is a bot's own picture of the match: it starts from a view the
// server sent (a snapshot's or a match start's) and applies every beat, as
// a client does. Players choose their moves from it.
type follower interface {
	// decodeView decodes a view the server sent; nil for a null view (a
	// lobby). decodeBeats decodes one update's beats.
	decodeView(raw json.RawMessage) (any, error)
	decodeBeats(raw json.RawMessage) (any, error)
	// setDecoded replaces the view with one from decodeView (nil clears
	// it); applyDecoded plays beats from decodeBeats.
	setDecoded(v any)
	applyDecoded(beats any) error
	have() bool
	// choose returns seat's next command, or false when seat has no move
	// now (not its turn, its board is over, the game is over).
	choose(seat int) (json.RawMessage, bool)
	// encode re-encodes the followed view with the game's own encoder.
	encode() []byte
	// compare re-encodes a view the server sent and compares it with the
	// followed one, byte for byte. quirk is true when they differ only in a
	// way the game's events cannot carry (Minesweeper's partial chord on a
	// lost board, see minesweeper.View.Apply).
	compare(server json.RawMessage) (equal, quirk bool, detail string, err error)
}

// setView decodes a view and follows it; it returns the decoded view.
func setView(f follower, raw json.RawMessage) (any, error) {
	v, err := f.decodeView(raw)
	if err != nil {
		return nil, err
	}
	f.setDecoded(v)
	return v, nil
}

// applyBeats decodes beats and plays them; it returns the decoded beats.
func applyBeats(f follower, raw json.RawMessage) (any, error) {
	evs, err := f.decodeBeats(raw)
	if err != nil || evs == nil {
		return evs, err
	}
	return evs, f.applyDecoded(evs)
}

// pin is the game and rules version a bot announces in its hello.
func pin(game string) protocol.GamePin {
	if game == "nim" {
		return protocol.GamePin{ID: "nim", Build: "roombot", RulesVersion: nim.RulesVersion}
	}
	return protocol.GamePin{ID: "minesweeper", Build: "roombot", RulesVersion: minesweeper.Game.Info().RulesVersion}
}

func newFollower(game string) follower {
	if game == "nim" {
		return &nimFollower{}
	}
	return &msFollower{}
}

func isNull(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) == 0 || string(t) == "null"
}

// msFollower follows a Minesweeper view.
type msFollower struct {
	view minesweeper.View
	ok   bool
}

func (f *msFollower) decodeView(raw json.RawMessage) (any, error) {
	if isNull(raw) {
		return nil, nil
	}
	var v minesweeper.View
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, err
	}
	return v, nil
}

func (f *msFollower) decodeBeats(raw json.RawMessage) (any, error) {
	if isNull(raw) {
		return nil, nil
	}
	var evs []minesweeper.Event
	if err := json.Unmarshal(raw, &evs); err != nil {
		return nil, err
	}
	return evs, nil
}

func (f *msFollower) setDecoded(v any) {
	mv, ok := v.(minesweeper.View)
	if !ok {
		f.view, f.ok = minesweeper.View{}, false
		return
	}
	// Apply changes race boards in place: keep the decoded value intact.
	mv.Boards = slices.Clone(mv.Boards)
	f.view, f.ok = mv, true
}

func (f *msFollower) applyDecoded(beats any) error {
	evs, _ := beats.([]minesweeper.Event)
	if !f.ok || len(evs) == 0 {
		return nil
	}
	return f.view.Apply(evs)
}

func (f *msFollower) have() bool { return f.ok }

func (f *msFollower) choose(seat int) (json.RawMessage, bool) {
	if !f.ok {
		return nil, false
	}
	mv, ok := minesweeper.Rules{}.Choose(f.view, seat)
	if !ok {
		return nil, false
	}
	b, err := json.Marshal(mv)
	return b, err == nil
}

func (f *msFollower) encode() []byte {
	if !f.ok {
		return []byte("null")
	}
	return f.view.AppendJSON(nil)
}

func (f *msFollower) compare(server json.RawMessage) (bool, bool, string, error) {
	if isNull(server) {
		return !f.ok, false, "the server has no view", nil
	}
	var sv minesweeper.View
	if err := json.Unmarshal(server, &sv); err != nil {
		return false, false, "", err
	}
	mine, theirs := f.encode(), sv.AppendJSON(nil)
	if bytes.Equal(mine, theirs) {
		return true, false, "", nil
	}
	detail := fmt.Sprintf("followed %s\nserver   %s", clipBytes(mine, 600), clipBytes(theirs, 600))
	return false, f.ok && chordQuirk(f.view, sv), detail, nil
}

// chordQuirk reports whether followed differs from server only by cells
// that the server shows revealed (not mines) and the followed view still
// shows hidden, on boards that are lost: a chord that hit a mine after
// flooding other neighbours reveals those floods in no event.
func chordQuirk(followed, server minesweeper.View) bool {
	type board struct {
		phase minesweeper.Phase
		cells []minesweeper.ViewCell
	}
	boards := func(v minesweeper.View) []board {
		if !v.Race {
			return []board{{v.Phase, v.Cells}}
		}
		out := make([]board, len(v.Boards))
		for i, b := range v.Boards {
			out[i] = board{b.Phase, b.Cells}
		}
		return out
	}
	fb, sb := boards(followed), boards(server)
	if len(fb) != len(sb) || followed.Phase != server.Phase {
		return false
	}
	extra := 0
	for i := range fb {
		if fb[i].phase != sb[i].phase {
			return false
		}
		key := func(c minesweeper.ViewCell) int { return c.R*1000 + c.C }
		fm := map[int]minesweeper.ViewCell{}
		for _, c := range fb[i].cells {
			fm[key(c)] = c
		}
		for _, c := range sb[i].cells {
			fc, ok := fm[key(c)]
			switch {
			case ok && fc == c:
				delete(fm, key(c))
			case !ok && fb[i].phase == minesweeper.PhaseLost && c.Status == minesweeper.Revealed && !c.Mine:
				extra++
			default:
				return false
			}
		}
		if len(fm) > 0 {
			return false
		}
	}
	return extra > 0
}

// nimFollower follows a Hidden Nim view.
type nimFollower struct {
	view nim.View
	ok   bool
}

func (f *nimFollower) decodeView(raw json.RawMessage) (any, error) {
	if isNull(raw) {
		return nil, nil
	}
	var v nim.View
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, err
	}
	return v, nil
}

func (f *nimFollower) decodeBeats(raw json.RawMessage) (any, error) {
	if isNull(raw) {
		return nil, nil
	}
	var evs []nim.Event
	if err := json.Unmarshal(raw, &evs); err != nil {
		return nil, err
	}
	return evs, nil
}

func (f *nimFollower) setDecoded(v any) {
	nv, ok := v.(nim.View)
	if !ok {
		f.view, f.ok = nim.View{}, false
		return
	}
	nv.History = slices.Clone(nv.History)
	f.view, f.ok = nv, true
}

func (f *nimFollower) applyDecoded(beats any) error {
	evs, _ := beats.([]nim.Event)
	if f.ok && len(evs) > 0 {
		f.view.Apply(evs)
	}
	return nil
}

func (f *nimFollower) have() bool { return f.ok }

func (f *nimFollower) choose(seat int) (json.RawMessage, bool) {
	if !f.ok {
		return nil, false
	}
	mv, ok := nim.Rules{}.Choose(f.view, seat)
	if !ok {
		return nil, false
	}
	b, err := json.Marshal(mv)
	return b, err == nil
}

func (f *nimFollower) encode() []byte {
	if !f.ok {
		return []byte("null")
	}
	b, _ := json.Marshal(f.view)
	return b
}

func (f *nimFollower) compare(server json.RawMessage) (bool, bool, string, error) {
	if isNull(server) {
		return !f.ok, false, "the server has no view", nil
	}
	var sv nim.View
	if err := json.Unmarshal(server, &sv); err != nil {
		return false, false, "", err
	}
	theirs, _ := json.Marshal(sv)
	mine := f.encode()
	if bytes.Equal(mine, theirs) {
		return true, false, "", nil
	}
	return false, false, fmt.Sprintf("followed %s\nserver   %s", clipBytes(mine, 600), clipBytes(theirs, 600)), nil
}

func clipBytes(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	return string(b[:n]) + "…"
}
