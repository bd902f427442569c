package web_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"go.uber.org/goleak"

	"github.com/roomd/roomd/core/minesweeper"
	"github.com/roomd/roomd/core/nim"
	"github.com/roomd/roomd/core/session"
	"github.com/roomd/roomd/internal/testpar"
	"github.com/roomd/roomd/protocol"
	"github.com/roomd/roomd/room"
	"github.com/roomd/roomd/store"
	"github.com/roomd/roomd/store/boltstore"
	"github.com/roomd/roomd/store/memstore"
	"github.com/roomd/roomd/transport"
	"github.com/roomd/roomd/transport/admin"
	"github.com/roomd/roomd/web"
	"github.com/roomd/roomd/web/webtest"
)

// ---- roomd in process ----

// roomd is a real roomd (rooms, HTTP API, WebSockets and the web client)
// on a loopback port. It can cut every connection, as a network failure
// would, and restart on the same port with the same durable store.
type roomd struct {
	t       testing.TB
	addr    string
	URL     string
	dir     string // the bbolt store's directory
	aiDelay time.Duration
	extra   []session.Game     // games besides Minesweeper and Hidden Nim
	admin   string             // the admin token; empty serves no /admin
	auth    transport.Verifier // sign-in required with these tokens; nil: anonymous
	pool    store.Pool         // rated quick play's pool; nil: none

	mu    sync.Mutex
	rooms *room.Manager
	front *transport.Server
	srv   *http.Server
	ln    *trackingListener
	st    *boltstore.Bolt
	gate  *gatedStore
	done  chan struct{}
}

type roomdOpt func(*roomd)

// withAIDelay makes AI seats think for d before each move.
func withAIDelay(d time.Duration) roomdOpt { return func(s *roomd) { s.aiDelay = d } }

// withAdmin serves the operator's page and API with token.
func withAdmin(token string) roomdOpt { return func(s *roomd) { s.admin = token } }

// withSignIn requires players signed in with tokens v verifies.
func withSignIn(v transport.Verifier) roomdOpt { return func(s *roomd) { s.auth = v } }

// withPool pairs rated quick play in the process.
func withPool() roomdOpt { return func(s *roomd) { s.pool = memstore.NewPool() } }

// withGames registers more games.
func withGames(games ...session.Game) roomdOpt {
	return func(s *roomd) { s.extra = append(s.extra, games...) }
}

func startRoomd(t testing.TB, opts ...roomdOpt) *roomd {
	t.Helper()
	s := &roomd{t: t, dir: t.TempDir(), aiDelay: -1}
	for _, o := range opts {
		o(s)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.addr = ln.Addr().String()
	s.URL = "http://" + s.addr
	if err := s.up(ln); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.down(); err != nil {
			t.Errorf("roomd shutdown: %v", err)
		}
	})
	return s
}

// up starts a manager and a front on ln (or on s.addr when ln is nil),
// over the bbolt store in s.dir.
func (s *roomd) up(ln net.Listener) error {
	var err error
	if ln == nil {
		// The port was just released: binding may need a moment.
		deadline := time.Now().Add(5 * time.Second)
		for {
			ln, err = net.Listen("tcp", s.addr)
			if err == nil || time.Now().After(deadline) {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		if err != nil {
			return err
		}
	}
	st, err := boltstore.Open(s.dir, boltstore.BoltOptions{NoSync: true, SweepInterval: -1})
	if err != nil {
		ln.Close()
		return err
	}
	gate := &gatedStore{Store: st}
	rooms, err := room.NewManager(room.Config{
		Games:            session.NewRegistry(append([]session.Game{minesweeper.Game, nim.Game}, s.extra...)...),
		Store:            gate,
		Leaderboards:     st,
		Ratings:          st,
		Claims:           st,
		AIDelay:          s.aiDelay,
		PresenceInterval: 20 * time.Millisecond,
		RetryAfter:       300 * time.Millisecond,
		Pool:             s.pool,
	})
	if err != nil {
		st.Close()
		ln.Close()
		return err
	}
	var routes map[string]http.Handler
	if s.admin != "" {
		routes = admin.Routes(admin.Config{Rooms: rooms, Token: s.admin})
	}
	front, err := transport.NewServer(transport.Config{Rooms: rooms, Web: web.Handler(), Routes: routes, Quotas: transport.Quotas{Off: true},
		Auth: s.auth, RequireAuth: s.auth != nil})
	if err != nil {
		st.Close()
		ln.Close()
		return err
	}
	tl := &trackingListener{Listener: ln, conns: map[net.Conn]struct{}{}}
	srv := transport.NewHTTPServer(front.Handler(), transport.HTTPConfig{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.Serve(tl)
	}()
	s.mu.Lock()
	s.rooms, s.front, s.srv, s.ln, s.st, s.gate, s.done = rooms, front, srv, tl, st, gate, done
	s.mu.Unlock()
	return nil
}

// down stops roomd as a SIGTERM would: clients are told to come back after
// RetryAfter (close 4000), the rooms write their final snapshots, the store
// closes.
func (s *roomd) down() error {
	s.mu.Lock()
	front, srv, st, done, tl := s.front, s.srv, s.st, s.done, s.ln
	s.front, s.srv, s.st, s.done, s.ln = nil, nil, nil, nil, nil
	s.mu.Unlock()
	if front == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ferr := front.Shutdown(ctx)
	herr := srv.Shutdown(ctx)
	tl.cut() // anything the server did not track
	<-done
	return errors.Join(ferr, herr, st.Close())
}

// restart stops roomd and starts a new one on the same port and store.
func (s *roomd) restart() {
	s.t.Helper()
	if err := s.down(); err != nil {
		s.t.Fatalf("roomd shutdown: %v", err)
	}
	if err := s.up(nil); err != nil {
		s.t.Fatalf("roomd restart: %v", err)
	}
}

// cut closes every TCP connection without a WebSocket close handshake, as
// a network failure would; roomd keeps running.
func (s *roomd) cut() int {
	s.mu.Lock()
	tl := s.ln
	s.mu.Unlock()
	return tl.cut()
}

// closeRoom closes a room for good, as its idle timeout would: clients
// get close 4004.
func (s *roomd) closeRoom(code string) {
	s.t.Helper()
	s.mu.Lock()
	rooms := s.rooms
	s.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	rm, err := rooms.Get(ctx, code)
	if err != nil {
		s.t.Fatal(err)
	}
	if err := rm.Close(); err != nil {
		s.t.Fatal(err)
	}
}

// roomInfo returns a room's public info from the API.
func (s *roomd) roomInfo(code string) map[string]any {
	s.t.Helper()
	resp, err := http.Get(s.URL + "/api/rooms/" + code)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		s.t.Fatal(err)
	}
	return out
}

// hold makes the next append to the store wait until release is called:
// the room accepts a change but sends nothing about it (no update, no
// receipt) until then. entered is closed once the append waits.
func (s *roomd) hold() (entered <-chan struct{}, release func()) {
	s.mu.Lock()
	g := s.gate
	s.mu.Unlock()
	g.mu.Lock()
	defer g.mu.Unlock()
	g.release, g.entered = make(chan struct{}), make(chan struct{})
	rel, once := g.release, sync.Once{}
	return g.entered, func() { once.Do(func() { close(rel) }) }
}

// gatedStore is a store whose next append can be held back.
type gatedStore struct {
	store.Store
	mu      sync.Mutex
	release chan struct{}
	entered chan struct{}
}

func (g *gatedStore) Append(ctx context.Context, lease store.Lease, entries []store.Entry) error {
	g.mu.Lock()
	release, entered := g.release, g.entered
	g.release, g.entered = nil, nil
	g.mu.Unlock()
	if release != nil {
		close(entered)
		select {
		case <-release:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return g.Store.Append(ctx, lease, entries)
}

type trackingListener struct {
	net.Listener
	mu    sync.Mutex
	conns map[net.Conn]struct{}
}

func (l *trackingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	l.conns[c] = struct{}{}
	l.mu.Unlock()
	return &trackedConn{Conn: c, l: l}, nil
}

func (l *trackingListener) cut() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := len(l.conns)
	for c := range l.conns {
		c.Close()
	}
	clear(l.conns)
	return n
}

type trackedConn struct {
	net.Conn
	l    *trackingListener
	once sync.Once
}

func (c *trackedConn) Close() error {
	c.once.Do(func() {
		c.l.mu.Lock()
		delete(c.l.conns, c.Conn)
		c.l.mu.Unlock()
	})
	return c.Conn.Close()
}

// ---- the browser ----

var (
	browserOnce   sync.Once
	browserCtx    context.Context
	browserCancel context.CancelFunc
	browserErr    error
	browserDir    string
)

// browser returns the shared headless Chromium, started on first use. Each
// test opens its own browser contexts in it (separate storage, cookies and
// cache), which costs much less than a browser each.
func browser(t *testing.T) context.Context {
	t.Helper()
	path := webtest.Chromium()
	if path == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("chromium is not installed (CI=true): apt-get install chromium")
		}
		t.Skip("chromium is not installed; skipping the browser tests (apt-get install chromium, or set CHROMIUM)")
	}
	browserOnce.Do(func() {
		browserDir, browserErr = os.MkdirTemp("", "roomd-chromium-")
		if browserErr != nil {
			return
		}
		opts := webtest.Options(path, browserDir)
		allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
		ctx, cancelCtx := chromedp.NewContext(allocCtx)
		browserCtx = ctx
		browserCancel = func() { cancelCtx(); cancelAlloc() }
		browserErr = chromedp.Do(ctx) // starts the browser, bound to ctx
	})
	if browserErr != nil {
		t.Fatalf("starting %s: %v", path, browserErr)
	}
	return browserCtx
}

func stopBrowser() {
	if browserCancel != nil {
		browserCancel()
	}
	if browserDir != "" {
		os.RemoveAll(browserDir)
	}
}

// browserParallel is how many of this package's tests run at once unless
// -test.parallel says otherwise: they mostly wait on the browser (its
// CPU is about one core of two with two at once), and each has its own
// roomd and browser context.
const browserParallel = 4

func TestMain(m *testing.M) {
	testpar.Default(browserParallel)
	code := m.Run()
	stopBrowser()
	if code == 0 {
		// Every roomd, tab and listener a test started is gone.
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// viewport is a screen size.
type viewport struct {
	name          string
	width, height int64
	mobile        bool
}

var (
	desktop = viewport{"desktop", 1280, 800, false}
	phone   = viewport{"phone", 390, 844, true}
)

// page is one browser tab, driven by a test.
type page struct {
	t    *testing.T
	name string
	srv  *roomd
	ctx  context.Context

	mu       sync.Mutex
	frames   []string // WebSocket frames received, in order
	sent     []string // WebSocket frames sent
	console  []string
	failures []string // uncaught exceptions
	foreign  []string // requests to another origin
}

// newUser opens a tab in a new browser context: a separate user, with its
// own localStorage.
func newUser(t *testing.T, srv *roomd, name string, vp viewport) *page {
	t.Helper()
	ctx, cancel := chromedp.NewContext(browser(t), chromedp.WithNewBrowserContext())
	return openPage(t, srv, name, vp, ctx, cancel)
}

// newTab opens another tab in p's browser context (same localStorage).
func (p *page) newTab(name string) *page {
	p.t.Helper()
	ctx, cancel := chromedp.NewContext(p.ctx)
	return openPage(p.t, p.srv, name, desktop, ctx, cancel)
}

func openPage(t *testing.T, srv *roomd, name string, vp viewport, ctx context.Context, cancel context.CancelFunc) *page {
	t.Helper()
	p := &page{t: t, name: name, srv: srv, ctx: ctx}
	var wg sync.WaitGroup
	t.Cleanup(func() {
		cancel()
		wg.Wait()
	})
	if err := chromedp.Do(ctx); err != nil { // opens the tab, bound to ctx
		t.Fatalf("%s: open tab: %v", name, err)
	}
	if err := chromedp.Listen(ctx, func(ev any) {
		switch ev := ev.(type) {
		case *network.EventWebSocketFrameReceived:
			if ev.Response != nil && ev.Response.Opcode == 1 {
				p.mu.Lock()
				// A batched frame (a JSON array) is recorded message by message.
				for _, m := range splitFrame(string(ev.Response.PayloadData)) {
					p.frames = append(p.frames, m)
				}
				p.mu.Unlock()
			}
		case *network.EventWebSocketFrameSent:
			if ev.Response != nil && ev.Response.Opcode == 1 {
				p.mu.Lock()
				p.sent = append(p.sent, string(ev.Response.PayloadData))
				p.mu.Unlock()
			}
		case *network.EventRequestWillBeSent:
			u := ev.Request.URL
			if !strings.HasPrefix(u, srv.URL+"/") && !strings.HasPrefix(u, "ws://"+srv.addr+"/") &&
				!strings.HasPrefix(u, "data:") && !strings.HasPrefix(u, "about:") {
				p.mu.Lock()
				p.foreign = append(p.foreign, u)
				p.mu.Unlock()
			}
		}
	}); err != nil {
		t.Fatalf("%s: listen: %v", name, err)
	}
	messages := chromedp.Console(ctx)
	wg.Add(1)
	go func() {
		defer wg.Done()
		for m, err := range messages {
			if err != nil {
				return
			}
			p.mu.Lock()
			p.console = append(p.console, m.String())
			if m.IsException() || strings.Contains(m.String(), "roomd: listener") {
				p.failures = append(p.failures, m.String())
			}
			p.mu.Unlock()
		}
	}()
	p.resize(vp)
	t.Cleanup(p.check) // runs before the tab closes
	return p
}

// check fails the test on uncaught exceptions and requests to another
// origin.
func (p *page) check() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, f := range p.failures {
		p.t.Errorf("%s: uncaught exception: %s", p.name, f)
	}
	for _, u := range p.foreign {
		p.t.Errorf("%s: request to another origin: %s", p.name, u)
	}
	if p.t.Failed() && len(p.console) > 0 {
		p.t.Logf("%s: console:\n  %s", p.name, strings.Join(p.console[max(0, len(p.console)-20):], "\n  "))
	}
}

func (p *page) resize(vp viewport) {
	p.t.Helper()
	if vp.mobile {
		p.do(chromedp.EmulateViewport(vp.width, vp.height, chromedp.EmulateScale(2), chromedp.EmulateMobile, chromedp.EmulateTouch))
	} else {
		p.do(chromedp.EmulateViewport(vp.width, vp.height))
	}
}

// darkMode turns the emulated prefers-color-scheme: dark on or off.
func (p *page) darkMode(on bool) {
	p.t.Helper()
	scheme := "light"
	if on {
		scheme = "dark"
	}
	ctx, cancel := context.WithTimeout(p.ctx, 10*time.Second)
	defer cancel()
	if _, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
		Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}}}); err != nil {
		p.t.Fatalf("%s: dark mode: %v", p.name, err)
	}
}

// do runs actions with a deadline; any error fails the test.
func (p *page) do(actions ...chromedp.Action[chromedp.Void]) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, 20*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		p.t.Fatalf("%s: %v%s", p.name, err, p.debug())
	}
}

// eval evaluates js in the page and decodes its value.
func eval[T any](p *page, js string) T {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, 20*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js))
	if err != nil {
		p.t.Fatalf("%s: eval %s: %v%s", p.name, js, err, p.debug())
	}
	return v
}

// evalAsync evaluates js, a promise, in the page and decodes its value.
func evalAsync[T any](p *page, js string) T {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, 20*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js, chromedp.EvalAwaitPromise))
	if err != nil {
		p.t.Fatalf("%s: eval: %v%s", p.name, err, p.debug())
	}
	return v
}

// wait polls js in the page until it is true, or fails after a deadline.
func (p *page) wait(what, js string) {
	p.t.Helper()
	p.waitFor(what, js, 10*time.Second)
}

func (p *page) waitFor(what, js string, d time.Duration) {
	p.t.Helper()
	deadline := time.Now().Add(d)
	for {
		left := time.Until(deadline)
		ctx, cancel := context.WithTimeout(p.ctx, left+5*time.Second)
		_, err := chromedp.Run(ctx, chromedp.Poll[bool]("!!("+js+")",
			chromedp.WithPollingInterval(15*time.Millisecond), chromedp.WithPollingTimeout(max(left, time.Millisecond))))
		cancel()
		switch {
		case err == nil:
			return
		case errors.Is(err, chromedp.ErrPollingTimeout) || time.Now().After(deadline) || p.ctx.Err() != nil:
			p.t.Fatalf("%s: waiting for %s: %v%s", p.name, what, err, p.debug())
		}
		// The page navigated while polling (its context went away): poll
		// the new page.
		time.Sleep(20 * time.Millisecond)
	}
}

// debug describes the page for a failure message.
func (p *page) debug() string {
	ctx, cancel := context.WithTimeout(p.ctx, 3*time.Second)
	defer cancel()
	state, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`JSON.stringify({url: location.href,
		conn: document.getElementById('conn')?.dataset.connState, phase: document.body.dataset.phase,
		banner: document.getElementById('banner')?.innerText, notices: document.getElementById('notices')?.innerText,
		main: (document.getElementById('app')?.innerText || '').slice(0, 400)})`))
	p.mu.Lock()
	defer p.mu.Unlock()
	last := p.frames[max(0, len(p.frames)-3):]
	return fmt.Sprintf("\n  page: %s\n  last frames: %s", state, strings.Join(last, "\n    "))
}

func (p *page) open(path string) {
	p.t.Helper()
	p.do(chromedp.Navigate(p.srv.URL + path))
}

func (p *page) click(sel string) {
	p.t.Helper()
	// The page may draw the element again between the query and the click
	// (a snapshot after a result replaces the view): the click then finds
	// no node by the id it was given, and goes to the new one.
	for try := 0; ; try++ {
		ctx, cancel := context.WithTimeout(p.ctx, 20*time.Second)
		err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(sel), chromedp.NodeVisible))
		cancel()
		if err == nil {
			return
		}
		if try == 4 || !strings.Contains(err.Error(), "Could not find node with given id") {
			p.t.Fatalf("%s: click %s: %v%s", p.name, sel, err, p.debug())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// connState is #conn's data-conn-state.
func (p *page) connState() string {
	return eval[string](p, `document.getElementById('conn').dataset.connState`)
}

// roomCode is the code of the room the page shows.
func (p *page) roomCode() string {
	return eval[string](p, `location.pathname.split('/')[2]`)
}

// setField sets a form field's value and tells the page it changed.
func (p *page) setField(sel, value string) {
	p.t.Helper()
	js := fmt.Sprintf(`(() => { const el = document.querySelector(%q); if (!el) return false;
		el.value = %q; el.dispatchEvent(new Event('input', {bubbles: true})); el.dispatchEvent(new Event('change', {bubbles: true})); return el.value === %q; })()`, sel, value, value)
	if !eval[bool](p, js) {
		p.t.Fatalf("%s: cannot set %s to %q%s", p.name, sel, value, p.debug())
	}
}

// msSettings are the lobby form's Minesweeper settings.
type msSettings struct {
	mode, level       string
	rows, cols, mines int
}

// gameForm opens the lobby and the creation form of game, a game with a
// page of its own, ready to create.
func (p *page) gameForm(game string) {
	p.t.Helper()
	p.open("/")
	p.wait("the lobby", fmt.Sprintf(`document.querySelector('label[data-game=%q][data-page="true"]')`, game))
	p.click(fmt.Sprintf(`label[data-game=%q]`, game))
	p.wait(game+"'s form", fmt.Sprintf(`document.querySelector('.settings-form[data-game=%q]') && !document.getElementById('create').disabled`, game))
}

// createMinesweeper fills the lobby's form and creates a room; it returns
// the room code once the room page shows.
func (p *page) createMinesweeper(s msSettings, name string) string {
	p.t.Helper()
	p.open("/")
	p.wait("the lobby form", `document.querySelector('#create-form #new-mode')`)
	p.click(`label[data-game="minesweeper"]`)
	p.setField("#new-mode", s.mode)
	p.setField("#new-level", s.level)
	if s.level == "custom" {
		p.wait("the custom fields", `!document.getElementById('new-custom').hidden`)
		p.setField("#new-rows", fmt.Sprint(s.rows))
		p.setField("#new-cols", fmt.Sprint(s.cols))
		p.setField("#new-mines", fmt.Sprint(s.mines))
	}
	p.setField("#new-name", name)
	p.click("#create")
	p.wait("the room page", `location.pathname.startsWith('/r/') && document.getElementById('conn').dataset.connState === 'online'`)
	return p.roomCode()
}

// joinAsPlayer opens room code's page and takes a seat under name, as a
// second player does from an invite link.
func (p *page) joinAsPlayer(code, name string) {
	p.t.Helper()
	p.open("/r/" + code)
	p.wait("the join form", `document.getElementById('join-player')`)
	p.setField("#join-name", name)
	p.click("#join-player")
}

// watchRoom opens room code's page and watches it with seats of players
// seated: the spectator's lobby.
func (p *page) watchRoom(code string, players int) {
	p.t.Helper()
	p.open("/r/" + code)
	p.click("#join-watch")
	p.wait("the spectator's lobby", fmt.Sprintf(`document.getElementById('conn').dataset.connState === 'online' && document.querySelectorAll('#seats .seat[data-seat]').length === %d`, players))
}

// cellBox returns the centre of cell (r, c) of the board sel, in CSS
// pixels of the viewport, after scrolling it into view.
func (p *page) cellXY(board string, r, c int) (float64, float64) {
	p.t.Helper()
	js := fmt.Sprintf(`(() => { const td = document.querySelector('%s td[data-r="%d"][data-c="%d"]');
		if (!td) return null; td.scrollIntoView({block: 'nearest', inline: 'nearest'});
		const b = td.getBoundingClientRect(); return [b.left + b.width / 2, b.top + b.height / 2]; })()`, board, r, c)
	xy := eval[[]float64](p, js)
	if len(xy) != 2 {
		p.t.Fatalf("%s: no cell (%d, %d) in %s%s", p.name, r, c, board, p.debug())
	}
	return xy[0], xy[1]
}

// clickCell clicks a cell of #board with a mouse button: left, right or
// middle.
func (p *page) clickCell(r, c int, button input.MouseButton) {
	p.t.Helper()
	x, y := p.cellXY("#board", r, c)
	mask := map[input.MouseButton]int64{input.MouseButtonLeft: 1, input.MouseButtonRight: 2, input.MouseButtonMiddle: 4}[button]
	p.do(
		chromedp.MouseEvent(chromedp.MouseMoved, x, y),
		chromedp.MouseEvent(chromedp.MousePressed, x, y, chromedp.ButtonType(button), buttons(mask), chromedp.ClickCount(1)),
		chromedp.MouseEvent(chromedp.MouseReleased, x, y, chromedp.ButtonType(button), buttons(0), chromedp.ClickCount(1)),
	)
}

// chordCell presses the left and the right button together on a cell and
// lets them go, as players chord.
func (p *page) chordCell(r, c int) {
	p.t.Helper()
	x, y := p.cellXY("#board", r, c)
	p.do(
		chromedp.MouseEvent(chromedp.MouseMoved, x, y),
		chromedp.MouseEvent(chromedp.MousePressed, x, y, chromedp.ButtonLeft, buttons(1), chromedp.ClickCount(1)),
		chromedp.MouseEvent(chromedp.MousePressed, x, y, chromedp.ButtonRight, buttons(3), chromedp.ClickCount(1)),
		chromedp.MouseEvent(chromedp.MouseReleased, x, y, chromedp.ButtonRight, buttons(1), chromedp.ClickCount(1)),
		chromedp.MouseEvent(chromedp.MouseReleased, x, y, chromedp.ButtonLeft, buttons(0), chromedp.ClickCount(1)),
	)
}

func buttons(mask int64) chromedp.MouseOption {
	return func(p *input.DispatchMouseEventParams) { p.Buttons = mask }
}

// cell returns data-status and data-value of a cell of the board sel.
func (p *page) cell(board string, r, c int) (status, value string) {
	p.t.Helper()
	v := eval[[]string](p, fmt.Sprintf(`(() => { const td = document.querySelector('%s td[data-r="%d"][data-c="%d"]');
		return td ? [td.dataset.status || '', td.dataset.value ?? ''] : []; })()`, board, r, c))
	if len(v) != 2 {
		p.t.Fatalf("%s: no cell (%d, %d) in %s%s", p.name, r, c, board, p.debug())
	}
	return v[0], v[1]
}

// waitCell waits until a cell of board has status (and value, unless "*").
func (p *page) waitCell(board string, r, c int, status, value string) {
	p.t.Helper()
	cond := fmt.Sprintf(`(() => { const td = document.querySelector('%s td[data-r="%d"][data-c="%d"]');
		return td && td.dataset.status === %q && (%q === '*' || (td.dataset.value ?? '') === %q); })()`, board, r, c, status, value, value)
	p.wait(fmt.Sprintf("cell (%d, %d) of %s to be %s %s", r, c, board, status, value), cond)
}

// counter is the mine counter's text.
func (p *page) counter() string {
	return eval[string](p, `document.getElementById('mine-count').textContent`)
}

// key sends a key press to the focused element.
func (p *page) key(keys string) {
	p.t.Helper()
	p.do(chromedp.KeyEvent(keys))
}

// moveCursor moves #board's keyboard cursor to (r, c) with arrow keys.
func (p *page) moveCursor(r, c int) {
	p.t.Helper()
	pos := eval[[]int](p, `(() => { const td = document.querySelector('#board td[data-cursor]'); return [Number(td.dataset.r), Number(td.dataset.c)]; })()`)
	keys := ""
	for ; pos[0] < r; pos[0]++ {
		keys += kb.ArrowDown
	}
	for ; pos[0] > r; pos[0]-- {
		keys += kb.ArrowUp
	}
	for ; pos[1] < c; pos[1]++ {
		keys += kb.ArrowRight
	}
	for ; pos[1] > c; pos[1]-- {
		keys += kb.ArrowLeft
	}
	if keys != "" {
		p.key(keys)
	}
	p.wait(fmt.Sprintf("the cursor at (%d, %d)", r, c), fmt.Sprintf(`document.querySelector('#board td[data-cursor]')?.dataset.r === '%d' && document.querySelector('#board td[data-cursor]')?.dataset.c === '%d'`, r, c))
}

// screenshot saves a full-page PNG under the artifacts directory.
func (p *page) screenshot(name string) {
	p.t.Helper()
	dir := os.Getenv("ROOMD_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join("testdata", "screenshots")
	}
	p.screenshotTo(dir, name)
}

// screenshotTo saves a full-page PNG as dir/name.png.
func (p *page) screenshotTo(dir, name string) {
	p.t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		p.t.Fatal(err)
	}
	// Let transitions and toasts settle so the picture is the page at rest.
	p.do(chromedp.Evaluate[chromedp.Void](`document.getAnimations?.().forEach(a => a.finish())`))
	ctx, cancel := context.WithTimeout(p.ctx, 20*time.Second)
	defer cancel()
	buf, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		p.t.Fatalf("%s: screenshot: %v", p.name, err)
	}
	file := filepath.Join(dir, name+".png")
	if err := os.WriteFile(file, buf, 0o644); err != nil {
		p.t.Fatal(err)
	}
	p.t.Logf("screenshot %s", file)
}

// waitFrames polls the frames the page received until cond holds.
func (p *page) waitFrames(what string, cond func(frames []string) bool) {
	p.t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(p.wsFrames()); {
		if time.Now().After(deadline) {
			p.t.Fatalf("%s: waiting for %s in the frames%s", p.name, what, p.debug())
		}
		time.Sleep(15 * time.Millisecond)
	}
}

// wsSent returns the text frames the page sent so far.
func (p *page) wsSent() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.sent...)
}

// wsFrames returns the text frames the page received so far.
func (p *page) wsFrames() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.frames...)
}

// splitFrame returns the messages of one server frame as text.
func splitFrame(data string) []string {
	msgs, err := protocol.SplitServerFrame([]byte(data))
	if err != nil {
		return []string{data}
	}
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = string(m)
	}
	return out
}
