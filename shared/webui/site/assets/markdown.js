// A tiny, safe Markdown renderer: it builds DOM nodes and text nodes only,
// never HTML, so raw HTML in model or user output shows as text. It knows
// paragraphs, headings, lists, fenced and inline code, bold, italic and
// links (http and https only; any other scheme is shown as text).

const FENCE = /^\s*```(.*)$/;
const BLANK = /^\s*$/;
const HEADING = /^(#{1,6})\s+(.*)$/;
const ITEM = /^\s*([-*+]|\d+[.)])\s+/;
const INLINE = /(`+)([\s\S]+?)\1|\*\*([^*]+?)\*\*|__([^_]+?)__|\*([^*\s][^*]*?)\*|(?<![\w])_([^_\s][^_]*?)_(?![\w])|\[([^\]]+)\]\(([^()\s]+)\)|(https?:\/\/[^\s<>()]+)/g;

/** renderMarkdown returns a DocumentFragment for the Markdown text src. */
export function renderMarkdown(src) {
  const frag = document.createDocumentFragment();
  const lines = String(src ?? '').replace(/\r\n?/g, '\n').split('\n');
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (BLANK.test(line)) { i++; continue; }
    const fence = line.match(FENCE);
    if (fence) {
      const code = [];
      for (i++; i < lines.length && !/^\s*```\s*$/.test(lines[i]); i++) code.push(lines[i]);
      i++;
      const c = document.createElement('code');
      const lang = fence[1].trim().split(/\s+/)[0];
      if (lang) c.dataset.lang = lang;
      c.textContent = code.join('\n');
      const pre = document.createElement('pre');
      pre.append(c);
      frag.append(pre);
      continue;
    }
    const head = line.match(HEADING);
    if (head) {
      const el = document.createElement('h' + Math.min(6, head[1].length + 2));
      inline(el, head[2]);
      frag.append(el);
      i++;
      continue;
    }
    if (ITEM.test(line)) {
      const list = document.createElement(/^\s*\d/.test(line) ? 'ol' : 'ul');
      for (; i < lines.length && ITEM.test(lines[i]); i++) {
        const li = document.createElement('li');
        inline(li, lines[i].replace(ITEM, ''));
        list.append(li);
      }
      frag.append(list);
      continue;
    }
    const p = document.createElement('p');
    let first = true;
    do {
      if (!first) p.append(document.createElement('br'));
      inline(p, lines[i]);
      first = false;
      i++;
    } while (i < lines.length && !BLANK.test(lines[i]) && !FENCE.test(lines[i]) && !HEADING.test(lines[i]) && !ITEM.test(lines[i]));
    frag.append(p);
  }
  return frag;
}

/** inline appends text's inline Markdown to el. */
function inline(el, text) {
  let last = 0;
  for (const m of text.matchAll(INLINE)) {
    if (m.index > last) el.append(text.slice(last, m.index));
    last = m.index + m[0].length;
    if (m[1]) {
      const c = document.createElement('code');
      c.textContent = m[2];
      el.append(c);
    } else if (m[3] || m[4]) {
      const b = document.createElement('strong');
      inline(b, m[3] || m[4]);
      el.append(b);
    } else if (m[5] || m[6]) {
      const e = document.createElement('em');
      inline(e, m[5] || m[6]);
      el.append(e);
    } else if (m[7]) {
      el.append(link(m[7], m[8]));
    } else {
      el.append(link(m[9], m[9]));
    }
  }
  if (last < text.length) el.append(text.slice(last));
}

/** safeURL returns href when it is an absolute http(s) URL, else null. */
export function safeURL(href) {
  try {
    const u = new URL(href);
    return u.protocol === 'https:' || u.protocol === 'http:' ? u.href : null;
  } catch {
    return null;
  }
}

function link(label, href) {
  const safe = safeURL(href);
  if (!safe) return document.createTextNode(label === href ? label : `${label} (${href})`);
  const a = document.createElement('a');
  a.href = safe;
  a.rel = 'noopener noreferrer nofollow';
  a.target = '_blank';
  a.textContent = label;
  return a;
}
