package main

import (
	"sync"
	"time"
)

// revTimes ties a room's revisions to when the move that made each was
// sent, so that a spectator's delivery is timed from the send, as a
// player's own update is: the mover learns a move's revision from its
// receipt, and a spectator may get the update before or after that.
type revTimes struct {
	mu   sync.Mutex
	sent [revSlots]struct {
		rev uint64
		at  time.Duration
	}
	waiting []revRecv // deliveries whose move's receipt has not come yet
}

// revSlots is how many recent revisions a room remembers: far more than
// arrive between a move's update and its receipt.
const revSlots = 1024

// maxWaiting bounds the deliveries a room holds unmatched (the updates of
// controls, which no move's receipt names, stay there): the oldest go.
const maxWaiting = 4096

type revRecv struct {
	rev uint64
	at  time.Duration
}

// moved notes that the move sent at sent got revision rev, and times the
// deliveries of rev that came before this.
func (t *revTimes) moved(st *stats, rev uint64, sent time.Duration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	slot := &t.sent[rev%revSlots]
	slot.rev, slot.at = rev, sent
	kept := t.waiting[:0]
	for _, w := range t.waiting {
		if w.rev == rev {
			st.delivered(w.at - sent)
		} else {
			kept = append(kept, w)
		}
	}
	clear(t.waiting[len(kept):])
	t.waiting = kept
}

// delivered times a spectator's update of rev received at now, or keeps it
// until the move's receipt says when it was sent.
func (t *revTimes) delivered(st *stats, rev uint64, now time.Duration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if slot := t.sent[rev%revSlots]; slot.rev == rev && rev != 0 {
		st.delivered(now - slot.at)
		return
	}
	if len(t.waiting) == maxWaiting {
		t.waiting = append(t.waiting[:0], t.waiting[1:]...)
	}
	t.waiting = append(t.waiting, revRecv{rev, now})
}
