package webhook

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"
	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/goleak"

	"github.com/roomd/roomd/protocol"
	"github.com/roomd/roomd/store"
	"github.com/roomd/roomd/store/memstore"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var secret = []byte("s3cret-for-tests")

// fakeOutbox is an in-memory store.Outbox with injectable failures.
type fakeOutbox struct {
	mu        sync.Mutex
	events    map[string]store.Event
	acked     []string
	retries   []retryCall
	dueCalls  int
	failDue   int // the next failDue calls of Due fail
	failAck   int
	failRetry int
}

type retryCall struct {
	id       string
	attempts int
	due      int64
}

func newFakeOutbox() *fakeOutbox { return &fakeOutbox{events: map[string]store.Event{}} }

func (f *fakeOutbox) Enqueue(_ context.Context, events []store.Event) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, e := range events {
		f.events[e.ID] = e
	}
	return 0, nil
}

func (f *fakeOutbox) AppendWith(ctx context.Context, _ store.Lease, _ []store.Entry, events []store.Event) (int, error) {
	return f.Enqueue(ctx, events)
}

func (f *fakeOutbox) Due(_ context.Context, now int64, limit int) ([]store.Event, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.dueCalls++
	if f.failDue > 0 {
		f.failDue--
		return nil, errors.New("fake: Due failed")
	}
	var due []store.Event
	for _, e := range f.events {
		if e.Due <= now {
			due = append(due, e)
		}
	}
	slices.SortFunc(due, func(a, b store.Event) int {
		if a.Due != b.Due {
			return int(a.Due - b.Due)
		}
		return strings.Compare(a.ID, b.ID)
	})
	if len(due) > limit {
		due = due[:limit]
	}
	return due, nil
}

func (f *fakeOutbox) Retry(_ context.Context, id string, attempts int, due int64) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.failRetry > 0 {
		f.failRetry--
		return errors.New("fake: Retry failed")
	}
	f.retries = append(f.retries, retryCall{id, attempts, due})
	if e, ok := f.events[id]; ok {
		e.Attempts, e.Due = attempts, due
		f.events[id] = e
	}
	return nil
}

func (f *fakeOutbox) Ack(_ context.Context, ids []string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.failAck > 0 {
		f.failAck--
		return errors.New("fake: Ack failed")
	}
	for _, id := range ids {
		delete(f.events, id)
		f.acked = append(f.acked, id)
	}
	return nil
}

func (f *fakeOutbox) pending() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.events)
}

func (f *fakeOutbox) ackedIDs() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.acked)
}

func (f *fakeOutbox) retryCalls() []retryCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.retries)
}

func (f *fakeOutbox) dues() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.dueCalls
}

// request is what a receiver got.
type request struct {
	header http.Header
	body   []byte
}

// receiver records requests; status picks the answer to the n-th (from 1).
type receiver struct {
	mu     sync.Mutex
	reqs   []request
	status func(n int) int
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	rc.mu.Lock()
	rc.reqs = append(rc.reqs, request{r.Header.Clone(), body})
	n := len(rc.reqs)
	rc.mu.Unlock()
	code := http.StatusOK
	if rc.status != nil {
		code = rc.status(n)
	}
	w.WriteHeader(code)
	fmt.Fprintln(w, "ok or not")
}

func (rc *receiver) got() []request {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return slices.Clone(rc.reqs)
}

func newReceiver(t *testing.T, status func(n int) int) (*receiver, *httptest.Server) {
	t.Helper()
	rc := &receiver{status: status}
	srv := httptest.NewServer(rc)
	t.Cleanup(srv.Close)
	return rc, srv
}

// fast is a Backoff for tests.
func fast(int) time.Duration { return 5 * time.Millisecond }

// start runs a dispatcher for cfg until the test ends.
func start(t *testing.T, cfg Config) *Dispatcher {
	t.Helper()
	if cfg.Secret == nil {
		cfg.Secret = secret
	}
	if cfg.Client == nil {
		tr := &http.Transport{}
		t.Cleanup(tr.CloseIdleConnections)
		cfg.Client = &http.Client{Transport: tr, Timeout: 2 * time.Second}
	}
	d, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() {
		defer close(done)
		d.Run(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Error("Run did not return after its context was cancelled")
		}
	})
	return d
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func mustEvent(t *testing.T, typ, room string, data any) store.Event {
	t.Helper()
	var raw json.RawMessage
	if data != nil {
		var err error
		if raw, err = json.Marshal(data); err != nil {
			t.Fatal(err)
		}
	}
	id := ulid.Make().String()
	at := time.Now().UnixMilli()
	body, err := json.Marshal(protocol.WebhookEvent{ID: id, Type: typ, At: at, Room: room, Game: "nim", Data: raw})
	if err != nil {
		t.Fatal(err)
	}
	return store.Event{ID: id, Data: body, Due: at}
}

func enqueue(t *testing.T, ob store.Outbox, evs ...store.Event) {
	t.Helper()
	if dropped, err := ob.Enqueue(t.Context(), evs); err != nil || dropped != 0 {
		t.Fatalf("Enqueue: dropped %d, %v", dropped, err)
	}
}

// syncBuffer is a log sink safe for concurrent writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func newLogger() (*slog.Logger, *syncBuffer) {
	buf := &syncBuffer{}
	return slog.New(slog.NewTextHandler(buf, &slog.HandlerOptions{Level: slog.LevelDebug})), buf
}

func TestDeliversEachEventOnceSigned(t *testing.T) {
	rc, srv := newReceiver(t, nil)
	ob := newFakeOutbox()
	types := []string{protocol.HookRoomCreated, protocol.HookPlayerJoined, protocol.HookPlayerLeft, protocol.HookMatchStarted, protocol.HookMatchEnded}
	want := map[string]store.Event{}
	for i := range 30 {
		typ := types[i%len(types)]
		var data any
		switch typ {
		case protocol.HookPlayerJoined, protocol.HookPlayerLeft:
			data = protocol.HookSeat{HookPlayer: protocol.HookPlayer{Seat: i % 2, Name: fmt.Sprint("p", i)}}
		case protocol.HookMatchStarted, protocol.HookMatchEnded:
			data = protocol.HookMatch{Match: i}
		}
		ev := mustEvent(t, typ, "K7QXMP", data)
		want[ev.ID] = ev
		enqueue(t, ob, ev)
	}
	reg := prometheus.NewRegistry()
	start(t, Config{URL: srv.URL + "/hook", Outbox: ob, Poll: 10 * time.Millisecond, Batch: 7, Registerer: reg})
	waitFor(t, "every event acked", func() bool { return len(ob.ackedIDs()) == len(want) })
	time.Sleep(30 * time.Millisecond) // a few more polls: nothing may arrive twice

	reqs := rc.got()
	if len(reqs) != len(want) {
		t.Fatalf("receiver got %d requests, want %d", len(reqs), len(want))
	}
	seen := map[string]bool{}
	for _, r := range reqs {
		id := r.header.Get("X-Roomd-Delivery")
		ev, ok := want[id]
		if !ok || seen[id] {
			t.Fatalf("delivery %q unknown or repeated", id)
		}
		seen[id] = true
		if !bytes.Equal(r.body, ev.Data) {
			t.Errorf("%s: body %s, want %s", id, r.body, ev.Data)
		}
		if err := Verify(secret, r.body, r.header.Get("X-Roomd-Signature"), 0, time.Now()); err != nil {
			t.Errorf("%s: bad signature %q", id, r.header.Get("X-Roomd-Signature"))
		}
		var b protocol.WebhookEvent
		if err := json.Unmarshal(r.body, &b); err != nil {
			t.Fatal(err)
		}
		for h, v := range map[string]string{
			"Content-Type":  "application/json",
			"User-Agent":    "roomd-webhook/1",
			"X-Roomd-Event": b.Type,
		} {
			if got := r.header.Get(h); got != v {
				t.Errorf("%s: %s = %q, want %q", id, h, got, v)
			}
		}
		if b.ID != id || b.Room != "K7QXMP" || b.Game != "nim" {
			t.Errorf("body %+v", b)
		}
	}
	if len(ob.retryCalls()) != 0 {
		t.Errorf("retries with a healthy receiver: %v", ob.retryCalls())
	}
	if got := counter(t, reg, "roomd_webhook_delivered_total"); got != float64(len(want)) {
		t.Errorf("delivered counter %v, want %d", got, len(want))
	}
}

func counter(t *testing.T, reg *prometheus.Registry, name string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == name {
			return mf.GetMetric()[0].GetCounter().GetValue()
		}
	}
	t.Fatalf("no metric %s", name)
	return 0
}

func TestRetriesUntil2xx(t *testing.T) {
	rc, srv := newReceiver(t, func(n int) int {
		if n <= 2 {
			return http.StatusInternalServerError
		}
		return http.StatusNoContent
	})
	ob := newFakeOutbox()
	ev := mustEvent(t, protocol.HookMatchEnded, "ROOMAB", map[string]any{"match": 1, "result": json.RawMessage(`{"winner":0}`)})
	enqueue(t, ob, ev)
	reg := prometheus.NewRegistry()
	// Poll is long: the retries are due within milliseconds and must be
	// tried then, not at the next tick.
	start(t, Config{URL: srv.URL, Outbox: ob, Poll: time.Hour, Backoff: fast, Registerer: reg})
	waitFor(t, "the event acked", func() bool { return len(ob.ackedIDs()) == 1 })
	time.Sleep(30 * time.Millisecond)

	reqs := rc.got()
	if len(reqs) != 3 {
		t.Fatalf("receiver got %d requests, want 3", len(reqs))
	}
	for _, r := range reqs {
		if r.header.Get("X-Roomd-Delivery") != ev.ID || !bytes.Equal(r.body, ev.Data) {
			t.Errorf("request %v %s is not the event", r.header, r.body)
		}
	}
	rs := ob.retryCalls()
	if len(rs) != 2 || rs[0].attempts != 1 || rs[1].attempts != 2 || rs[0].id != ev.ID {
		t.Errorf("retries %+v, want attempts 1 then 2 of %s", rs, ev.ID)
	}
	if got := counter(t, reg, "roomd_webhook_failed_attempts_total"); got != 2 {
		t.Errorf("failed counter %v, want 2", got)
	}
}

func TestBackoffSetsDue(t *testing.T) {
	_, srv := newReceiver(t, func(int) int { return http.StatusBadGateway })
	ob := newFakeOutbox()
	ev := mustEvent(t, protocol.HookRoomCreated, "ROOMAB", nil)
	enqueue(t, ob, ev)
	now := time.UnixMilli(time.Now().UnixMilli() + 1000) // a fixed clock, with the event due
	start(t, Config{URL: srv.URL, Outbox: ob, Poll: time.Hour, Now: func() time.Time { return now },
		Backoff: func(a int) time.Duration { return time.Duration(a) * time.Minute }})
	waitFor(t, "a retry", func() bool { return len(ob.retryCalls()) == 1 })
	if r := ob.retryCalls()[0]; r.attempts != 1 || r.due != now.Add(time.Minute).UnixMilli() {
		t.Errorf("retry %+v, want attempts 1 due now+1m", r)
	}
}

func TestReceiverDownThenUp(t *testing.T) {
	// An address nothing listens on: take a port and close it.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()

	ob := newFakeOutbox()
	ev := mustEvent(t, protocol.HookPlayerJoined, "ROOMAB", protocol.HookSeat{HookPlayer: protocol.HookPlayer{Seat: 1, Name: "ada"}})
	enqueue(t, ob, ev)
	start(t, Config{URL: "http://" + addr + "/hook", Outbox: ob, Poll: 5 * time.Millisecond, Backoff: fast})
	waitFor(t, "two failed attempts", func() bool { return len(ob.retryCalls()) >= 2 })
	if n := len(ob.ackedIDs()); n != 0 {
		t.Fatalf("%d events acked while the receiver was down", n)
	}

	// The receiver comes up on the same address.
	var l2 net.Listener
	for range 50 {
		if l2, err = net.Listen("tcp", addr); err == nil {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("listening on %s again: %v", addr, err)
	}
	rc := &receiver{}
	srv := httptest.NewUnstartedServer(rc)
	srv.Listener.Close()
	srv.Listener = l2
	srv.Start()
	t.Cleanup(srv.Close)

	waitFor(t, "the event acked", func() bool { return len(ob.ackedIDs()) == 1 })
	reqs := rc.got()
	if len(reqs) != 1 || reqs[0].header.Get("X-Roomd-Delivery") != ev.ID ||
		Verify(secret, reqs[0].body, reqs[0].header.Get("X-Roomd-Signature"), 0, time.Now()) != nil {
		t.Fatalf("receiver got %d requests (%v), want the event once, signed", len(reqs), reqs)
	}
}

func TestMaxAttemptsDrops(t *testing.T) {
	rc, srv := newReceiver(t, func(int) int { return http.StatusServiceUnavailable })
	ob := newFakeOutbox()
	ev := mustEvent(t, protocol.HookPlayerLeft, "ROOMAB", protocol.HookSeat{HookPlayer: protocol.HookPlayer{Seat: 0, Name: "bo"}})
	enqueue(t, ob, ev)
	log, buf := newLogger()
	reg := prometheus.NewRegistry()
	start(t, Config{URL: srv.URL, Outbox: ob, Poll: 5 * time.Millisecond, Backoff: fast, MaxAttempts: 3,
		Logger: log, Registerer: reg})
	waitFor(t, "the event dropped", func() bool { return len(ob.ackedIDs()) == 1 })
	time.Sleep(30 * time.Millisecond)

	if n := len(rc.got()); n != 3 {
		t.Errorf("receiver got %d requests, want 3", n)
	}
	if n := len(ob.retryCalls()); n != 2 {
		t.Errorf("%d retries recorded, want 2", n)
	}
	var dropLine string
	for line := range strings.Lines(buf.String()) {
		if strings.Contains(line, "level=ERROR") && strings.Contains(line, "dropping") {
			dropLine = line
		}
	}
	if !strings.Contains(dropLine, ev.ID) || !strings.Contains(dropLine, protocol.HookPlayerLeft) {
		t.Errorf("no error log naming the dropped event %s (%s); log:\n%s", ev.ID, protocol.HookPlayerLeft, buf)
	}
	if got := counter(t, reg, "roomd_webhook_dropped_total"); got != 1 {
		t.Errorf("dropped counter %v, want 1", got)
	}
}

// TestSignVerify: a signature carries its time and the HMAC of
// "t.body"; Verify takes it within the tolerance, and refuses a tampered
// body or time, another secret, a malformed header, and a delivery
// replayed after the tolerance (or stamped too far ahead).
func TestSignVerify(t *testing.T) {
	body := []byte(`{"id":"01H","type":"room.created"}`)
	at := time.Unix(1750000000, 0)
	sig := Sign(secret, body, at)
	if !strings.HasPrefix(sig, "t=1750000000,v1=") || len(sig) != len("t=1750000000,v1=")+64 {
		t.Fatalf("signature %q", sig)
	}
	// A known answer: HMAC-SHA256 of "1750000000." and the body, keyed
	// "Jefe" (computed apart: printf '1750000000.what do ya want for
	// nothing?' | openssl dgst -sha256 -hmac Jefe).
	if got := Sign([]byte("Jefe"), []byte("what do ya want for nothing?"), at); got !=
		"t=1750000000,v1=506036c2a6cd0a56bfbc53812d4606af2739d4d00afe61b4372e8506441ac008" {
		t.Errorf("Sign: %s", got)
	}
	if err := Verify(secret, body, sig, time.Minute, at.Add(59*time.Second)); err != nil {
		t.Errorf("a signature 59 s old, tolerance 1 min: %v", err)
	}
	if err := Verify(secret, body, "v1=00,"+sig, 0, at); err != nil {
		t.Errorf("one of several v1 matching: %v", err)
	}
	tampered := bytes.Replace(body, []byte("created"), []byte("deleted"), 1)
	moved := strings.Replace(sig, "t=1750000000", "t=1750000100", 1)
	for name, c := range map[string]struct {
		secret, body []byte
		header       string
		now          time.Time
		want         error
	}{
		"tampered body":        {secret, tampered, sig, at, ErrSignature},
		"another time":         {secret, body, moved, at.Add(100 * time.Second), ErrSignature},
		"wrong secret":         {[]byte("other"), body, sig, at, ErrSignature},
		"empty secret":         {nil, body, Sign(nil, body, at), at, ErrSignature},
		"replayed 6 min later": {secret, body, sig, at.Add(6 * time.Minute), ErrExpired},
		"stamped 6 min ahead":  {secret, body, sig, at.Add(-6 * time.Minute), ErrExpired},
		"the old form":         {secret, body, "sha256=" + hmacHex(string(secret), string(body)), at, ErrMalformed},
		"no v1":                {secret, body, "t=1750000000", at, ErrMalformed},
		"not hex":              {secret, body, "t=1750000000,v1=zz", at, ErrMalformed},
		"no time":              {secret, body, sig[len("t=1750000000,"):], at, ErrMalformed},
		"empty":                {secret, body, "", at, ErrMalformed},
	} {
		if err := Verify(c.secret, c.body, c.header, 0, c.now); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", name, err, c.want)
		}
	}
}

func hmacHex(key, msg string) string {
	m := hmac.New(sha256.New, []byte(key))
	m.Write([]byte(msg))
	return hex.EncodeToString(m.Sum(nil))
}

func TestWakeDeliversPromptly(t *testing.T) {
	rc, srv := newReceiver(t, nil)
	ob := newFakeOutbox()
	d := start(t, Config{URL: srv.URL, Outbox: ob, Poll: time.Hour})
	waitFor(t, "the first poll", func() bool { return ob.dues() >= 1 })

	ev := mustEvent(t, protocol.HookRoomCreated, "ROOMAB", nil)
	enqueue(t, ob, ev)
	time.Sleep(100 * time.Millisecond)
	if n := len(rc.got()); n != 0 {
		t.Fatalf("delivered %d events before Wake with a 1 h poll", n)
	}
	woke := time.Now()
	d.Wake()
	d.Wake() // never blocks
	waitFor(t, "the event delivered", func() bool { return len(ob.ackedIDs()) == 1 })
	if took := time.Since(woke); took > time.Second {
		t.Errorf("delivery took %v after Wake", took)
	}
}

func TestRunStopsWithoutLeaks(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())

	entered := make(chan struct{}, 8)
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body) // (the server notices a closed connection only once the body is read)
		entered <- struct{}{}
		select { // hang until the client gives up
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer func() { // before goleak's check
		close(release)
		srv.Close()
	}()
	tr := &http.Transport{}
	var active atomic.Int32
	ob := newFakeOutbox()
	ev := mustEvent(t, protocol.HookMatchStarted, "ROOMAB", protocol.HookMatch{Match: 1})
	enqueue(t, ob, ev)
	d, err := New(Config{URL: srv.URL, Secret: secret, Outbox: ob, Parallel: 2, Poll: 5 * time.Millisecond,
		Client: &http.Client{Transport: slowStop{tr, &active}, Timeout: time.Minute}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() {
		defer close(done)
		d.Run(ctx)
	}()
	<-entered // a delivery is in flight
	cancel()
	select {
	case <-done:
	case <-time.After(3 * time.Second):
		t.Fatal("Run did not return after cancel")
	}
	// A delivery cut short by the stop is no attempt: the event stays as it
	// was, to be sent by the next run.
	if ob.pending() != 1 || len(ob.retryCalls()) != 0 || len(ob.ackedIDs()) != 0 {
		t.Errorf("after stop: pending %d, retries %v, acked %v", ob.pending(), ob.retryCalls(), ob.ackedIDs())
	}
	if n := active.Load(); n != 0 {
		t.Errorf("Run returned with %d deliveries still running", n)
	}
	tr.CloseIdleConnections()
}

// slowStop is a RoundTripper that takes a while to give up a cancelled
// request, counting the calls under way.
type slowStop struct {
	rt     http.RoundTripper
	active *atomic.Int32
}

func (s slowStop) RoundTrip(r *http.Request) (*http.Response, error) {
	s.active.Add(1)
	defer s.active.Add(-1)
	resp, err := s.rt.RoundTrip(r)
	if r.Context().Err() != nil {
		time.Sleep(50 * time.Millisecond)
	}
	return resp, err
}

func TestStoreErrorsAreRetried(t *testing.T) {
	rc, srv := newReceiver(t, func(n int) int {
		if n == 1 {
			return http.StatusInternalServerError
		}
		return http.StatusOK
	})
	ob := newFakeOutbox()
	ob.failDue, ob.failRetry, ob.failAck = 2, 1, 1
	ev := mustEvent(t, protocol.HookRoomCreated, "ROOMAB", nil)
	enqueue(t, ob, ev)
	log, buf := newLogger()
	start(t, Config{URL: srv.URL, Outbox: ob, Poll: 5 * time.Millisecond, Backoff: fast, Logger: log})
	waitFor(t, "the event acked", func() bool { return len(ob.ackedIDs()) == 1 })
	// Request 1 fails and its Retry fails (the event stays due); request 2
	// succeeds but its Ack fails (so it is sent again); request 3 is acked.
	if n := len(rc.got()); n != 3 {
		t.Errorf("receiver got %d requests, want 3", n)
	}
	for _, msg := range []string{"reading the outbox", "recording a failed delivery", "acknowledging a delivered event"} {
		if !strings.Contains(buf.String(), msg) {
			t.Errorf("no log %q; log:\n%s", msg, buf)
		}
	}
}

func TestParallelBound(t *testing.T) {
	var cur, peak atomic.Int32
	var mu sync.Mutex
	seen := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := cur.Add(1)
		defer cur.Add(-1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		mu.Lock()
		seen[r.Header.Get("X-Roomd-Delivery")]++
		mu.Unlock()
		time.Sleep(20 * time.Millisecond)
	}))
	t.Cleanup(srv.Close)
	ob := newFakeOutbox()
	for range 24 {
		enqueue(t, ob, mustEvent(t, protocol.HookRoomCreated, "ROOMAB", nil))
	}
	start(t, Config{URL: srv.URL, Outbox: ob, Poll: time.Hour, Parallel: 3, Batch: 5})
	waitFor(t, "every event acked", func() bool { return len(ob.ackedIDs()) == 24 })
	if p := peak.Load(); p != 3 {
		t.Errorf("peak of %d deliveries in flight, want 3", p)
	}
	mu.Lock()
	defer mu.Unlock()
	for id, n := range seen {
		if n != 1 {
			t.Errorf("%s delivered %d times", id, n)
		}
	}
	if len(seen) != 24 {
		t.Errorf("%d distinct events delivered, want 24", len(seen))
	}
}

func TestNewConfigErrors(t *testing.T) {
	ob := newFakeOutbox()
	for name, cfg := range map[string]Config{
		"no URL":        {Secret: secret, Outbox: ob},
		"ftp":           {URL: "ftp://example.com/hook", Secret: secret, Outbox: ob},
		"no scheme":     {URL: "example.com/hook", Secret: secret, Outbox: ob},
		"no host":       {URL: "http:///hook", Secret: secret, Outbox: ob},
		"bad URL":       {URL: "http://[::1/", Secret: secret, Outbox: ob},
		"no secret":     {URL: "https://example.com/hook", Outbox: ob},
		"empty secret":  {URL: "https://example.com/hook", Secret: []byte{}, Outbox: ob},
		"no outbox":     {URL: "https://example.com/hook", Secret: secret},
		"negative poll": {URL: "https://example.com/hook", Secret: secret, Outbox: ob, Poll: -1},
	} {
		if d, err := New(cfg); err == nil || d != nil {
			t.Errorf("%s: New = %v, %v; want an error", name, d, err)
		}
	}
	for _, u := range []string{"http://example.com/hook", "https://example.com:8443/h?x=1"} {
		d, err := New(Config{URL: u, Secret: secret, Outbox: ob})
		if err != nil {
			t.Fatalf("%s: %v", u, err)
		}
		if d.poll != DefaultPoll || d.maxAttempts != DefaultMaxAttempts || d.batch != DefaultBatch ||
			d.parallel != DefaultParallel || d.client.Timeout != DefaultTimeout {
			t.Errorf("defaults not applied: %+v", d)
		}
	}
	// Registering the counters twice on one registry is an error, not a panic.
	reg := prometheus.NewRegistry()
	if _, err := New(Config{URL: "http://x", Secret: secret, Outbox: ob, Registerer: reg}); err != nil {
		t.Fatal(err)
	}
	if _, err := New(Config{URL: "http://x", Secret: secret, Outbox: ob, Registerer: reg}); err == nil {
		t.Error("second registration: no error")
	}
}

func TestDefaultBackoff(t *testing.T) {
	for attempt, base := range map[int]time.Duration{
		1: time.Second, 2: 2 * time.Second, 3: 4 * time.Second, 9: 256 * time.Second,
		10: BackoffCap, 24: BackoffCap, 1000: BackoffCap,
	} {
		for range 50 {
			d := DefaultBackoff(attempt)
			if d < base*4/5 || d > base*6/5 {
				t.Fatalf("DefaultBackoff(%d) = %v, want %v ± 20%%", attempt, d, base)
			}
		}
	}
	distinct := map[time.Duration]bool{}
	for range 20 {
		distinct[DefaultBackoff(5)] = true
	}
	if len(distinct) < 2 {
		t.Error("no jitter")
	}
}

// TestMemstoreOutbox runs the dispatcher on the real in-memory outbox.
func TestMemstoreOutbox(t *testing.T) {
	rc, srv := newReceiver(t, func(n int) int {
		if n == 1 {
			return http.StatusInternalServerError
		}
		return http.StatusOK
	})
	ob := memstore.New()
	t.Cleanup(func() { ob.Close() })
	var want []string
	for i := range 10 {
		ev := mustEvent(t, protocol.HookPlayerJoined, "K7QXMP", protocol.HookSeat{HookPlayer: protocol.HookPlayer{Seat: i, Name: fmt.Sprint("p", i)}})
		want = append(want, ev.ID)
		enqueue(t, ob, ev)
	}
	start(t, Config{URL: srv.URL, Outbox: ob, Poll: 5 * time.Millisecond, Backoff: fast, Batch: 3})
	far := time.Now().Add(time.Hour).UnixMilli()
	waitFor(t, "the outbox emptied", func() bool {
		left, err := ob.Due(t.Context(), far, 0)
		return err == nil && len(left) == 0
	})
	reqs := rc.got()
	if len(reqs) != len(want)+1 {
		t.Errorf("receiver got %d requests, want %d (one failed and retried)", len(reqs), len(want)+1)
	}
	got := map[string]bool{}
	for _, r := range reqs {
		if err := Verify(secret, r.body, r.header.Get("X-Roomd-Signature"), 0, time.Now()); err != nil {
			t.Errorf("bad signature on %s", r.body)
		}
		got[r.header.Get("X-Roomd-Delivery")] = true
	}
	for _, id := range want {
		if !got[id] {
			t.Errorf("event %s never delivered", id)
		}
	}
}

// TestLocalHandlers: events of a type with a handler are handed to it in
// this process, never POSTed; a failing handler is retried with backoff
// past MaxAttempts (a store outage must not drop a score) and the event is
// acknowledged once it succeeds; without a URL the dispatcher runs the
// handlers alone, and drops, with a warning, an event nothing takes.
func TestLocalHandlers(t *testing.T) {
	rc, srv := newReceiver(t, nil)
	ob := newFakeOutbox()
	hook := mustEvent(t, protocol.HookMatchEnded, "K7QXMP", protocol.HookMatch{Match: 1})
	local := mustEvent(t, "roomd.scores", "K7QXMP", map[string]int{"match": 1})
	enqueue(t, ob, hook)
	enqueue(t, ob, local)
	var (
		mu    sync.Mutex
		calls int
	)
	handler := func(_ context.Context, ev store.Event) error {
		mu.Lock()
		defer mu.Unlock()
		calls++
		if ev.ID != local.ID {
			t.Errorf("the handler got event %s, not the local one", ev.ID)
		}
		if calls <= 5 {
			return errors.New("the store is down")
		}
		return nil
	}
	reg := prometheus.NewRegistry()
	start(t, Config{URL: srv.URL, Outbox: ob, Poll: 5 * time.Millisecond, Backoff: fast, MaxAttempts: 2, Registerer: reg,
		Handlers: map[string]Handler{"roomd.scores": handler}})
	waitFor(t, "both events acknowledged", func() bool { return len(ob.ackedIDs()) == 2 })
	mu.Lock()
	if calls != 6 {
		t.Errorf("the handler ran %d times, want 6 (5 failures past MaxAttempts 2, then a success)", calls)
	}
	mu.Unlock()
	for _, r := range rc.got() {
		if r.header.Get("X-Roomd-Delivery") == local.ID {
			t.Fatal("a local event was POSTed to the webhook receiver")
		}
	}
	if n := len(rc.got()); n != 1 {
		t.Fatalf("the receiver got %d requests, want the one webhook event", n)
	}
	if got := counterOf(t, reg, "roomd_outbox_handler_failures_total", "roomd.scores"); got != 5 {
		t.Errorf("roomd_outbox_handler_failures_total = %v, want 5", got)
	}

	// No URL: the handlers run, a webhook event is dropped with a warning.
	ob2 := newFakeOutbox()
	enqueue(t, ob2, mustEvent(t, protocol.HookRoomCreated, "K7QXMP", nil))
	other := mustEvent(t, "roomd.scores", "K7QXMP", nil)
	enqueue(t, ob2, other)
	var logs syncBuffer
	var handled atomic.Int32
	start(t, Config{Outbox: ob2, Poll: 5 * time.Millisecond, Logger: slog.New(slog.NewTextHandler(&logs, nil)),
		Handlers: map[string]Handler{"roomd.scores": func(context.Context, store.Event) error { handled.Add(1); return nil }}})
	waitFor(t, "both events gone", func() bool { return ob2.pending() == 0 })
	if handled.Load() != 1 || !strings.Contains(logs.String(), "no handler, and webhooks are off: dropped") {
		t.Fatalf("without a URL: %d handled, log %s", handled.Load(), logs.String())
	}
}

func counterOf(t *testing.T, reg *prometheus.Registry, name, label string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == name {
			for _, m := range mf.GetMetric() {
				if len(m.GetLabel()) == 1 && m.GetLabel()[0].GetValue() == label {
					return m.GetCounter().GetValue()
				}
			}
		}
	}
	t.Fatalf("no metric %s{%s}", name, label)
	return 0
}
