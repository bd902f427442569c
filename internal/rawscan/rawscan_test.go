package rawscan

import "testing"

func TestScan(t *testing.T) {
	frame := []byte(`{"type":"receipt","id":"a7","ok":true,"rev":1234,"by":null}`)
	if got := String(frame, `"id":"`); string(got) != "a7" {
		t.Fatalf("id %q", got)
	}
	if got := String(frame, `"code":"`); got != nil {
		t.Fatalf("a missing key: %q", got)
	}
	if n, ok := Uint(frame, `"rev":`); !ok || n != 1234 {
		t.Fatalf("rev %d %v", n, ok)
	}
	for _, key := range []string{`"by":`, `"to":`} {
		if _, ok := Uint(frame, key); ok {
			t.Fatalf("%s: a number where there is none", key)
		}
	}
}
