package main

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"
)

func httpGet(t *testing.T, url, host, token string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	if host != "" {
		req.Host = host
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestMetricsOnMainAddressByDefault: without --metrics-addr, /metrics is
// where Prometheus expects it.
func TestMetricsOnMainAddressByDefault(t *testing.T) {
	t.Parallel()
	p := startRoomd(t, freeAddr(t), "--memory")
	if code, body := httpGet(t, p.URL+"/metrics", "", ""); code != http.StatusOK || !strings.Contains(body, "roomd_connections") {
		t.Fatalf("/metrics: %d", code)
	}
	p.term()
}

// TestHardeningFlags runs the binary with the flags that expose it safely:
// metrics on their own address only, a public host name, the admin token
// from a file (no warning), and a short HTTP idle timeout. Not parallel:
// its roomd takes ROOMD_PUBLIC_HOST from the test's environment (t.Setenv).
func TestHardeningFlags(t *testing.T) {
	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokenFile, []byte("  s3cret-from-file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	metrics := freeAddr(t)
	t.Setenv("ROOMD_PUBLIC_HOST", "roomd, games.example.com")
	p := startRoomd(t, freeAddr(t), "--memory", "--metrics-addr", metrics, "--admin-token-file", tokenFile, "--http-idle-timeout", "300ms")

	if code, _ := httpGet(t, p.URL+"/metrics", "", ""); code != http.StatusNotFound {
		t.Errorf("/metrics on the main address with --metrics-addr: %d, want 404", code)
	}
	if code, body := httpGet(t, "http://"+metrics+"/metrics", "", ""); code != http.StatusOK || !strings.Contains(body, "roomd_connections") {
		t.Errorf("/metrics on --metrics-addr: %d", code)
	}
	if code, _ := httpGet(t, "http://"+metrics+"/api/games", "", ""); code != http.StatusNotFound {
		t.Errorf("the metrics address serves the API: %d", code)
	}

	for host, want := range map[string]int{"roomd": 200, "games.example.com:8080": 200, "localhost": 200, "evil.example": 421} {
		if code, body := httpGet(t, p.URL+"/api/games", host, ""); code != want {
			t.Errorf("Host %s: %d %s, want %d", host, code, body, want)
		}
	}

	if code, _ := httpGet(t, p.URL+"/api/admin/rooms", "", "s3cret-from-file"); code != http.StatusOK {
		t.Errorf("admin API with the token from the file: %d", code)
	}
	if code, _ := httpGet(t, p.URL+"/api/admin/rooms", "", "s3cret-from-fil"); code != http.StatusUnauthorized {
		t.Errorf("admin API with a wrong token: %d", code)
	}

	if err := idleKeepAlive(t, strings.TrimPrefix(p.URL, "http://"), 3*time.Second); err != io.EOF {
		t.Errorf("an idle keep-alive with --http-idle-timeout 300ms: %v, want EOF", err)
	}
	p.term()
	if strings.Contains(p.logText(), "visible to every user") {
		t.Errorf("a warning about --admin-token without it:\n%s", p.logText())
	}
}

// TestAdminTokenOnCommandLineWarns: --admin-token still works, with a
// warning that names the alternatives.
func TestAdminTokenOnCommandLineWarns(t *testing.T) {
	t.Parallel()
	p := startRoomd(t, freeAddr(t), "--memory", "--admin-token", "s3cret")
	if code, _ := httpGet(t, p.URL+"/api/admin/rooms", "", "s3cret"); code != http.StatusOK {
		t.Errorf("admin API with --admin-token: %d", code)
	}
	p.term()
	logs := p.logText()
	if !strings.Contains(logs, `"level":"WARN"`) || !strings.Contains(logs, "ps") ||
		!strings.Contains(logs, "ROOMD_ADMIN_TOKEN") || !strings.Contains(logs, "--admin-token-file") {
		t.Fatalf("no warning naming the alternatives to --admin-token:\n%s", logs)
	}
}

// TestReadmeDocumentsFlags: README's flag table lists every flag of
// `roomd -h` and no other, each with its variable and, where -h shows one,
// its default.
func TestReadmeDocumentsFlags(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	type doc struct{ env, def string }
	row := regexp.MustCompile("(?m)^\\| `--([a-z-]+)` \\| `(ROOMD_[A-Z_]+)` \\| *([^|]*?) *\\|")
	rows := map[string]doc{}
	for _, m := range row.FindAllStringSubmatch(string(readme), -1) {
		rows[m[1]] = doc{m[2], strings.Trim(strings.TrimSpace(m[3]), "`")}
	}
	// -h prints each flag as "  -name type" and its usage on the next line,
	// ending with "(env NAME)" and, unless zero, "(default VALUE)".
	help := strings.Split(helpText(t), "\n")
	flagLine := regexp.MustCompile(`^  -([a-z-]+)`)
	usage := regexp.MustCompile(`\(env (ROOMD_[A-Z_]+)\)(?: \(default (.*)\))?$`)
	seen := 0
	for i, line := range help {
		m := flagLine.FindStringSubmatch(line)
		if m == nil || i+1 >= len(help) {
			continue
		}
		seen++
		name := m[1]
		u := usage.FindStringSubmatch(help[i+1])
		if u == nil {
			t.Errorf("-h does not name the variable of --%s", name)
			continue
		}
		r, ok := rows[name]
		delete(rows, name)
		switch {
		case !ok:
			t.Errorf("README's flag table lacks --%s", name)
		case r.env != u[1]:
			t.Errorf("README gives --%s the variable %s; -h says %s", name, r.env, u[1])
		case u[2] != "" && !sameDefault(r.def, u[2]):
			t.Errorf("README gives --%s the default %q; -h says %s", name, r.def, u[2])
		}
	}
	if seen < 10 {
		t.Fatalf("read only %d flags from -h", seen)
	}
	for name := range rows {
		t.Errorf("README documents --%s, which roomd does not have", name)
	}
}

// sameDefault compares a README default with one printed by -h: durations
// as durations ("60s" is "1m0s"), strings without their quotes.
func sameDefault(readme, help string) bool {
	if a, err := time.ParseDuration(readme); err == nil {
		b, err := time.ParseDuration(help)
		return err == nil && a == b
	}
	return readme == strings.Trim(help, `"`)
}

// TestStoreMetrics: the embedded store's commits show on /metrics — a
// create as a bbolt transaction, a join's append as a record of the
// write-ahead log — and whether its log syncs through io_uring.
func TestStoreMetrics(t *testing.T) {
	t.Parallel()
	p := startRoomd(t, freeAddr(t))
	code, _ := createGame(t, p.URL, "minesweeper", "Ann", `{"mode":"coop","level":"beginner"}`)
	resp, err := http.Post(p.URL+"/api/rooms/"+code+"/join", "application/json", strings.NewReader(`{"name":"Bob"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusCreated {
		t.Fatalf("join: %d", resp.StatusCode)
	}
	_, body := httpGet(t, p.URL+"/metrics", "", "")
	ring := `roomd_store_wal_io_uring [01]`
	if runtime.GOOS == "linux" {
		ring = `roomd_store_wal_io_uring 1` // CI's machines have io_uring (boltstore's tests check)
	}
	for _, re := range []string{`roomd_store_commits_total\{kind="log"\} [1-9]`, `roomd_store_commits_total\{kind="transaction"\} [1-9]`, `roomd_store_writes_total [1-9]`, ring} {
		if !regexp.MustCompile(re).MatchString(body) {
			t.Errorf("/metrics lacks %s", re)
		}
	}
	p.term()
}
