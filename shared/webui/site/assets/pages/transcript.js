// Transcript viewer: a session's turns (chat.transcript), the text as
// safe Markdown, tool calls and results collapsed, compaction markers
// with their summary, per-turn tokens and (where the model is priced) cost;
// "Load older" pages back.
import { h, when, errorBox } from '../dom.js';
import { rpc } from '../rpc.js';
import { renderMarkdown } from '../markdown.js';

const PAGE = 10; // turns a page

/**
 * transcript renders the transcript of the session args[0] into view, a
 * turn (transcript part) at a time, newest first (chat.transcript);
 * "Load older" pages back.
 */
export default async function transcript(view, args) {
  const key = args[0] || 'main';
  const list = h('div', { id: 'messages' });
  const older = h('button', { type: 'button', id: 'older', hidden: true }, 'Load older turns');
  const meta = h('p', { class: 'muted' });
  let before = 0;
  const load = async (more) => {
    try {
      const res = await rpc('chat.transcript', { sessionKey: key, before: more ? before : 0, parts: PAGE });
      const turns = (res.parts || []).map(renderPart);
      if (more) list.prepend(...turns);
      else list.replaceChildren(...turns);
      before = res.nextBefore;
      older.hidden = !before;
      meta.textContent = `session ${res.sessionKey} · id ${res.sessionId || '—'} · ${res.totalParts} turns`;
    } catch (err) { list.replaceChildren(errorBox(err)); }
  };
  older.addEventListener('click', () => load(true));
  view.append(h('h1', {}, 'Transcript'), h('p', { class: 'key' }, key), meta,
    h('div', { class: 'row' }, older, h('button', { type: 'button', onclick: () => load(false) }, 'Refresh'),
      h('a', { href: '#/chat/' + encodeURIComponent(key) }, 'Open in WebChat')),
    list);
  await load(false);
}

/** renderPart renders one turn: its lines and the tokens it used. */
function renderPart(part) {
  let input = 0;
  let output = 0;
  let cost = null; // USD, summed over the priced messages (costUsd from the gateway)
  const items = [];
  for (const l of part.lines || []) {
    if (l.type === 'compaction') { items.push(compaction(l)); continue; }
    if (l.message?.usage) { input += l.message.usage.input || 0; output += l.message.usage.output || 0; }
    if (typeof l.costUsd === 'number') cost = (cost || 0) + l.costUsd;
    items.push(renderMessage(l.message, l.costUsd));
  }
  const tokens = input || output ? ` · tokens in ${input}, out ${output}` : '';
  const usd = cost !== null ? ' · cost ' + dollars(cost) : '';
  return h('section', { class: 'turn', 'data-seq': part.seq }, h('h2', { class: 'muted' }, `Turn ${part.seq}${tokens}${usd}`), items);
}

/** dollars formats a small USD amount ("$0.00625"). */
function dollars(usd) {
  return '$' + (usd >= 0.01 ? usd.toFixed(2) : usd.toPrecision(3));
}

/**
 * renderMessage renders one transcript message object; costUsd (a number,
 * optional) is its price, computed by the gateway.
 */
export function renderMessage(m, costUsd) {
  if (m.type === 'compaction' || m.role === 'compactionSummary' || m.summary) return compaction(m);
  const role = m.role || 'unknown';
  const head = h('header', {}, h('strong', {}, label(m)), h('span', {}, when(m.timestamp)));
  if (m.model) head.append(h('span', {}, m.model));
  if (m.usage) head.append(h('span', { class: 'tokens' }, `tokens: in ${m.usage.input}, out ${m.usage.output}, total ${m.usage.totalTokens}`));
  if (typeof costUsd === 'number') head.append(h('span', { class: 'cost' }, 'cost ' + dollars(costUsd)));
  const body = h('div', { class: 'body' });
  const blocks = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : (m.content || []);
  if (role === 'toolResult') {
    body.append(h('details', { class: 'tool' }, h('summary', {}, `Tool result: ${m.toolName || ''}${m.isError ? ' (error)' : ''}`),
      h('pre', {}, blocks.map((b) => b.text ?? JSON.stringify(b)).join('\n'))));
  } else {
    for (const b of blocks) body.append(block(b));
  }
  return h('article', { class: 'msg ' + role }, head, body);
}

function label(m) {
  return { user: 'User', assistant: 'Assistant', toolResult: 'Tool' }[m.role] || m.role || 'Message';
}

function block(b) {
  switch (b.type) {
    case 'text': return renderMarkdown(b.text);
    case 'thinking': return h('details', {}, h('summary', {}, 'Thinking'), h('pre', {}, b.thinking || ''));
    case 'toolCall': return h('details', { class: 'tool' }, h('summary', {}, `Tool call: ${b.name}`),
      h('pre', {}, JSON.stringify(b.arguments ?? {}, null, 2)));
    default: return h('pre', {}, JSON.stringify(b));
  }
}

function compaction(m) {
  return h('article', { class: 'msg compaction' },
    h('header', {}, h('strong', {}, 'Compaction'), h('span', {}, m.timestamp ? new Date(m.timestamp).toLocaleString() : ''),
      m.tokensBefore ? h('span', {}, `${m.tokensBefore} tokens before`) : null),
    h('details', {}, h('summary', {}, 'Summary'), h('div', { class: 'body' }, renderMarkdown(m.summary || ''))));
}
