// Package webtest drives roomd's browser client in a real headless Chromium
// (chromedp), for tests of games from outside roomd's tree as much as for
// roomd's own: a game's test starts its server, opens a tab on it and plays
// through the page as a person would.
//
//	func TestMain(m *testing.M) { code := m.Run(); webtest.Stop(); os.Exit(code) }
//
//	p := webtest.Open(t, srv.URL()+"/")
//	p.Wait("the lobby", `document.querySelector('label[data-game="mygame"]')`)
//	p.Click(`label[data-game="mygame"]`)
//
// One browser serves every test of the binary (Browser starts it on first
// use); each Open is a browser context of its own (separate storage), closed
// when its test ends. Without a Chromium (chromium, chromium-browser,
// google-chrome or headless-shell on PATH, or $CHROMIUM) a test is skipped,
// unless CI=true, when it fails: apt-get install chromium.
package webtest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

var (
	once    sync.Once
	ctx     context.Context
	cancel  context.CancelFunc
	err     error
	tempDir string
)

// Chromium returns the browser's path, or "" when there is none.
func Chromium() string {
	names := []string{"/usr/bin/chromium", "chromium", "chromium-browser", "google-chrome", "headless-shell"}
	if p := os.Getenv("CHROMIUM"); p != "" {
		names = []string{p}
	}
	for _, name := range names {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// Browser returns the shared headless Chromium, started on first use.
func Browser(t testing.TB) context.Context {
	t.Helper()
	path := Chromium()
	if path == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("chromium is not installed (CI=true): apt-get install chromium")
		}
		t.Skip("chromium is not installed; skipping the browser test (apt-get install chromium, or set CHROMIUM)")
	}
	once.Do(func() {
		tempDir, err = os.MkdirTemp("", "roomd-webtest-")
		if err != nil {
			return
		}
		alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), Options(path, tempDir)...)
		c, cancelCtx := chromedp.NewContext(alloc)
		ctx, cancel = c, func() { cancelCtx(); cancelAlloc() }
		err = chromedp.Do(c)
	})
	if err != nil {
		t.Fatalf("starting %s: %v", path, err)
	}
	return ctx
}

// Stop stops the shared browser (a TestMain's last step).
func Stop() {
	if cancel != nil {
		cancel()
	}
	if tempDir != "" {
		os.RemoveAll(tempDir)
	}
}

// Page is one browser tab, driven by a test.
type Page struct {
	t   testing.TB
	ctx context.Context

	mu         sync.Mutex
	exceptions []string
	console    []string
}

// Open opens url in a tab of a new browser context (a separate user: its
// own storage), closed when t ends; the test fails on any uncaught
// exception in the page.
func Open(t testing.TB, url string) *Page {
	t.Helper()
	c, cancelTab := chromedp.NewContext(Browser(t), chromedp.WithNewBrowserContext())
	p := &Page{t: t, ctx: c}
	var wg sync.WaitGroup
	t.Cleanup(func() {
		p.mu.Lock()
		for _, e := range p.exceptions {
			t.Errorf("uncaught exception in the page: %s", e)
		}
		if t.Failed() && len(p.console) > 0 {
			t.Logf("console:\n  %s", strings.Join(p.console[max(0, len(p.console)-20):], "\n  "))
		}
		p.mu.Unlock()
		cancelTab()
		wg.Wait()
	})
	if err := chromedp.Do(c); err != nil { // opens the tab, bound to c
		t.Fatalf("open a tab: %v", err)
	}
	messages := chromedp.Console(c)
	wg.Add(1)
	go func() {
		defer wg.Done()
		for m, err := range messages {
			if err != nil {
				return
			}
			p.mu.Lock()
			p.console = append(p.console, m.String())
			if m.IsException() {
				p.exceptions = append(p.exceptions, m.String())
			}
			p.mu.Unlock()
		}
	}()
	p.Do(chromedp.Navigate(url))
	return p
}

// Do runs chromedp actions with a deadline; an error fails the test.
func (p *Page) Do(actions ...chromedp.Action[chromedp.Void]) {
	p.t.Helper()
	c, cancel := context.WithTimeout(p.ctx, 20*time.Second)
	defer cancel()
	if err := chromedp.Do(c, actions...); err != nil {
		p.t.Fatalf("%v%s", err, p.state())
	}
}

// Click clicks the first element the CSS selector sel matches, once it is
// visible.
func (p *Page) Click(sel string) {
	p.t.Helper()
	p.Do(chromedp.Click(chromedp.CSS(sel), chromedp.NodeVisible))
}

// SetField sets the value of the field sel matches, as typing would (input
// and change events).
func (p *Page) SetField(sel, value string) {
	p.t.Helper()
	js := fmt.Sprintf(`(() => { const el = document.querySelector(%q); if (!el) return false;
		el.value = %q; el.dispatchEvent(new Event('input', {bubbles: true})); el.dispatchEvent(new Event('change', {bubbles: true})); return el.value === %q; })()`, sel, value, value)
	if !Eval[bool](p, js) {
		p.t.Fatalf("cannot set %s to %q%s", sel, value, p.state())
	}
}

// Eval evaluates js in the page and decodes its value into T.
func Eval[T any](p *Page, js string) T {
	p.t.Helper()
	c, cancel := context.WithTimeout(p.ctx, 20*time.Second)
	defer cancel()
	v, err := chromedp.Run(c, chromedp.Evaluate[T](js))
	if err != nil {
		p.t.Fatalf("eval %s: %v%s", js, err, p.state())
	}
	return v
}

// Wait polls js in the page until it is true, failing after d (zero: 10 s).
func (p *Page) Wait(what, js string, d ...time.Duration) {
	p.t.Helper()
	timeout := 10 * time.Second
	if len(d) > 0 && d[0] > 0 {
		timeout = d[0]
	}
	deadline := time.Now().Add(timeout)
	for {
		left := time.Until(deadline)
		c, cancel := context.WithTimeout(p.ctx, left+5*time.Second)
		_, err := chromedp.Run(c, chromedp.Poll[bool]("!!("+js+")",
			chromedp.WithPollingInterval(15*time.Millisecond), chromedp.WithPollingTimeout(max(left, time.Millisecond))))
		cancel()
		switch {
		case err == nil:
			return
		case errors.Is(err, chromedp.ErrPollingTimeout) || time.Now().After(deadline) || p.ctx.Err() != nil:
			p.t.Fatalf("waiting for %s: %v%s", what, err, p.state())
		}
		time.Sleep(20 * time.Millisecond) // the page navigated while polling: poll the new one
	}
}

// state describes the page for a failure message.
func (p *Page) state() string {
	c, cancel := context.WithTimeout(p.ctx, 3*time.Second)
	defer cancel()
	s, _ := chromedp.Run(c, chromedp.Evaluate[string](`JSON.stringify({url: location.href,
		notices: document.getElementById('notices')?.innerText, main: (document.getElementById('app')?.innerText || '').slice(0, 400)})`))
	return fmt.Sprintf("\n  page: %s", s)
}

// Options are the headless Chromium's flags, for a browser of path with
// its profile in dir: quiet, no background work, a fixed window. The new
// headless mode preloads two omnibox popups (WebUI pages) in every
// browser context, about a quarter of the browser's CPU in a run of
// roomd's web tests: they are off.
func Options(path, dir string) []chromedp.ExecAllocatorOption {
	return []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.UserDataDir(dir),
		chromedp.WindowSize(1280, 800),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-default-apps", true),
		chromedp.Flag("disable-background-timer-throttling", true),
		chromedp.Flag("disable-renderer-backgrounding", true),
		chromedp.Flag("disable-backgrounding-occluded-windows", true),
		chromedp.Flag("disable-features", "Translate,MediaRouter,OptimizationHints,WebUIOmniboxPopup,WebUIOmniboxAimPopup,WebUIOmniboxFullPopup"),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.Flag("mute-audio", true),
		chromedp.Flag("force-color-profile", "srgb"),
	}
}
