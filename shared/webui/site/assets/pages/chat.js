// WebChat: a chat box on a session (default main). Messages go through
// the agent method with channel "webchat" (the ingest door, the
// transcript); the run's steps show as they happen, then the reply.
import { h, field, newKey, errorBox } from '../dom.js';
import { rpc } from '../rpc.js';
import { renderMessage } from './transcript.js';
import { follow, remember } from './runs.js';

/** chat renders WebChat on session args[0] (default main). */
export default async function chat(view, args, signal) {
  const key = args[0] || 'main';
  const log = h('div', { id: 'chat-log', 'aria-live': 'polite' });
  const text = h('textarea', { id: 'chat-input', rows: 3, required: true });
  const send = h('button', { type: 'submit', class: 'primary', id: 'chat-send' }, 'Send');
  const steps = h('ol', { class: 'steps', id: 'chat-steps' });
  const state = h('p', { class: 'muted', id: 'chat-state' });
  const refresh = async () => {
    try {
      const res = await rpc('chat.history', { sessionKey: key, limit: 30, includeTools: true });
      log.replaceChildren(...(res.messages || []).map((m) => renderMessage(m)));
    } catch (err) {
      if (err.status !== 404) throw err;
      log.replaceChildren(h('p', { class: 'muted' }, 'No messages yet: the session starts with your first message.'));
    }
  };
  const submit = async (ev) => {
    ev.preventDefault();
    const message = text.value;
    if (!message.trim()) return;
    send.disabled = true;
    steps.replaceChildren();
    try {
      const acc = await rpc('agent', { message, sessionKey: key, channel: 'webchat', idempotencyKey: newKey('webchat') });
      remember(acc.runId, acc.sessionKey);
      text.value = '';
      log.append(renderMessage({ role: 'user', content: message, timestamp: Date.now() }));
      state.replaceChildren('Run ', h('a', { href: '#/runs/' + encodeURIComponent(acc.runId) }, acc.runId), ' is running…');
      await follow(acc.runId, steps, signal, (e) => showDraft(log, e));
      let done = { status: 'timeout' };
      while (!signal.aborted && done.status === 'timeout') done = await rpc('agent.wait', { runId: acc.runId, timeoutMs: 20000 });
      state.replaceChildren(`Run ${acc.runId}: ${done.status}${done.error ? ' (' + done.error + ')' : ''}`);
      document.getElementById('chat-draft')?.remove();
      await refresh();
    } catch (err) {
      state.replaceChildren(errorBox(err));
    } finally {
      send.disabled = false;
    }
  };
  view.append(h('h1', {}, 'WebChat'), h('p', { class: 'muted key' }, 'Session ' + key),
    log,
    h('form', { onsubmit: submit }, field('Message', text), h('div', { class: 'row' }, send)),
    state, h('details', { open: true }, h('summary', {}, 'Run steps'), steps));
  await refresh();
}

/**
 * showDraft shows the answer as it streams: each assistant delta event
 * (data.delta, with data.text the model call's text so far) updates one
 * draft message at the end of the log, as plain text; the reply from
 * chat.history replaces it when the run ends. A new model call (after a
 * tool) starts the draft over.
 */
function showDraft(log, e) {
  const d = e.data || {};
  if (e.stream !== 'assistant' || typeof d.delta !== 'string') return;
  let draft = document.getElementById('chat-draft');
  if (!draft) {
    draft = h('div', { id: 'chat-draft', class: 'message assistant draft' }, h('p', { class: 'muted' }, 'Assistant (writing…)'), h('p', { class: 'draft-text' }));
    log.append(draft);
  }
  const text = draft.querySelector('.draft-text');
  text.textContent = typeof d.text === 'string' ? d.text : text.textContent + d.delta;
}
