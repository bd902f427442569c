// The admin page: lists live rooms with the bearer token the operator
// typed (kept in sessionStorage), links to watch each, and closes one; and
// the chat messages players reported (as text, never markup).
const tokenInput = document.getElementById('token');
tokenInput.value = sessionStorage.getItem('roomd-admin') || '';
document.getElementById('auth').addEventListener('submit', (e) => {
  e.preventDefault();
  sessionStorage.setItem('roomd-admin', tokenInput.value);
  refresh();
});
const headers = () => ({ Authorization: 'Bearer ' + tokenInput.value });
function age(created) {
  const s = Math.max(0, (Date.now() - new Date(created).getTime()) / 1000);
  return s < 120 ? `${Math.round(s)} s` : s < 7200 ? `${Math.round(s / 60)} min` : `${(s / 3600).toFixed(1)} h`;
}
function cell(text) { const td = document.createElement('td'); td.textContent = text; return td; }
async function closeRoom(code) {
  if (!confirm(`Close room ${code}? Everyone in it is disconnected.`)) return;
  const res = await fetch(`/api/admin/rooms/${encodeURIComponent(code)}/close`, { method: 'POST', headers: headers() });
  if (!res.ok) document.getElementById('err').textContent = (await res.json()).error;
  refresh();
}
async function refresh() {
  const err = document.getElementById('err');
  try {
    const res = await fetch('/api/admin/rooms', { headers: headers() });
    const body = await res.json();
    if (!res.ok) { err.textContent = body.error; return; }
    err.textContent = '';
    const tbody = document.getElementById('rooms');
    tbody.replaceChildren(...body.rooms.map((r) => {
      const tr = document.createElement('tr');
      tr.dataset.room = r.code;
      const code = document.createElement('td');
      const codeText = document.createElement('code');
      codeText.textContent = r.code;
      code.append(codeText);
      const actions = document.createElement('td');
      const watch = document.createElement('a');
      watch.href = `/r/${encodeURIComponent(r.code)}?watch=1`;
      watch.target = '_blank';
      watch.rel = 'noopener';
      watch.textContent = 'watch';
      const close = document.createElement('button');
      close.type = 'button';
      close.textContent = 'close';
      close.addEventListener('click', () => closeRoom(r.code));
      actions.append(watch, ' ', close);
      tr.append(code, cell(`${r.game} ${r.mode}`), cell(r.frozen ? `${r.phase} (frozen)` : r.phase),
        cell(r.seats.map((s) => `${s.name}${s.ai ? ' (AI)' : ''}${s.connected ? '' : ' ·off'}`).join(', ')),
        cell(r.spectators), cell(r.rev), cell(age(r.created)), actions);
      return tr;
    }));
    document.getElementById('summary').textContent = `${body.rooms.length} live rooms · refreshed ${new Date().toLocaleTimeString()}`;
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
  } catch (e) { err.textContent = String(e); }
}
refresh();
setInterval(refresh, 2000);
