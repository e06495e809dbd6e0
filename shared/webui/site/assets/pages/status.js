// Status: what `zero status` shows (reachability, config version, where
// the state lives), the dead-letter queues' depth, the outbox backlog and
// cron.
import { h, when } from '../dom.js';
import { rpc } from '../rpc.js';

/** status renders the status page into view. */
export default async function status(view) {
  const t0 = performance.now();
  const st = await rpc('status', {});
  const ms = Math.round(performance.now() - t0);
  const [outbox, cron] = await Promise.all([
    rpc('outbox.list', { limit: 1 }).catch((e) => ({ error: e.message })),
    rpc('cron.status', {}).catch((e) => ({ error: e.message })),
  ]);
  const dl = (pairs) => h('table', { id: 'status' }, h('tbody', {}, pairs.map(([k, v]) => h('tr', {}, h('th', { scope: 'row' }, k), h('td', {}, v)))));
  view.append(h('h1', {}, 'Status'), dl([
    ['Gateway', `reachable (${ms} ms)`],
    ['Config version', st.configVersion || 'none stored'],
    ['State', st.store || '—'],
    ['Recent sessions', String((st.sessions || []).length)],
    ['Outbox backlog', outbox.error ? outbox.error : `${outbox.counts.pending} pending, ${outbox.counts.sent} sent, ${outbox.counts.dead} dead`],
    ['Dead-letter queues', deadLetters(st.deadLetters)],
    ['Cron', cron.error ? cron.error : `${cron.enabledJobs} of ${cron.jobs} jobs enabled; next ${when(cron.nextWakeAtMs)}`],
  ]));
}

/** deadLetters describes each DLQ's depth ("work: 2 waiting, 1 in flight"). */
function deadLetters(list) {
  if (!list || !list.length) return 'not configured on the gateway (see zero dlq)';
  return list.map((q) => q.error ? `${q.name}: unreadable (${q.error})` : `${q.name}: ${q.visible} waiting, ${q.inFlight} in flight`).join('; ');
}
