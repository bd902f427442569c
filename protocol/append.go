package protocol

import (
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// The hot messages — a receipt, and an update of a game move — are written
// by hand: encoding/json's reflection and its re-compaction of each event's
// MarshalJSON output were a fifth of roomd's CPU per move. The output is the
// same JSON as Encode's (tests compare them); rare parts (room info, views,
// results) still go through encoding/json.

// AppendReceipt appends r's JSON to dst.
func AppendReceipt(dst []byte, r *Receipt) []byte {
	dst = append(dst, `{"type":"receipt","id":`...)
	dst = AppendString(dst, r.ID)
	if r.OK {
		dst = append(dst, `,"ok":true`...)
	} else {
		dst = append(dst, `,"ok":false`...)
	}
	if r.Rev != 0 {
		dst = append(dst, `,"rev":`...)
		dst = strconv.AppendUint(dst, r.Rev, 10)
	}
	if r.Tick != 0 {
		dst = append(dst, `,"tick":`...)
		dst = strconv.AppendUint(dst, r.Tick, 10)
	}
	if r.Notice != nil {
		dst = append(dst, `,"notice":{"code":`...)
		dst = AppendString(dst, r.Notice.Code)
		dst = append(dst, `,"message":`...)
		dst = AppendString(dst, r.Notice.Message)
		if r.Notice.Temporary {
			dst = append(dst, `,"temporary":true`...)
		}
		dst = append(dst, '}')
	}
	return append(dst, '}')
}

// AppendUpdate appends u's JSON to dst. beats, when not empty, is the JSON
// of u's beats already encoded (it replaces u.Beats).
func AppendUpdate(dst []byte, u *Update, beats []byte) ([]byte, error) {
	dst = append(dst, `{"type":"update","epoch":`...)
	dst = AppendString(dst, u.Epoch)
	dst = append(dst, `,"from":`...)
	dst = strconv.AppendUint(dst, u.From, 10)
	dst = append(dst, `,"to":`...)
	dst = strconv.AppendUint(dst, u.To, 10)
	dst = append(dst, `,"by":`...)
	if u.By == nil {
		dst = append(dst, "null"...)
	} else {
		dst = strconv.AppendInt(dst, int64(*u.By), 10)
	}
	var err error
	switch {
	case len(beats) > 0:
		dst = append(append(dst, `,"beats":`...), beats...)
	case u.Beats != nil:
		if dst, err = appendField(dst, "beats", u.Beats); err != nil {
			return nil, err
		}
	}
	if u.Room != nil {
		if dst, err = appendField(dst, "room", u.Room); err != nil {
			return nil, err
		}
	}
	if u.Seat != nil {
		dst = append(dst, `,"seat":`...)
		dst = strconv.AppendInt(dst, int64(*u.Seat), 10)
	}
	if u.View != nil {
		if dst, err = appendField(dst, "view", u.View); err != nil {
			return nil, err
		}
	}
	if u.Result != nil {
		if dst, err = appendField(dst, "result", u.Result); err != nil {
			return nil, err
		}
	}
	if u.Invite != "" {
		dst = AppendString(append(dst, `,"invite":`...), u.Invite)
	}
	if u.TurnClock != nil {
		if dst, err = appendField(dst, "turnClock", u.TurnClock); err != nil {
			return nil, err
		}
	}
	return append(dst, '}'), nil
}

// AppendTick appends t's JSON to dst; beats is the JSON of its beats,
// already encoded (it replaces t.Beats; empty means []).
func AppendTick(dst []byte, t *Tick, beats []byte) []byte {
	dst = append(dst, `{"type":"tick","from":`...)
	dst = strconv.AppendUint(dst, t.From, 10)
	dst = append(dst, `,"to":`...)
	dst = strconv.AppendUint(dst, t.To, 10)
	dst = append(dst, `,"tick":`...)
	dst = strconv.AppendUint(dst, t.Tick, 10)
	dst = append(dst, `,"beats":`...)
	if len(beats) == 0 {
		beats = []byte("[]")
	}
	dst = append(dst, beats...)
	return append(dst, '}')
}

// AppendAction appends a's JSON to dst, as Encode writes it. A command
// (the message a client sends most) whose raw JSON is valid and already
// in encoding/json's compact, HTML-escaped form is written by hand; any
// other action goes through encoding/json.
func AppendAction(dst []byte, a *Action) ([]byte, error) {
	if a.Control != nil || a.Text != "" || a.Message != "" || a.Reason != "" || !plainJSON(a.Command) {
		b, err := json.Marshal(a)
		return append(dst, b...), err
	}
	dst = AppendString(append(dst, `{"type":`...), a.Type)
	dst = AppendString(append(dst, `,"id":`...), a.ID)
	dst = strconv.AppendUint(append(dst, `,"rev":`...), a.Rev, 10)
	if len(a.Command) > 0 {
		dst = append(append(dst, `,"command":`...), a.Command...)
	}
	return append(dst, '}'), nil
}

// plainJSON reports whether raw is empty, or valid JSON that encoding/json
// would copy as it is: no white space to compact and nothing it escapes
// (<, >, & and, through their UTF-8 lead byte, U+2028 and U+2029).
func plainJSON(raw []byte) bool {
	if len(raw) == 0 {
		return true
	}
	for _, c := range raw {
		switch c {
		case ' ', '\t', '\n', '\r', '<', '>', '&', 0xe2:
			return false
		}
	}
	return validJSON(raw)
}

func appendField(dst []byte, key string, v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	dst = append(dst, `,"`...)
	dst = append(dst, key...)
	dst = append(dst, `":`...)
	return append(dst, b...), nil
}

const hex = "0123456789abcdef"

// AppendString appends s as a JSON string, escaping as encoding/json does
// (quotes, backslashes, control characters, <, >, &, U+2028, U+2029;
// invalid UTF-8 becomes U+FFFD).
func AppendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' && b != '<' && b != '>' && b != '&' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '"', '\\':
				dst = append(dst, '\\', b)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
