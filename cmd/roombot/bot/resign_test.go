package bot

import (
	"context"
	"testing"

	"github.com/roomd/roomd/protocol"
	"github.com/roomd/roomd/transport/client"
)

// sendOnly is a transport that only records what is sent, offline until
// told otherwise.
type sendOnly struct {
	online bool
	sent   []protocol.Action
}

func (s *sendOnly) Start(context.Context) error { return nil }
func (s *sendOnly) Send(_ context.Context, a protocol.Action) (string, error) {
	if !s.online {
		return "", client.ErrOffline
	}
	s.sent = append(s.sent, a)
	return a.ID, nil
}
func (s *sendOnly) Events() <-chan client.Event     { return nil }
func (s *sendOnly) State() client.ConnState         { return client.StateOnline }
func (s *sendOnly) Position() (string, uint64)      { return "", 0 }
func (s *sendOnly) Seat() int                       { return 0 }
func (s *sendOnly) Pending() int                    { return 0 }
func (s *sendOnly) Result() (protocol.Result, bool) { return protocol.Result{}, false }
func (s *sendOnly) Close() error                    { return nil }

// The runner's end-of-run resignation waits for a host whose socket is
// down (the chaos dropped it just before) and is sent once it is back; a
// host with no running match answers 0 at once. A match counts as ended
// once per room, whichever bot sees its result first.
func TestResignWaitsForTheSocket(t *testing.T) {
	t.Parallel()
	sc := &scenario{viol: newViolations(), st: newStats()}
	rm := &roomRun{led: newRoomLedger()}
	tr := &sendOnly{}
	b := &bot{sc: sc, room: rm, name: "h", role: roleHost, led: newLedger("h"), ctx: context.Background(),
		info: &protocol.Room{Phase: protocol.PhaseRunning, Match: 3}}
	b.attach(tr)

	reply := make(chan int, 1)
	b.command(botCmd{kind: "resign", reply: reply}, b.nextAt)
	if len(tr.sent) != 0 || len(reply) != 0 {
		t.Fatalf("offline: sent %v, replied %d", tr.sent, len(reply))
	}
	tr.online, b.online = true, true
	b.tryResign() // as act does when the socket is back
	if len(tr.sent) != 1 || tr.sent[0].Type != protocol.TypeResign || b.resignWait != nil {
		t.Fatalf("back online: sent %+v", tr.sent)
	}
	b.onReceipt(okReceipt(tr.sent[0].ID, 9), b.nextAt)
	if got := <-reply; got != 3 {
		t.Errorf("reply %d, want match 3", got)
	}

	b.info.Phase = protocol.PhaseEnded
	b.command(botCmd{kind: "resign", reply: reply}, b.nextAt)
	if got := <-reply; got != 0 || len(tr.sent) != 1 {
		t.Errorf("no running match: reply %d, sent %d", got, len(tr.sent))
	}

	res := protocol.Result{Match: 3, Status: "resigned"}
	b.addResult(res)
	(&bot{sc: sc, room: rm}).addResult(res)
	if n := sc.st.counts()["matches/ended/resigned"]; n != 1 {
		t.Errorf("matches/ended/resigned counted %d times, want 1", n)
	}
}
