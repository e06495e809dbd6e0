// The control page's shell: sign-in, the hash router and the navigation.
// Routes are #/<page>/<arg>; they carry session keys and run ids, never
// the token.
import { h, errorBox } from './dom.js';
import { rpc, token } from './rpc.js';
import sessions from './pages/sessions.js';
import transcript from './pages/transcript.js';
import runs from './pages/runs.js';
import chat from './pages/chat.js';
import cron from './pages/cron.js';
import config from './pages/config.js';
import status from './pages/status.js';

const pages = { sessions, transcript, runs, chat, cron, config, status };
let running = null; // the shown page's AbortController (stops its polling)

function route() {
  const [name, ...args] = location.hash.replace(/^#\/?/, '').split('/');
  return { name: pages[name] ? name : 'sessions', args: args.map(decodeURIComponent) };
}

async function render(message) {
  running?.abort();
  running = new AbortController();
  const signal = running.signal;
  const view = document.getElementById('view');
  const nav = document.getElementById('nav');
  view.replaceChildren();
  if (!token.get()) {
    nav.hidden = true;
    view.append(signIn(message));
    return;
  }
  nav.hidden = false;
  const r = route();
  for (const a of nav.querySelectorAll('a[data-page]')) {
    if (a.dataset.page === r.name) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  try {
    await pages[r.name](view, r.args, signal);
  } catch (err) {
    if (!signal.aborted) view.append(errorBox(err));
  }
}

function signIn(message) {
  const input = h('input', { type: 'password', id: 'token', name: 'token', autocomplete: 'current-password', required: true });
  const out = h('p', { id: 'signin-error', role: 'alert' }, message || '');
  const form = h('form', { method: 'post', class: 'card', onsubmit: submit },
    h('h1', {}, 'Sign in'),
    h('p', { class: 'muted' }, 'The gateway token (the one the zero CLI uses). It is kept in this tab only.'),
    h('div', { class: 'row' }, h('label', { for: 'token' }, 'Gateway token', input),
      h('button', { type: 'submit', class: 'primary', id: 'signin' }, 'Sign in')),
    out);
  async function submit(ev) {
    ev.preventDefault();
    const t = input.value.trim();
    try {
      await rpc('status', {}, t);
      token.set(t);
      render();
    } catch (err) {
      out.textContent = err.status === 401 ? 'Wrong token: the gateway refused it.' : 'Cannot sign in: ' + err.message;
      input.select();
    }
  }
  queueMicrotask(() => input.focus());
  return form;
}

window.addEventListener('hashchange', () => render());
window.addEventListener('zero:unauthorized', () => { token.clear(); render('Signed out: the gateway refused the token.'); });
document.getElementById('signout').addEventListener('click', () => { token.clear(); render(); });
render();
