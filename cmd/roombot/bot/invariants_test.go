package bot

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/roomd/roomd/core/minesweeper"
	"github.com/roomd/roomd/core/nim"
	"github.com/roomd/roomd/core/session"
	"github.com/roomd/roomd/protocol"
)

func okReceipt(id string, rev uint64) *protocol.Receipt {
	return &protocol.Receipt{Type: protocol.TypeReceipt, ID: id, OK: true, Rev: rev}
}

func refusal(id, code string, temp bool) *protocol.Receipt {
	return &protocol.Receipt{Type: protocol.TypeReceipt, ID: id, Notice: &protocol.Notice{Code: code, Temporary: temp}}
}

func wantOnly(t *testing.T, v *violations, kind string, n int64) {
	t.Helper()
	counts, ex := v.snapshot()
	for k, c := range counts {
		if k != kind {
			t.Errorf("unexpected %s: %d %v", k, c, ex[k])
		}
	}
	if counts[kind] != n {
		t.Errorf("%s = %d, want %d (%v)", kind, counts[kind], n, ex[kind])
	}
}

func TestLedgerDuplicateReceipt(t *testing.T) {
	t.Parallel()
	v := newViolations()
	l := newLedger("p")
	l.sent("a", kindCommand)
	l.receipt(okReceipt("a", 5), v)
	wantOnly(t, v, vReceiptDuplicate, 0)
	l.receipt(okReceipt("a", 5), v) // one copy sent, two receipts
	wantOnly(t, v, vReceiptDuplicate, 1)

	// A resend on purpose may get the same receipt again.
	v = newViolations()
	l.sent("b", kindCommand)
	l.resent("b")
	l.receipt(okReceipt("b", 6), v)
	l.receipt(okReceipt("b", 6), v)
	l.receipt(refusal("b", protocol.CodeRateLimited, true), v) // a third answer for two copies
	wantOnly(t, v, vReceiptDuplicate, 1)
}

func TestLedgerMismatchedReceipts(t *testing.T) {
	t.Parallel()
	v := newViolations()
	l := newLedger("p")
	l.sent("a", kindCommand)
	l.resent("a")
	l.receipt(okReceipt("a", 5), v)
	l.receipt(refusal("a", "game:NotHidden", false), v) // the resend was judged again
	wantOnly(t, v, vReceiptMismatch, 1)

	// Temporary refusals are not remembered by the server: no mismatch.
	v = newViolations()
	l.sent("b", kindCommand)
	l.resent("b")
	l.receipt(refusal("b", protocol.CodeRateLimited, true), v)
	l.receipt(okReceipt("b", 9), v)
	wantOnly(t, v, vReceiptMismatch, 0)
}

func TestLedgerMissingReceiptAndDoubleApply(t *testing.T) {
	t.Parallel()
	v := newViolations()
	l := newLedger("p")
	l.sent("a", kindCommand)
	l.receipt(okReceipt("a", 5), v)
	l.ownChange(5)
	l.sent("b", kindResync) // never answered
	l.finish(v, true)
	wantOnly(t, v, vReceiptMissing, 1)

	// Two changes of the bot's seat for one accepted action: applied twice.
	v = newViolations()
	l = newLedger("p")
	l.sent("flag", kindCommand)
	l.receipt(okReceipt("flag", 7), v)
	l.ownChange(7)
	l.ownChange(8)
	l.finish(v, true)
	wantOnly(t, v, vAppliedTwice, 1)
}

// TestLedgerStaysBounded: a long run forgets settled actions and matched
// revisions, but still finds a change without a receipt from long ago.
func TestLedgerStaysBounded(t *testing.T) {
	t.Parallel()
	v := newViolations()
	l := newLedger("p")
	l.ownChange(3) // applied, never receipted
	for i := range 20000 {
		id := fmt.Sprint("a", i)
		l.sent(id, kindCommand)
		l.ownChange(uint64(10 + i))
		l.receipt(okReceipt(id, uint64(10+i)), v)
	}
	if len(l.actions) > 2*ledgerKeep || len(l.own) > 2*revWindow || len(l.accepted) > 2*revWindow {
		t.Errorf("ledger grew: %d actions, %d own, %d accepted", len(l.actions), len(l.own), len(l.accepted))
	}
	l.finish(v, true)
	wantOnly(t, v, vAppliedTwice, 1)
}

func TestRevisionContinuity(t *testing.T) {
	t.Parallel()
	var tr revTrack
	snap := func(epoch string, rev uint64) *protocol.Snapshot { return &protocol.Snapshot{Epoch: epoch, Rev: rev} }
	upd := func(from uint64) *protocol.Update { return &protocol.Update{Epoch: "e", From: from, To: from + 1} }
	if p := tr.update(upd(0)); p == "" {
		t.Error("an update before any snapshot passed")
	}
	tr = revTrack{}
	for _, step := range []string{tr.snapshot(snap("e", 3)), tr.update(upd(3)), tr.update(upd(4)), tr.snapshot(snap("e", 9)), tr.update(upd(9))} {
		if step != "" {
			t.Errorf("continuous sequence refused: %s", step)
		}
	}
	if p := tr.update(upd(11)); !strings.Contains(p, "after revision 10") {
		t.Errorf("gap 10 → 11→12 not caught: %q", p)
	}
	if p := tr.snapshot(snap("e", 5)); p == "" {
		t.Error("a snapshot going back passed")
	}
	if p := tr.snapshot(snap("other", 1)); p != "" {
		t.Errorf("a new epoch's snapshot refused: %s", p)
	}
}

func TestRevisionClaimedTwice(t *testing.T) {
	t.Parallel()
	v := newViolations()
	r := newRoomLedger()
	r.claim(5, "a", "p0", v)
	r.claim(5, "a", "p0", v) // the same action's resend
	r.claim(6, "b", "p1", v)
	wantOnly(t, v, vRevReused, 0)
	r.claim(6, "c", "p1", v)
	wantOnly(t, v, vRevReused, 1)
}

// msMatch plays nothing: it builds the result of a co-op beginner match
// whose first reveal was (4,4), and returns the board.
func msMatch(t *testing.T, mode string) (protocol.Result, minesweeper.Layout) {
	t.Helper()
	cfgRaw := fmt.Sprintf(`{"mode":%q,"level":"beginner"}`, mode)
	cfg, err := minesweeper.DecodeConfig([]byte(cfgRaw))
	if err != nil {
		t.Fatal(err)
	}
	const seed = 123456789
	l, err := minesweeper.Generate(session.IntSeed(seed), cfg, 4, 4)
	if err != nil {
		t.Fatal(err)
	}
	res := protocol.Result{Match: 1, Status: "lost", Seed: json.RawMessage(fmt.Sprint(seed)), Config: json.RawMessage(cfgRaw),
		Log: json.RawMessage(`[{"seat":0,"move":{"type":"reveal","r":4,"c":4},"t":1},{"seat":1,"move":{"type":"reveal","r":4,"c":4},"t":2}]`)}
	return res, l
}

func cellsOf(l minesweeper.Layout, mine bool) [][2]int {
	var out [][2]int
	for k, m := range l.Mine {
		if m == mine {
			out = append(out, [2]int{k / l.Cols, k % l.Cols})
		}
	}
	return out
}

// gameFor returns roombot's game id.
func gameFor(t *testing.T, id string) *game {
	t.Helper()
	g, ok := roombotGames.lookup(id)
	if !ok {
		t.Fatalf("roombot has no adapter for %q", id)
	}
	return g
}

// setView decodes a view and follows it, as a bot does with a snapshot's.
func setView(f follower, raw json.RawMessage) error {
	v, err := f.decodeView(raw)
	if err != nil {
		return err
	}
	f.setDecoded(v)
	return nil
}

// applyBeats decodes beats and plays them, as a bot does with an update's.
func applyBeats(f follower, raw json.RawMessage) error {
	evs, err := f.decodeBeats(raw)
	if err != nil || evs == nil {
		return err
	}
	return f.applyDecoded(evs)
}

// frames decodes raw frames as a bot records them for the leak checks.
func frames(t *testing.T, game string, raws ...[]byte) []matchFrame {
	t.Helper()
	f := gameFor(t, game).newFollower()
	var out []matchFrame
	for _, raw := range raws {
		msg, err := protocol.DecodeServer(raw)
		if err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		mf := matchFrame{raw: raw}
		var view, beats json.RawMessage
		switch {
		case msg.Snapshot != nil:
			view = viewOf(msg.Snapshot.View)
		case msg.Update != nil:
			view, beats = viewOf(msg.Update.View), viewOf(msg.Update.Beats)
		}
		if !isNull(view) {
			v, err := f.decodeView(view)
			if err != nil {
				t.Fatalf("view %s: %v", view, err)
			}
			mf.views = []any{v}
		}
		if mf.beats, err = f.decodeBeats(beats); err != nil {
			t.Fatalf("beats %s: %v", beats, err)
		}
		out = append(out, mf)
	}
	return out
}

func kinds(fs []finding) map[string]int {
	out := map[string]int{}
	for _, f := range fs {
		out[f.kind]++
	}
	return out
}

func TestMinesweeperLeaks(t *testing.T) {
	t.Parallel()
	minesweeperLeaks := gameFor(t, "minesweeper").checkLeaks
	res, l := msMatch(t, "coop")
	mine, safe := cellsOf(l, true)[0], cellsOf(l, false)[0]
	beat := func(r, c int) []byte {
		return fmt.Appendf(nil, `{"type":"update","epoch":"e","from":1,"to":2,"by":0,"beats":[{"type":"reveal","cells":[{"r":%d,"c":%d,"adjacent":%d}]}]}`,
			r, c, l.Adjacent[r*l.Cols+c])
	}
	view := func(cells string) []byte {
		return fmt.Appendf(nil, `{"type":"snapshot","epoch":"e","rev":3,"seat":0,"view":{"config":%s,"phase":"active","cells":[%s]},"room":{"code":"X","phase":"running"}}`,
			res.Config, cells)
	}
	clean := [][]byte{beat(safe[0], safe[1]), view(fmt.Sprintf(`{"r":%d,"c":%d,"status":"flagged"}`, mine[0], mine[1]))}
	if fs := minesweeperLeaks(frames(t, "minesweeper", clean...), res, 0); len(fs) != 0 {
		t.Fatalf("clean frames flagged: %+v", fs)
	}
	cases := map[string][]byte{
		"a reveal of a mine":                beat(mine[0], mine[1]),
		"a hidden mine in a view":           view(fmt.Sprintf(`{"r":%d,"c":%d,"status":"hidden","mine":true}`, mine[0], mine[1])),
		"a revealed mine in an active view": view(fmt.Sprintf(`{"r":%d,"c":%d,"status":"revealed","adjacent":0,"mine":true}`, mine[0], mine[1])),
	}
	for name, frame := range cases {
		if k := kinds(minesweeperLeaks(frames(t, "minesweeper", frame), res, 0)); k[vLeakMine] == 0 {
			t.Errorf("%s was not caught: %v", name, k)
		}
	}
	seeded := append(bytes.Clone(clean[0][:len(clean[0])-1]), fmt.Sprintf(`,"x":{"seed":%s}}`, res.Seed)...)
	if k := kinds(minesweeperLeaks(frames(t, "minesweeper", seeded), res, 0)); k[vLeakSeed] == 0 {
		t.Errorf("the seed was not caught: %v", k)
	}

	// Race: a seat must not see another seat's board, nor a spectator any
	// board, while the race runs; progress is for everyone.
	res, _ = msMatch(t, "race")
	raceView := func(seat string, boards string) []byte {
		return fmt.Appendf(nil, `{"type":"snapshot","epoch":"e","rev":3,"seat":%s,"view":{"config":%s,"phase":"active","mode":"race","boards":[%s]},"room":{"code":"X","phase":"running"}}`,
			seat, res.Config, boards)
	}
	const (
		progress0 = `{"seat":0,"phase":"active","revealed":0,"safe":71,"flags":0}`
		progress1 = `{"seat":1,"phase":"active","revealed":0,"safe":71,"flags":1}`
		cells0    = `{"seat":0,"phase":"active","revealed":0,"safe":71,"flags":0,"cells":[]}`
		cells1    = `{"seat":1,"phase":"active","revealed":0,"safe":71,"flags":1,"cells":[{"r":0,"c":0,"status":"flagged"}]}`
	)
	raceBeats := func(beats string) []byte {
		return fmt.Appendf(nil, `{"type":"update","epoch":"e","from":3,"to":4,"by":1,"beats":[%s]}`, beats)
	}
	progressBeat := raceBeats(`{"type":"progress","seat":1,"phase":"active","revealed":0,"safe":71,"flags":1}`)
	flagBeat := raceBeats(`{"type":"flag","seat":1,"r":0,"c":0,"flagged":true}`)
	raceCases := []struct {
		name   string
		seat   int
		frames [][]byte
		leak   bool
	}{
		{"a seat sees its own board and progress", 0, [][]byte{raceView("0", cells0+","+progress1), progressBeat}, false},
		{"a spectator sees progress only", -1, [][]byte{raceView("null", progress0+","+progress1), progressBeat}, false},
		{"a seat sees another's board", 0, [][]byte{raceView("0", cells0+","+cells1)}, true},
		{"a spectator sees a board", -1, [][]byte{raceView("null", progress0+","+cells1)}, true},
		{"a seat hears another's flag", 0, [][]byte{flagBeat}, true},
		{"a spectator hears a flag", -1, [][]byte{flagBeat}, true},
	}
	for _, tc := range raceCases {
		k := kinds(minesweeperLeaks(frames(t, "minesweeper", tc.frames...), res, tc.seat))
		if got := k[vLeakBoard] > 0; got != tc.leak || len(k) > k[vLeakBoard] {
			t.Errorf("%s: findings %v, want a board leak %v", tc.name, k, tc.leak)
		}
	}
}

func TestNimLeaks(t *testing.T) {
	t.Parallel()
	nimLeaks := gameFor(t, "nim").checkLeaks
	const seed = 424242
	var cfg nim.Config
	json.Unmarshal([]byte(`{"pile":21}`), &cfg)
	st, err := nim.Rules{}.Init(session.IntSeed(seed), cfg, 2)
	if err != nil {
		t.Fatal(err)
	}
	secrets := st.Secrets()
	res := protocol.Result{Match: 1, Seed: json.RawMessage(fmt.Sprint(seed)), Config: json.RawMessage(`{"pile":21}`), Log: json.RawMessage(`[]`)}
	frame := func(seat string, view string) []byte {
		return fmt.Appendf(nil, `{"type":"snapshot","epoch":"e","rev":3,"seat":%s,"view":%s,"room":{"code":"X","phase":"running"}}`, seat, view)
	}
	own := frame("0", fmt.Sprintf(`{"config":{"pile":21},"pile":21,"turn":0,"seats":2,"you":0,"secret":%d,"history":[],"over":false}`, secrets[0]))
	if fs := nimLeaks(frames(t, "nim", own), res, 0); len(fs) != 0 {
		t.Fatalf("a seat's own secret flagged: %+v", fs)
	}
	wrong := secrets[1]
	if wrong == secrets[0] {
		wrong = secrets[0]%3 + 1
	}
	cases := map[string]struct {
		frame []byte
		seat  int
	}{
		"another seat's view": {frame("0", fmt.Sprintf(`{"config":{"pile":21},"pile":21,"turn":0,"seats":2,"you":1,"secret":%d,"history":[],"over":false}`, secrets[1])), 0},
		"a wrong secret":      {frame("0", fmt.Sprintf(`{"config":{"pile":21},"pile":21,"turn":0,"seats":2,"you":0,"secret":%d,"history":[],"over":false}`, wrong)), 0},
		"a spectator secret":  {frame("null", fmt.Sprintf(`{"config":{"pile":21},"pile":21,"turn":0,"seats":2,"secret":%d,"history":[],"over":false}`, secrets[0])), -1},
		"every secret":        {frame("0", fmt.Sprintf(`{"config":{"pile":21},"pile":21,"turn":0,"seats":2,"history":[],"over":false,"secrets":[%d,%d]}`, secrets[0], secrets[1])), 0},
		"an early end event":  {[]byte(`{"type":"update","epoch":"e","from":3,"to":4,"by":1,"beats":[{"type":"end","winner":0,"lastTaker":1,"secrets":[1,2]}]}`), 0},
	}
	for name, c := range cases {
		if k := kinds(nimLeaks(frames(t, "nim", c.frame), res, c.seat)); k[vLeakSecret] == 0 {
			t.Errorf("%s was not caught: %v", name, k)
		}
	}
}

func TestViewComparison(t *testing.T) {
	t.Parallel()
	raw := json.RawMessage(`{"config":{"mode":"coop","level":"beginner"},"phase":"active","cells":[{"r":0,"c":0,"status":"revealed","adjacent":1,"mine":false}]}`)
	f := gameFor(t, "minesweeper").newFollower()
	if err := setView(f, raw); err != nil {
		t.Fatal(err)
	}
	flag := json.RawMessage(`[{"type":"flag","r":3,"c":3,"flagged":true}]`)
	if err := applyBeats(f, flag); err != nil {
		t.Fatal(err)
	}
	server := json.RawMessage(`{"config":{"mode":"coop","level":"beginner"},"phase":"active","cells":[{"r":0,"c":0,"status":"revealed","adjacent":1,"mine":false},{"r":3,"c":3,"status":"flagged"}]}`)
	if eq, _, detail, err := f.compare(server); !eq || err != nil {
		t.Fatalf("equal views differ: %s %v", detail, err)
	}
	// A flag toggled twice (a resend applied twice) leaves it unflagged.
	applyBeats(f, json.RawMessage(`[{"type":"flag","r":3,"c":3,"flagged":false}]`))
	if eq, quirk, _, _ := f.compare(server); eq || quirk {
		t.Fatalf("a diverging view passed (equal %v, quirk %v)", eq, quirk)
	}

	// A lost board may lack cells a partial chord opened: the known quirk.
	lost := json.RawMessage(`{"config":{"mode":"coop","level":"beginner"},"phase":"lost","cells":[{"r":0,"c":0,"status":"revealed","adjacent":1,"mine":false}]}`)
	serverLost := json.RawMessage(`{"config":{"mode":"coop","level":"beginner"},"phase":"lost","cells":[{"r":0,"c":0,"status":"revealed","adjacent":1,"mine":false},{"r":0,"c":1,"status":"revealed","adjacent":2,"mine":false}]}`)
	setView(f, lost)
	if eq, quirk, _, _ := f.compare(serverLost); eq || !quirk {
		t.Fatalf("chord quirk: equal %v quirk %v", eq, quirk)
	}

	n := gameFor(t, "nim").newFollower()
	setView(n, json.RawMessage(`{"config":{"pile":21},"pile":21,"turn":0,"seats":2,"you":0,"secret":2,"history":[],"over":false}`))
	applyBeats(n, json.RawMessage(`[{"type":"took","seat":0,"n":3,"pile":18}]`))
	same := json.RawMessage(`{"config":{"pile":21},"pile":18,"turn":1,"seats":2,"you":0,"secret":2,"history":[{"seat":0,"n":3}],"over":false}`)
	if eq, _, detail, _ := n.compare(same); !eq {
		t.Fatalf("nim views differ: %s", detail)
	}
	applyBeats(n, json.RawMessage(`[{"type":"took","seat":1,"n":1,"pile":17}]`))
	if eq, _, _, _ := n.compare(same); eq {
		t.Fatal("a diverging nim view passed")
	}
}

func TestFlagsDocumented(t *testing.T) {
	t.Parallel()
	var c config
	var a, b, d string
	newFlagSet(&c, &a, &b, &d).VisitAll(func(f *flag.Flag) {
		if u := usage(roombotGames); !strings.Contains(u, "--"+f.Name+" ") && !strings.Contains(u, "--"+f.Name+"\n") {
			t.Errorf("--%s is not documented in -h", f.Name)
		}
	})
	var stderr bytes.Buffer
	if code := run(context.Background(), []string{"-h"}, &stderr, &stderr); code != 0 || !strings.Contains(stderr.String(), "Examples:") {
		t.Errorf("-h: status %d, %q", code, stderr.String())
	}
}

func TestFlagValidation(t *testing.T) {
	t.Parallel()
	bad := [][]string{
		{"--url", "http://192.0.2.10:8080"},
		{"--url", "http://192.0.2.10:8080", "--target", "192.0.2.11"},
		{"--url", "http://127.0.0.1:1", "--metrics", "http://192.0.2.10/metrics"},
		{"--game", ""},
		{"--think", "gaussian:5ms"},
		{"--rate", "2", "--interval", "1s"},
		{"--loop", "sideways"},
	}
	for _, args := range bad {
		if _, err := parseFlags(args, &bytes.Buffer{}); err == nil {
			t.Errorf("%v accepted", args)
		}
	}
	c, err := parseFlags([]string{"--url", "http://192.0.2.10:8080", "--target", "192.0.2.10", "--metrics", "off"}, &bytes.Buffer{})
	if err != nil {
		t.Errorf("explicit --target refused: %v", err)
	}
	if len(c.metricsURLs()) != 0 {
		t.Errorf("--metrics off: %q", c.metricsURLs())
	}
	c, err = parseFlags([]string{"--chaos-drop", "0.5", "--interval", "250ms", "--think", "uniform:10ms-30ms"}, &bytes.Buffer{})
	if err != nil || !c.Chaos.Enabled || c.Chaos.Drop != 0.5 || c.Chaos.Resend != 0 || c.Rate != 4 || !c.Think.Ranged {
		t.Errorf("sub-option alone: %+v %v", c, err)
	}
	var stderr bytes.Buffer
	if code := run(context.Background(), []string{"--url", "http://192.0.2.10:8080"}, &stderr, &stderr); code != 2 {
		t.Errorf("non-loopback URL: status %d", code)
	}
}

func TestThinkDistributions(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	for _, c := range []struct {
		spec     string
		mean     time.Duration
		lo, hi   time.Duration
		wantMean time.Duration
	}{
		{"fixed:10ms", -1, 10 * time.Millisecond, 10 * time.Millisecond, 10 * time.Millisecond},
		{"uniform:10ms", -1, 5 * time.Millisecond, 15 * time.Millisecond, 10 * time.Millisecond},
		{"uniform:2ms-4ms", -1, 2 * time.Millisecond, 4 * time.Millisecond, 3 * time.Millisecond},
		{"exp:10ms", -1, 0, 200 * time.Millisecond, 10 * time.Millisecond},
		{"uniform", 100 * time.Millisecond, 50 * time.Millisecond, 150 * time.Millisecond, 100 * time.Millisecond},
		{"none", -1, 0, 0, 0},
	} {
		d, err := parseDist(c.spec)
		if err != nil {
			t.Fatal(err)
		}
		var sum time.Duration
		const n = 4000
		for range n {
			x := d.draw(r, c.mean)
			if x < c.lo || x > c.hi {
				t.Fatalf("%s: %v outside [%v, %v]", c.spec, x, c.lo, c.hi)
			}
			sum += x
		}
		if got := sum / n; got < c.wantMean*9/10 || got > c.wantMean*11/10+time.Microsecond {
			t.Errorf("%s: mean %v, want about %v", c.spec, got, c.wantMean)
		}
	}
}

func TestNoServer(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	var out bytes.Buffer
	if code := run(context.Background(), []string{"--url", "http://" + addr, "--duration", "1s", "--progress", "0"}, &out, &out); code != 1 {
		t.Fatalf("no server: status %d: %s", code, out.String())
	}
}

// TestSeedFinderSecret: a secret seed's hex digits are found in a frame
// whatever their case, and a frame without them passes, whether or not it
// has capitals elsewhere.
func TestSeedFinderSecret(t *testing.T) {
	t.Parallel()
	const hex = "0a1b2c3d4e5f60718293a4b5c6d7e8f9"
	find := seedFinder(json.RawMessage(`"` + hex + `"`))
	for frame, want := range map[string]bool{
		`{"type":"update","beats":[]}`:                     false,
		`{"type":"update","room":{"code":"ABCD"}}`:         false,
		`{"x":"` + hex + `"}`:                              true,
		`{"x":"` + strings.ToUpper(hex) + `","code":"QX"}`: true,
		`{"x":"0A1b2C3d4E5f60718293a4B5c6D7e8F9","c":"Z"}`: true,
		`{"x":"0a1b2c3d4e5f60718293a4b5c6d7e8f","c":"Z"}`:  false,
	} {
		if got := find([]byte(frame)) != ""; got != want {
			t.Errorf("%s: found %v, want %v", frame, got, want)
		}
	}
	// A secret of letters only has no digits to look for first.
	letters := seedFinder(json.RawMessage(`"abcdefabcdefabcd"`))
	for frame, want := range map[string]bool{
		`{"x":"ABCDEFABCDEFABCD"}`: true,
		`{"x":"abcdefabcdefabc"}`:  false,
	} {
		if got := letters([]byte(frame)) != ""; got != want {
			t.Errorf("%s: found %v, want %v", frame, got, want)
		}
	}
}
