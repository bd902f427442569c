// Package webhook delivers roomd's events (a room created, a player joined
// or left, a match started or ended) to the backend of the site that embeds
// roomd, as signed HTTP POSTs.
//
// Events are not sent from the room: the room layer enqueues them in a
// durable room.Outbox (in the same atomic write as the room's entries, with
// AppendWith) and a Dispatcher, running beside the rooms, takes due events
// from the outbox and POSTs them. A room never waits for a receiver.
//
// # Delivery
//
// Each event is POSTed to the configured URL with its JSON Body and these
// headers:
//
//	Content-Type:      application/json
//	User-Agent:        roomd-webhook/1
//	X-Roomd-Event:     the event's type, e.g. player.joined
//	X-Roomd-Delivery:  the event's id (a ULID; the same as "id" in the body)
//	X-Roomd-Signature: t=<Unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>", keyed by the secret>
//
// A 2xx answer acknowledges the event and it leaves the outbox. Anything
// else — another status (redirects are not followed by the default client),
// a timeout, a refused connection — is a failed attempt: the event is tried
// again after a backoff (by default 1 s doubling to a 5 min cap, with
// jitter), and after MaxAttempts failed attempts it is dropped with an error
// log naming it.
//
// # At least once
//
// Delivery is at least once, not exactly once: an event may arrive more than
// once, for instance when roomd stops after the receiver answered and before
// the outbox recorded it, or when the receiver's 2xx answer is lost.
// Receivers must deduplicate by the event id (X-Roomd-Delivery, or "id" in
// the body), and should check the signature with Verify (or its equivalent:
// an HMAC-SHA256 of "<t>.<raw body>" compared in constant time, and t
// within a few minutes of their clock, so that a captured delivery cannot
// be replayed later) before trusting a body. Events are sent roughly in the order they became due, but several
// are in flight at once and a retried event arrives after later ones:
// receivers must not rely on order; "at" carries the host time of each
// event.
//
// # Local handlers
//
// The outbox also carries what roomd owes itself beyond a room: a finished
// match's leaderboard results (room.ScoresEvent) and a rated match's
// rating job (room.RatingEvent), each stored with the match's end. An event whose type has a Config.Handlers entry is handed to that
// function in this process, never POSTed: nil acknowledges it, an error is
// a failed attempt retried with the same backoff, and it is never dropped
// (a store outage delays a score, it does not lose it). Without a URL the
// dispatcher runs the handlers only; an event with neither a handler nor a
// URL (a webhook event left from a run with webhooks) is dropped with a
// warning.
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
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/roomd/roomd/room"
)

// SignatureHeader carries the body's signature.
const SignatureHeader = "X-Roomd-Signature"

// DefaultTolerance is how old a signature's time may be, by default, for
// Verify to take it: a delivery captured and replayed later is refused.
const DefaultTolerance = 5 * time.Minute

// Sign returns the signature header value for body sent at t:
// "t=<Unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>", keyed by secret>".
// The time is inside the signed text, so it cannot be changed without the
// secret.
func Sign(secret, body []byte, t time.Time) string {
	ts := strconv.FormatInt(t.Unix(), 10)
	return "t=" + ts + ",v1=" + hex.EncodeToString(mac(secret, ts, body))
}

func mac(secret []byte, ts string, body []byte) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(ts))
	m.Write([]byte{'.'})
	m.Write(body)
	return m.Sum(nil)
}

// Errors of Verify.
var (
	ErrSignature = errors.New("webhook: the signature does not match the body")
	ErrMalformed = errors.New("webhook: the signature header is not t=<unix>,v1=<hex>")
	ErrExpired   = errors.New("webhook: the signature's time is outside the tolerance (a replay, or a clock far off)")
)

// Verify checks header (X-Roomd-Signature) against body as a receiver
// must: the HMAC of "t.body" under secret, compared in constant time (any
// of several v1 values may match, for a secret being rotated), and the
// time t within tolerance of now, either way (zero tolerance means
// DefaultTolerance). An empty secret never verifies. It returns nil, or an
// error saying what was wrong (ErrMalformed, ErrExpired, ErrSignature).
func Verify(secret, body []byte, header string, tolerance time.Duration, now time.Time) error {
	if len(secret) == 0 {
		return ErrSignature
	}
	if tolerance <= 0 {
		tolerance = DefaultTolerance
	}
	var ts string
	var sums [][]byte
	for part := range strings.SplitSeq(header, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		switch {
		case !ok:
			return ErrMalformed
		case k == "t":
			ts = v
		case k == "v1":
			sum, err := hex.DecodeString(v)
			if err != nil {
				return ErrMalformed
			}
			sums = append(sums, sum)
		}
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || len(sums) == 0 {
		return ErrMalformed
	}
	if age := now.Sub(time.Unix(sec, 0)); age > tolerance || age < -tolerance {
		return ErrExpired
	}
	want := mac(secret, ts, body)
	for _, sum := range sums {
		if hmac.Equal(sum, want) {
			return nil
		}
	}
	return ErrSignature
}

// Defaults of Config.
const (
	DefaultTimeout     = 10 * time.Second
	DefaultPoll        = time.Second
	DefaultMaxAttempts = 297
	DefaultBatch       = 64
	DefaultParallel    = 4
)

// Default backoff: BackoffBase doubling per failed attempt up to BackoffCap.
const (
	BackoffBase = time.Second
	BackoffCap  = 5 * time.Minute
)

// maxAnswer is how much of an answer's body is read (and discarded).
const maxAnswer = 64 << 10

// storeTimeout bounds each outbox call. Outbox calls do not inherit Run's
// cancellation, so that a delivery that succeeded is still acknowledged
// when roomd is stopping.
const storeTimeout = 5 * time.Second

// DefaultBackoff is the default Config.Backoff: the wait after attempt
// failed attempts is 1 s doubling per attempt, capped at 5 min, with ±20 %
// jitter. With DefaultMaxAttempts an event is retried for about a day
// (9 waits growing to 256 s, then 287 of 5 min) before it is dropped.
func DefaultBackoff(attempt int) time.Duration {
	d := BackoffCap
	if attempt < 1 {
		attempt = 1
	}
	if attempt <= 20 {
		d = min(BackoffBase<<(attempt-1), BackoffCap)
	}
	return d*4/5 + rand.N(d*2/5+1)
}

// Config configures a Dispatcher.
type Config struct {
	// URL receives the events (--webhook-url): http or https.
	URL string
	// Secret is the HMAC-SHA256 key of the signatures (--webhook-secret);
	// required.
	Secret []byte
	// Outbox holds the events; required.
	Outbox room.Outbox
	// Client sends the requests. Nil means a client with a 10 s timeout
	// that does not follow redirects. A client given here should have a
	// timeout: a request is only cut short by it or by Run's end.
	Client *http.Client
	// Logger logs failures; nil discards.
	Logger *slog.Logger
	// Now is the clock (nil: time.Now).
	Now func() time.Time
	// Poll is how often the outbox is polled when not woken (default 1 s).
	Poll time.Duration
	// Backoff is the wait before the next try after attempt failed
	// attempts (attempt >= 1). Nil means DefaultBackoff.
	Backoff func(attempt int) time.Duration
	// MaxAttempts is how many failed attempts drop an event (default 297: about a day).
	MaxAttempts int
	// Batch is how many events one poll fetches (default 64, at most
	// room.MaxDue).
	Batch int
	// Parallel is how many deliveries are in flight at once (default 4).
	Parallel int
	// Handlers handle events of their types in this process (see Local
	// handlers). A URL, Handlers or both are required.
	Handlers map[string]Handler
	// Registerer, when not nil, gets the counters
	// roomd_webhook_delivered_total, roomd_webhook_failed_attempts_total,
	// roomd_webhook_dropped_total, and roomd_outbox_handled_total and
	// roomd_outbox_handler_failures_total by event type.
	Registerer prometheus.Registerer
}

// Handler handles one event of the outbox in this process; nil
// acknowledges it. It must be idempotent: an event may be handed to it
// more than once.
type Handler func(ctx context.Context, ev room.Event) error

// Dispatcher delivers the outbox's events. Make one with New and start it
// with Run.
type Dispatcher struct {
	url         string
	secret      []byte
	outbox      room.Outbox
	client      *http.Client
	log         *slog.Logger
	now         func() time.Time
	poll        time.Duration
	backoff     func(int) time.Duration
	maxAttempts int
	batch       int
	parallel    int

	handlers map[string]Handler

	wake chan struct{}

	mu       sync.Mutex
	inflight map[string]bool
	soonest  int64 // earliest due (Unix ms) of an event this process retried; 0: none

	delivered, failed, dropped prometheus.Counter
	handled, handlerFailed     *prometheus.CounterVec
}

// New checks cfg and makes a Dispatcher.
func New(cfg Config) (*Dispatcher, error) {
	u, err := url.Parse(cfg.URL)
	switch {
	case cfg.URL == "" && len(cfg.Handlers) == 0:
		return nil, errors.New("webhook: no URL and no handlers")
	case cfg.URL == "":
	case err != nil:
		return nil, fmt.Errorf("webhook: URL: %w", err)
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, fmt.Errorf("webhook: URL %q: scheme must be http or https", cfg.URL)
	case u.Host == "":
		return nil, fmt.Errorf("webhook: URL %q has no host", cfg.URL)
	case cfg.URL != "" && len(cfg.Secret) == 0:
		return nil, errors.New("webhook: a URL needs a secret")
	case cfg.Outbox == nil:
		return nil, errors.New("webhook: no outbox")
	case cfg.Poll < 0, cfg.MaxAttempts < 0, cfg.Batch < 0, cfg.Parallel < 0:
		return nil, errors.New("webhook: negative Poll, MaxAttempts, Batch or Parallel")
	}
	if cfg.URL == "" {
		u = nil
	}
	d := &Dispatcher{
		handlers:    cfg.Handlers,
		secret:      bytes.Clone(cfg.Secret),
		outbox:      cfg.Outbox,
		client:      cfg.Client,
		log:         cfg.Logger,
		now:         cfg.Now,
		poll:        cmp(cfg.Poll, DefaultPoll),
		backoff:     cfg.Backoff,
		maxAttempts: cmp(cfg.MaxAttempts, DefaultMaxAttempts),
		batch:       min(cmp(cfg.Batch, DefaultBatch), room.MaxDue),
		parallel:    cmp(cfg.Parallel, DefaultParallel),
		wake:        make(chan struct{}, 1),
		inflight:    make(map[string]bool),
	}
	if u != nil {
		d.url = u.String()
	}
	if d.client == nil {
		d.client = &http.Client{
			Timeout: DefaultTimeout,
			CheckRedirect: func(*http.Request, []*http.Request) error {
				return http.ErrUseLastResponse
			},
		}
	}
	if d.log == nil {
		d.log = slog.New(slog.DiscardHandler)
	}
	if d.now == nil {
		d.now = time.Now
	}
	if d.backoff == nil {
		d.backoff = DefaultBackoff
	}
	if cfg.Registerer != nil {
		d.delivered = prometheus.NewCounter(prometheus.CounterOpts{Name: "roomd_webhook_delivered_total",
			Help: "Webhook events delivered (answered 2xx)."})
		d.failed = prometheus.NewCounter(prometheus.CounterOpts{Name: "roomd_webhook_failed_attempts_total",
			Help: "Webhook deliveries that failed (non-2xx, timeout, unreachable) and are retried or dropped."})
		d.dropped = prometheus.NewCounter(prometheus.CounterOpts{Name: "roomd_webhook_dropped_total",
			Help: "Webhook events dropped after their last attempt failed."})
		d.handled = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "roomd_outbox_handled_total",
			Help: "Outbox events handled in this process (a match's leaderboard results), by event type."}, []string{"type"})
		d.handlerFailed = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "roomd_outbox_handler_failures_total",
			Help: "Outbox events whose handler failed (a store outage); each is retried, never dropped."}, []string{"type"})
		for _, c := range []prometheus.Collector{d.delivered, d.failed, d.dropped, d.handled, d.handlerFailed} {
			if err := cfg.Registerer.Register(c); err != nil {
				return nil, fmt.Errorf("webhook: metrics: %w", err)
			}
		}
	}
	return d, nil
}

// cmp returns v, or def when v is zero.
func cmp[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

func inc(c prometheus.Counter) {
	if c != nil {
		c.Inc()
	}
}

// Wake tells the dispatcher that an event was enqueued, so that it polls the
// outbox now rather than at its next tick. It never blocks.
func (d *Dispatcher) Wake() {
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

// Run delivers events until ctx is done, then returns once every goroutine
// it started has stopped. Deliveries cut short by ctx are not counted as
// attempts: those events stay due and are sent by the next Run. Run must not
// be called twice at once on one Dispatcher.
func (d *Dispatcher) Run(ctx context.Context) {
	var wg sync.WaitGroup
	defer wg.Wait()
	sem := make(chan struct{}, d.parallel)
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		full := d.pollOnce(ctx, &wg, sem)
		if ctx.Err() != nil {
			return
		}
		if full {
			// There may be more due events than one batch: fetch the
			// next at once (pollOnce waited for free slots already).
			continue
		}
		timer.Reset(d.untilNextPoll())
		select {
		case <-ctx.Done():
			return
		case <-d.wake:
		case <-timer.C:
		}
		timer.Stop()
	}
}

// untilNextPoll is Poll, or less when an event this process retried is due
// sooner.
func (d *Dispatcher) untilNextPoll() time.Duration {
	wait := d.poll
	d.mu.Lock()
	soonest := d.soonest
	d.mu.Unlock()
	if soonest != 0 {
		until := time.Duration(soonest-d.now().UnixMilli()) * time.Millisecond
		wait = max(min(wait, until), 0)
	}
	return wait
}

// pollOnce fetches due events and starts a delivery of each that is not in
// flight already, waiting for free slots. It reports whether the outbox
// returned a full batch.
func (d *Dispatcher) pollOnce(ctx context.Context, wg *sync.WaitGroup, sem chan struct{}) (full bool) {
	now := d.now().UnixMilli()
	d.mu.Lock()
	// An event in flight now may finish (and be acknowledged) while Due
	// runs and still be in its answer: skip every event in flight before
	// the call as well as after it.
	before := make(map[string]bool, len(d.inflight))
	for id := range d.inflight {
		before[id] = true
	}
	if d.soonest != 0 && d.soonest <= now {
		d.soonest = 0
	}
	d.mu.Unlock()

	limit := min(d.batch+len(before), room.MaxDue)
	sctx, cancel := d.storeContext(ctx)
	events, err := d.outbox.Due(sctx, now, limit)
	cancel()
	if err != nil {
		d.log.Error("webhook: reading the outbox", "err", err)
		return false
	}
	launched := 0
	for _, ev := range events {
		if before[ev.ID] {
			continue
		}
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			return false
		}
		d.mu.Lock()
		if d.inflight[ev.ID] {
			d.mu.Unlock()
			<-sem
			continue
		}
		d.inflight[ev.ID] = true
		d.mu.Unlock()
		launched++
		wg.Go(func() {
			defer func() {
				d.mu.Lock()
				delete(d.inflight, ev.ID)
				d.mu.Unlock()
				<-sem
			}()
			d.deliver(ctx, ev)
		})
	}
	return len(events) >= limit && launched > 0
}

func (d *Dispatcher) storeContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), storeTimeout)
}

// deliver sends one event and records the outcome in the outbox.
func (d *Dispatcher) deliver(ctx context.Context, ev room.Event) {
	var head struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(ev.Data, &head); err != nil {
		d.log.Warn("webhook: event is not a JSON object; sending it as it is", "event", ev.ID, "err", err)
	}
	if h, ok := d.handlers[head.Type]; ok {
		d.handle(ctx, ev, head.Type, h)
		return
	}
	if d.url == "" {
		inc(d.dropped)
		d.log.Warn("outbox: an event of a type with no handler, and webhooks are off: dropped", "event", ev.ID, "type", head.Type)
		sctx, cancel := d.storeContext(ctx)
		defer cancel()
		if err := d.outbox.Ack(sctx, []string{ev.ID}); err != nil {
			d.log.Error("outbox: removing a dropped event", "event", ev.ID, "type", head.Type, "err", err)
		}
		return
	}
	err := d.post(ctx, ev, head.Type)
	if err != nil && ctx.Err() != nil {
		// Stopping: this was no attempt of the receiver's; leave the event
		// due for the next run.
		return
	}
	sctx, cancel := d.storeContext(ctx)
	defer cancel()
	if err == nil {
		inc(d.delivered)
		if err := d.outbox.Ack(sctx, []string{ev.ID}); err != nil {
			d.log.Error("webhook: acknowledging a delivered event (it will be sent again)",
				"event", ev.ID, "type", head.Type, "err", err)
		}
		return
	}
	inc(d.failed)
	attempts := ev.Attempts + 1
	if attempts >= d.maxAttempts {
		inc(d.dropped)
		d.log.Error("webhook: dropping event after its last attempt failed",
			"event", ev.ID, "type", head.Type, "attempts", attempts, "err", err)
		if err := d.outbox.Ack(sctx, []string{ev.ID}); err != nil {
			d.log.Error("webhook: removing a dropped event", "event", ev.ID, "type", head.Type, "err", err)
		}
		return
	}
	d.log.Warn("webhook: delivery failed; will retry",
		"event", ev.ID, "type", head.Type, "attempts", attempts, "err", err)
	d.retry(sctx, ev, head.Type, attempts)
}

// handle runs a local handler on ev: acknowledged when it succeeds,
// retried with backoff when it fails, never dropped.
func (d *Dispatcher) handle(ctx context.Context, ev room.Event, typ string, h Handler) {
	hctx, hcancel := d.storeContext(ctx)
	err := h(hctx, ev)
	hcancel()
	sctx, cancel := d.storeContext(ctx)
	defer cancel()
	if err == nil {
		if d.handled != nil {
			d.handled.WithLabelValues(typ).Inc()
		}
		if err := d.outbox.Ack(sctx, []string{ev.ID}); err != nil {
			d.log.Error("outbox: acknowledging a handled event (it will be handled again)", "event", ev.ID, "type", typ, "err", err)
		}
		return
	}
	if d.handlerFailed != nil {
		d.handlerFailed.WithLabelValues(typ).Inc()
	}
	attempts := ev.Attempts + 1
	d.log.Warn("outbox: handling an event failed; will retry", "event", ev.ID, "type", typ, "attempts", attempts, "err", err)
	d.retry(sctx, ev, typ, attempts)
}

// localBackoffCap caps the wait between a local handler's attempts: a
// score waits for a store outage to end, then no more than this.
const localBackoffCap = 10 * time.Second

// retry records a failed attempt and when the event is due again.
func (d *Dispatcher) retry(sctx context.Context, ev room.Event, typ string, attempts int) {
	wait := d.backoff(attempts)
	if _, local := d.handlers[typ]; local {
		wait = min(wait, localBackoffCap)
	}
	due := d.now().Add(wait).UnixMilli()
	if err := d.outbox.Retry(sctx, ev.ID, attempts, due); err != nil {
		d.log.Error("webhook: recording a failed delivery or handling", "event", ev.ID, "type", typ, "err", err)
		return
	}
	d.mu.Lock()
	sooner := d.soonest == 0 || due < d.soonest
	if sooner {
		d.soonest = due
	}
	d.mu.Unlock()
	if sooner {
		d.Wake() // let Run shorten its wait to this due time
	}
}

// post sends one event; nil means the receiver answered 2xx.
func (d *Dispatcher) post(ctx context.Context, ev room.Event, typ string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, d.url, bytes.NewReader(ev.Data))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "roomd-webhook/1")
	if typ != "" {
		req.Header.Set("X-Roomd-Event", typ)
	}
	req.Header.Set("X-Roomd-Delivery", ev.ID)
	req.Header.Set(SignatureHeader, Sign(d.secret, ev.Data, d.now()))
	resp, err := d.client.Do(req)
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxAnswer))
	resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("receiver answered %s", resp.Status)
	}
	return nil
}
