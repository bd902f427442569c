package bot

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"runtime/pprof"
	"sync"
	"sync/atomic"
	"time"

	"github.com/roomd/roomd/internal/finetimer"
	"github.com/roomd/roomd/internal/profile"
	"github.com/roomd/roomd/protocol"
	"github.com/roomd/roomd/transport/client"
	"golang.org/x/time/rate"
)

// scenario is one run: its rooms, bots and measurements.
type scenario struct {
	cfg  config
	play play // set by preflight
	log  *slog.Logger
	st   *stats
	viol *violations

	rest *http.Client // create and join rooms
	ws   *http.Client // sockets

	limiter *rate.Limiter
	sem     chan struct{}
	nodes   *nodeCounts

	botCtx  context.Context
	playCtx context.Context
	botWG   sync.WaitGroup
	clock   *finetimer.Clock // the bots' wake-ups (run sets it)

	mu         sync.Mutex
	rooms      []*roomRun
	bots       []*bot
	slow       []*bot
	joinFirst  time.Time
	joinLast   time.Time
	joinFailed atomic.Int64
	slowLeft   atomic.Int64
}

// roomRun is one room of the scenario.
type roomRun struct {
	idx  int
	code string
	led  *roomLedger
	host *bot

	specSeen   atomic.Int64 // spectators connected, as the host last saw
	hostFrames atomic.Int64 // updates and presence frames the host received

	mu         sync.Mutex
	bots       []*bot
	spectators int
	ready      bool
	deliveries map[uint64]*delivery
}

// delivery pairs a player's send time with spectators' arrival times of
// the update it produced, whichever is known first.
type delivery struct {
	created  time.Time
	sent     bool
	sentAt   time.Time
	arrivals []time.Time
}

func (r *roomRun) entry(rev uint64, now time.Time) *delivery {
	d := r.deliveries[rev]
	if d == nil {
		if len(r.deliveries) > 4096 {
			for k, old := range r.deliveries {
				if now.Sub(old.created) > 30*time.Second || k+4096 < rev {
					delete(r.deliveries, k)
				}
			}
		}
		d = &delivery{created: now}
		r.deliveries[rev] = d
	}
	return d
}

// arrival records a spectator's receipt of the update at rev.
func (r *roomRun) arrival(rev uint64, now time.Time, st *stats) {
	r.mu.Lock()
	defer r.mu.Unlock()
	d := r.entry(rev, now)
	if d.sent {
		st.latency(latSpectate, now.Sub(d.sentAt))
		return
	}
	d.arrivals = append(d.arrivals, now)
}

// sent records when the move that produced rev was sent.
func (r *roomRun) sent(rev uint64, sentAt time.Time, st *stats) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.spectators == 0 {
		return
	}
	d := r.entry(rev, time.Now())
	d.sent, d.sentAt = true, sentAt
	for _, a := range d.arrivals {
		st.latency(latSpectate, a.Sub(sentAt))
	}
	d.arrivals = nil
}

func newScenario(cfg config, log *slog.Logger) *scenario {
	burst := max(1, min(int(cfg.Ramp/10), 100))
	st := newStats()
	sc := &scenario{cfg: cfg, log: log, st: st, viol: newViolations(), nodes: newNodeCounts(cfg.Nodes),
		rest:    &http.Client{Timeout: 15 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 256, DialContext: dialer(0).DialContext}},
		ws:      &http.Client{Transport: &http.Transport{DialContext: counted(dialer(0).DialContext, &st.wireBytes)}},
		limiter: rate.NewLimiter(rate.Limit(cfg.Ramp), burst), sem: make(chan struct{}, cfg.JoinParallel)}
	sc.slowLeft.Store(int64(cfg.Chaos.Slow))
	return sc
}

// preflight reads the server's games and chooses what to play (see
// choosePlay).
func (sc *scenario) preflight(ctx context.Context) error {
	server, err := fetchGames(ctx, sc.rest, sc.cfg.Nodes[0])
	if err != nil {
		return err
	}
	sc.play, err = choosePlay(server, &sc.cfg)
	return err
}

type joinResult struct {
	Room  string `json:"room"`
	Token string `json:"token"`
	Seat  int    `json:"seat"`
}

// post sends an API call to the node at base.
func (sc *scenario) post(ctx context.Context, base, path string, body any, want int) (joinResult, error) {
	b, _ := json.Marshal(body)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+path, bytes.NewReader(b))
	if err != nil {
		return joinResult{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := sc.rest.Do(req)
	if err != nil {
		return joinResult{}, err
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode != want {
		return joinResult{}, fmt.Errorf("POST %s: %d %s", path, resp.StatusCode, bytes.TrimSpace(data))
	}
	var res joinResult
	if err := json.Unmarshal(data, &res); err != nil {
		return joinResult{}, fmt.Errorf("POST %s: %v", path, err)
	}
	return res, nil
}

// replay fetches a room's last finished match with its moves, through the
// node at base.
func (sc *scenario) replay(ctx context.Context, base, code string) (protocol.Replay, error) {
	var rp protocol.Replay
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/api/rooms/"+code+"/replay", nil)
	if err != nil {
		return rp, err
	}
	resp, err := sc.rest.Do(req)
	if err != nil {
		return rp, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return rp, fmt.Errorf("GET replay of %s: %s", code, resp.Status)
	}
	return rp, json.NewDecoder(io.LimitReader(resp.Body, 16<<20)).Decode(&rp)
}

// join opens one bot's socket: it creates the room (host) or takes a seat
// over HTTP (guest), or just watches (spectator), then waits for the first
// snapshot. The join latency covers all of it.
func (sc *scenario) join(ctx context.Context, rm *roomRun, r role, i int) (*bot, error) {
	if err := sc.limiter.Wait(ctx); err != nil {
		return nil, err
	}
	select {
	case sc.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-sc.sem }()
	t0 := time.Now()
	sc.mu.Lock()
	if sc.joinFirst.IsZero() {
		sc.joinFirst = t0
	}
	sc.mu.Unlock()
	name := fmt.Sprintf("r%d-%s%d", rm.idx, r, i)
	b := newBot(sc, rm, name, r, sc.cfg.Seed^uint64(rm.idx)<<20^uint64(i)<<4^uint64(r))
	// Room i is created through node i; its sockets take the nodes in
	// turn from there (the host's first, then each guest's, then each
	// spectator's), so that one room's players go through different nodes.
	// Each socket's list starts at its own node: a lost one goes on to
	// the next.
	k := rm.idx + i
	if r == roleSpectator {
		k += sc.cfg.Players
	}
	nodes := sc.cfg.Nodes
	k %= len(nodes)
	b.node = nodes[k]
	sc.nodes.socket(b.node)
	ccfg := client.Config{URLs: append(append([]string(nil), nodes[k:]...), nodes[:k]...), Name: name, Game: sc.play.pin, HTTPClient: sc.ws,
		Logger: sc.log.With("bot", name), EventBuffer: 64}
	switch r {
	case roleHost:
		res, err := sc.post(ctx, b.node, "/api/rooms", map[string]any{"game": sc.play.pin.ID, "settings": sc.play.settings, "name": name}, http.StatusCreated)
		if err != nil {
			return nil, err
		}
		rm.code, ccfg.Token = res.Room, res.Token
		sc.nodes.room(b.node)
	case roleGuest:
		res, err := sc.post(ctx, b.node, "/api/rooms/"+url.PathEscape(rm.code)+"/join", map[string]string{"name": name}, http.StatusOK)
		if err != nil {
			return nil, err
		}
		ccfg.Token = res.Token
	case roleSpectator:
		ccfg.Watch = true
		if sc.slowLeft.Add(-1) >= 0 {
			// A slow consumer (see bot.hold): only the socket it opens
			// for its hold has tiny buffers.
			ccfg.EventBuffer = slowEventBuffer
			ccfg.HTTPClient = &http.Client{Transport: &http.Transport{DialContext: counted(func(ctx context.Context, network, addr string) (net.Conn, error) {
				if b.tinyBuf.Load() {
					return dialer(1024).DialContext(ctx, network, addr)
				}
				return dialer(0).DialContext(ctx, network, addr)
			}, &sc.st.wireBytes)}}
			sc.mu.Lock()
			sc.slow = append(sc.slow, b)
			sc.mu.Unlock()
		}
	}
	ccfg.Room = rm.code
	if ccfg.EventBuffer != slowEventBuffer {
		// Events are handled on the socket's reader goroutine as they are
		// read; a slow consumer's go through the channel that its hold
		// stops reading.
		ccfg.Handler = b.onEvent
	}
	b.ctx = sc.botCtx
	tr, err := client.NewRemote(ccfg)
	if err != nil {
		return nil, err
	}
	b.attach(tr)
	sc.mu.Lock()
	sc.bots = append(sc.bots, b)
	sc.mu.Unlock()
	rm.mu.Lock()
	rm.bots = append(rm.bots, b)
	rm.mu.Unlock()
	sc.botWG.Add(1)
	go func() {
		defer sc.botWG.Done()
		b.run(sc.playCtx)
	}()
	if err := b.tr.Start(sc.botCtx); err != nil {
		return b, err
	}
	select {
	case <-b.joined:
	case <-b.done:
		return b, fmt.Errorf("%s: stopped before its first snapshot", name)
	case <-ctx.Done():
		return b, fmt.Errorf("%s: no snapshot before the setup timeout", name)
	}
	now := time.Now()
	sc.st.latency(latJoin, now.Sub(t0))
	sc.st.joins.Add(1)
	sc.mu.Lock()
	sc.joinLast = now
	sc.mu.Unlock()
	return b, nil
}

// slowEventBuffer is a slow consumer's events channel: a few events, so
// that its transport stops reading soon after its hold stops reading it.
const slowEventBuffer = 4

// dialFunc dials a socket.
type dialFunc func(ctx context.Context, network, addr string) (net.Conn, error)

// counted wraps dial so that every byte read from the sockets it opens is
// added to n: what the server sent, WebSocket frame headers and the HTTP
// upgrade included.
func counted(dial dialFunc, n *atomic.Int64) dialFunc {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return countingConn{Conn: c, n: n}, nil
	}
}

// countingConn counts the bytes read from a connection.
type countingConn struct {
	net.Conn
	n *atomic.Int64
}

func (c countingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// setupRoom creates one room and seats its bots.
func (sc *scenario) setupRoom(ctx context.Context, rm *roomRun) {
	host, err := sc.join(ctx, rm, roleHost, 0)
	if err != nil {
		sc.joinFailed.Add(1)
		sc.st.count("error/join", 1)
		sc.log.Warn("host could not join", "room", rm.idx, "err", err)
		return
	}
	rm.host = host
	var wg sync.WaitGroup
	failed := atomic.Bool{}
	for i := 1; i < sc.cfg.Players; i++ {
		wg.Go(func() {
			if _, err := sc.join(ctx, rm, roleGuest, i); err != nil {
				failed.Store(true)
				sc.joinFailed.Add(1)
				sc.st.count("error/join", 1)
				sc.log.Warn("guest could not join", "room", rm.code, "err", err)
			}
		})
	}
	for i := range sc.cfg.Spectators {
		wg.Go(func() {
			if _, err := sc.join(ctx, rm, roleSpectator, i); err != nil {
				sc.joinFailed.Add(1)
				sc.st.count("error/join", 1)
				sc.log.Warn("spectator could not join", "room", rm.code, "err", err)
			}
		})
	}
	wg.Wait()
	rm.mu.Lock()
	rm.ready = !failed.Load()
	rm.mu.Unlock()
}

func (sc *scenario) allBots() []*bot {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	return append([]*bot(nil), sc.bots...)
}

// measure is the state of the counters at one edge of the measured window.
type measure struct {
	at        time.Time
	moves     int64
	sent      int64
	ticks     int64 // tick messages the bots received
	msgBytes  int64
	wireBytes int64
	botCPU    float64
	server    serverSample
	serverErr error
}

func (sc *scenario) measure(ctx context.Context) measure {
	st := sc.st
	m := measure{at: time.Now(), moves: st.moves.Load(), sent: st.sent.Load(), ticks: st.ticks.Load(),
		msgBytes: st.msgBytes.Load(), wireBytes: st.wireBytes.Load(), botCPU: profile.ProcessCPU()}
	if us := sc.cfg.metricsURLs(); len(us) > 0 {
		m.server, m.serverErr = scrapeServers(ctx, sc.rest, us, sc.cfg.Game)
	} else {
		m.serverErr = errors.New("off")
	}
	return m
}

// run plays the whole scenario and returns its result.
func (sc *scenario) run(ctx context.Context, progress *progress) (*result, error) {
	if err := sc.preflight(ctx); err != nil {
		return nil, err
	}
	cfg := sc.cfg
	var cpuProfile *os.File
	if cfg.CPUProfile != "" {
		// Created now, so that a path that cannot be written fails the run
		// before any bot joins; written only during the measured window.
		f, err := os.Create(cfg.CPUProfile)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		cpuProfile = f
	}
	// The bots' wake-ups: a timerfd in the runtime's poller, so that each
	// move goes at its own instant, not in bunches at the runtime's whole
	// milliseconds (--coarse-timers brings those back).
	if !cfg.CoarseTimers {
		var err error
		if sc.clock, err = finetimer.NewClock(); err != nil {
			sc.log.Warn("no fine clock; the bots wake on the runtime's timers", "err", err)
		}
	}
	if sc.clock == nil {
		sc.clock = finetimer.NewCoarseClock()
	}
	defer sc.clock.Close()
	sc.clock.SetSlack(cfg.TimerSlack)
	botCtx, stopBots := context.WithCancel(context.Background())
	defer stopBots()
	playCtx, endPlay := context.WithCancel(ctx)
	defer endPlay()
	sc.botCtx, sc.playCtx = botCtx, playCtx

	progress.start(sc)
	defer progress.stop()
	sc.log.Info("joining", "rooms", cfg.Rooms, "players", cfg.Players, "spectators", cfg.Spectators, "ramp", cfg.Ramp)

	// Setup: every room in parallel, joins limited by --ramp and
	// --join-parallel.
	setupCtx, cancelSetup := context.WithTimeout(ctx, cfg.SetupTimeout)
	var setup sync.WaitGroup
	for i := range cfg.Rooms {
		rm := &roomRun{idx: i, led: newRoomLedger(), spectators: cfg.Spectators, deliveries: map[uint64]*delivery{}}
		sc.rooms = append(sc.rooms, rm)
		setup.Go(func() { sc.setupRoom(setupCtx, rm) })
	}
	setup.Wait()
	cancelSetup()
	joined := sc.st.joins.Load()
	res := &result{}
	if joined == 0 {
		sc.shutdown(stopBots)
		return nil, errors.New("no bot could join")
	}
	sc.log.Info("joined", "sockets", joined, "failed", sc.joinFailed.Load(), "in", sc.joinLast.Sub(sc.joinFirst).Round(time.Millisecond))

	// The measured window: --duration of play. The CPU profile covers it
	// and nothing else, so that it explains the bots' CPU per move (the
	// joins before it cost as much again in a short run).
	if cpuProfile != nil {
		if err := pprof.StartCPUProfile(cpuProfile); err != nil {
			sc.log.Warn("cpu profile", "err", err)
			cpuProfile = nil
		}
	}
	start := sc.measure(ctx)
	sc.st.measuring.Store(true)
	var chaosWG sync.WaitGroup
	if cfg.Chaos.Enabled {
		chaosWG.Go(func() { sc.chaos(playCtx, cfg.Duration) })
	}
	select {
	case <-time.After(cfg.Duration):
	case <-ctx.Done():
		sc.log.Warn("interrupted; finishing early")
	}
	end := sc.measure(context.Background())
	sc.st.measuring.Store(false)
	if cpuProfile != nil {
		pprof.StopCPUProfile()
	}
	if cfg.MemProfile != "" {
		if err := writeHeapProfile(cfg.MemProfile); err != nil {
			sc.log.Warn("heap profile", "err", err)
		}
	}
	endPlay()
	chaosWG.Wait()

	sc.finish(res)
	sc.shutdown(stopBots)
	sc.finalChecks(res)
	progress.stop()
	sc.fill(res, start, end)
	return res, nil
}

// waitPending waits until no socket has an action without a receipt, or
// the deadline.
func (sc *scenario) waitPending(bots []*bot, deadline time.Time) {
	for time.Now().Before(deadline) {
		pending := 0
		for _, b := range bots {
			if b.tr.State() != client.StateClosed {
				pending += b.tr.Pending()
			}
		}
		if pending == 0 {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// finish drains what is in flight, checks every bot's view against a fresh
// snapshot, and has each host resign a running match so that its seed is
// published for the leak checks. Each step waits at most half of --drain
// and ends as soon as it is done.
func (sc *scenario) finish(res *result) {
	step := sc.cfg.Drain / 2
	bots := sc.allBots()
	sc.waitPending(bots, time.Now().Add(step))
	time.Sleep(50 * time.Millisecond) // let the last updates land

	// Views: every bot asks for a snapshot and compares.
	replies := make([]chan int, len(bots))
	for i, b := range bots {
		replies[i] = make(chan int, 1)
		select {
		case b.cmds <- botCmd{kind: "verify", reply: replies[i]}:
		case <-b.done:
			replies[i] <- 0
		}
	}
	deadline := time.After(step)
	timedOut := false
	for i, b := range bots {
		var ok int
		if timedOut {
			select {
			case ok = <-replies[i]:
			default:
				ok = -1
			}
		} else {
			select {
			case ok = <-replies[i]:
			case <-deadline:
				timedOut = true
				select {
				case ok = <-replies[i]:
				default:
					ok = -1
				}
			}
		}
		if ok == 1 {
			res.Checks.FinalViews++
		} else {
			res.Checks.FinalUnverified++
			sc.log.Debug("final view not verified", "bot", b.name, "timed_out", ok < 0)
		}
	}
	if timedOut {
		sc.log.Warn("some final view checks timed out", "unverified", res.Checks.FinalUnverified)
	}

	if sc.cfg.EndResign {
		sc.resignAll(time.Now().Add(step))
	}
	sc.waitPending(bots, time.Now().Add(step))
	time.Sleep(50 * time.Millisecond) // the result updates reach the other bots
}

// resignAll has each host resign a running match and waits for the
// results: the seed of every match played is then known.
func (sc *scenario) resignAll(deadline time.Time) {
	type resign struct {
		rm    *roomRun
		reply chan int
	}
	var asked []resign
	for _, rm := range sc.rooms {
		if rm.host == nil {
			continue
		}
		r := resign{rm, make(chan int, 1)}
		select {
		case rm.host.cmds <- botCmd{kind: "resign", reply: r.reply}:
			asked = append(asked, r)
		case <-rm.host.done:
		}
	}
	for _, r := range asked {
		var match int
		select {
		case match = <-r.reply:
		case <-time.After(time.Until(deadline)):
		}
		for match != 0 && time.Now().Before(deadline) {
			if _, ok := r.rm.led.result(match); ok {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// shutdown stops every bot and closes its socket.
func (sc *scenario) shutdown(stopBots context.CancelFunc) {
	for _, b := range sc.allBots() {
		b.onlineAtStop = b.tr.State() == client.StateOnline
	}
	stopBots()
	sc.botWG.Wait()
	var wg sync.WaitGroup
	for _, b := range sc.allBots() {
		wg.Go(func() { b.tr.Close() })
	}
	wg.Wait()
	for _, c := range []*http.Client{sc.rest, sc.ws} {
		c.CloseIdleConnections()
	}
}

// finalChecks runs the checks that need every bot stopped: leak checks of
// matches whose results came late, receipts, and slow consumers.
func (sc *scenario) finalChecks(res *result) {
	for _, b := range sc.allBots() {
		b.fol.sync() // beats still queued: a failure among them is reported
		b.applyFailures()
		frames := b.parked
		if b.cur != nil {
			frames = append(frames, b.cur)
		}
		for _, m := range frames {
			if r, ok := b.room.led.result(m.match); ok {
				b.checkFrames(m, r)
			} else {
				res.Checks.LeakUnchecked++
			}
		}
		// A bot offline when the run stopped may have had answers on their
		// way back: its unanswered actions are counted, not violations.
		if !b.onlineAtStop {
			sc.st.count("receipts/unanswered-offline-at-stop", int64(b.led.unanswered()))
		}
		b.led.finish(sc.viol, b.onlineAtStop)
		if b.slowClosed && !b.slowBack {
			sc.viol.add(vSlowNotBack, "%s was closed as a slow consumer and never came back", b.name)
		}
	}
}
