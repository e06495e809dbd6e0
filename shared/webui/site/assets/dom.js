// DOM helpers. Nothing here (or anywhere in the page) parses HTML: text
// always becomes text nodes, so no model or user output can inject markup.

/** h builds an element: h('a', {href: '#/x', class: 'y', onclick: f}, 'text', child). */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (k === 'class') el.className = v;
    else if (k === 'value' || k === 'checked' || k === 'selected') el[k] = v;
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  append(el, children);
  return el;
}

/** append adds children (nodes, strings as text, nested arrays) to el. */
export function append(el, children) {
  for (const c of [children].flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

/** when formats epoch milliseconds as a local date and time. */
export function when(ms) {
  return ms ? new Date(ms).toLocaleString() : '—';
}

/** ago formats epoch milliseconds relative to now ("5 min ago"). */
export function ago(ms) {
  if (!ms) return '—';
  const s = Math.round((Date.now() - ms) / 1000);
  if (s < 0) return 'in ' + span(-s);
  return span(s) + ' ago';
}

function span(s) {
  if (s < 60) return s + ' s';
  if (s < 3600) return Math.round(s / 60) + ' min';
  if (s < 86400) return Math.round(s / 3600) + ' h';
  return Math.round(s / 86400) + ' d';
}

/** errorBox shows an error as an alert. */
export function errorBox(err) {
  return h('p', { role: 'alert' }, err && err.message ? err.message : String(err));
}

/** field wraps an input in a label. */
export function field(label, input) {
  return h('label', {}, label, input);
}

/** select builds a <select> of [value, label] pairs. */
export function select(options, value, attrs) {
  return h('select', attrs, options.map(([v, l]) => h('option', { value: v, selected: v === value }, l)));
}

/**
 * confirmButton is a button that asks before acting: the first press shows
 * "Really …? [Yes] [Cancel]" in place, so the confirmation is keyboard
 * reachable and needs no dialog.
 */
export function confirmButton(label, question, action) {
  const wrap = h('span', { class: 'confirm' });
  const first = h('button', { type: 'button', class: 'danger', onclick: ask }, label);
  function ask() {
    const yes = h('button', { type: 'button', class: 'danger', onclick: async () => { wrap.replaceChildren(first); await action(); } }, 'Yes, ' + label.toLowerCase());
    const no = h('button', { type: 'button', onclick: () => { wrap.replaceChildren(first); first.focus(); } }, 'Cancel');
    wrap.replaceChildren(h('span', {}, question), yes, no);
    yes.focus();
  }
  wrap.append(first);
  return wrap;
}

/** status writes a short result message into a live region. */
export function notice(el, text, isError) {
  el.replaceChildren(text);
  el.className = isError ? 'error' : 'notice';
}

/** sleep waits ms, or less when signal aborts. */
export function sleep(ms, signal) {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => { clearTimeout(t); resolve(); }, { once: true });
  });
}

/** newKey returns a random idempotency key. */
export function newKey(prefix) {
  const b = new Uint8Array(12);
  crypto.getRandomValues(b);
  return prefix + '-' + Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
}
