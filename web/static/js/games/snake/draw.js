// @ts-check
// The snake arena on a <canvas>: the board, the food, each snake as one
// thick rounded line through its cells, its head moving from its previous
// cell to its new one over one move period (alpha: the time since the move
// arrived over that period, clamped to [0, 1]) while its tail leaves the
// cell it vacated, the viewer's own snake ringed with its next turn shown
// ahead of it, and the snakes that just died fading where they were.

import { DELTA } from './world.js';

/** @typedef {import('./world.js').Cell} Cell */
/** @typedef {import('./world.js').Dir} Dir */
/** @typedef {import('./world.js').View} View */
/**
 * A snake's last move: when it arrived (performance.now() ms; -Infinity
 * for none to show) and the tail it left (null when it ate).
 * @typedef {{movedAt: number, prevTail: Cell|null}} Motion
 */
/** @typedef {{seat: number, body: Cell[], at: Cell, time: number}} Ghost */
/**
 * Everything one frame shows.
 * @typedef {object} Scene
 * @property {View} view
 * @property {Motion[]} motion       by seat
 * @property {Ghost[]} ghosts        snakes that died lately
 * @property {number} now            performance.now() of the frame
 * @property {number} period         ms of one move
 * @property {number|null} seat      the viewer's own seat
 * @property {Dir|null} predicted    the own snake's next direction, when a turn is coming
 * @property {string[]|null} labels  names to show by the heads (the countdown), by seat
 * @property {number} dpr            device pixels per CSS pixel
 */

/**
 * The seats' colours: Okabe and Ito's palette, which people with the
 * common colour-vision deficiencies tell apart, plus a light grey.
 */
export const COLORS = Object.freeze(['#56B4E9', '#E69F00', '#009E73', '#F0E442', '#CC79A7', '#D55E00', '#0072B2', '#C9CED6']);

const BOARD = '#111a24', BOARD_2 = '#152130', WALL = '#3b4b5e', FOOD = '#f4f6f8', GHOST_MS = 700, CROSS_MS = 1200;

/** @param {number} seat */
export function colorOf(seat) { return COLORS[seat % COLORS.length]; }

/** @param {number} x */
const clamp01 = (x) => Math.min(1, Math.max(0, x));

/**
 * Draws one frame on g, whose canvas is already sized in device pixels.
 * @param {CanvasRenderingContext2D} g
 * @param {Scene} sc
 */
export function draw(g, sc) {
  const W = g.canvas.width, H = g.canvas.height, v = sc.view;
  g.setTransform(1, 0, 0, 1, 0, 0);
  g.clearRect(0, 0, W, H);
  if (!v.rows || !v.cols) return;
  const wall = Math.max(3 * sc.dpr, Math.min(W, H) * 0.012); // inside the canvas
  const s = Math.min((W - 2 * wall) / v.cols, (H - 2 * wall) / v.rows);
  const ox = (W - s * v.cols) / 2, oy = (H - s * v.rows) / 2;
  /** @param {Cell} c @returns {[number, number]} */
  const at = (c) => [ox + (c[1] + 0.5) * s, oy + (c[0] + 0.5) * s];

  // The board: a checkerboard, so that cells can be counted, in a wall.
  g.fillStyle = BOARD;
  g.fillRect(ox, oy, s * v.cols, s * v.rows);
  g.fillStyle = BOARD_2;
  for (let r = 0; r < v.rows; r++) {
    for (let c = (r & 1); c < v.cols; c += 2) g.fillRect(ox + c * s, oy + r * s, s, s);
  }
  g.strokeStyle = WALL;
  g.lineWidth = wall;
  g.strokeRect(ox - wall / 2, oy - wall / 2, s * v.cols + wall, s * v.rows + wall);

  // Food.
  for (const f of v.food) {
    const [x, y] = at(f);
    g.fillStyle = 'rgba(244, 246, 248, .18)';
    g.beginPath(); g.arc(x, y, s * 0.42, 0, 2 * Math.PI); g.fill();
    g.fillStyle = FOOD;
    g.beginPath(); g.arc(x, y, s * 0.24, 0, 2 * Math.PI); g.fill();
  }

  // Snakes that died lately fade out, with a cross where they hit.
  for (const gh of sc.ghosts) {
    const t = sc.now - gh.time;
    if (t < GHOST_MS && gh.body.length) {
      g.globalAlpha = 0.55 * (1 - t / GHOST_MS);
      body(g, gh.body.map(at), s, colorOf(gh.seat));
      g.globalAlpha = 1;
    }
    if (t < CROSS_MS) {
      const c = /** @type {Cell} */ ([Math.min(v.rows - 1, Math.max(0, gh.at[0])), Math.min(v.cols - 1, Math.max(0, gh.at[1]))]);
      const [x, y] = at(c), k = s * 0.32;
      g.globalAlpha = 1 - t / CROSS_MS;
      g.strokeStyle = '#ffffff';
      g.lineWidth = Math.max(2, s * 0.14);
      g.lineCap = 'round';
      g.beginPath(); g.moveTo(x - k, y - k); g.lineTo(x + k, y + k); g.moveTo(x + k, y - k); g.lineTo(x - k, y + k); g.stroke();
      g.globalAlpha = 1;
    }
  }

  // The snakes: the viewer's own last, on top.
  const order = v.snakes.map((_, i) => i).filter((i) => i !== sc.seat);
  if (sc.seat != null && v.snakes[sc.seat]) order.push(sc.seat);
  /** @type {(() => void)|null} */
  let ahead = null;
  for (const i of order) {
    const sn = v.snakes[i];
    if (!sn.alive || !sn.body.length) continue;
    const m = sc.motion[i] || { movedAt: -Infinity, prevTail: null };
    const a = clamp01((sc.now - m.movedAt) / sc.period);
    const pts = sn.body.map(at);
    let head = pts[0];
    if (pts.length > 1 && a < 1) {
      // The head slides from the cell it left (the body's second) to its own.
      head = lerp(pts[1], pts[0], a);
      pts[0] = head;
    }
    if (m.prevTail && a < 1) pts.push(lerp(at(m.prevTail), pts[pts.length - 1], a)); // the tail leaves its cell
    const mine = i === sc.seat;
    const dir = mine && sc.predicted ? sc.predicted : sn.dir;
    body(g, pts, s, colorOf(i));
    face(g, head, s, dir, colorOf(i), mine, sc.dpr);
    const turn = sc.predicted;
    if (mine && turn && turn !== sn.dir) ahead = () => hint(g, at(sn.body[0]), s, turn, colorOf(i));
  }

  // Who is who, while the countdown runs.
  if (sc.labels) {
    const size = Math.round(Math.max(11 * sc.dpr, Math.min(s * 0.55, 16 * sc.dpr)));
    g.font = `700 ${size}px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif`;
    g.textAlign = 'center';
    g.textBaseline = 'middle';
    v.snakes.forEach((sn, i) => {
      const name = sc.labels?.[i];
      if (!sn.alive || !sn.body.length || !name) return;
      const [x, y] = at(sn.body[0]);
      const w = g.measureText(name).width + size * 0.8, hgt = size * 1.5;
      // Above the head, unless it is heading up (or the wall is there).
      const heading = i === sc.seat && sc.predicted ? sc.predicted : sn.dir;
      const above = heading !== 'up' && y - s * 0.6 - hgt >= 0;
      const lx = Math.min(W - w / 2 - 2, Math.max(w / 2 + 2, x)), ly = above ? y - s * 0.6 - hgt / 2 : y + s * 0.6 + hgt / 2;
      g.fillStyle = 'rgba(8, 12, 18, .78)';
      roundRect(g, lx - w / 2, ly - hgt / 2, w, hgt, hgt / 2);
      g.fill();
      g.fillStyle = colorOf(i);
      g.fillText(name, lx, ly + size * 0.05);
    });
  }
  ahead?.(); // the viewer's next turn, over everything
}

/**
 * A snake's body: one thick round line through its points, outlined.
 * @param {CanvasRenderingContext2D} g
 * @param {[number, number][]} pts
 * @param {number} s
 * @param {string} color
 */
function body(g, pts, s, color) {
  g.lineCap = 'round';
  g.lineJoin = 'round';
  const path = () => {
    g.beginPath();
    g.moveTo(pts[0][0], pts[0][1]);
    for (let k = 1; k < pts.length; k++) g.lineTo(pts[k][0], pts[k][1]);
    if (pts.length === 1) g.lineTo(pts[0][0] + 0.01, pts[0][1]);
  };
  path();
  g.strokeStyle = 'rgba(0, 0, 0, .5)';
  g.lineWidth = s * 0.86;
  g.stroke();
  path();
  g.strokeStyle = color;
  g.lineWidth = s * 0.7;
  g.stroke();
}

/**
 * The head: a disc with two eyes looking the way it goes; the viewer's
 * own is ringed in white.
 * @param {CanvasRenderingContext2D} g
 * @param {[number, number]} p
 * @param {number} s
 * @param {Dir} dir
 * @param {string} color
 * @param {boolean} mine
 * @param {number} dpr
 */
function face(g, p, s, dir, color, mine, dpr) {
  const [x, y] = p, [dy, dx] = DELTA[dir];
  g.fillStyle = color;
  g.beginPath(); g.arc(x, y, s * 0.44, 0, 2 * Math.PI); g.fill();
  if (mine) {
    g.strokeStyle = '#ffffff';
    g.lineWidth = Math.max(1.5 * dpr, s * 0.09);
    g.beginPath(); g.arc(x, y, s * 0.5, 0, 2 * Math.PI); g.stroke();
  }
  const fwd = s * 0.14, side = s * 0.19, r = Math.max(1, s * 0.12);
  for (const k of [-1, 1]) {
    const ex = x + dx * fwd + -dy * side * k, ey = y + dy * fwd + dx * side * k;
    g.fillStyle = '#ffffff';
    g.beginPath(); g.arc(ex, ey, r, 0, 2 * Math.PI); g.fill();
    g.fillStyle = '#0b0f14';
    g.beginPath(); g.arc(ex + dx * r * 0.45, ey + dy * r * 0.45, r * 0.55, 0, 2 * Math.PI); g.fill();
  }
}

/**
 * The turn the viewer asked for, shown at once: a chevron on the cell the
 * head will enter next.
 * @param {CanvasRenderingContext2D} g
 * @param {[number, number]} headAt  the head's cell's centre
 * @param {number} s
 * @param {Dir} dir
 * @param {string} color
 */
function hint(g, headAt, s, dir, color) {
  const [dy, dx] = DELTA[dir];
  const x = headAt[0] + dx * s, y = headAt[1] + dy * s, k = s * 0.26;
  g.strokeStyle = color;
  g.globalAlpha = 0.9;
  g.lineWidth = Math.max(2, s * 0.13);
  g.lineCap = 'round';
  g.lineJoin = 'round';
  g.beginPath();
  // A "V" pointing the way: its tip ahead, its arms behind and to each side.
  g.moveTo(x - dx * k * 0.6 - dy * k, y - dy * k * 0.6 + dx * k);
  g.lineTo(x + dx * k * 0.6, y + dy * k * 0.6);
  g.lineTo(x - dx * k * 0.6 + dy * k, y - dy * k * 0.6 - dx * k);
  g.stroke();
  g.globalAlpha = 1;
}

/** @param {[number, number]} a @param {[number, number]} b @param {number} t @returns {[number, number]} */
function lerp(a, b, t) { return [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t]; }

/** @param {CanvasRenderingContext2D} g @param {number} x @param {number} y @param {number} w @param {number} h @param {number} r */
function roundRect(g, x, y, w, h, r) {
  g.beginPath();
  g.moveTo(x + r, y);
  g.arcTo(x + w, y, x + w, y + h, r);
  g.arcTo(x + w, y + h, x, y + h, r);
  g.arcTo(x, y + h, x, y, r);
  g.arcTo(x, y, x + w, y, r);
  g.closePath();
}
