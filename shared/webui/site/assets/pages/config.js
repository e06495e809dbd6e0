// Config: zero.json (config.get), the schema's keys with their help
// (config.schema), save (config.patch) with the error shown at its key
// path; saving checks the version first, so an edit made elsewhere since
// the page loaded is not overwritten.
import { h, notice } from '../dom.js';
import { rpc } from '../rpc.js';

/** config renders the config page into view. */
export default async function config(view) {
  const [doc, schema] = await Promise.all([rpc('config.get', {}), rpc('config.schema', {}).catch(() => ({ keys: [] }))]);
  let version = doc.version;
  const raw = h('textarea', { id: 'config-raw', rows: 16, spellcheck: 'false' });
  raw.value = doc.raw;
  const out = h('p', { 'aria-live': 'polite', id: 'config-out' });
  const rows = new Map();
  const table = h('table', { class: 'cards schema' }, h('thead', {}, h('tr', {}, ['Key', 'Type', 'Default', 'Help'].map((t) => h('th', {}, t)))),
    h('tbody', {}, (schema.keys || []).map((k) => {
      const tr = h('tr', { id: 'key-' + k.path }, h('td', { 'data-label': 'Key' }, h('code', {}, k.path)), h('td', { 'data-label': 'Type' }, k.type),
        h('td', { 'data-label': 'Default' }, k.default === undefined ? '' : JSON.stringify(k.default)), h('td', { 'data-label': 'Help' }, k.description));
      rows.set(k.path, tr);
      return tr;
    })));
  const save = async (ev) => {
    ev.preventDefault();
    for (const tr of rows.values()) tr.classList.remove('hit');
    try {
      const now = await rpc('config.get', {});
      if (now.version !== version) throw new Error('zero.json changed since this page loaded it; reload before saving.');
      const res = await rpc('config.patch', { raw: raw.value });
      version = res.version;
      notice(out, 'Saved (version ' + res.version + ').' + (res.warnings && res.warnings.length ? ' Warnings: ' + res.warnings.join('; ') : ''));
    } catch (err) {
      notice(out, err.message, true);
      mark(err.message, rows);
    }
  };
  view.append(h('h1', {}, 'Config'), h('p', { class: 'muted' }, 'zero.json, version ' + (version || 'none stored')),
    doc.warnings && doc.warnings.length ? h('p', { class: 'error' }, 'Warnings: ' + doc.warnings.join('; ')) : null,
    h('form', { onsubmit: save }, h('label', { for: 'config-raw' }, 'zero.json (JSON5)', raw),
      h('div', { class: 'row' }, h('button', { type: 'submit', class: 'primary', id: 'config-save' }, 'Save'))),
    out, h('h2', {}, 'Keys'), table);
}

/** mark highlights the schema row of the first key path the error names. */
function mark(message, rows) {
  for (const m of message.matchAll(/([A-Za-z_][\w-]*(?:\.[\w*-]+|\[\d+\])*)\s*:/g)) {
    for (let p = m[1].replace(/\[\d+\]/g, ''); p; p = p.includes('.') ? p.slice(0, p.lastIndexOf('.')) : '') {
      const tr = rows.get(p);
      if (tr) { tr.classList.add('hit'); tr.scrollIntoView({ block: 'center' }); return; }
    }
  }
}

