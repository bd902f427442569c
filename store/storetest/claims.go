package storetest

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/roomd/roomd/store"
)

// claim claims key or fails the test, and checks what it returns.
func claim(t *testing.T, s store.Claims, key string, value []byte, ttl time.Duration, wantHeld []byte, wantStored bool) {
	t.Helper()
	held, stored, err := s.Claim(Ctx(t), key, value, ttl)
	if err != nil {
		t.Fatalf("claim %q with %q (ttl %v): %v", key, value, ttl, err)
	}
	if !bytes.Equal(held, wantHeld) || stored != wantStored {
		t.Fatalf("claim %q with %q (ttl %v) = %q, stored %v; want %q, stored %v", key, value, ttl, held, stored, wantHeld, wantStored)
	}
}

// testClaimOnce: the first claim of a key stores its value; later claims,
// with other values and ttls, get it back and store nothing. An empty value
// is a value like any other; the store keeps its own copy of the value and
// returns copies.
func testClaimOnce(t *testing.T, sub *Subject) {
	s := sub.S
	first := []byte("first")
	claim(t, s, "daily/key", first, 0, []byte("first"), true)
	first[0] = 'X' // the caller's slice is not the stored value
	claim(t, s, "daily/key", []byte("second"), 0, []byte("first"), false)
	held, _, err := s.Claim(Ctx(t), "daily/key", []byte("third"), time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	held[0] = 'Y' // nor is the slice returned
	claim(t, s, "daily/key", nil, 0, []byte("first"), false)

	claim(t, s, "empty", []byte{}, 0, []byte{}, true)
	claim(t, s, "empty", []byte("not empty"), 0, []byte{}, false)
	claim(t, s, "nil", nil, time.Hour, nil, true)
	claim(t, s, "nil", []byte("not empty"), 0, nil, false)

	every := make([]byte, 256)
	for i := range every {
		every[i] = byte(i)
	}
	big := bytes.Repeat([]byte{0xff, 0}, store.MaxClaimValue/2)
	claim(t, s, "bytes", every, 0, every, true)
	claim(t, s, "bytes", []byte("x"), 0, every, false)
	claim(t, s, "big", big, 0, big, true)
	claim(t, s, "big", nil, 0, big, false)
}

// testClaimKeys: keys are independent, however alike; a key of the limit's
// length and any bytes is a key.
func testClaimKeys(t *testing.T, sub *Subject) {
	s := sub.S
	long := strings.Repeat("k", store.MaxClaimKey)
	keys := []string{"a", "A", "a ", "ab", "a:b", "a}b", "{a}", "a\x00", "\x00", "ü", long, long[1:] + "l"}
	for i, k := range keys {
		claim(t, s, k, fmt.Appendf(nil, "value %d", i), 0, fmt.Appendf(nil, "value %d", i), true)
	}
	for i, k := range keys {
		claim(t, s, k, []byte("again"), 0, fmt.Appendf(nil, "value %d", i), false)
	}
	// Claims are apart from rooms and boards of the same name.
	MustCreate(t, s, "ROOM01", store.Snapshot{Data: []byte("s")})
	claim(t, s, "ROOM01", []byte("claim"), 0, []byte("claim"), true)
	_, rec := MustOpen(t, s, "ROOM01")
	CheckRecord(t, rec, store.Snapshot{Data: []byte("s")}, nil)
}

// testClaimExpires: a key claimed with a ttl is held until the ttl has
// passed, claims meanwhile do not extend it, and then it can be claimed
// again; a key claimed with ttl zero, or a longer ttl, is still held.
func testClaimExpires(t *testing.T, sub *Subject) {
	s := sub.S
	ttl := time.Hour
	if sub.Advance == nil {
		ttl = 1500 * time.Millisecond
	}
	start := time.Now()
	claim(t, s, "short", []byte("one"), ttl, []byte("one"), true)
	claim(t, s, "forever", []byte("kept"), 0, []byte("kept"), true)
	claim(t, s, "longer", []byte("kept too"), 100*ttl, []byte("kept too"), true)
	held, stored, err := s.Claim(Ctx(t), "short", []byte("two"), ttl)
	if sub.Advance == nil && time.Since(start) >= ttl {
		t.Skip("the claim expired before it was read again: the machine is too slow for this test")
	}
	if err != nil || stored || string(held) != "one" {
		t.Fatalf("claim before the ttl = %q, stored %v, %v; want %q, not stored", held, stored, err, "one")
	}
	if sub.Advance != nil {
		sub.Advance(ttl - time.Millisecond)
		claim(t, s, "short", []byte("two"), ttl, []byte("one"), false) // does not extend it
		sub.Advance(2 * time.Millisecond)
		claim(t, s, "short", []byte("two"), 0, []byte("two"), true)
	} else {
		deadline := start.Add(ttl + 5*time.Second)
		for {
			held, stored, err := s.Claim(Ctx(t), "short", []byte("two"), ttl) // a ttl, as the first: it must not extend it
			if err != nil {
				t.Fatal(err)
			}
			if stored {
				if d := time.Since(start); d < ttl-50*time.Millisecond {
					t.Fatalf("the claim expired %v after it was made, ttl %v", d, ttl)
				}
				break
			}
			if string(held) != "one" {
				t.Fatalf("claim while waiting for the expiry = %q, want %q", held, "one")
			}
			if time.Now().After(deadline) {
				t.Fatalf("the claim is held %v after it was made, ttl %v", time.Since(start), ttl)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	claim(t, s, "short", []byte("three"), 0, []byte("two"), false)
	claim(t, s, "forever", []byte("other"), 0, []byte("kept"), false)
	claim(t, s, "longer", []byte("other"), 0, []byte("kept too"), false)
	if sub.Advance != nil { // ttl zero is for good
		sub.Advance(10 * 365 * 24 * time.Hour)
		claim(t, s, "forever", []byte("other"), 0, []byte("kept"), false)
		claim(t, s, "short", []byte("other"), 0, []byte("two"), false)
		claim(t, s, "longer", []byte("other"), 0, []byte("other"), true)
	}
}

// testClaimReopen: claims survive a restart, those with a ttl included,
// and a claim that was refused before it stays refused after.
func testClaimReopen(t *testing.T, sub *Subject) {
	if sub.Reopen == nil {
		t.Skip("nothing persists")
	}
	claim(t, sub.S, "secret", []byte("k1"), 0, []byte("k1"), true)
	claim(t, sub.S, "played/2026-12-01/ann", []byte("1"), time.Hour, []byte("1"), true)
	claim(t, sub.S, "secret", []byte("k2"), 0, []byte("k1"), false)
	s := sub.Reopen(t)
	claim(t, s, "secret", []byte("k3"), 0, []byte("k1"), false)
	claim(t, s, "played/2026-12-01/ann", []byte("2"), 0, []byte("1"), false)
	claim(t, s, "played/2026-12-01/bob", []byte("3"), 0, []byte("3"), true)
}

// testClaimConcurrent: of 8 claims of one key at once, exactly one stores
// its value and all get that value back; 16 keys are raced for at once, so
// that a store that lets two claims through now and then shows it. Then
// again with the keys expired, where the store runs on a clock the test
// moves.
func testClaimConcurrent(t *testing.T, sub *Subject) {
	const n, keys = 8, 16
	s := sub.S
	rounds := 1
	if sub.Advance != nil {
		rounds = 2
	}
	for round := range rounds {
		if round > 0 {
			sub.Advance(2 * time.Minute) // past the first round's ttl
		}
		var (
			wg     sync.WaitGroup
			start  = make(chan struct{})
			held   [keys][n][]byte
			stored [keys][n]bool
			errs   [keys][n]error
		)
		for k := range keys {
			for i := range n {
				wg.Go(func() {
					<-start
					held[k][i], stored[k][i], errs[k][i] = s.Claim(Ctx(t), fmt.Sprint("race/", k), fmt.Appendf(nil, "%d/%d", round, i), time.Minute)
				})
			}
		}
		close(start)
		wg.Wait()
		for k := range keys {
			key := fmt.Sprint("race/", k)
			winner := -1
			for i := range n {
				if errs[k][i] != nil {
					t.Fatalf("round %d, %s, claim %d: %v", round, key, i, errs[k][i])
				}
				if stored[k][i] {
					if winner >= 0 {
						t.Fatalf("round %d, %s: claims %d and %d both stored their value", round, key, winner, i)
					}
					winner = i
				}
			}
			if winner < 0 {
				t.Fatalf("round %d, %s: no claim stored its value: %q", round, key, held[k])
			}
			want := fmt.Appendf(nil, "%d/%d", round, winner)
			for i := range n {
				if !bytes.Equal(held[k][i], want) {
					t.Fatalf("round %d, %s: claim %d got %q, the stored value is %q", round, key, i, held[k][i], want)
				}
			}
			claim(t, s, key, []byte("late"), 0, want, false)
		}
	}
}

// testClaimLimits: a key over 256 bytes, a value over 4 KiB, an empty key
// and a negative ttl are errors, and store nothing.
func testClaimLimits(t *testing.T, sub *Subject) {
	s, ctx := sub.S, Ctx(t)
	long := strings.Repeat("k", store.MaxClaimKey+1)
	_, _, err := s.Claim(ctx, long, []byte("v"), 0)
	WantErr(t, "claim with a key over the limit", err, store.ErrTooLarge)
	claim(t, s, long[:store.MaxClaimKey], []byte("w"), 0, []byte("w"), true) // nothing stored under the long key cut short
	_, _, err = s.Claim(ctx, "big", make([]byte, store.MaxClaimValue+1), 0)
	WantErr(t, "claim with a value over the limit", err, store.ErrTooLarge)
	claim(t, s, "big", []byte("small"), 0, []byte("small"), true)
	if _, _, err := s.Claim(ctx, "", []byte("v"), 0); err == nil {
		t.Fatal("claim of the empty key succeeded")
	}
	if _, _, err := s.Claim(ctx, "negative", []byte("v"), -time.Second); err == nil {
		t.Fatal("claim with a negative ttl succeeded")
	}
	claim(t, s, "negative", []byte("w"), 0, []byte("w"), true)
}

// testClaimClosed: a closed store refuses claims with ErrClosed.
func testClaimClosed(t *testing.T, sub *Subject) {
	s := sub.S
	claim(t, s, "k", []byte("v"), 0, []byte("v"), true)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"k", "other"} { // held or not
		_, _, err := s.Claim(Ctx(t), key, []byte("w"), 0)
		if !errors.Is(err, store.ErrClosed) {
			t.Fatalf("claim %q after close: err = %v, want %v", key, err, store.ErrClosed)
		}
	}
}

// testClaimCleanup: expired claims do not pile up. 300 keys claimed with a
// ttl expire, 300 more are claimed; after the store's cleanup (a sweep
// where it has one, else the claims themselves) it keeps fewer than all
// 600 claims, never fewer than those that hold, and the claims that hold
// (a ttl not passed, or none) are still held.
func testClaimCleanup(t *testing.T, sub *Subject) {
	if sub.ClaimsKept == nil || sub.Advance == nil {
		t.Skip("the store cannot count the claims it keeps, or runs on real time")
	}
	const n = 300
	s := sub.S
	claim(t, s, "forever", []byte("f"), 0, []byte("f"), true)
	for i := range n {
		key := fmt.Sprint("old/", i)
		claim(t, s, key, []byte("o"), time.Minute, []byte("o"), true)
	}
	sub.Advance(2 * time.Minute)
	for i := range n {
		key := fmt.Sprint("new/", i)
		claim(t, s, key, []byte("n"), time.Hour, []byte("n"), true)
	}
	kept := sub.ClaimsKept(t)
	if kept >= 2*n+1 || kept < n+1 {
		t.Fatalf("%d claims kept after %d expired and %d hold: want the expired ones dropped", kept, n, n+1)
	}
	claim(t, s, "forever", []byte("x"), 0, []byte("f"), false)
	for i := range n {
		claim(t, s, fmt.Sprint("new/", i), []byte("x"), 0, []byte("n"), false)
	}
	claim(t, s, "old/7", []byte("again"), 0, []byte("again"), true)
}

// testClaimMark: Mark stores a value for good over whatever is held — a
// claim, an expiring claim, an earlier mark — and Claim reads it back; the
// limits are Claim's.
func testClaimMark(t *testing.T, sub *Subject) {
	s := sub.S
	if err := s.Mark(Ctx(t), "alive", []byte("1")); err != nil {
		t.Fatal(err)
	}
	claim(t, s, "alive", []byte("0"), 0, []byte("1"), false)
	if err := s.Mark(Ctx(t), "alive", []byte("2")); err != nil {
		t.Fatal(err)
	}
	claim(t, s, "alive", []byte("0"), 0, []byte("2"), false)
	// Over a claim with a time to live: for good now.
	claim(t, s, "brief", []byte("c"), time.Hour, []byte("c"), true)
	if err := s.Mark(Ctx(t), "brief", []byte("m")); err != nil {
		t.Fatal(err)
	}
	claim(t, s, "brief", []byte("x"), 0, []byte("m"), false)
	if err := s.Mark(Ctx(t), "", []byte("1")); err == nil {
		t.Error("a mark with an empty key was stored")
	}
	if err := s.Mark(Ctx(t), "big", make([]byte, store.MaxClaimValue+1)); err == nil {
		t.Error("an oversized mark was stored")
	}
}
