// Cron: the jobs (cron.list), enable/disable, run now, history
// (cron.runs), remove, and a form to add or edit a job.
import { h, when, field, select, confirmButton, notice, errorBox } from '../dom.js';
import { rpc } from '../rpc.js';

/** cron renders the cron page into view. */
export default async function cron(view) {
  const out = h('p', { 'aria-live': 'polite', id: 'cron-out' });
  const body = h('div');
  const history = h('div', { id: 'cron-history' });
  const load = async () => {
    try {
      const res = await rpc('cron.list', { includeDisabled: true });
      body.replaceChildren(jobs(res.jobs || [], { out, load, history, edit: (j) => form.fill(j) }));
    } catch (err) { body.replaceChildren(errorBox(err)); }
  };
  const form = jobForm(out, load);
  view.append(h('h1', {}, 'Cron'), out, body, history, h('h2', {}, 'Add or edit a job'), form.el);
  await load();
}

function describe(s) {
  if (s.kind === 'at') return 'once at ' + when(s.atMs);
  if (s.kind === 'every') return `every ${s.everyMs / 1000} s`;
  return `${s.expr}${s.tz ? ' (' + s.tz + ')' : ''}`;
}

function jobs(list, ctx) {
  if (!list.length) return h('p', { class: 'muted' }, 'No jobs yet.');
  const act = (j, what, fn) => async () => {
    try { await fn(); notice(ctx.out, `${j.name}: ${what}.`); await ctx.load(); } catch (err) { notice(ctx.out, `${j.name}: ${err.message}`, true); }
  };
  return h('table', { class: 'cards', id: 'cron-jobs' },
    h('thead', {}, h('tr', {}, ['Job', 'Schedule', 'Next run', 'Last', 'Actions'].map((t) => h('th', { scope: 'col' }, t)))),
    h('tbody', {}, list.map((j) => h('tr', { 'data-id': j.id },
      h('td', { 'data-label': 'Job' }, h('strong', {}, j.name), ' ', h('span', { class: 'muted' }, j.id, j.enabled ? '' : ' (disabled)')),
      h('td', { 'data-label': 'Schedule' }, describe(j.schedule)),
      h('td', { 'data-label': 'Next run' }, when(j.state && j.state.nextRunAtMs)),
      h('td', { 'data-label': 'Last' }, j.state && j.state.lastStatus ? `${j.state.lastStatus} ${when(j.state.lastRunAtMs)}` : '—'),
      h('td', { 'data-label': 'Actions' }, h('div', { class: 'row' },
        h('button', { type: 'button', onclick: act(j, j.enabled ? 'disabled' : 'enabled', () => rpc('cron.update', { id: j.id, patch: { enabled: !j.enabled } })) }, j.enabled ? 'Disable' : 'Enable'),
        h('button', { type: 'button', onclick: act(j, 'queued', () => rpc('cron.run', { id: j.id })) }, 'Run now'),
        h('button', { type: 'button', onclick: () => showRuns(j, ctx.history) }, 'History'),
        h('button', { type: 'button', onclick: () => ctx.edit(j) }, 'Edit'),
        confirmButton('Remove', `Remove ${j.name}?`, act(j, 'removed', () => rpc('cron.remove', { id: j.id })))))))));
}

async function showRuns(j, el) {
  try {
    const res = await rpc('cron.runs', { id: j.id, limit: 50 });
    const rows = (res.entries || []).map((e) => h('tr', {},
      h('td', { 'data-label': 'When' }, when(e.runAtMs || e.ts)), h('td', { 'data-label': 'Action' }, e.action),
      h('td', { 'data-label': 'Status' }, e.status || ''), h('td', { 'data-label': 'Run' }, e.runId ? h('a', { href: '#/runs/' + encodeURIComponent(e.runId) }, e.runId) : ''),
      h('td', { 'data-label': 'Summary' }, e.error || e.summary || '')));
    el.replaceChildren(h('h2', {}, 'History of ' + j.name),
      rows.length ? h('table', { class: 'cards', id: 'cron-runs' }, h('tbody', {}, rows)) : h('p', { class: 'muted' }, 'No runs yet.'));
  } catch (err) { el.replaceChildren(errorBox(err)); }
}

const KINDS = [['every', 'every N seconds'], ['at', 'once at'], ['cron', 'cron expression']];

function jobForm(out, load) {
  const id = h('input', { type: 'hidden', value: '' });
  const name = h('input', { type: 'text', id: 'cron-name', required: true });
  const kind = select(KINDS, 'every', { id: 'cron-kind' });
  const every = h('input', { type: 'number', id: 'cron-every', min: 1, value: '3600' });
  const at = h('input', { type: 'datetime-local', id: 'cron-at', step: 1 });
  const expr = h('input', { type: 'text', id: 'cron-expr', placeholder: '0 7 * * *' });
  const tz = h('input', { type: 'text', id: 'cron-tz', placeholder: 'Europe/Berlin' });
  const message = h('textarea', { id: 'cron-message', rows: 2, required: true });
  const err = h('p', { role: 'alert' });
  const submit = async (ev) => {
    ev.preventDefault();
    err.textContent = '';
    const schedule = kind.value === 'every' ? { kind: 'every', everyMs: Number(every.value) * 1000 }
      : kind.value === 'at' ? { kind: 'at', atMs: new Date(at.value).getTime() } : { kind: 'cron', expr: expr.value.trim(), tz: tz.value.trim() || undefined };
    const payload = { kind: 'agentTurn', message: message.value };
    try {
      if (id.value) await rpc('cron.update', { id: id.value, patch: { name: name.value, schedule, payload } });
      else await rpc('cron.add', { name: name.value, schedule, sessionTarget: 'isolated', payload });
      notice(out, `${name.value}: saved.`);
      id.value = '';
      await load();
    } catch (e) { err.textContent = e.message; }
  };
  const el = h('form', { class: 'card', id: 'cron-form', onsubmit: submit }, id,
    h('div', { class: 'row' }, field('Name', name), field('Schedule', kind)),
    h('div', { class: 'row' }, field('Every (seconds)', every), field('At (local time)', at), field('Cron expression', expr), field('Time zone', tz)),
    field('Message for the agent (an isolated run)', message),
    h('div', { class: 'row' }, h('button', { type: 'submit', class: 'primary', id: 'cron-save' }, 'Save job')), err);
  const fill = (j) => {
    id.value = j.id; name.value = j.name; kind.value = j.schedule.kind;
    every.value = j.schedule.everyMs ? j.schedule.everyMs / 1000 : every.value;
    expr.value = j.schedule.expr || ''; tz.value = j.schedule.tz || '';
    message.value = j.payload.message || j.payload.text || '';
    name.focus();
  };
  return { el, fill };
}
