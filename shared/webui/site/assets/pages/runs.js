// Runs: a run's events live (agent.events, polled), a session's runs
// with status and duration (sessions.runs), and the runs this tab started
// (WebChat). Routes: #/runs/<runId>/<sessionKey>, either part optional.
import { h, when, field, sleep, errorBox } from '../dom.js';
import { rpc } from '../rpc.js';

const RECENT = 'zero.runs';
const SESSION = 'zero.runsSession'; // the session last chosen here

/** remember keeps a run this tab started, newest first. */
export function remember(runId, sessionKey) {
  const list = JSON.parse(sessionStorage.getItem(RECENT) || '[]').filter((r) => r.runId !== runId);
  list.unshift({ runId, sessionKey, at: Date.now() });
  sessionStorage.setItem(RECENT, JSON.stringify(list.slice(0, 20)));
}

/** runHref is the route of runId, keeping the chosen session. */
function runHref(runId, sessionKey) {
  return '#/runs/' + encodeURIComponent(runId) + (sessionKey ? '/' + encodeURIComponent(sessionKey) : '');
}

/** runs renders the runs page; args are [run to follow, session to list]. */
export default async function runs(view, args, signal) {
  const [runId, chosen] = [args[0] || '', args[1] || sessionStorage.getItem(SESSION) || 'main'];
  const input = h('input', { type: 'text', id: 'run-id', value: runId, placeholder: 'run_…', size: 30 });
  const form = h('form', { class: 'row', onsubmit: (ev) => { ev.preventDefault(); location.hash = runHref(input.value.trim(), chosen); } },
    field('Run id', input), h('button', { type: 'submit' }, 'Follow'));
  const keyInput = h('input', { type: 'text', id: 'runs-session', value: chosen, placeholder: 'main', size: 30 });
  const sessionForm = h('form', { class: 'row', onsubmit: (ev) => { ev.preventDefault(); location.hash = runHref(runId, keyInput.value.trim() || 'main'); } },
    field('Session', keyInput), h('button', { type: 'submit' }, 'List runs'));
  const ofSession = h('div', { id: 'session-runs', 'aria-live': 'polite' });
  const recent = h('div');
  view.append(h('h1', {}, 'Runs'), form);
  if (runId) {
    const steps = h('ol', { class: 'steps', id: 'steps', 'aria-live': 'polite' });
    view.append(h('h2', {}, 'Events of ' + runId), steps);
    follow(runId, steps, signal);
  }
  view.append(h('h2', {}, 'Runs of a session'), sessionForm, ofSession, h('h2', {}, 'Started from this tab'), recent);
  sessionStorage.setItem(SESSION, chosen);
  listRecent(recent);
  await listSession(ofSession, chosen, runId);
}

/** duration formats milliseconds ("850 ms", "12.3 s"). */
function duration(ms) {
  return ms < 1000 ? ms + ' ms' : (ms / 1000).toFixed(1) + ' s';
}

/** listSession lists the runs of sessionKey's newest turns (sessions.runs). */
async function listSession(el, sessionKey, current) {
  let res;
  try { res = await rpc('sessions.runs', { sessionKey, limit: 20 }); } catch (err) { el.replaceChildren(errorBox(err)); return; }
  if (!res.runs.length) { el.replaceChildren(h('p', { class: 'muted' }, `No runs in the turns of ${res.sessionKey}.`)); return; }
  const rows = res.runs.map((r) => h('tr', { 'aria-current': r.runId === current ? 'true' : null },
    h('td', { 'data-label': 'Run' }, h('a', { href: runHref(r.runId, sessionKey) }, r.runId)),
    h('td', { 'data-label': 'Turn' }, String(r.seq)),
    h('td', { 'data-label': 'Status' }, r.status === 'unknown' ? 'unknown (record expired)' : r.status),
    h('td', { 'data-label': 'Started' }, when(r.startedAt)),
    h('td', { 'data-label': 'Duration' }, r.durationMs !== undefined ? duration(r.durationMs) : '—'),
    h('td', { 'data-label': 'Model' }, r.model || '—'),
    h('td', { 'data-label': 'Tokens' }, r.usage ? `in ${r.usage.input || 0}, out ${r.usage.output || 0}` : '—'),
    h('td', { 'data-label': 'Cost' }, runCost(r))));
  el.replaceChildren(h('p', { class: 'muted' }, `session ${res.sessionKey} · id ${res.sessionId || '—'}`),
    h('table', { class: 'cards' }, h('thead', {}, h('tr', {}, ['Run', 'Turn', 'Status', 'Started', 'Duration', 'Model', 'Tokens', 'Cost'].map((t) => h('th', {}, t)))), h('tbody', {}, rows)));
}

/**
 * runCost is a turn's cost: the model's (when its price is configured) and
 * ZERO's infrastructure (AWS calls and Lambda time at list prices), as
 * sessions.runs computed them ("model $0.00625 · infra ≈$0.0000200").
 */
function runCost(r) {
  const parts = [];
  if (typeof r.modelCostUsd === 'number') parts.push('model ' + usd(r.modelCostUsd));
  if (typeof r.infraCostUsd === 'number') parts.push('infra ≈' + usd(r.infraCostUsd));
  return parts.length ? parts.join(' · ') : '—';
}

/** usd formats a small USD amount with three significant digits. */
function usd(v) {
  return '$' + (v >= 0.01 ? v.toFixed(2) : v.toPrecision(3));
}

async function listRecent(el) {
  const list = JSON.parse(sessionStorage.getItem(RECENT) || '[]');
  if (!list.length) { el.replaceChildren(h('p', { class: 'muted' }, 'None yet: runs you start in WebChat show here.')); return; }
  const rows = await Promise.all(list.map(async (r) => {
    let st = {};
    try { st = await rpc('agent.wait', { runId: r.runId, timeoutMs: 0 }); } catch (err) { st = { status: err.message }; }
    const dur = st.endedAt && st.startedAt ? duration(st.endedAt - st.startedAt) : '—';
    return h('tr', {}, h('td', { 'data-label': 'Run' }, h('a', { href: runHref(r.runId, r.sessionKey) }, r.runId)),
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
