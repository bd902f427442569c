// @ts-check
// The local game core: every game's Go rules, AI and replay compiled to
// WebAssembly (cmd/roomwasm; built into static/wasm by `go generate ./web`),
// loaded on demand — only when local play starts — and answering requests
// in the form of core/corecall (see its package doc):
//
//   const core = await loadCore();
//   const {session} = core.call({op: 'new', game: 'nim', seed: 7, config: {}, seats: 2});
//   core.call({op: 'apply', session, seat: 0, command: {type: 'take', n: 1}, t: 0, viewers: [0]});
//
// A request the core refuses answers {error: {code, message}}. The module
// reads no clock and keeps no state beyond its sessions: the same requests
// give the same answers as the server's rules (web/wasm_test.go).

import { assets } from '../ui.js';

/**
 * What static/wasm/manifest.json says of the module.
 * @typedef {object} CoreManifest
 * @property {string} module      the module's URL, relative to the manifest's
 * @property {string} loader      Go's wasm_exec.js, relative to the manifest's URL
 * @property {number} bytes
 * @property {number} gzipBytes
 * @property {string} sha256
 * @property {string} go
 * @property {{id: string, rulesVersion: string}[]} games
 */

/**
 * The loaded core.
 * @typedef {object} LocalCore
 * @property {CoreManifest} manifest
 * @property {(request: Record<string, any>) => any} call   a request in, its answer out
 */

/** @type {Promise<LocalCore>|null} */
let loading = null;

/**
 * Loads the core once per page (again after a failure).
 * @returns {Promise<LocalCore>}
 */
export function loadCore() {
  if (!loading) {
    loading = load();
    loading.catch(() => { loading = null; });
  }
  return loading;
}

/** @returns {Promise<LocalCore>} */
async function load() {
  const base = `${assets()}/wasm/`;
  const res = await fetch(`${base}manifest.json`);
  if (!res.ok) throw new Error(`the local core's manifest: HTTP ${res.status}`);
  /** @type {CoreManifest} */
  const manifest = await res.json();
  await import(`${base}${manifest.loader}`); // defines globalThis.Go
  const G = /** @type {any} */ (globalThis);
  const go = new G.Go();
  const { instance } = await WebAssembly.instantiateStreaming(fetch(`${base}${manifest.module}`), go.importObject);
  go.run(instance); // runs main until it waits for calls: roomdCore is set by then
  const core = G.roomdCore;
  if (!core || typeof core.call !== 'function') throw new Error('the local core did not start');
  return {
    manifest,
    call: (request) => JSON.parse(core.call(JSON.stringify(request))),
  };
}
