package web_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/roomd/roomd/core/corecall"
	"github.com/roomd/roomd/core/games"
	"github.com/roomd/roomd/web"
	"github.com/roomd/roomd/web/internal/wasmbuild"
)

// readManifest reads static/wasm/manifest.json.
func readManifest(t *testing.T) wasmbuild.Manifest {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("static", "wasm", wasmbuild.ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	var m wasmbuild.Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestWasmServed: each module of the local core is served as
// application/wasm, gzip-encoded to a browser and plain to a client that
// does not take gzip, and is the module the manifest describes; the
// modules hold every game of this build once each, at this build's rules
// (a rules change without `go generate ./web` fails here); the page's CSP
// lets a module compile and allows nothing wider.
func TestWasmServed(t *testing.T) {
	t.Parallel()
	m := readManifest(t)
	h := web.Handler()
	var ids []string
	for _, mod := range m.Modules {
		ids = append(ids, mod.Games...)
		path := web.AssetPrefix + web.Version() + "/wasm/" + mod.URL
		for _, gz := range []bool{true, false} {
			hdr := map[string]string{}
			if gz {
				hdr["Accept-Encoding"] = "br, gzip;q=0.9"
			}
			resp := get(t, h, http.MethodGet, path, hdr)
			if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/wasm" {
				t.Fatalf("GET %s (gzip %v): %d %s", path, gz, resp.StatusCode, resp.Header.Get("Content-Type"))
			}
			var r io.Reader = resp.Body
			if enc := resp.Header.Get("Content-Encoding"); gz != (enc == "gzip") {
				t.Fatalf("gzip %v: Content-Encoding %q", gz, enc)
			} else if gz {
				zr, err := gzip.NewReader(resp.Body)
				if err != nil {
					t.Fatal(err)
				}
				r = zr
			}
			wasm, err := io.ReadAll(r)
			if err != nil {
				t.Fatal(err)
			}
			sum := sha256.Sum256(wasm)
			if len(wasm) != mod.Bytes || hex.EncodeToString(sum[:]) != mod.SHA256 || !bytes.HasPrefix(wasm, []byte("\x00asm")) {
				t.Fatalf("%s, gzip %v: %d bytes, sha256 %x; the manifest says %d, %s", mod.URL, gz, len(wasm), sum, mod.Bytes, mod.SHA256)
			}
		}
		t.Logf("%s: %d bytes, %d gzipped, built by %s", mod.URL, mod.Bytes, mod.GzipBytes, m.Go)
	}
	csp := get(t, h, http.MethodGet, "/", nil).Header.Get("Content-Security-Policy")
	if !strings.Contains(csp, "script-src 'self' 'wasm-unsafe-eval';") || strings.Count(csp, "unsafe") != 1 {
		t.Errorf("CSP %q", csp)
	}
	slices.Sort(ids)
	var want []string
	for _, g := range wasmbuild.Games() {
		want = append(want, g.ID)
	}
	if !slices.Equal(ids, want) {
		t.Errorf("the modules hold %v, this build's games are %v", ids, want)
	}
	if !slices.Equal(m.Games, wasmbuild.Games()) {
		t.Errorf("the local core plays %v, this build %v: run go generate ./web", m.Games, wasmbuild.Games())
	}
}

// TestWasmUpToDate builds each module of cmd/roomwasm as go generate does
// and checks that the committed modules are those builds, byte for byte, and wasm_exec.js the
// building Go's. A Go other than the manifest's builds other bytes: then
// only the behaviour is compared (TestWasmAgreesWithNative).
func TestWasmUpToDate(t *testing.T) {
	t.Parallel()
	m := readManifest(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	ver, err := exec.CommandContext(ctx, "go", "env", "GOVERSION").Output()
	if err != nil {
		t.Fatal(err)
	}
	if v := strings.TrimSpace(string(ver)); v != m.Go {
		t.Skipf("the module was built by %s, this is %s: its bytes cannot be compared", m.Go, v)
	}
	if len(m.Modules) != len(wasmbuild.Modules) {
		t.Fatalf("static/wasm holds %d modules, wasmbuild builds %d: run go generate ./web", len(m.Modules), len(wasmbuild.Modules))
	}
	for i, mod := range wasmbuild.Modules {
		wasm, _, err := wasmbuild.Compile(ctx, "..", mod)
		if err != nil {
			t.Fatal(err)
		}
		// The committed file unzipped, rather than the build zipped again:
		// gzip's best compression of two 5 MB modules took 10–60 s of the
		// suite under the race detector, and this reads the served bytes.
		gz, err := os.ReadFile(filepath.Join("static", "wasm", mod.File()))
		if err != nil {
			t.Fatalf("%v: run go generate ./web", err)
		}
		zr, err := gzip.NewReader(bytes.NewReader(gz))
		if err != nil {
			t.Fatalf("static/wasm/%s: %v: run go generate ./web", mod.File(), err)
		}
		committed, err := io.ReadAll(zr)
		if err != nil || !bytes.Equal(committed, wasm) {
			t.Fatalf("static/wasm/%s is not what cmd/roomwasm builds (%v): run go generate ./web", mod.File(), err)
		}
		if got := wasmbuild.Describe(mod, wasm, gz); !reflect.DeepEqual(got, m.Modules[i]) {
			t.Fatalf("cmd/roomwasm builds %+v; the manifest says %+v: run go generate ./web", got, m.Modules[i])
		}
	}
	loader, err := wasmbuild.Loader(ctx)
	if err != nil {
		t.Fatal(err)
	}
	committed, err := os.ReadFile(filepath.Join("static", "wasm", wasmbuild.LoaderFile))
	if err != nil || !bytes.Equal(loader, committed) {
		t.Fatalf("static/wasm/wasm_exec.js is not %s's (%v): run go generate ./web", m.Go, err)
	}
}

// coreScript is a list of requests to the core and the answers the native
// core gave.
type coreScript struct {
	Name     string   `json:"name"`
	Requests []string `json:"requests"`
	Answers  []string `json:"answers"` // as strings: compared byte for byte
}

// playScript plays one session of a game through the native core c (the
// scripts of a module run one after the other on one core, as on its wasm
// module): the AI
// moves where the game has one, else the scripted commands in turn, every
// viewer's view asked after each command, then a save and a replay of it.
func playScript(t *testing.T, c *corecall.Core, game, config string, seats int, seed int64, scripted []string) coreScript {
	t.Helper()
	sc := coreScript{Name: game}
	call := func(format string, args ...any) json.RawMessage {
		req := fmt.Sprintf(format, args...)
		ans := json.RawMessage(c.Call([]byte(req)))
		sc.Requests = append(sc.Requests, req)
		sc.Answers = append(sc.Answers, string(ans))
		return ans
	}
	var opened struct {
		Session int
		Pending []int
		Error   *struct{ Code, Message string }
	}
	if err := json.Unmarshal(call(`{"op":"new","game":%q,"seed":%d,"config":%s,"seats":%d}`, game, seed, config, seats), &opened); err != nil || opened.Error != nil {
		t.Fatalf("%s: new: %v %+v", game, err, opened.Error)
	}
	h, pending := opened.Session, opened.Pending
	viewers := "-1"
	for s := range seats {
		viewers += fmt.Sprintf(",%d", s)
	}
	stepped := game == "snake"
	for i := range 80 {
		seat := 0
		if len(pending) > 0 {
			seat = pending[i%len(pending)]
		}
		var ai struct{ Command json.RawMessage }
		json.Unmarshal(call(`{"op":"ai","session":%d,"seat":%d}`, h, seat), &ai)
		cmd := string(ai.Command)
		if cmd == "" || cmd == "null" {
			cmd = scripted[i%len(scripted)]
		}
		var after struct {
			Pending []int
			Status  struct{ Over bool }
		}
		if stepped {
			call(`{"op":"input","session":%d,"seat":%d,"command":%s,"t":%d}`, h, seat, cmd, 50*i)
			for range 5 {
				json.Unmarshal(call(`{"op":"advance","session":%d,"viewers":[%s]}`, h, viewers), &after)
			}
			after.Pending = pending
		} else {
			json.Unmarshal(call(`{"op":"apply","session":%d,"seat":%d,"command":%s,"t":%d,"viewers":[%s]}`, h, seat, cmd, 1000*i, viewers), &after)
			if after.Pending != nil {
				pending = after.Pending
			}
		}
		for _, v := range strings.Split(viewers, ",") {
			call(`{"op":"view","session":%d,"viewer":%s}`, h, v)
		}
		if after.Status.Over {
			break
		}
	}
	var saved struct {
		Header struct {
			Seed   json.RawMessage
			Config json.RawMessage
			Seats  int
		}
		Log   json.RawMessage
		Ticks uint64
	}
	json.Unmarshal(call(`{"op":"save","session":%d}`, h), &saved)
	call(`{"op":"replay","game":%q,"record":{"seed":%s,"config":%s,"seats":%d,"log":%s,"ticks":%d}}`,
		game, saved.Header.Seed, saved.Header.Config, saved.Header.Seats, saved.Log, saved.Ticks)
	call(`{"op":"close","session":%d}`, h)
	return sc
}

// TestWasmAgreesWithNative runs sessions of every game through the
// committed WebAssembly modules under Node (Go's wasm_exec.js, as the page
// loads it) and checks that each answer — every view of every viewer after
// every command, the beats, the saves and their replays, the refusals —
// is byte for byte the native core's.
func TestWasmAgreesWithNative(t *testing.T) {
	t.Parallel()
	node := findNode(t)
	step := func(d string) string { return fmt.Sprintf(`{"type":"step","dir":%q}`, d) }
	reveal := func(r, c int) string { return fmt.Sprintf(`{"type":"reveal","r":%d,"c":%d}`, r, c) }
	var ms []string
	for i := range 81 {
		ms = append(ms, reveal((i*7)%9, (i*4)%9))
	}
	// One native core per module, as each wasm module is one core.
	cores := map[string]*corecall.Core{}
	for _, mod := range wasmbuild.Modules {
		c := corecall.New(games.Registry())
		for _, g := range mod.Games {
			cores[g] = c
		}
	}
	scriptGame := func(t *testing.T, game, config string, seats int, seed int64, scripted []string) coreScript {
		return playScript(t, cores[game], game, config, seats, seed, scripted)
	}
	scripts := []coreScript{
		scriptGame(t, "minesweeper", `{"mode":"solo","level":"beginner"}`, 1, 11, ms),
		scriptGame(t, "nim", `{}`, 3, 12, []string{`{"type":"take","n":1}`}),
		scriptGame(t, "tictactoe", `{}`, 2, 13, []string{`{"type":"mark","r":0,"c":0}`}),
		scriptGame(t, "cards", `{"decks":["raiders","wardens"]}`, 2, 14, []string{`{"type":"end"}`}),
		scriptGame(t, "baba", `{"level":"baba-is-you","control":"turns"}`, 2, 15,
			[]string{step("right"), step("right"), `{"type":"undo"}`, step("up"), step("down"), step("right"), `{"type":"restart"}`}),
		scriptGame(t, "spellgrid", `{"level":"golem"}`, 1, 16,
			[]string{step("right"), step("up"), `{"type":"undo"}`, `{"type":"cast","card":"Whirlwind"}`, step("left"), `{"type":"restart"}`, step("down")}),
		scriptGame(t, "snake", `{"board":"small","speed":"fast"}`, 2, 17, []string{`{"type":"turn","dir":"up"}`, `{"type":"turn","dir":"left"}`, `{"type":"turn","dir":"down"}`}),
	}
	data, err := json.Marshal(scripts)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "scripts.json")
	if err := os.WriteFile(file, data, 0o600); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, sc := range scripts {
		n += len(sc.Requests)
	}
	t.Logf("%d requests over %d games", n, len(scripts))
	prog := `import fs from 'node:fs';
import zlib from 'node:zlib';
const base = ` + "`" + staticURL(t) + "/wasm/`" + `;
await import(base + 'wasm_exec.js');
const manifest = JSON.parse(fs.readFileSync(new URL(base + 'manifest.json'), 'utf8'));
const coreOf = {};
for (const mod of manifest.modules) {
  const wasm = zlib.gunzipSync(fs.readFileSync(new URL(base + mod.url + '.gz')));
  const go = new Go();
  const { instance } = await WebAssembly.instantiate(wasm, go.importObject);
  go.run(instance);
  const core = globalThis.roomdCore; // this module's, until the next one starts
  for (const g of mod.games) coreOf[g] = core;
}
const failures = [];
for (const sc of JSON.parse(fs.readFileSync(` + fmt.Sprintf("%q", file) + `, 'utf8'))) {
  sc.requests.forEach((req, i) => {
    const got = coreOf[sc.name].call(req);
    const want = sc.answers[i];
    if (got !== want && failures.length < 20) failures.push(sc.name + ' request ' + i + ' ' + req + ':\n wasm   ' + got.slice(0, 400) + '\n native ' + want.slice(0, 400));
  });
}
process.stdout.write(JSON.stringify(failures));
process.exit(0);
`
	runNodeModule(t, "the wasm core", node, prog)
}

// TestLocalCoreInBrowser loads the local core in Chromium the way the page
// will (static/js/local/core.js, under the page's CSP, in a fresh browser
// context: nothing cached), starts a Minesweeper board, reveals a cell,
// then times 500 flag toggles. The answers must be the native core's; the
// times are reported, not checked (BENCHMARKS.md).
func TestLocalCoreInBrowser(t *testing.T) {
	t.Parallel()
	srv := startRoomd(t)
	p := newUser(t, srv, "lou", desktop)
	p.open("/")
	p.wait("the lobby", `document.querySelector('#create-form')`)
	res := evalAsync[struct {
		LoadMs, FirstMs, MoveUs float64
		Opened, Answer, View    string
	}](p, `(async () => {
  const t0 = performance.now();
  const m = await import(document.querySelector('meta[name="roomd-assets"]').content + '/js/local/core.js');
  const core = await m.loadCore('minesweeper');
  const t1 = performance.now();
  const opened = core.call({op: 'new', game: 'minesweeper', seed: 5, config: {mode: 'solo', level: 'beginner'}, seats: 1});
  const answer = core.call({op: 'apply', session: opened.session, seat: 0, command: {type: 'reveal', r: 4, c: 4}, t: 0, viewers: [0]});
  const t2 = performance.now();
  const n = 500;
  for (let i = 0; i < n; i++) core.call({op: 'apply', session: opened.session, seat: 0, command: {type: 'flag', r: 0, c: i % 2}, t: 1 + i, viewers: [0]});
  const t3 = performance.now();
  const view = core.call({op: 'view', session: opened.session, viewer: 0});
  return {loadMs: t1 - t0, firstMs: t2 - t0, moveUs: (t3 - t2) / n * 1000,
    opened: JSON.stringify(opened), answer: JSON.stringify(answer), view: JSON.stringify(view)};
})()`)
	c := corecall.New(games.Registry())
	want := []string{
		string(c.Call([]byte(`{"op":"new","game":"minesweeper","seed":5,"config":{"mode":"solo","level":"beginner"},"seats":1}`))),
		string(c.Call([]byte(`{"op":"apply","session":1,"seat":0,"command":{"type":"reveal","r":4,"c":4},"t":0,"viewers":[0]}`))),
	}
	for i := range 500 {
		c.Call(fmt.Appendf(nil, `{"op":"apply","session":1,"seat":0,"command":{"type":"flag","r":0,"c":%d},"t":%d,"viewers":[0]}`, i%2, 1+i))
	}
	want = append(want, string(c.Call([]byte(`{"op":"view","session":1,"viewer":0}`))))
	for i, got := range []string{res.Opened, res.Answer, res.View} {
		if canonJSON(t, got) != canonJSON(t, want[i]) {
			t.Errorf("answer %d in the browser:\n%s\nnative:\n%s", i, got, want[i])
		}
	}
	t.Logf("local core in Chromium, cold: loaded in %.0f ms, first reveal answered %.0f ms after the import; a flag toggle %.1f µs",
		res.LoadMs, res.FirstMs, res.MoveUs)
}

// canonJSON re-encodes a JSON text (the browser's JSON.stringify and Go's
// encoder escape differently).
func canonJSON(t *testing.T, s string) string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("%q: %v", s, err)
	}
	b, _ := json.Marshal(v)
	return string(b)
}
