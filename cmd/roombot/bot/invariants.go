package bot

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/roomd/roomd/core/session"
	"github.com/roomd/roomd/protocol"
)

// Invariant violation kinds. Each is counted and printed; any of them makes
// the run exit with status 3.
const (
	vReceiptMissing   = "receipt-missing"   // an action never got a receipt
	vReceiptDuplicate = "receipt-duplicate" // more receipts than copies sent
	vReceiptMismatch  = "receipt-mismatch"  // copies of one action got different answers
	vRevReused        = "rev-reused"        // two actions claim one revision of a room
	vAppliedTwice     = "applied-twice"     // a change by the bot's seat that no receipt names, or a tick showing more inputs than took effect at it
	vRevGap           = "revision-gap"      // an update that does not follow the client's revision
	vRevBack          = "revision-back"     // a snapshot older than what the client saw
	vTickGap          = "tick-gap"          // a tick that is not the next one, or does not follow the revision
	vGapResync        = "gap-resync"        // the transport met a gap on a live socket and resynced
	vInputTick        = "input-tick"        // an input's receipt names a tick the client had seen, or none
	vViewDiverged     = "view-diverged"     // followed view ≠ the server's at one revision
	vFinalView        = "final-view"        // a finished match's followed view ≠ the server's end view, or another member's
	vLeakMine         = "leak-mine"         // an unrevealed mine was sent before the end
	vLeakBoard        = "leak-board"        // a race player got another seat's cells
	vLeakSecret       = "leak-secret"       // another seat's secret before the end
	vLeakTurn         = "leak-turn"         // another seat's queued turn (a real-time game's input) before it moved
	vLeakSeed         = "leak-seed"         // the seed before the end
	vBadFrame         = "bad-frame"         // a view or beat the game's decoder refuses
	vSlowNotBack      = "slow-not-recovered"
)

// violations counts invariant violations by kind, keeping a few examples.
type violations struct {
	mu       sync.Mutex
	counts   map[string]int64
	examples map[string][]string
}

func newViolations() *violations {
	return &violations{counts: map[string]int64{}, examples: map[string][]string{}}
}

func (v *violations) add(kind, format string, args ...any) {
	v.addN(kind, 1, format, args...)
}

func (v *violations) addN(kind string, n int64, format string, args ...any) {
	if n <= 0 {
		return
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	v.counts[kind] += n
	if len(v.examples[kind]) < 5 {
		v.examples[kind] = append(v.examples[kind], fmt.Sprintf(format, args...))
	}
}

func (v *violations) total() int64 {
	v.mu.Lock()
	defer v.mu.Unlock()
	var n int64
	for _, c := range v.counts {
		n += c
	}
	return n
}

func (v *violations) snapshot() (map[string]int64, map[string][]string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	ex := map[string][]string{}
	for k, e := range v.examples {
		ex[k] = slices.Clone(e)
	}
	return maps.Clone(v.counts), ex
}

// receiptKey is what must be equal among the receipts of one action: a
// real-time input's copies take effect at the same tick.
type receiptKey struct {
	OK   bool
	Rev  uint64
	Tick uint64
	Code string
}

// actionRec is one action a bot sent: how many copies went out and what
// came back.
type actionRec struct {
	kind     string
	copies   int // the original and each resend on purpose that was written
	final    []receiptKey
	temp     int // temporary refusals (rate-limited, storage-unavailable)
	acceptAt uint64
}

// ledger checks receipts per action id for one bot: every action gets a
// receipt; each copy sent on purpose may get one more, and every
// non-temporary receipt of an id must be the same (the server answers a
// resent id from its dedup window).
type ledger struct {
	who     string
	actions map[string]*actionRec
	// settled are the ids of answered actions, oldest first: past
	// ledgerKeep of them the oldest is forgotten (a resend's answer comes
	// within milliseconds), so the ledger stays bounded on long runs.
	settled []string
	// own are the revisions of updates that carried beats of this bot's
	// seat; accepted are those its receipts name. Revisions more than
	// revWindow behind are settled: matched pairs are forgotten, and an
	// own change without a receipt is kept in extra.
	own      map[uint64]bool
	accepted map[uint64]bool
	extra    []uint64
	maxRev   uint64
	changes  int
}

// Ledger bounds.
const (
	ledgerKeep = 1024
	revWindow  = 4096
)

func newLedger(who string) *ledger {
	return &ledger{who: who, actions: map[string]*actionRec{}, own: map[uint64]bool{}, accepted: map[uint64]bool{}}
}

func (l *ledger) sent(id, kind string) { l.actions[id] = &actionRec{kind: kind, copies: 1} }

func (l *ledger) resent(id string) {
	if a := l.actions[id]; a != nil {
		a.copies++
	}
}

// temporary reports whether a refusal may be retried with the same id: the
// server does not remember it.
func temporary(rc *protocol.Receipt) bool {
	if rc.OK || rc.Notice == nil {
		return false
	}
	return rc.Notice.Temporary || rc.Notice.Code == protocol.CodeRateLimited || rc.Notice.Code == protocol.CodeStorageUnavailable
}

// receipt records one receipt. known is false for receipts of actions this
// bot did not send itself (the transport's own resyncs). first is true for
// the first receipt of the action.
func (l *ledger) receipt(rc *protocol.Receipt, v *violations) (known, first bool) {
	a := l.actions[rc.ID]
	if a == nil {
		return false, false
	}
	first = len(a.final) == 0 && a.temp == 0
	if first {
		l.settled = append(l.settled, rc.ID)
		if len(l.settled) > 2*ledgerKeep {
			for _, id := range l.settled[:ledgerKeep] {
				delete(l.actions, id)
			}
			l.settled = append(l.settled[:0], l.settled[ledgerKeep:]...)
		}
	}
	if temporary(rc) {
		a.temp++
	} else {
		k := receiptKey{OK: rc.OK, Rev: rc.Rev, Tick: rc.Tick}
		if rc.Notice != nil {
			k.Code = rc.Notice.Code
		}
		if len(a.final) > 0 && a.final[0] != k {
			v.add(vReceiptMismatch, "%s: action %s (%s) got %+v, then %+v", l.who, rc.ID, a.kind, a.final[0], k)
		}
		a.final = append(a.final, k)
		if rc.OK && a.kind == kindCommand {
			l.accepted[rc.Rev] = true
			a.acceptAt = rc.Rev
			l.maxRev = max(l.maxRev, rc.Rev)
		}
	}
	if got := len(a.final) + a.temp; got > a.copies {
		v.add(vReceiptDuplicate, "%s: action %s (%s) got %d receipts for %d copies sent", l.who, rc.ID, a.kind, got, a.copies)
	}
	return true, first
}

// ownChange records an update with beats caused by this bot's seat.
func (l *ledger) ownChange(rev uint64) {
	l.own[rev] = true
	l.maxRev = max(l.maxRev, rev)
	if l.changes++; l.changes%512 == 0 {
		l.settleRevs()
	}
}

// settleRevs forgets matched revisions far behind the newest.
func (l *ledger) settleRevs() {
	if l.maxRev < revWindow {
		return
	}
	old := l.maxRev - revWindow
	for rev := range l.own {
		if rev < old {
			if !l.accepted[rev] {
				l.extra = append(l.extra, rev)
			}
			delete(l.own, rev)
		}
	}
	for rev := range l.accepted {
		if rev < old {
			delete(l.accepted, rev)
		}
	}
}

// unanswered counts actions without any receipt.
func (l *ledger) unanswered() int {
	n := 0
	for _, a := range l.actions {
		if len(a.final) == 0 && a.temp == 0 {
			n++
		}
	}
	return n
}

// finish reports actions that never got a receipt (when reportMissing:
// the bot was online when the run stopped) and changes of this bot's seat
// that no receipt accounts for (an action applied twice makes one more
// change than it has receipts).
func (l *ledger) finish(v *violations, reportMissing bool) {
	missing := 0
	for id, a := range l.actions {
		if len(a.final) == 0 && a.temp == 0 {
			missing++
			if reportMissing {
				v.add(vReceiptMissing, "%s: action %s (%s) got no receipt", l.who, id, a.kind)
			}
		}
	}
	extra := l.extra
	for rev := range l.own {
		if !l.accepted[rev] {
			extra = append(extra, rev)
		}
	}
	// A missing receipt may belong to one of these changes.
	if n := len(extra) - missing; n > 0 {
		slices.Sort(extra)
		v.addN(vAppliedTwice, int64(n), "%s: %d changes by its seat that no receipt names (revisions %v), %d receipts missing",
			l.who, len(extra), clipRevs(extra), missing)
	}
}

func clipRevs(r []uint64) []uint64 {
	if len(r) > 8 {
		return r[:8]
	}
	return r
}

// revTrack checks that a client's revisions are continuous: every update
// follows the last revision seen, and only a snapshot may jump (forward, or
// to another epoch). In a real-time game's match it also follows the ticks:
// each is the next one (numbered from 1 after the update that starts the
// match, from the snapshot's tick after a snapshot) and its from is the
// client's revision; an update or tick may then move the revision by more
// than one (inputs have no update of their own).
type revTrack struct {
	epoch    string
	rev      uint64
	tick     uint64 // the last tick seen in a real-time match
	seen     bool
	realtime bool
}

// snapshot returns a problem, or "".
func (t *revTrack) snapshot(s *protocol.Snapshot) string {
	defer func() { t.epoch, t.rev, t.tick, t.seen = s.Epoch, s.Rev, s.Tick, true }()
	if t.seen && s.Epoch == t.epoch && s.Rev < t.rev {
		return fmt.Sprintf("snapshot went back from %d to %d", t.rev, s.Rev)
	}
	return ""
}

// update returns a problem, or "".
func (t *revTrack) update(u *protocol.Update) string {
	defer func() {
		t.epoch, t.rev = u.Epoch, u.To
		if u.View != nil {
			t.tick = 0 // a match starts (or ends): its ticks count from 1
		}
	}()
	next := u.To == u.From+1 || (t.realtime && u.To > u.From)
	switch {
	case !t.seen:
		return fmt.Sprintf("update %d→%d before any snapshot", u.From, u.To)
	case u.Epoch != t.epoch:
		return fmt.Sprintf("update of epoch %s while following %s", u.Epoch, t.epoch)
	case u.From != t.rev || !next:
		return fmt.Sprintf("update %d→%d after revision %d", u.From, u.To, t.rev)
	}
	return ""
}

// tickMsg returns a problem with a tick message, or "".
func (t *revTrack) tickMsg(tk *protocol.Tick) string {
	defer func() { t.rev, t.tick = tk.To, tk.Tick }()
	switch {
	case !t.seen:
		return fmt.Sprintf("tick %d before any snapshot", tk.Tick)
	case tk.Tick != t.tick+1:
		return fmt.Sprintf("tick %d after tick %d", tk.Tick, t.tick)
	case tk.From != t.rev || tk.To < tk.From:
		return fmt.Sprintf("tick %d covers revisions %d→%d after revision %d", tk.Tick, tk.From, tk.To, t.rev)
	}
	return ""
}

// inSync reports whether a snapshot's view is the one the client follows:
// the same epoch and revision, or in a running real-time match the same
// tick (its view is the state after that tick; inputs accepted since that
// tick, which the snapshot's revision counts, show only at the next).
func (t *revTrack) inSync(s *protocol.Snapshot) bool {
	if !t.seen || s.Epoch != t.epoch {
		return false
	}
	if t.realtime && s.Room.Phase == protocol.PhaseRunning {
		return s.Tick == t.tick && s.Rev >= t.rev
	}
	return s.Rev == t.rev
}

// roomLedger is shared by the bots of one room: which action produced each
// revision, the results of finished matches (for the leak checks) and the
// send times of accepted moves (for spectator delivery latency).
type roomLedger struct {
	mu      sync.Mutex
	byRev   map[uint64]string
	maxRev  uint64
	results map[int]protocol.Result
	// finals are the followed views of finished real-time matches, as the
	// first member to see each end encoded it, with that member's name.
	finals map[int]finalView
}

type finalView struct {
	who  string
	view []byte
}

func newRoomLedger() *roomLedger {
	return &roomLedger{byRev: map[uint64]string{}, results: map[int]protocol.Result{}, finals: map[int]finalView{}}
}

// final records who ended match with the followed view view, and returns
// the first member's when it differs (ok false).
func (r *roomLedger) final(match int, who string, view []byte) (first finalView, ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	f, seen := r.finals[match]
	if !seen {
		r.finals[match] = finalView{who: who, view: view}
		for m := range r.finals {
			if m+8 < match { // every member has seen those ends long ago
				delete(r.finals, m)
			}
		}
		return finalView{}, true
	}
	return f, bytes.Equal(f.view, view)
}

// claim records that action id produced rev; a different id claiming the
// same revision is a violation.
func (r *roomLedger) claim(rev uint64, id, who string, v *violations) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if prev, ok := r.byRev[rev]; ok && prev != id {
		v.add(vRevReused, "%s: revision %d claimed by actions %s and %s", who, rev, prev, id)
		return
	}
	r.byRev[rev] = id
	r.maxRev = max(r.maxRev, rev)
	if len(r.byRev) > 50000 { // keep the map bounded on long runs
		for k := range r.byRev {
			if k+20000 < r.maxRev {
				delete(r.byRev, k)
			}
		}
	}
}

// addResult records a match's result and says whether it is the first
// seen for that match.
func (r *roomLedger) addResult(res protocol.Result) (first bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	// A snapshot's result has no log (the update that ends a match has it,
	// and the room's replay): keep the fullest one seen.
	old, ok := r.results[res.Match]
	if !ok || len(old.Log) == 0 && len(res.Log) > 0 {
		r.results[res.Match] = res
	}
	return !ok
}

func (r *roomLedger) result(match int) (protocol.Result, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	res, ok := r.results[match]
	return res, ok
}

// finding is one leak found in a match's frames.
type finding struct {
	kind, detail string
}

// matchFrame is one snapshot or update a client received during a match:
// the bytes, and the views and beats in it as the follower decoded them
// (the game's view type and a slice of its beat type; see frame for the
// typed form the game's leak check gets).
type matchFrame struct {
	raw   []byte
	views []any
	beats any
}

// seedFinder finds a match's seed in a raw frame: a "seed" key, or the
// seed's digits as a number of their own (only for seeds of 7 digits or
// more, which no other field of a frame equals by chance).
func seedFinder(seed json.RawMessage) func(frame []byte) string {
	key := []byte(`"seed"`)
	digits := bytes.Trim(seed, `"`) // an integer's digits, or a secret's hex
	secret := len(seed) > 0 && seed[0] == '"'
	isNum := func(c byte) bool { return c >= '0' && c <= '9' || c == '.' }
	hex := bytes.ToLower(digits)
	return func(frame []byte) string {
		if bytes.Contains(frame, key) {
			return "a \"seed\" key"
		}
		if secret {
			if containsHexFold(frame, hex) {
				return "the secret's hex digits"
			}
			return ""
		}
		if len(digits) < 7 {
			return ""
		}
		for off := 0; ; {
			i := bytes.Index(frame[off:], digits)
			if i < 0 {
				return ""
			}
			i += off
			end := i + len(digits)
			if (i == 0 || !isNum(frame[i-1])) && (end == len(frame) || !isNum(frame[end])) {
				return "the seed's digits"
			}
			off = i + 1
		}
	}
}

// containsHexFold reports whether frame holds hex (lowercase hex digits)
// in any letter case, as bytes.Contains(bytes.ToLower(frame), hex) would,
// without a lowercased copy of every frame: it looks for hex's longest run
// of decimal digits, which has no case, and compares the bytes around each
// find with case folded (no other rune folds to a hex digit).
func containsHexFold(frame, hex []byte) bool {
	if len(hex) == 0 {
		return true
	}
	a0, a1 := 0, 0 // hex[a0:a1], its longest run of decimal digits
	for i := 0; i < len(hex); {
		j := i
		for j < len(hex) && hex[j] >= '0' && hex[j] <= '9' {
			j++
		}
		if j-i > a1-a0 {
			a0, a1 = i, j
		}
		i = j + 1
	}
	if a1-a0 < 2 { // hardly a digit to look for: fold it all
		return bytes.Contains(bytes.ToLower(frame), hex)
	}
	anchor := hex[a0:a1]
	for off := 0; ; {
		i := bytes.Index(frame[off:], anchor)
		if i < 0 {
			return false
		}
		i += off
		if start := i - a0; start >= 0 && start+len(hex) <= len(frame) && bytes.EqualFold(frame[start:start+len(hex)], hex) {
			return true
		}
		off = i + 1
	}
}

// resultSeed is a finished match's disclosed seed; the zero Seed when it
// does not decode (the checks that use it then find the board wrong).
func resultSeed(res protocol.Result) session.Seed {
	var s session.Seed
	if len(res.Seed) > 0 {
		// The client's decoder has checked the bytes: the seed's own
		// decoder alone (no second validation pass), as json.Unmarshal
		// would call it.
		if s.UnmarshalJSON(res.Seed) != nil {
			return session.Seed{}
		}
	}
	return s
}
