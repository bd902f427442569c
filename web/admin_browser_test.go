package web_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// TestAdminPageInBrowser opens /admin in Chromium under its
// Content-Security-Policy: the script and the style load from their files
// (no violation reported), the page lists a live room with the typed
// token, links to watch it, and closes it; an inline script injected into
// the page is refused.
func TestAdminPageInBrowser(t *testing.T) {
	t.Parallel()
	srv := startRoomd(t, withAdmin("s3cret"))
	resp, err := http.Post(srv.URL+"/api/rooms", "application/json",
		strings.NewReader(`{"game":"minesweeper","name":"Ann","settings":{"mode":"solo","level":"beginner"}}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("create: %d", resp.StatusCode)
	}

	p := newUser(t, srv, "admin", desktop)
	// Record every CSP violation, from the first byte of every document.
	ctx, cancel := context.WithTimeout(p.ctx, 10*time.Second)
	_, err = chromedp.Call(ctx, cdppage.AddScriptToEvaluateOnNewDocument, cdppage.AddScriptToEvaluateOnNewDocumentParams{Source: `
		window.cspViolations = [];
		document.addEventListener('securitypolicyviolation', (e) => window.cspViolations.push(e.violatedDirective + ' ' + e.blockedURI));`})
	cancel()
	if err != nil {
		t.Fatal(err)
	}
	p.open("/admin")
	p.wait("the script's first refresh", `document.getElementById('err').textContent !== ''`)
	if got := eval[string](p, `getComputedStyle(document.querySelector('table')).borderCollapse`); got != "collapse" {
		t.Errorf("admin.css not applied: border-collapse %q", got)
	}
	p.setField("#token", "s3cret")
	p.click("#auth button")
	p.wait("the room listed", `document.querySelectorAll('#rooms tr').length === 1`)
	code := eval[string](p, `document.querySelector('#rooms tr code').textContent`)
	if len(code) != 6 {
		t.Fatalf("listed room code %q", code)
	}
	if href := eval[string](p, `document.querySelector('#rooms tr a').getAttribute('href')`); href != "/r/"+code+"?watch=1" {
		t.Errorf("watch link %q", href)
	}
	if got := eval[string](p, `document.getElementById('err').textContent`); got != "" {
		t.Errorf("error shown with the right token: %q", got)
	}
	eval[bool](p, `(window.confirm = () => true, true)`)
	p.click("#rooms tr button")
	p.wait("the room gone from the list", `document.querySelectorAll('#rooms tr').length === 0 && document.getElementById('err').textContent === ''`)
	if info, err := http.Get(srv.URL + "/api/rooms/" + code); err != nil || info.StatusCode != http.StatusNotFound {
		t.Errorf("closed room still answers: %v %v", info.StatusCode, err)
	} else {
		info.Body.Close()
	}
	if v := eval[[]string](p, `window.cspViolations`); len(v) != 0 {
		t.Errorf("CSP violations on the admin page: %v", v)
	}
	// The policy is enforced: an inline script does not run.
	ran := eval[bool](p, `(() => { const s = document.createElement('script'); s.textContent = 'window.inlineRan = true';
		document.body.append(s); return !!window.inlineRan; })()`)
	if ran {
		t.Error("an inline script ran on the admin page")
	}
	p.wait("the violation reported", `window.cspViolations.length === 1`)
}
