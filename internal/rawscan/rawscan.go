// Package rawscan reads a field from a JSON frame without decoding it: for
// load generators and the floor relay, which read their own and roomd's
// frames at tens of thousands a second and only need an id or a number. It
// assumes what those frames are (the key appears once, strings have no
// escapes) and is no JSON parser.
package rawscan

import "bytes"

// String returns the string after key (which ends with the opening quote,
// e.g. `"id":"`), or nil when key is not there.
func String(b []byte, key string) []byte {
	i := bytes.Index(b, []byte(key))
	if i < 0 {
		return nil
	}
	b = b[i+len(key):]
	if j := bytes.IndexByte(b, '"'); j >= 0 {
		return b[:j]
	}
	return nil
}

// Uint returns the unsigned integer after key (e.g. `"rev":`); false when
// there is none (a missing key, or null).
func Uint(b []byte, key string) (uint64, bool) {
	i := bytes.Index(b, []byte(key))
	if i < 0 {
		return 0, false
	}
	var n uint64
	digits := 0
	for _, ch := range b[i+len(key):] {
		if ch < '0' || ch > '9' {
			break
		}
		n = n*10 + uint64(ch-'0')
		digits++
	}
	return n, digits > 0
}
