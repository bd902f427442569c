// @ts-check
// Moving from one page of the client to another without loading the
// document again: the lobby's "play on this device" buttons open
// /play/{game} in the lobby's own document (app.js draws it), so that the
// words, the registry and the game's page module the lobby already has
// serve the play page, and the game's core starts loading at the click
// instead of after a new page and its scripts (BENCHMARKS.md, "Cold start
// as a player sees it"). Every other link loads its page as usual.

/** @type {((url: string) => void)|null} */
let router = null;

/**
 * Called once by app.js: draws the page of url (already in the address
 * bar) in this document.
 * @param {(url: string) => void} fn
 */
export function setRouter(fn) {
  router = fn;
}

/**
 * Goes to url (a path of this site): drawn in this document when app.js
 * routes it, else loaded as a new page.
 * @param {string} url
 */
export function go(url) {
  if (!router) {
    location.assign(url);
    return;
  }
  history.pushState(null, '', url);
  router(url);
}
