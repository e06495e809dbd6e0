// Sessions: the list (sessions.list), filters, per-session actions.
import { h, ago, field, select, confirmButton, notice, errorBox, newKey } from '../dom.js';
import { rpc } from '../rpc.js';

const KINDS = [['', 'all kinds'], ['main', 'main'], ['group', 'group'], ['cron', 'cron'], ['hook', 'hook'], ['node', 'node'], ['other', 'other']];
const ACTIVE = [['', 'any time'], ['60', 'last hour'], ['1440', 'last day'], ['10080', 'last week']];
const POLICY = [['inherit', 'inherit'], ['allow', 'on (allow)'], ['deny', 'off (deny)']];
const QUEUE = [['', '(unchanged)'], ['collect', 'collect'], ['followup', 'followup'], ['steer', 'steer'], ['interrupt', 'interrupt']];

/** sessions renders the sessions page into view. */
export default async function sessions(view, _args, signal) {
  const kind = select(KINDS, sessionStorage.getItem('zero.kind') || '', { id: 'kind' });
  const active = select(ACTIVE, sessionStorage.getItem('zero.active') || '', { id: 'active' });
  const out = h('p', { 'aria-live': 'polite' });
  const body = h('div');
  const load = async () => {
    sessionStorage.setItem('zero.kind', kind.value);
    sessionStorage.setItem('zero.active', active.value);
    const params = { limit: 200 };
    if (kind.value) params.kinds = [kind.value];
    if (active.value) params.activeMinutes = Number(active.value);
    try {
      const res = await rpc('sessions.list', params);
      if (!signal.aborted) body.replaceChildren(table(res.sessions || [], out, load));
    } catch (err) { body.replaceChildren(errorBox(err)); }
  };
  kind.addEventListener('change', load);
  active.addEventListener('change', load);
  view.append(h('h1', {}, 'Sessions'),
    h('div', { class: 'row' }, field('Kind', kind), field('Active', active), h('button', { type: 'button', onclick: load }, 'Refresh')),
    out, body);
  await load();
}

function table(rows, out, reload) {
  if (!rows.length) return h('p', { class: 'muted' }, 'No sessions match.');
  rows.sort((a, b) => b.updatedAt - a.updatedAt);
  return h('table', { class: 'cards', id: 'sessions' },
    h('thead', {}, h('tr', {}, ['Session', 'Kind', 'Channel', 'Name', 'Active', 'Model', 'Tokens', 'Actions'].map((t) => h('th', { scope: 'col' }, t)))),
    h('tbody', {}, rows.map((r) => h('tr', { 'data-key': r.key },
      h('td', { 'data-label': 'Session', class: 'key' }, h('a', { href: '#/transcript/' + encodeURIComponent(r.key) }, r.key)),
      h('td', { 'data-label': 'Kind' }, r.kind),
      h('td', { 'data-label': 'Channel' }, r.channel),
      h('td', { 'data-label': 'Name' }, r.label || r.displayName || ''),
      h('td', { 'data-label': 'Active' }, ago(r.updatedAt)),
      h('td', { 'data-label': 'Model' }, r.model || 'default'),
      h('td', { 'data-label': 'Tokens', class: 'num' }, `${r.totalTokens} / ${r.contextTokens || '?'} (in ${r.inputTokens}, out ${r.outputTokens})`),
      h('td', { 'data-label': 'Actions' }, actions(r, out, reload))))));
}

function actions(r, out, reload) {
  const act = (what, fn) => async () => {
    try { await fn(); notice(out, `${r.key}: ${what}.`); await reload(); } catch (err) { notice(out, `${r.key}: ${err.message}`, true); }
  };
  const patch = (p) => rpc('sessions.patch', { key: r.key, ...p });
  const policy = select(POLICY, r.sendPolicy || 'inherit', { 'aria-label': 'Send policy of ' + r.key });
  const model = h('input', { type: 'text', value: r.model || '', placeholder: 'provider/model', 'aria-label': 'Model of ' + r.key, size: 18 });
  const queue = select(QUEUE, '', { 'aria-label': 'Queue mode of ' + r.key });
  return h('details', {}, h('summary', {}, 'Actions'),
    h('div', { class: 'row' },
      h('button', { type: 'button', onclick: act('reset', () => rpc('chat.send', { sessionKey: r.key, message: '/reset', idempotencyKey: newKey('reset') })) }, 'Reset'),
      h('a', { href: '#/chat/' + encodeURIComponent(r.key) }, 'Chat'),
      h('a', { href: '#/runs//' + encodeURIComponent(r.key) }, 'Runs')),
    h('div', { class: 'row' }, field('Send policy', policy),
      h('button', { type: 'button', onclick: act('send policy set', () => patch({ sendPolicy: policy.value })) }, 'Set')),
    h('div', { class: 'row' }, field('Model override', model),
      h('button', { type: 'button', onclick: act('model set', () => patch({ model: model.value.trim() })) }, 'Set')),
    h('div', { class: 'row' }, field('Queue mode', queue),
      h('button', { type: 'button', onclick: act('queue mode set', () => queue.value ? patch({ queueMode: queue.value }) : Promise.resolve()) }, 'Set')),
    h('div', { class: 'row' }, confirmButton('Delete', `Delete ${r.key} and its transcript?`,
      act('deleted', () => rpc('sessions.delete', { key: r.key, deleteTranscript: true })))));
}
