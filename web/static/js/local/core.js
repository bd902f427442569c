// @ts-check
// The local game core: the games' Go rules, AI and replay compiled to
// WebAssembly (cmd/roomwasm; built into static/wasm by `go generate ./web`,
// in modules of a few games each), the module of a game loaded on demand —
// only when local play starts — and answering requests in the form of
// core/corecall (see its package doc):
//
//   const core = await loadCore('nim');
//   const {session} = core.call({op: 'new', game: 'nim', seed: 7, config: {}, seats: 2});
//   core.call({op: 'apply', session, seat: 0, command: {type: 'take', n: 1}, t: 0, viewers: [0]});
//
// A request the core refuses answers {error: {code, message}}. The module
// reads no clock and keeps no state beyond its sessions: the same requests
// give the same answers as the server's rules (web/wasm_test.go).

/**
 * The assets prefix the page was served with. (Not ui.js's: this module
 * imports nothing, so that the core's download starts as soon as the play
 * page asks for it.)
 */
function assets() {
  return document.querySelector('meta[name="roomd-assets"]')?.getAttribute('content') || '';
}

/**
 * What static/wasm/manifest.json says of the modules.
 * @typedef {object} CoreManifest
 * @property {string} loader      Go's wasm_exec.js, relative to the manifest's URL
 * @property {string} go
 * @property {{name: string, url: string, bytes: number, gzipBytes: number, sha256: string, games: string[]}[]} modules
 * @property {{id: string, rulesVersion: string}[]} games   every game of the modules
 */

/**
 * A loaded module of the core.
 * @typedef {object} LocalCore
 * @property {CoreManifest} manifest
 * @property {string} module                                   its name
 * @property {(request: Record<string, any>) => any} call   a request in, its answer out
 */

/** @type {Promise<CoreManifest>|null} */
let manifest = null;

/** @type {Map<string, Promise<LocalCore>>} */
const modules = new Map();

/** @type {Promise<unknown>|null} */
let loader = null;

/** The manifest, fetched once per page (again after a failure). */
export function loadManifest() {
  if (!manifest) {
    manifest = fetch(`${assets()}/wasm/manifest.json`).then((res) => {
      if (!res.ok) throw new Error(`the local core's manifest: HTTP ${res.status}`);
      return res.json();
    });
    manifest.catch(() => { manifest = null; });
  }
  return manifest;
}

/**
 * Go's wasm_exec.js, which defines globalThis.Go: imported once per page
 * (again after a failure).
 * @param {CoreManifest} m
 */
function loadLoader(m) {
  if (!loader) {
    loader = import(`${assets()}/wasm/${m.loader}`);
    loader.catch(() => { loader = null; });
  }
  return loader;
}

/**
 * Loads what every module needs besides its own bytes — the manifest and
 * Go's loader, small files —, for a page about to play (the lobby, while
 * it shows the local modes): a module's fetch then starts at once.
 */
export async function prepare() {
  await loadLoader(await loadManifest());
}

/**
 * Loads the module that plays game, once per page (again after a failure).
 * @param {string} game
 * @returns {Promise<LocalCore>}
 */
export async function loadCore(game) {
  const m = await loadManifest();
  const mod = m.modules.find((x) => x.games.includes(game));
  if (!mod) throw new Error(`the local core has no game ${game}`);
  let p = modules.get(mod.name);
  if (!p) {
    p = load(m, mod);
    p.catch(() => { modules.delete(mod.name); });
    modules.set(mod.name, p);
  }
  return p;
}

/**
 * @param {CoreManifest} m
 * @param {CoreManifest['modules'][number]} mod
 * @returns {Promise<LocalCore>}
 */
async function load(m, mod) {
  const base = `${assets()}/wasm/`;
  const bytes = fetch(`${base}${mod.url}`); // the download starts now, beside Go's loader
  await loadLoader(m); // defines globalThis.Go
  const G = /** @type {any} */ (globalThis);
  const go = new G.Go();
  const { instance } = await WebAssembly.instantiateStreaming(bytes, go.importObject);
  go.run(instance); // runs main until it waits for calls: roomdCore is this module's by then
  const core = G.roomdCore;
  if (!core || typeof core.call !== 'function') throw new Error('the local core did not start');
  return {
    manifest: m,
    module: mod.name,
    call: (request) => JSON.parse(core.call(JSON.stringify(request))),
  };
}
