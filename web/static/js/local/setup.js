// @ts-check
// Where the lobby leaves the settings and name of a game to play on this
// device, for local/page.js to read once.

/** The sessionStorage key. */
export const SETUP_KEY = 'roomd.local.setup';
