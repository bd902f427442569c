package room

import (
	"fmt"
	"sync"
	"testing"

	"github.com/roomd/roomd/protocol"
)

// flushClient is a fakeClient that is a Flusher: it counts how the room
// flushed what it queued.
type flushClient struct {
	*fakeClient
	fmu            sync.Mutex
	queued         [][]byte
	flushes, soons int
}

func (f *flushClient) Queue(frame []byte) bool {
	f.fmu.Lock()
	defer f.fmu.Unlock()
	f.queued = append(f.queued, frame)
	return len(f.queued) == 1
}

func (f *flushClient) flushed(soon bool) {
	f.fmu.Lock()
	q := f.queued
	f.queued = nil
	if soon {
		f.soons++
	} else {
		f.flushes++
	}
	f.fmu.Unlock()
	for _, fr := range q {
		f.Send(fr)
	}
}

func (f *flushClient) Flush()     { f.flushed(false) }
func (f *flushClient) FlushSoon() { f.flushed(true) }

func (f *flushClient) counts() (int, int) {
	f.fmu.Lock()
	defer f.fmu.Unlock()
	return f.flushes, f.soons
}

// TestCrowdedSpectatorsFlushSoon: in a room of more than crowd members a
// spectator's updates and presence are left to its writer (FlushSoon), a
// player's are flushed by the actor; in a smaller room everyone's are.
func TestCrowdedSpectatorsFlushSoon(t *testing.T) {
	for _, n := range []int{5, crowd + 8} {
		t.Run(fmt.Sprintf("%d spectators", n), func(t *testing.T) {
			m := newManager(t, nil)
			r, host, guest, _ := nimRoom(t, m)
			player := &flushClient{fakeClient: newFake("player")}
			// The guest comes back on a flushing connection.
			tok := guest.last(t, protocol.TypeWelcome).Welcome.Token
			if err := r.Hello(player, &protocol.Hello{Room: r.Code(), Token: tok}); err != nil {
				t.Fatal(err)
			}
			player.last(t, protocol.TypeSnapshot)
			var specs []*flushClient
			for i := range n {
				s := &flushClient{fakeClient: newFake(fmt.Sprintf("spec%d", i))}
				if err := r.Hello(s, &protocol.Hello{Room: r.Code(), Watch: true}); err != nil {
					t.Fatal(err)
				}
				s.last(t, protocol.TypeSnapshot)
				specs = append(specs, s)
			}
			pf, ps := player.counts()
			before := make([][2]int, n)
			for i, s := range specs {
				before[i][0], before[i][1] = s.counts()
			}
			rc := act(t, r, host, "move", protocol.TypeCommand, []byte(`{"type":"take","n":1}`), nil)
			if !rc.OK {
				t.Fatalf("move: %+v", rc)
			}
			for i, s := range specs {
				waitFor(t, "the move's update", func() bool {
					for _, msg := range s.messages(t) {
						if msg.Update != nil && msg.Update.To >= rc.Rev {
							return true
						}
					}
					return false
				})
				f, soon := s.counts()
				crowded := n+2 > crowd
				if got := [2]int{f - before[i][0], soon - before[i][1]}; (crowded && got[1] == 0) || (!crowded && got[1] != 0) || got[0]+got[1] == 0 {
					t.Fatalf("%s: %d flushes, %d left to its writer; crowded %v", s.id, got[0], got[1], crowded)
				}
			}
			player.last(t, protocol.TypeUpdate)
			if f, soon := player.counts(); soon != ps || f == pf {
				t.Fatalf("the player: %d flushes, %d left to its writer (before %d, %d): a player's are the actor's", f, soon, pf, ps)
			}
		})
	}
}
