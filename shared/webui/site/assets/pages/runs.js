// Runs: a run's events live (agent.events, polled), and the runs this tab
// started (WebChat) with their status and duration (agent.wait).
import { h, when, field, sleep, errorBox } from '../dom.js';
import { rpc } from '../rpc.js';

const RECENT = 'zero.runs';

/** remember keeps a run this tab started, newest first. */
export function remember(runId, sessionKey) {
  const list = JSON.parse(sessionStorage.getItem(RECENT) || '[]').filter((r) => r.runId !== runId);
  list.unshift({ runId, sessionKey, at: Date.now() });
  sessionStorage.setItem(RECENT, JSON.stringify(list.slice(0, 20)));
}

/** runs renders the runs page; args[0] is a run to follow. */
export default async function runs(view, args, signal) {
  const input = h('input', { type: 'text', id: 'run-id', value: args[0] || '', placeholder: 'run_…', size: 30 });
  const form = h('form', { class: 'row', onsubmit: (ev) => { ev.preventDefault(); location.hash = '#/runs/' + encodeURIComponent(input.value.trim()); } },
    field('Run id', input), h('button', { type: 'submit' }, 'Follow'));
  const recent = h('div');
  view.append(h('h1', {}, 'Runs'), form, h('h2', {}, 'Started from this tab'), recent);
  listRecent(recent);
  if (args[0]) {
    const steps = h('ol', { class: 'steps', id: 'steps', 'aria-live': 'polite' });
    view.append(h('h2', {}, 'Events of ' + args[0]), steps);
    await follow(args[0], steps, signal);
  }
}

async function listRecent(el) {
  const list = JSON.parse(sessionStorage.getItem(RECENT) || '[]');
  if (!list.length) { el.replaceChildren(h('p', { class: 'muted' }, 'None yet: runs you start in WebChat show here.')); return; }
  const rows = await Promise.all(list.map(async (r) => {
    let st = {};
    try { st = await rpc('agent.wait', { runId: r.runId, timeoutMs: 0 }); } catch (err) { st = { status: err.message }; }
    const dur = st.endedAt && st.startedAt ? ((st.endedAt - st.startedAt) / 1000).toFixed(1) + ' s' : '—';
    return h('tr', {}, h('td', { 'data-label': 'Run' }, h('a', { href: '#/runs/' + encodeURIComponent(r.runId) }, r.runId)),
      h('td', { 'data-label': 'Session' }, r.sessionKey), h('td', { 'data-label': 'Status' }, st.status === 'timeout' ? 'running or queued' : st.status),
      h('td', { 'data-label': 'Started' }, when(st.startedAt || r.at)), h('td', { 'data-label': 'Duration' }, dur));
  }));
  el.replaceChildren(h('table', { class: 'cards' }, h('thead', {}, h('tr', {}, ['Run', 'Session', 'Status', 'Started', 'Duration'].map((t) => h('th', {}, t)))), h('tbody', {}, rows)));
}

/**
 * follow polls agent.events for runId and appends each event to list
 * until the run's lifecycle ends (or signal aborts); onEvent sees each.
 */
export async function follow(runId, list, signal, onEvent) {
  let after = 0;
  for (let idle = 0; !signal.aborted && idle < 600; idle++) {
    let res;
    try { res = await rpc('agent.events', { runId, afterSeq: after }); } catch (err) { list.append(h('li', {}, errorBox(err))); return; }
    for (const e of res.events || []) {
      after = Math.max(after, e.seq);
      list.append(step(e));
      onEvent?.(e);
      const phase = e.data && e.data.phase;
      if (e.stream === 'lifecycle' && (phase === 'end' || phase === 'error')) return;
    }
    await sleep(res.events && res.events.length ? 200 : 1000, signal);
  }
}

/** step renders one run event. */
export function step(e) {
  const d = e.data || {};
  let text = e.stream;
  if (d.phase) text += ' · ' + d.phase;
  if (d.name) text += ' · ' + d.name;
  if (typeof d.text === 'string') text += ': ' + d.text.slice(0, 200);
  return h('li', { 'data-stream': e.stream }, h('span', { class: 'muted' }, `#${e.seq} ${new Date(e.ts).toLocaleTimeString()} `), text,
    h('details', {}, h('summary', {}, 'data'), h('pre', {}, JSON.stringify(d, null, 2))));
}
