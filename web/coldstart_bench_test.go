package web_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/roomd/roomd/web/webtest"
)

// BenchmarkLocalColdStart measures local solo Minesweeper as a player sees
// it (issue: play without a room): from the click on the lobby's "Solo"
// (#local-solo) to the board shown, and to a first reveal answered.
//
// Each iteration of cold opens a fresh browser context (an incognito-like
// profile: its own HTTP cache, Cache Storage and service workers, so
// nothing an earlier iteration loaded serves it) in a Chromium of its own,
// loads the lobby, waits until the service worker controls the page (as a
// player's first visit leaves it), chooses Minesweeper and clicks Solo;
// the benchmark clicks a cell as soon as the board shows. Unlike the
// browser tests' pages, the tab does not record network events: chromedp
// enables the network domain on every tab it attaches to, and the
// benchmark disables it again before loading anything.
//
// The times are the page's own: a script evaluated in every document of
// the tab keeps the click's event time (epoch ms; in sessionStorage too,
// for a click that loads /play/minesweeper as a new document — the lobby
// draws it in its own, nav.js), and on the play page the times of
// WebAssembly.instantiateStreaming, of Go's start (go.run up to main
// waiting for calls), of the board's first cells, of the reveal's
// mousedown and of the first revealed cell (each at the next animation
// frame: the frame that shows it). ns/op is Go's wall clock of the same
// span, harness included.
//
// Sub-benchmarks: cold; cold-netlog, the same with the network domain on
// (as the tests' pages run, for comparison with their figures);
// cold-direct, the play page's address opened instead of the click (a
// bookmark, a reload: a new document, the lobby's visit before it; the
// times from the navigation's start); warm, the lobby and local play
// opened again in the context of a cold run (the module in the HTTP cache
// and the service worker's cache, the save cleared).
//
// Metrics, means over the iterations (ms):
//
//	ms-to-board         click → the board painted
//	ms-to-first-reveal  click → the first revealed cell painted (includes
//	                    the harness's reaction time, board → mousedown)
//	ms-reveal           the reveal's mousedown → the revealed cell painted
//	ms-interactive      ms-to-board + ms-reveal: the first interaction
//	                    answered, with a player who clicks as the board shows
//	ms-nav              click → the play page's navigation start (only
//	                    when the click loads a new document)
//	ms-to-instantiate   click → instantiateStreaming called (page, core.js,
//	                    the manifest and wasm_exec.js loaded)
//	ms-wasm-fetch       the module's fetch (Resource Timing: start → responseEnd)
//	ms-instantiate      instantiateStreaming (fetch, compile, instantiate)
//	ms-go-start         go.run until main waits for calls
//
//	go test -run '^$' -bench LocalColdStart -benchtime 5x -count 3 ./web
func BenchmarkLocalColdStart(b *testing.B) {
	bctx := csBrowser(b)
	srv := startRoomd(b)
	b.Run("cold", func(b *testing.B) { csRun(b, bctx, srv, csCold) })
	b.Run("cold-netlog", func(b *testing.B) { csRun(b, bctx, srv, csNetlog) })
	b.Run("cold-direct", func(b *testing.B) { csRun(b, bctx, srv, csDirect) })
	b.Run("warm", func(b *testing.B) { csRun(b, bctx, srv, csWarm) })
}

// csKind is a sub-benchmark's way to local play.
type csKind int

const (
	csCold   csKind = iota // click Solo in a new context
	csNetlog               // the same with the network domain on
	csDirect               // open /play/minesweeper?mode=solo after the lobby
	csWarm                 // click Solo again after a cold start
)

// csTimes are the page's times, epoch ms (0: not seen).
type csTimes struct {
	Click, Nav, InstStart, InstEnd, GoStart, GoEnd float64
	Board, Down, Revealed                          float64
	BoardDOM, RevealedDOM                          float64 // when the cells were in the document (the frames follow)
	FetchStart, FetchEnd                           float64
	FromSW                                         bool
	Res                                            string // the play page's resources, for COLDSTART_VERBOSE
	Calls                                          string // the core's first calls, for COLDSTART_VERBOSE
}

// csScript runs in every document of the tab before the page's scripts.
const csScript = `(() => {
  const K = 'roomd.bench.click';
  const now = () => performance.timeOrigin + performance.now();
  // The click kept by the lobby's document; else, for a play page opened
  // by its address, the navigation's start.
  const T = globalThis.__coldstart = {click: Number(sessionStorage.getItem(K) || 0) ||
    (location.pathname.startsWith('/play/') ? performance.timeOrigin : 0), nav: performance.timeOrigin,
    instStart: 0, instEnd: 0, goStart: 0, goEnd: 0, board: 0, down: 0, revealed: 0};
  addEventListener('click', (e) => {
    if (!e.isTrusted || !(e.target instanceof Element) || !e.target.closest('#local-solo')) return;
    T.click = performance.timeOrigin + e.timeStamp;
    T.nav = 0; // until a navigation: the play page may be drawn in this document
    try { sessionStorage.setItem(K, String(T.click)); } catch {}
  }, true);
  const frame = (k) => requestAnimationFrame(() => { T[k] = now(); });
  const inst = WebAssembly.instantiateStreaming;
  WebAssembly.instantiateStreaming = async function (...args) {
    if (!T.instStart) T.instStart = now();
    try { return await inst.apply(this, args); } finally { if (!T.instEnd) T.instEnd = now(); }
  };
  let G;
  Object.defineProperty(globalThis, 'Go', {configurable: true, get: () => G, set(v) {
    G = v;
    const run = v.prototype.run;
    v.prototype.run = function (...args) {
      if (!T.goStart) T.goStart = now();
      const p = run.apply(this, args); // main runs until it waits for calls
      if (!T.goEnd) T.goEnd = now();
      return p;
    };
  }});
  // The core's calls (core.js wraps roomdCore.call once Go's main has set
  // it): the first few, with their op, for the waterfall.
  T.calls = [];
  let C;
  Object.defineProperty(globalThis, 'roomdCore', {configurable: true, get: () => C, set(v) {
    const call = v.call;
    C = {...v, call(req) {
      const t0 = now();
      try { return call(req); } finally { if (T.calls.length < 12) T.calls.push((/"op":"(\w+)"/.exec(req) || [])[1] + ' ' + t0 + ' ' + now()); }
    }};
  }});
  addEventListener('mousedown', (e) => {
    if (!T.down && e.isTrusted && e.target instanceof Element && e.target.closest('#board')) T.down = performance.timeOrigin + e.timeStamp;
  }, true);
  let board = false;
  const mo = new MutationObserver(() => {
    if (!board && document.querySelector('#board td')) { board = true; T.boardDOM = now(); frame('board'); }
    if (board && document.querySelector('#board td[data-status="revealed"]')) { mo.disconnect(); T.revealedDOM = now(); frame('revealed'); }
  });
  mo.observe(document, {subtree: true, childList: true, attributes: true, attributeFilter: ['data-status']});
})()`

// csRead reads the times once the reveal has been painted.
const csRead = `(() => {
  const T = globalThis.__coldstart;
  if (!T || !T.revealed) return null;
  const r = performance.getEntriesByType('resource').find((e) => /\/wasm\/core-[^/]*\.wasm$/.test(e.name));
  return {click: T.click, nav: T.nav, instStart: T.instStart, instEnd: T.instEnd, goStart: T.goStart, goEnd: T.goEnd,
    board: T.board, down: T.down, revealed: T.revealed, boardDOM: T.boardDOM || 0, revealedDOM: T.revealedDOM || 0,
    fetchStart: r ? performance.timeOrigin + r.startTime : 0, fetchEnd: r ? performance.timeOrigin + r.responseEnd : 0,
    fromSW: !!(r && r.workerStart > 0),
    calls: T.calls.map((c) => { const [op, a, b] = c.split(' '); return op + ' ' + Math.round(a - T.click) + '→' + Math.round(b - T.click); }).join(', '),
    res: performance.getEntriesByType('resource').filter((e) => performance.timeOrigin + e.startTime >= T.click).map((e) => e.name.replace(/^.*\/(assets\/[^/]*|api)\//, '') + ' ' +
      Math.round(performance.timeOrigin + e.startTime - T.click) + '→' + Math.round(performance.timeOrigin + e.responseEnd - T.click)).join('; ') +
      '; DOMContentLoaded ' + Math.round(performance.timeOrigin + performance.getEntriesByType('navigation')[0].domContentLoadedEventEnd - T.click)};
})()`

// csBrowser starts a headless Chromium of the benchmark's own (the tests'
// shared one takes a *testing.T), stopped when the benchmark ends.
func csBrowser(b *testing.B) context.Context {
	b.Helper()
	path := webtest.Chromium()
	if path == "" {
		b.Skip("chromium is not installed")
	}
	dir := b.TempDir()
	opts := webtest.Options(path, dir)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(allocCtx)
	b.Cleanup(func() { cancel(); cancelAlloc() })
	if err := chromedp.Do(ctx); err != nil {
		b.Fatalf("starting %s: %v", path, err)
	}
	return ctx
}

// csTab is a tab in a new browser context.
type csTab struct {
	b   *testing.B
	srv *roomd
	ctx context.Context
}

func (t *csTab) do(actions ...chromedp.Action[chromedp.Void]) {
	t.b.Helper()
	ctx, cancel := context.WithTimeout(t.ctx, 20*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		t.b.Fatal(err)
	}
}

func csEval[T any](t *csTab, js string, opts ...chromedp.EvaluateOption) T {
	t.b.Helper()
	ctx, cancel := context.WithTimeout(t.ctx, 20*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js, opts...))
	if err != nil {
		t.b.Fatalf("eval %s: %v", js, err)
	}
	return v
}

// wait polls js every 2 ms until it is true (again after a navigation).
func (t *csTab) wait(what, js string) {
	t.b.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		left := time.Until(deadline)
		ctx, cancel := context.WithTimeout(t.ctx, left+5*time.Second)
		_, err := chromedp.Run(ctx, chromedp.Poll[bool]("!!("+js+")",
			chromedp.WithPollingInterval(2*time.Millisecond), chromedp.WithPollingTimeout(max(left, time.Millisecond))))
		cancel()
		switch {
		case err == nil:
			return
		case time.Now().After(deadline) || t.ctx.Err() != nil:
			t.b.Fatalf("waiting for %s: %v", what, err)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// openLobby loads the lobby, waits for the service worker to control it,
// and chooses Minesweeper.
func (t *csTab) openLobby() {
	t.b.Helper()
	t.do(chromedp.Navigate(t.srv.URL + "/"))
	t.wait("the lobby", `document.querySelector('label[data-game="minesweeper"]')`)
	t.wait("the service worker", `navigator.serviceWorker.controller`)
	t.do(chromedp.Click(chromedp.CSS(`label[data-game="minesweeper"]`), chromedp.NodeVisible))
	t.wait("the local modes", `document.getElementById('local-solo') && !document.getElementById('local-play').hidden`)
}

// play clicks Solo (or, direct, opens its address), then a cell as soon
// as the board shows, and returns the page's times once the reveal is
// painted.
func (t *csTab) play(direct bool) csTimes {
	t.b.Helper()
	if direct {
		t.do(chromedp.Navigate(t.srv.URL + "/play/minesweeper?mode=solo"))
	} else {
		t.do(chromedp.Click(chromedp.CSS("#local-solo"), chromedp.NodeVisible))
	}
	t.wait("the board", `location.pathname === '/play/minesweeper' && document.querySelector('#board td[data-r="4"][data-c="4"]')`)
	xy := csEval[[]float64](t, `(() => { const b = document.querySelector('#board td[data-r="4"][data-c="4"]').getBoundingClientRect(); return [b.left + b.width / 2, b.top + b.height / 2]; })()`)
	t.do(
		chromedp.MouseEvent(chromedp.MousePressed, xy[0], xy[1], chromedp.ButtonLeft, buttons(1), chromedp.ClickCount(1)),
		chromedp.MouseEvent(chromedp.MouseReleased, xy[0], xy[1], chromedp.ButtonLeft, buttons(0), chromedp.ClickCount(1)),
	)
	t.wait("the first reveal painted", `globalThis.__coldstart?.revealed > 0`)
	tm := csEval[*csTimes](t, csRead)
	if tm == nil || tm.Click == 0 || tm.Board == 0 || tm.Down == 0 || tm.InstStart == 0 || tm.GoEnd == 0 {
		t.b.Fatalf("incomplete times: %+v", tm)
	}
	return *tm
}

func csRun(b *testing.B, bctx context.Context, srv *roomd, kind csKind) {
	sum := map[string]float64{}
	add := func(k string, v float64) { sum[k] += v }
	var fromSW int
	b.StopTimer()
	for i := 0; i < b.N; i++ {
		ctx, cancel := chromedp.NewContext(bctx, chromedp.WithNewBrowserContext())
		t := &csTab{b: b, srv: srv, ctx: ctx}
		if err := chromedp.Do(ctx); err != nil { // opens the tab
			cancel()
			b.Fatal(err)
		}
		if kind != csNetlog {
			if _, err := chromedp.Call(ctx, network.Disable, cdp.Empty{}); err != nil {
				cancel()
				b.Fatal(err)
			}
		}
		if _, err := chromedp.Call(ctx, cdppage.AddScriptToEvaluateOnNewDocument, cdppage.AddScriptToEvaluateOnNewDocumentParams{Source: csScript}); err != nil {
			cancel()
			b.Fatal(err)
		}
		t.do(chromedp.EmulateViewport(1280, 800))
		t.openLobby()
		if kind == csWarm {
			// A cold start first, off the clock; then the lobby again,
			// without the save (a new board) or the click's time.
			t.play(false)
			t.do(chromedp.Navigate(srv.URL + "/"))
			csEval[bool](t, `(() => { localStorage.clear(); sessionStorage.clear(); return true; })()`)
			t.openLobby()
		}
		b.StartTimer()
		tm := t.play(kind == csDirect)
		b.StopTimer()
		cancel()
		add("ms-to-board", tm.Board-tm.Click)
		add("ms-to-first-reveal", tm.Revealed-tm.Click)
		add("ms-reveal", tm.Revealed-tm.Down)
		add("ms-interactive", tm.Board-tm.Click+tm.Revealed-tm.Down)
		if tm.Nav != 0 {
			add("ms-nav", tm.Nav-tm.Click)
		}
		add("ms-to-instantiate", tm.InstStart-tm.Click)
		add("ms-wasm-fetch", tm.FetchEnd-tm.FetchStart)
		add("ms-instantiate", tm.InstEnd-tm.InstStart)
		add("ms-go-start", tm.GoEnd-tm.GoStart)
		if tm.FromSW {
			fromSW++
		}
		if os.Getenv("COLDSTART_VERBOSE") != "" {
			b.Logf("%s", csLine(tm))
		}
	}
	for k, v := range sum {
		b.ReportMetric(v/float64(b.N), k)
	}
	if fromSW != b.N && fromSW != 0 {
		b.Logf("the service worker answered the module's fetch %d times out of %d", fromSW, b.N)
	}
}

func csLine(tm csTimes) string {
	rel := func(v float64) string {
		if v == 0 {
			return "-"
		}
		return fmt.Sprintf("%.0f", v-tm.Click)
	}
	return strings.Join([]string{
		"nav " + rel(tm.Nav), "fetch " + rel(tm.FetchStart) + "→" + rel(tm.FetchEnd),
		"inst " + rel(tm.InstStart) + "→" + rel(tm.InstEnd), "go " + rel(tm.GoStart) + "→" + rel(tm.GoEnd),
		"board " + rel(tm.BoardDOM) + "/" + rel(tm.Board), "down " + rel(tm.Down), "revealed " + rel(tm.RevealedDOM) + "/" + rel(tm.Revealed),
		fmt.Sprintf("sw %v", tm.FromSW), "\n\tcalls " + tm.Calls, "\n\t" + tm.Res,
	}, "  ")
}
