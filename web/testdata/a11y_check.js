// The accessibility checks of web/a11y_test.go (checkA11y), run in the page
// under test. The file is one expression: an async function of the options
// {focus: number} (how many focusable elements to try, 0 for none) that
// resolves to a list of problems, one line each, naming the element.
//
// What it checks, on what the page shows now:
//   - every rendered interactive element has an accessible name;
//   - every img has an alt; no id is used twice; aria-labelledby and
//     aria-describedby name existing ids; every role is an ARIA role;
//   - roles that need a context have it (a gridcell in a row in a grid…)
//     and grids, rows, lists and tablists own what they must;
//   - visible text has a contrast of 4.5:1 with its background (3:1 for
//     large text), the background found by walking up the ancestors to the
//     first opaque colour, compositing the translucent ones on the way;
//     text over an image, a gradient or a canvas is left out;
//   - focus is visible: focusing a sample of the focusable elements (one of
//     each kind: tag, type, role and classes; an element with an id is a
//     kind of its own) changes an outline or a box-shadow on the element,
//     an ancestor near it or one of its descendants (a grid's cursor cell).
//     The Go side presses a key first, so the focus counts as the keyboard's.
//     An outline has 3:1 against the background around it.
async function a11yCheck(opts) {
  const problems = [];
  const seen = new Set();
  const add = (el, msg) => {
    const line = describe(el) + ': ' + msg;
    if (!seen.has(line)) {
      seen.add(line);
      problems.push(line);
    }
  };

  // describe names an element well enough to find it: its id, or the
  // nearest ancestor's id, tag, classes, a few data attributes and text.
  function describe(el) {
    let s = el.tagName.toLowerCase();
    if (el.id) {
      s += '#' + el.id;
    } else {
      const cls = [...el.classList].slice(0, 2);
      if (cls.length) s += '.' + cls.join('.');
      for (const a of ['role', 'type', 'data-game', 'data-seat', 'data-r', 'data-c', 'data-n', 'name']) {
        if (el.hasAttribute(a)) s += '[' + a + '="' + el.getAttribute(a) + '"]';
      }
      const anc = el.parentElement && el.parentElement.closest('[id]');
      if (anc) s = '#' + anc.id + ' ' + s;
    }
    const text = (el.textContent || '').trim().replace(/\s+/g, ' ');
    if (text) s += ' "' + (text.length > 30 ? text.slice(0, 30) + '…' : text) + '"';
    return s;
  }

  // rendered: laid out and not visibility: hidden (opacity may be 0: a
  // visually hidden radio button still takes the keyboard's focus).
  const rendered = (el) => el.checkVisibility({ visibilityProperty: true, checkVisibilityCSS: true }) &&
    el.getClientRects().length > 0;
  // inTree: in the accessibility tree (not under aria-hidden or inert).
  const inTree = (el) => !el.closest('[aria-hidden="true"], [inert]');

  // ---- accessible names (a simplified accname 1.2) ----
  const hiddenStyle = (el) => {
    const cs = getComputedStyle(el);
    return cs.display === 'none' || cs.visibility === 'hidden';
  };
  function textOf(node, visibleOnly) {
    if (node.nodeType === Node.TEXT_NODE) return node.textContent;
    if (node.nodeType !== Node.ELEMENT_NODE) return '';
    const el = node;
    if (visibleOnly && (el.getAttribute('aria-hidden') === 'true' || hiddenStyle(el))) return '';
    const label = el.getAttribute('aria-label');
    if (label && label.trim()) return ' ' + label + ' ';
    if (el.tagName === 'IMG' || (el.tagName === 'INPUT' && el.type === 'image')) return ' ' + (el.getAttribute('alt') || '') + ' ';
    if (el.tagName === 'INPUT' && ['button', 'submit', 'reset'].includes(el.type)) return ' ' + el.value + ' ';
    if (el.tagName === 'INPUT' || el.tagName === 'TEXTAREA') return ' ' + el.value + ' ';
    if (el.tagName === 'SELECT') return ' ' + [...el.selectedOptions].map((o) => o.textContent).join(' ') + ' ';
    if (el.tagName.toLowerCase() === 'svg') {
      const title = el.querySelector('title');
      return title ? ' ' + title.textContent + ' ' : '';
    }
    let s = '';
    for (const c of el.childNodes) s += textOf(c, visibleOnly);
    const block = !['inline', 'contents'].includes(getComputedStyle(el).display);
    if (el.isConnected && !hiddenStyle(el)) {
      for (const pseudo of ['::before', '::after']) {
        const content = getComputedStyle(el, pseudo).content;
        if (content && content !== 'none' && content !== 'normal' && /^".*"$/.test(content)) {
          s = pseudo === '::before' ? JSON.parse(content) + s : s + JSON.parse(content);
        }
      }
    }
    return block ? ' ' + s + ' ' : s;
  }
  const norm = (s) => (s || '').replace(/\s+/g, ' ').trim();
  const isControl = (el) => ['INPUT', 'SELECT', 'TEXTAREA'].includes(el.tagName);
  const noNameFromContent = new Set(['INPUT', 'SELECT', 'TEXTAREA', 'TABLE', 'UL', 'OL']);
  const nameFromContentRoles = new Set(['button', 'cell', 'checkbox', 'columnheader', 'gridcell', 'heading', 'link',
    'menuitem', 'menuitemcheckbox', 'menuitemradio', 'option', 'radio', 'row', 'rowheader', 'switch', 'tab', 'tooltip', 'treeitem']);
  function nameOf(el) {
    const ids = (el.getAttribute('aria-labelledby') || '').split(/\s+/).filter(Boolean);
    if (ids.length) {
      const s = norm(ids.map((id) => document.getElementById(id)).filter(Boolean).map((x) => textOf(x, rendered(x))).join(' '));
      if (s) return { name: s, from: 'aria-labelledby' };
    }
    const label = norm(el.getAttribute('aria-label'));
    if (label) return { name: label, from: 'aria-label' };
    if (isControl(el) && el.labels && el.labels.length) {
      const s = norm([...el.labels].map((l) => textOf(l, true)).join(' '));
      if (s) return { name: s, from: 'label' };
    }
    if (el.tagName === 'IMG' || (el.tagName === 'INPUT' && el.type === 'image')) {
      const alt = norm(el.getAttribute('alt'));
      if (alt) return { name: alt, from: 'alt' };
    }
    if (el.tagName === 'INPUT' && ['button', 'submit', 'reset'].includes(el.type) && norm(el.value)) {
      return { name: norm(el.value), from: 'value' };
    }
    const role = roleOf(el);
    if (!noNameFromContent.has(el.tagName) && (nameFromContentRoles.has(role) || el.tagName === 'BUTTON' || el.tagName === 'A' ||
        el.tagName === 'SUMMARY' || el.hasAttribute('tabindex'))) {
      const s = norm(textOf(el, true));
      if (s) return { name: s, from: 'content' };
    }
    const title = norm(el.getAttribute('title'));
    if (title) return { name: title, from: 'title' };
    if (isControl(el) && norm(el.getAttribute('placeholder'))) return { name: '', from: 'placeholder' };
    return { name: '', from: '' };
  }

  // ---- roles ----
  const validRoles = new Set(('alert alertdialog application article banner blockquote button caption cell checkbox code ' +
    'columnheader combobox complementary contentinfo definition deletion dialog directory document emphasis feed figure ' +
    'form generic grid gridcell group heading img insertion link list listbox listitem log main mark marquee math menu ' +
    'menubar menuitem menuitemcheckbox menuitemradio meter navigation none note option paragraph presentation progressbar ' +
    'radio radiogroup region row rowgroup rowheader scrollbar search searchbox separator slider spinbutton status ' +
    'strong subscript superscript switch tab table tablist tabpanel term textbox time timer toolbar tooltip tree ' +
    'treegrid treeitem').split(' '));
  function roleOf(el) {
    const explicit = (el.getAttribute('role') || '').trim().split(/\s+/)[0];
    if (explicit) return explicit;
    switch (el.tagName) {
      case 'TABLE': return 'table';
      case 'THEAD': case 'TBODY': case 'TFOOT': return 'rowgroup';
      case 'TR': return 'row';
      case 'TD': {
        const table = el.closest('table');
        const r = table && roleOf(table);
        return r === 'grid' || r === 'treegrid' ? 'gridcell' : 'cell';
      }
      case 'TH': return 'columnheader';
      case 'UL': case 'OL': return 'list';
      case 'LI': return el.parentElement && ['UL', 'OL', 'MENU'].includes(el.parentElement.tagName) ? 'listitem' : 'generic';
      case 'BUTTON': return 'button';
      case 'A': return el.hasAttribute('href') ? 'link' : 'generic';
      case 'SELECT': return el.multiple || el.size > 1 ? 'listbox' : 'combobox';
      case 'TEXTAREA': return 'textbox';
      case 'INPUT': return ({ checkbox: 'checkbox', radio: 'radio', range: 'slider', number: 'spinbutton', button: 'button',
        submit: 'button', reset: 'button', image: 'button', search: 'searchbox' })[el.type] || 'textbox';
      case 'DIV': case 'SPAN': return 'generic';
    }
    return '';
  }
  // The roles an element needs around it, skipping generic ancestors.
  const context = {
    gridcell: ['row'], cell: ['row'], columnheader: ['row'], rowheader: ['row'],
    row: ['grid', 'treegrid', 'table', 'rowgroup'], rowgroup: ['grid', 'treegrid', 'table'],
    option: ['listbox', 'group'], tab: ['tablist'], listitem: ['list', 'directory'], treeitem: ['tree', 'group'],
    menuitem: ['menu', 'menubar', 'group'], menuitemradio: ['menu', 'menubar', 'group'], menuitemcheckbox: ['menu', 'menubar', 'group'],
  };
  // The roles an element must own at least one of.
  const owned = {
    grid: ['row', 'rowgroup'], treegrid: ['row', 'rowgroup'], table: ['row', 'rowgroup'], rowgroup: ['row'],
    row: ['cell', 'gridcell', 'columnheader', 'rowheader'], list: ['listitem'], listbox: ['option', 'group'],
    tablist: ['tab'], menu: ['menuitem', 'menuitemradio', 'menuitemcheckbox', 'group'], radiogroup: ['radio'],
  };
  const transparentRole = (r) => r === 'generic' || r === 'none' || r === 'presentation' || r === '';
  function contextRole(el) {
    for (let a = el.parentElement; a; a = a.parentElement) {
      const r = roleOf(a);
      if (!transparentRole(r)) return r;
    }
    return '';
  }
  function ownedRoles(el, into) {
    for (const c of el.children) {
      const r = roleOf(c);
      if (transparentRole(r)) ownedRoles(c, into);
      else into.add(r);
    }
    for (const id of (el.getAttribute('aria-owns') || '').split(/\s+/).filter(Boolean)) {
      const o = document.getElementById(id);
      if (o) into.add(roleOf(o));
    }
    return into;
  }

  const all = [...document.body.querySelectorAll('*')];

  // ---- ids ----
  const ids = new Map();
  for (const el of document.querySelectorAll('[id]')) {
    ids.set(el.id, (ids.get(el.id) || 0) + 1);
  }
  for (const [id, n] of ids) {
    if (n > 1) add(document.getElementById(id), 'the id "' + id + '" is used by ' + n + ' elements');
  }
  for (const el of document.querySelectorAll('[aria-labelledby], [aria-describedby], [aria-controls], [aria-activedescendant]')) {
    if (!rendered(el)) continue; // a closed dialog may name a title it makes when it opens
    for (const attr of ['aria-labelledby', 'aria-describedby', 'aria-controls', 'aria-activedescendant']) {
      for (const id of (el.getAttribute(attr) || '').split(/\s+/).filter(Boolean)) {
        if (!document.getElementById(id)) add(el, attr + ' names "' + id + '", which no element has');
      }
    }
  }

  // ---- images ----
  for (const img of document.querySelectorAll('img')) {
    if (rendered(img) && inTree(img) && !img.hasAttribute('alt')) add(img, 'an img without alt (alt="" if it only decorates)');
  }
  for (const el of document.querySelectorAll('[role="img"], svg')) {
    if (rendered(el) && inTree(el) && (el.tagName.toLowerCase() !== 'svg' || el.getAttribute('role') === 'img') && !nameOf(el).name) {
      add(el, 'an image (role img) without a name');
    }
  }

  // ---- names of interactive elements and labels of form controls ----
  const interactive = 'button, a[href], input:not([type="hidden"]), select, textarea, summary, [role="button"], [role="link"], ' +
    '[role="checkbox"], [role="radio"], [role="switch"], [role="tab"], [role="menuitem"], [role="option"], ' +
    '[role="gridcell"][tabindex], [tabindex], [contenteditable=""], [contenteditable="true"]';
  const focusable = [];
  for (const el of document.body.querySelectorAll(interactive)) {
    if (!rendered(el)) continue;
    if (!inTree(el)) {
      if (el.tabIndex >= 0 && !el.disabled && !el.closest('[inert]')) add(el, 'focusable inside aria-hidden="true"');
      continue;
    }
    const { name, from } = nameOf(el);
    if (!name) {
      if (isControl(el)) add(el, from === 'placeholder' ? 'a form control labelled only by its placeholder (give it a <label> or aria-label)' : 'a form control without a label');
      else add(el, 'an interactive element without an accessible name');
    }
    const r = roleOf(el);
    if (el.getAttribute('role') && ['button', 'link', 'checkbox', 'radio', 'switch', 'tab', 'menuitem'].includes(r) &&
        !el.matches('button, a[href], input, select, textarea') && !el.hasAttribute('tabindex') && !el.closest('[aria-activedescendant]')) {
      add(el, 'role ' + r + ' without tabindex: the keyboard cannot reach it');
    }
    if (!el.disabled && el.tabIndex >= 0) focusable.push(el);
  }

  // ---- roles ----
  for (const el of all) {
    if (!inTree(el) || !rendered(el)) continue;
    const attr = (el.getAttribute('role') || '').trim();
    if (attr && !attr.split(/\s+/).some((r) => validRoles.has(r))) add(el, 'role "' + attr + '" is not an ARIA role');
    const r = roleOf(el);
    // Implicit roles of HTML tables and lists are checked by the browser's
    // own rules; check those set by hand, and everything inside a grid.
    const checked = attr || el.closest('[role="grid"], [role="treegrid"]');
    if (!checked) continue;
    if (context[r]) {
      const c = contextRole(el);
      if (!context[r].includes(c)) add(el, 'role ' + r + ' must be inside ' + context[r].join(' or ') + (c ? ', not ' + c : ''));
    }
    if (owned[r]) {
      const got = ownedRoles(el, new Set());
      if (got.size && ![...got].some((x) => owned[r].includes(x))) add(el, 'role ' + r + ' owns ' + [...got].join(', ') + ', not ' + owned[r].join(' or '));
      else if (!got.size && r !== 'list') add(el, 'role ' + r + ' owns nothing; it must own ' + owned[r].join(' or '));
    }
  }
  // The grid's own rows: a gridcell needs a row that is in the grid.
  for (const cell of document.querySelectorAll('[role="gridcell"]')) {
    if (!rendered(cell) || !inTree(cell)) continue;
    const row = cell.closest('[role="row"], tr');
    const grid = cell.closest('[role="grid"], [role="treegrid"], table');
    if (!row || !grid || !grid.contains(row) || (grid.tagName !== 'TABLE' || roleOf(grid) === 'table') && !['grid', 'treegrid'].includes(roleOf(grid))) {
      add(cell, 'a gridcell that is not in a row of a grid');
    }
  }

  // ---- contrast ----
  const probe = document.createElement('canvas');
  probe.width = probe.height = 1;
  const pctx = probe.getContext('2d', { willReadFrequently: true });
  const colours = new Map();
  function rgba(css) {
    if (colours.has(css)) return colours.get(css);
    let c = null;
    const m = /^rgba?\(\s*([\d.]+)[,\s]+([\d.]+)[,\s]+([\d.]+)(?:\s*[,/]\s*([\d.]+%?))?\s*\)$/.exec(css);
    if (m) {
      let a = m[4] === undefined ? 1 : parseFloat(m[4]);
      if (m[4] && m[4].endsWith('%')) a /= 100;
      c = { r: +m[1], g: +m[2], b: +m[3], a };
    } else {
      // color(srgb …), oklab(…), color-mix results: let the canvas convert.
      pctx.clearRect(0, 0, 1, 1);
      pctx.fillStyle = '#000';
      pctx.fillStyle = css;
      pctx.fillRect(0, 0, 1, 1);
      const d = pctx.getImageData(0, 0, 1, 1).data;
      c = { r: d[0], g: d[1], b: d[2], a: d[3] / 255 };
    }
    colours.set(css, c);
    return c;
  }
  const over = (top, under) => ({
    r: top.r * top.a + under.r * (1 - top.a), g: top.g * top.a + under.g * (1 - top.a),
    b: top.b * top.a + under.b * (1 - top.a), a: 1,
  });
  const lum = (c) => {
    const f = (v) => { v /= 255; return v <= 0.04045 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * f(c.r) + 0.7152 * f(c.g) + 0.0722 * f(c.b);
  };
  const ratio = (a, b) => { const x = lum(a), y = lum(b); return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05); };
  const hex = (c) => '#' + [c.r, c.g, c.b].map((v) => Math.round(v).toString(16).padStart(2, '0')).join('');
  const canvasLike = new Set(['CANVAS', 'IMG', 'VIDEO', 'svg', 'PICTURE', 'IFRAME']);
  // background returns the opaque colour behind el's text, or null when
  // an image, a gradient or a canvas is behind it.
  function background(el, textRect) {
    const layers = [];
    let base = null;
    for (let a = el; a; a = a.parentElement) {
      const cs = getComputedStyle(a);
      if (cs.backgroundImage && cs.backgroundImage !== 'none') return null;
      const bg = rgba(cs.backgroundColor);
      if (bg.a > 0) layers.push(bg);
      if (bg.a >= 1) { base = layers.pop(); break; }
    }
    if (!base) base = rgba(getComputedStyle(document.documentElement).colorScheme === 'dark' ? 'rgb(18, 18, 18)' : 'rgb(255, 255, 255)');
    if (textRect && textRect.width > 0) {
      const x = textRect.left + textRect.width / 2, y = textRect.top + textRect.height / 2;
      if (x >= 0 && y >= 0 && x < innerWidth && y < innerHeight) {
        // Text over a canvas or an image (under it in the stacking order,
        // not inside it): its background is not a colour.
        for (const hit of document.elementsFromPoint(x, y)) {
          if (canvasLike.has(hit.tagName) && !el.contains(hit)) return null;
        }
      }
    }
    let c = base;
    for (let i = layers.length - 1; i >= 0; i--) c = over(layers[i], c);
    return c;
  }
  const inactive = (el) => !!el.closest(':disabled, [aria-disabled="true"], [inert]');
  const textNodes = [];
  for (const el of all) {
    if (['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'OPTION', 'OPTGROUP', 'TITLE'].includes(el.tagName)) continue;
    let own = '';
    let node = null;
    for (const c of el.childNodes) {
      if (c.nodeType === Node.TEXT_NODE && c.textContent.trim()) { own += c.textContent; node = node || c; }
    }
    if (['INPUT', 'TEXTAREA', 'SELECT'].includes(el.tagName)) {
      if (el.type === 'hidden' || ['checkbox', 'radio', 'range', 'color', 'file', 'image'].includes(el.type)) continue;
      own = el.tagName === 'SELECT' ? [...el.selectedOptions].map((o) => o.textContent).join(' ') : el.value;
    }
    if (!own.trim()) continue;
    textNodes.push({ el, node, own });
  }
  for (const { el, node, own } of textNodes) {
    if (!el.checkVisibility({ opacityProperty: true, visibilityProperty: true, checkOpacity: true, checkVisibilityCSS: true })) continue;
    const box = el.getBoundingClientRect();
    if (box.width <= 1 || box.height <= 1) continue; // visually hidden, read by screen readers only
    const cs = getComputedStyle(el);
    if (cs.clipPath && cs.clipPath !== 'none' && /inset\(50%/.test(cs.clipPath)) continue;
    if (inactive(el)) continue;
    let textRect = box;
    if (node) {
      const range = document.createRange();
      range.selectNodeContents(node);
      const r = range.getBoundingClientRect();
      if (r.width > 0) textRect = r;
    }
    const bg = background(el, textRect);
    if (!bg) continue;
    let fg = rgba(cs.color);
    let alpha = fg.a;
    for (let a = el; a; a = a.parentElement) alpha *= parseFloat(getComputedStyle(a).opacity);
    if (alpha < 0.02) continue;
    fg = over({ ...fg, a: alpha }, bg);
    const size = parseFloat(cs.fontSize);
    const weight = parseInt(cs.fontWeight, 10) || 400;
    const large = size >= 24 || (size >= 18.66 && weight >= 700);
    const need = large ? 3 : 4.5;
    const got = ratio(fg, bg);
    if (got + 0.005 < need) {
      add(el, 'contrast ' + got.toFixed(2) + ':1 (text ' + hex(fg) + ' on ' + hex(bg) + ', ' + size.toFixed(1) + 'px ' + weight +
        '; needs ' + need + ':1) "' + norm(own).slice(0, 24) + '"');
    }
  }

  // ---- focus visible ----
  if (opts.focus > 0) {
    const kinds = new Map();
    for (const el of focusable) {
      const kind = [el.tagName, el.id, el.type || '', roleOf(el), ...el.classList].join('.');
      if (!kinds.has(kind)) kinds.set(kind, el);
    }
    const sample = [...kinds.values()].slice(0, opts.focus);
    const props = ['outlineStyle', 'outlineWidth', 'outlineColor', 'outlineOffset', 'boxShadow'];
    const around = (el) => {
      const els = [el];
      for (let a = el.parentElement, i = 0; a && i < 3; a = a.parentElement, i++) els.push(a);
      els.push(...[...el.querySelectorAll('*')].slice(0, 1200));
      return els;
    };
    const shows = (cs) => (cs.outlineStyle !== 'none' && parseFloat(cs.outlineWidth) > 0) || (cs.boxShadow && cs.boxShadow !== 'none');
    const styles = (els) => els.map((e) => { const cs = getComputedStyle(e); return props.map((p) => cs[p]).join('|'); });
    const frame = () => new Promise((res) => requestAnimationFrame(() => res()));
    const before = document.activeElement;
    for (const el of sample) {
      if (!el.isConnected || !rendered(el)) continue;
      if (document.activeElement && document.activeElement !== document.body) document.activeElement.blur();
      await frame();
      const els = around(el);
      const was = styles(els);
      el.focus({ focusVisible: true, preventScroll: true });
      await frame();
      if (document.activeElement !== el) continue; // not focusable after all (hidden in a closed part)
      const now = styles(els);
      const changed = els.some((e, i) => was[i] !== now[i] && shows(getComputedStyle(e)));
      if (!changed) add(el, 'focus is not visible (no outline or box-shadow appears on focus' + (el.matches(':focus-visible') ? '' : '; :focus-visible did not match') + ')');
      // An outline must stand out from what is around it: 3:1 (WCAG 1.4.11).
      const ring = els.find((e, i) => was[i] !== now[i] && getComputedStyle(e).outlineStyle !== 'none' && parseFloat(getComputedStyle(e).outlineWidth) > 0);
      if (ring) {
        const cs = getComputedStyle(ring);
        const behind = ring.parentElement ? background(ring.parentElement, null) : null;
        const colour = rgba(cs.outlineColor);
        if (behind && colour.a > 0) {
          const got = ratio(over(colour, behind), behind);
          if (got + 0.005 < 3) add(el, 'focus outline ' + hex(colour) + ' on ' + hex(behind) + ': contrast ' + got.toFixed(2) + ':1, needs 3:1');
        }
      }
      el.blur();
    }
    if (before && before !== document.body && before.isConnected) before.focus({ preventScroll: true });
  }
  return problems;
}
