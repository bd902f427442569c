// @ts-check
// The client's words, in English and Japanese (seed 002). Every string a
// page shows comes from t(key, params): looked up in the language's table,
// i18n/{lang}.json under the assets prefix — the handler merges the tables
// of the parts of the client, static/i18n/{lang}/{part}.json, into one
// file per language (web.go), so that a page waits for one request, not
// one per part — with {name} placeholders filled from params. The language is the one the
// player chose (remembered in localStorage), else the first of the
// browser's languages this client has, else English; English fills any key
// a table lacks, and a key no table has shows as itself (the translation
// test keeps that from happening).

/** The languages, in the order the switch offers them. */
export const LANGS = /** @type {const} */ ([
  { id: 'en', name: 'English' },
  { id: 'ja', name: '日本語' },
]);

const KEY = 'roomd.lang';

/** @type {Record<string, string>} */
let table = {};
/** @type {Record<string, string>} */
let english = {};
let current = 'en';

/** The assets prefix the page was served with (index.html's meta). */
function assets() {
  return globalThis.document?.querySelector('meta[name="roomd-assets"]')?.getAttribute('content') || '/assets/dev';
}

/**
 * The language to show: the one chosen before, else the browser's first
 * that this client has, else English.
 * @returns {string}
 */
export function pickLang() {
  try {
    const chosen = globalThis.localStorage?.getItem(KEY);
    if (chosen && LANGS.some((l) => l.id === chosen)) return chosen;
  } catch { /* no storage */ }
  for (const l of globalThis.navigator?.languages || []) {
    const id = String(l).toLowerCase().split('-')[0];
    if (LANGS.some((x) => x.id === id)) return id;
  }
  return 'en';
}

/**
 * A language's table ("part.key" keys; {} when it cannot be loaded: the
 * keys show, or English's words).
 * @param {string} lang
 * @returns {Promise<Record<string, string>>}
 */
async function tables(lang) {
  try {
    const res = await fetch(`${assets()}/i18n/${lang}.json`);
    return res.ok ? /** @type {Record<string, string>} */ (await res.json()) : {};
  } catch {
    return {};
  }
}

/**
 * Loads the tables of lang (default: pickLang()) and English's, and marks
 * the document with the language. Call once before drawing anything.
 * @param {string} [lang]
 */
export async function loadLocale(lang = pickLang()) {
  const [en, own] = await Promise.all([tables('en'), lang === 'en' ? null : tables(lang)]);
  english = en;
  table = own || en;
  current = lang;
  if (globalThis.document) document.documentElement.lang = lang;
}

/**
 * Uses the given tables (tests under Node, which have no server).
 * @param {string} lang
 * @param {Record<string, string>} t
 * @param {Record<string, string>} [en]
 */
export function useTables(lang, t, en = t) {
  current = lang;
  table = t;
  english = en;
}

/** The language shown. */
export function lang() { return current; }

/**
 * Switches to lang, remembered, and redraws the page.
 * @param {string} l
 */
export function setLang(l) {
  try { localStorage.setItem(KEY, l); } catch { /* this visit only */ }
  location.reload();
}

/**
 * The text of key in the language shown, with {name} filled from params.
 * @param {string} key
 * @param {Record<string, string|number>} [params]
 * @returns {string}
 */
export function t(key, params) {
  const s = table[key] ?? english[key] ?? key;
  if (!params) return s;
  return s.replace(/\{(\w+)\}/g, (m, name) => (name in params ? String(params[name]) : m));
}

/**
 * The text of a count's plural form: key.one, key.other… by the language's
 * rules (Intl.PluralRules: English "1 point", "2 points"; Japanese has
 * only "other"), key.other when the form is missing.
 * @param {string} key
 * @param {number} n
 * @param {Record<string, string|number>} [params]
 */
export function plural(key, n, params) {
  const form = `${key}.${new Intl.PluralRules(current).select(n)}`;
  return t(form in table ? form : `${key}.other`, params);
}

/**
 * The text of key, or fallback when no table has it: for names the server
 * sends (a game's, a mode's), shown as sent when this client has no
 * translation of them.
 * @param {string} key
 * @param {string} fallback
 */
export function tOr(key, fallback) {
  return table[key] ?? english[key] ?? fallback;
}

/**
 * A game's registry entry with its name and its modes' names in the
 * language shown (app.game.<id>, app.mode.<id>.<mode>).
 * @template {{id: string, name?: string, modes?: {id: string, name: string}[]}} G
 * @param {G} g
 * @returns {G}
 */
export function localizeGame(g) {
  // i18n: app.game.*
  // i18n: app.mode.*
  return { ...g, name: tOr(`app.game.${g.id}`, g.name || g.id),
    modes: (g.modes || []).map((m) => ({ ...m, name: tOr(`app.mode.${g.id}.${m.id}`, m.name) })) };
}

/**
 * A number in the language shown (grouping, decimals).
 * @param {number} n
 * @param {Intl.NumberFormatOptions} [opts]
 */
export function num(n, opts) {
  return new Intl.NumberFormat(current, opts).format(n);
}
