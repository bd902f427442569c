// The admin page: lists live rooms with the bearer token the operator
// typed (kept in sessionStorage), links to watch each, closes one, and —
// when roomd runs as several nodes — shows each room's node and the nodes,
// and moves a room to another node; and the chat messages players
// reported (as text, never markup).
const tokenInput = document.getElementById('token');
tokenInput.value = sessionStorage.getItem('roomd-admin') || '';
document.getElementById('auth').addEventListener('submit', (e) => {
  e.preventDefault();
  sessionStorage.setItem('roomd-admin', tokenInput.value);
  refresh();
});
const headers = () => ({ Authorization: 'Bearer ' + tokenInput.value });
// err says why the list did not load (cleared by the next that does);
// action, the outcome of the operator's last close or move.
const errBox = document.getElementById('err');
const actionBox = document.getElementById('action');
function said(text, bad) { actionBox.textContent = text; actionBox.className = bad ? 'bad' : ''; }
function age(created) {
  const s = Math.max(0, (Date.now() - new Date(created).getTime()) / 1000);
  return s < 120 ? `${Math.round(s)} s` : s < 7200 ? `${Math.round(s / 60)} min` : `${(s / 3600).toFixed(1)} h`;
}
function cell(text) { const td = document.createElement('td'); td.textContent = text; return td; }
async function answer(res) {
  try { return await res.json(); } catch { return { error: `${res.status} ${res.statusText}` }; }
}
async function closeRoom(code) {
  if (!confirm(`Close room ${code}? Everyone in it is disconnected.`)) return;
  const res = await fetch(`/api/admin/rooms/${encodeURIComponent(code)}/close`, { method: 'POST', headers: headers() });
  const body = await answer(res);
  if (!res.ok) said(`Room ${code} not closed: ${body.error}`, true);
  else said(`Room ${body.closed} closed.`);
  refresh();
}
async function moveRoom(code, from, to) {
  if (!to) { said(`Choose the node to move room ${code} to.`, true); return; }
  if (!confirm(`Move room ${code} from node ${from} to node ${to}? Its players reconnect there.`)) return;
  const res = await fetch(`/api/admin/rooms/${encodeURIComponent(code)}/move`, {
    method: 'POST', headers: { ...headers(), 'Content-Type': 'application/json' }, body: JSON.stringify({ to }),
  });
  const body = await answer(res);
  if (!res.ok) said(`Room ${code} not moved: ${body.error}`, true);
  else said(`Room ${body.moved} moved from node ${body.from} to node ${body.to}.`);
  refresh();
}
// moveControl is a room's "Move to…" select of the other live nodes that
// take rooms, with its label and button.
function moveControl(r, nodes, chosen) {
  const span = document.createElement('span');
  span.className = 'move';
  const id = `move-${r.code}`;
  const label = document.createElement('label');
  label.className = 'sr-only';
  label.htmlFor = id;
  label.textContent = `Move room ${r.code} to node`;
  const select = document.createElement('select');
  select.id = id;
  const none = document.createElement('option');
  none.value = '';
  none.textContent = 'Move to…';
  select.append(none);
  for (const n of nodes) {
    if (n.id === r.node || n.draining) continue;
    const o = document.createElement('option');
    o.value = n.id;
    o.textContent = n.id;
    select.append(o);
  }
  if (chosen && [...select.options].some((o) => o.value === chosen)) select.value = chosen;
  const button = document.createElement('button');
  button.type = 'button';
  button.id = `move-go-${r.code}`;
  button.textContent = 'move';
  button.setAttribute('aria-label', `Move room ${r.code} to the chosen node`);
  button.addEventListener('click', () => moveRoom(r.code, r.node, select.value));
  span.append(label, select, ' ', button);
  return span;
}
function renderRooms(rooms, nodes, clustered) {
  const tbody = document.getElementById('rooms');
  // A select the operator is using is not replaced under them: its list
  // would close. Otherwise choices and focus survive the refresh.
  if (tbody.contains(document.activeElement) && document.activeElement.tagName === 'SELECT') return;
  const chosen = {};
  for (const s of tbody.querySelectorAll('select')) chosen[s.id] = s.value;
  const focused = tbody.contains(document.activeElement) ? document.activeElement.id : '';
  document.getElementById('node-col').hidden = !clustered;
  tbody.replaceChildren(...rooms.map((r) => {
    const tr = document.createElement('tr');
    tr.dataset.room = r.code;
    const code = document.createElement('td');
    const codeText = document.createElement('code');
    codeText.textContent = r.code;
    code.append(codeText);
    const node = cell(r.node || '');
    node.hidden = !clustered;
    const actions = document.createElement('td');
    const watch = document.createElement('a');
    watch.href = `/r/${encodeURIComponent(r.code)}?watch=1`;
    watch.target = '_blank';
    watch.rel = 'noopener';
    watch.textContent = 'watch';
    const close = document.createElement('button');
    close.type = 'button';
    close.textContent = 'close';
    close.setAttribute('aria-label', `Close room ${r.code}`);
    close.addEventListener('click', () => closeRoom(r.code));
    actions.append(watch, ' ', close);
    if (clustered) actions.append(' ', moveControl(r, nodes, chosen[`move-${r.code}`]));
    tr.append(code, node, cell(`${r.game} ${r.mode}`), cell(r.frozen ? `${r.phase} (frozen)` : r.phase),
      cell(r.seats.map((s) => `${s.name}${s.ai ? ' (AI)' : ''}${s.connected ? '' : ' ·off'}`).join(', ')),
      cell(r.spectators), cell(r.rev), cell(age(r.created)), actions);
    return tr;
  }));
  if (focused) document.getElementById(focused)?.focus();
}
function renderNodes(nodes, self) {
  document.getElementById('nodes-section').hidden = nodes.length === 0;
  document.getElementById('nodes').replaceChildren(...nodes.map((n) => {
    const tr = document.createElement('tr');
    tr.dataset.node = n.id;
    const state = n.error ? `not listed: ${n.error}` : n.draining ? 'draining' : 'live';
    const td = cell(state);
    if (n.error) td.className = 'bad';
    tr.append(cell(n.id === self ? `${n.id} (this one)` : n.id), cell(n.url || n.peerUrl || ''), cell(n.rooms ?? ''),
      cell(n.conns ?? ''), td, cell(n.started ? age(n.started) : ''));
    return tr;
  }));
}
async function refresh() {
  try {
    const res = await fetch('/api/admin/rooms', { headers: headers() });
    const body = await answer(res);
    if (!res.ok) { errBox.textContent = body.error; return; }
    errBox.textContent = '';
    const nodes = body.nodes || [];
    const clustered = Boolean(body.node);
    renderRooms(body.rooms, nodes, clustered);
    renderNodes(nodes, body.node);
    const on = clustered ? ` on ${nodes.length} nodes${body.partial ? ' (some did not answer: see below)' : ''}` : '';
    document.getElementById('summary').textContent = `${body.rooms.length} live rooms${on} · refreshed ${new Date().toLocaleTimeString()}`;
    const reps = await fetch('/api/admin/reports', { headers: headers() });
    if (reps.ok) {
      const { reports } = await reps.json();
      document.getElementById('reports').replaceChildren(...reports.map((rep) => {
        const tr = document.createElement('tr');
        tr.dataset.message = rep.message.id;
        tr.append(cell(new Date(rep.at).toLocaleString()), cell(rep.room), cell(rep.message.name), cell(rep.message.text),
          cell(rep.reporter), cell(rep.reason || ''));
        return tr;
      }));
    }
  } catch (e) { errBox.textContent = String(e); }
}
refresh();
setInterval(refresh, 2000);
