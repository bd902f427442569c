// @ts-check
// The pictures of Baba's objects: a word block for each text object
// ("text:BABA" → the word BABA, in two rows of letters when it has four or
// more, as the real game prints them) and a small drawing for each thing.
// The colours are CSS (baba.css, by data-word and data-kind); the
// drawings are constant SVG markup of this file.

/** The words by class (baba.md §2); any other word is drawn as a noun. */
const PROPERTIES = new Set(['YOU', 'WIN', 'STOP', 'PUSH', 'SINK', 'HOT', 'MELT', 'DEFEAT', 'OPEN', 'SHUT', 'FLOAT', 'DOUBLE']);
const OPERATORS = new Set(['IS', 'NOT']);

/**
 * The class of a word: a property, an operator or a noun.
 * @param {string} word
 * @returns {'prop'|'op'|'noun'}
 */
export function wordClass(word) {
  if (PROPERTIES.has(word)) return 'prop';
  if (OPERATORS.has(word)) return 'op';
  return 'noun';
}

/** The word of a text kind ("text:BABA" → "BABA"), or null for a thing. */
export function wordOf(/** @type {string} */ kind) {
  return kind.startsWith('text:') ? kind.slice(5) : null;
}

/**
 * A thing's drawing, on a 24×24 grid. Unknown kinds get a box with their
 * initial (drawn by the caller).
 * @type {Record<string, string>}
 */
const THINGS = {
  baba: '<path class="b-body" d="M4 16.5C4 11 7.5 7 13 7c4.8 0 7.5 3 7.5 7.2v2.3c0 1.1-.9 2-2 2H6c-1.1 0-2-.9-2-2z"/>' +
    '<rect class="b-eye" x="13.2" y="10.2" width="1.9" height="3.2" rx=".6"/><rect class="b-eye" x="17" y="10.2" width="1.9" height="3.2" rx=".6"/>' +
    '<rect class="b-body" x="6.5" y="17.5" width="2.4" height="3.6" rx="1"/><rect class="b-body" x="15" y="17.5" width="2.4" height="3.6" rx="1"/>',
  keke: '<path class="b-body" d="M5 17V11c0-3.6 3-6 7-6s7 2.4 7 6v6c0 1.1-.9 2-2 2H7c-1.1 0-2-.9-2-2z"/>' +
    '<rect class="b-eye" x="9" y="9.5" width="2" height="3.4" rx=".7"/><rect class="b-eye" x="13.5" y="9.5" width="2" height="3.4" rx=".7"/>' +
    '<rect class="b-body" x="7" y="18" width="2.4" height="3.4" rx="1"/><rect class="b-body" x="14.6" y="18" width="2.4" height="3.4" rx="1"/>',
  rock: '<path class="b-body" d="M3.5 17.5l2-6.5 4.6-4.4 6.2.6 3.9 4.6-.7 6-4.3 2.6H7.3z"/>' +
    '<path class="b-line" d="M8.5 12.5l3 1.5 4-2M11.5 14l-.5 4"/>',
  wall: '<rect class="b-body" x="1" y="2" width="22" height="20" rx="2"/>' +
    '<path class="b-line" d="M1 8.7h22M1 15.3h22M8 2v6.7M16 8.7v6.6M8 15.3V22"/>',
  flag: '<rect class="b-body" x="5.5" y="3" width="2.2" height="18.5" rx="1"/>' +
    '<path class="b-body" d="M7.7 3.8h11.8l-3.3 4.4 3.3 4.4H7.7z"/>',
  water: '<rect class="b-body" x="0" y="0" width="24" height="24"/>' +
    '<path class="b-line" d="M2 8c2.5-2 4.5-2 7 0s4.5 2 7 0 4.5-2 6 0M2 16c2.5-2 4.5-2 7 0s4.5 2 7 0 4.5-2 6 0"/>',
  lava: '<rect class="b-body" x="0" y="0" width="24" height="24"/>' +
    '<path class="b-line" d="M2 9c2.5-2.5 4.5-2.5 7 0s4.5 2.5 7 0 4.5-2.5 6 0M2 17c2.5-2.5 4.5-2.5 7 0s4.5 2.5 7 0 4.5-2.5 6 0"/>',
  skull: '<path class="b-body" d="M4.5 11a7.5 7.5 0 0 1 15 0v3.5l-2 1.5v3.5h-11V16l-2-1.5z"/>' +
    '<circle class="b-eye" cx="9" cy="11.5" r="2"/><circle class="b-eye" cx="15" cy="11.5" r="2"/>',
  key: '<circle class="b-line b-thick" cx="7.5" cy="12" r="3.8"/><path class="b-line b-thick" d="M11.3 12H21M17.5 12v3.5M20.5 12v2.5"/>',
  door: '<rect class="b-body" x="5" y="2.5" width="14" height="19" rx="1.5"/><circle class="b-eye" cx="15.5" cy="12.5" r="1.3"/>',
};

const SVG = 'http://www.w3.org/2000/svg';

/**
 * The element of an object: a word block or a thing's drawing, sized by
 * the board (CSS). Its kind does not change here: a conversion replaces
 * the element.
 * @param {string} kind
 * @returns {HTMLElement}
 */
export function tileOf(kind) {
  const el = document.createElement('div');
  const word = wordOf(kind);
  if (word != null) {
    el.className = 'baba-obj baba-word';
    el.dataset.word = word;
    el.dataset.class = wordClass(word);
    // Four letters and more in two rows, the longer one on top.
    const rows = word.length >= 4 ? [word.slice(0, Math.ceil(word.length / 2)), word.slice(Math.ceil(word.length / 2))] : [word];
    const n = Math.max(...rows.map((r) => r.length), 1);
    // The font fits the tile: at most 42% of it tall in two rows (50% in
    // one), and n bold capitals of about .78em wide in 86% of it.
    const fit = Math.min(rows.length > 1 ? 0.42 : 0.5, 0.86 / (0.78 * n));
    el.style.setProperty('--fs', String(Math.round(fit * 1000) / 1000));
    for (const r of rows) {
      const line = document.createElement('span');
      line.className = 'baba-word-row';
      line.textContent = r;
      el.append(line);
    }
    return el;
  }
  el.className = 'baba-obj baba-thing';
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('viewBox', '0 0 24 24');
  svg.setAttribute('aria-hidden', 'true');
  svg.setAttribute('focusable', 'false');
  if (THINGS[kind]) {
    svg.innerHTML = THINGS[kind];
  } else {
    const box = document.createElementNS(SVG, 'rect');
    for (const [k, v] of Object.entries({ class: 'b-body', x: '3', y: '3', width: '18', height: '18', rx: '3' })) box.setAttribute(k, v);
    const letter = document.createElementNS(SVG, 'text');
    for (const [k, v] of Object.entries({ class: 'b-letter', x: '12', y: '16.5', 'text-anchor': 'middle' })) letter.setAttribute(k, v);
    letter.textContent = (kind.charAt(0) || '?').toUpperCase();
    svg.append(box, letter);
  }
  el.append(svg);
  return el;
}
