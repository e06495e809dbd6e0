package telegram

import (
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// maxMessageLength is sendMessage's limit on text after entity parsing, which
// Telegram counts in UTF-16 code units.
const maxMessageLength = 4096

// formatHTML renders model text for parse_mode HTML and splits it into
// sendMessage texts of 1..limit visible characters (UTF-16 code units after
// entity parsing). It returns nil for text with nothing visible.
//
// `<`, `>` and `&` are escaped everywhere. A small markdown subset becomes
// tags: ``` fences <pre> (with a language, <pre><code class="language-x">),
// `code` <code>, **bold** <b>; anything else is literal text. Pieces are cut
// in the visible text, preferring paragraph, then line, then word breaks, and
// every piece opens and closes its own tags, so no piece splits a tag, an
// escape or a surrogate pair, and every piece's tags are balanced. limit must be at least 2.
func formatHTML(text string, limit int) []string {
	doc := parseMarkdown(text)
	var out []string
	for _, r := range splitVisible(doc.text, limit) {
		if strings.TrimSpace(doc.text[r[0]:r[1]]) == "" {
			continue
		}
		out = append(out, doc.render(r[0], r[1]))
	}
	return out
}

type style uint8

const (
	plain style = iota
	bold
	code
	pre
)

// span styles the visible text[start:end].
type span struct {
	start, end int
	style      style
	lang       string // pre only
}

// document is markdown reduced to visible text and the spans that style it;
// the spans cover the text end to end.
type document struct {
	text  string
	spans []span
	b     strings.Builder // text while parsing
}

func (d *document) add(s style, lang, text string) {
	if text == "" {
		return
	}
	start := d.b.Len()
	d.b.WriteString(text)
	d.spans = append(d.spans, span{start: start, end: d.b.Len(), style: s, lang: lang})
}

func parseMarkdown(src string) *document {
	d := &document{}
	d.b.Grow(len(src))
	d.parse(src)
	d.text = d.b.String()
	return d
}

func (d *document) parse(src string) {
	rest := src
	for {
		start, end, ok := fenceLine(rest)
		if !ok {
			d.inline(rest)
			return
		}
		d.inline(rest[:start])
		lang := fenceLanguage(strings.TrimLeft(rest[start:end], " \t")[3:])
		body := ""
		if end < len(rest) {
			body = rest[end+1:]
		}
		closeStart, closeEnd, ok := fenceLine(body)
		if !ok { // unclosed fence: the rest is code
			d.add(pre, lang, strings.TrimRight(body, "\n"))
			return
		}
		d.add(pre, lang, strings.TrimSuffix(body[:closeStart], "\n"))
		rest = body[closeEnd:] // keeps the newline after the closing fence
	}
}

// fenceLine finds the first line of s that starts (after indentation) with
// ```, returning its start and end (the index of its '\n' or len(s)).
func fenceLine(s string) (start, end int, ok bool) {
	for start <= len(s) {
		end = strings.IndexByte(s[start:], '\n')
		if end < 0 {
			end = len(s)
		} else {
			end += start
		}
		if strings.HasPrefix(strings.TrimLeft(s[start:end], " \t"), "```") {
			return start, end, true
		}
		start = end + 1
	}
	return 0, 0, false
}

// fenceLanguage keeps a fence's info string only when it is a plain language
// name, since it lands in an HTML attribute.
func fenceLanguage(info string) string {
	info = strings.TrimSpace(info)
	if len(info) > 32 {
		return ""
	}
	for _, c := range []byte(info) {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("+#._-", c) >= 0) {
			return ""
		}
	}
	return info
}

// inline adds s, turning `code` and **bold** that open and close on the same
// line into spans.
func (d *document) inline(s string) {
	from := 0 // start of pending plain text
	for i := 0; i < len(s); {
		delim := ""
		switch {
		case s[i] == '`':
			delim = "`"
		case strings.HasPrefix(s[i:], "**"):
			delim = "**"
		default:
			i++
			continue
		}
		inner := s[i+len(delim):]
		if nl := strings.IndexByte(inner, '\n'); nl >= 0 {
			inner = inner[:nl]
		}
		j := strings.Index(inner, delim)
		if j <= 0 { // unclosed or empty: literal
			i += len(delim)
			continue
		}
		d.add(plain, "", s[from:i])
		if delim == "`" {
			d.add(code, "", inner[:j])
		} else {
			d.add(bold, "", inner[:j])
		}
		i += 2*len(delim) + j
		from = i
	}
	d.add(plain, "", s[from:])
}

var htmlEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

// render returns the HTML for the visible text[start:end].
func (d *document) render(start, end int) string {
	var b strings.Builder
	for _, sp := range d.spans {
		lo, hi := max(sp.start, start), min(sp.end, end)
		if lo >= hi {
			continue
		}
		text := htmlEscaper.Replace(d.text[lo:hi])
		switch sp.style {
		case bold:
			b.WriteString("<b>" + text + "</b>")
		case code:
			b.WriteString("<code>" + text + "</code>")
		case pre:
			if sp.lang != "" {
				b.WriteString(`<pre><code class="language-` + sp.lang + `">` + text + "</code></pre>")
			} else {
				b.WriteString("<pre>" + text + "</pre>")
			}
		default:
			b.WriteString(text)
		}
	}
	return b.String()
}

// splitVisible cuts text into byte ranges of at most limit UTF-16 code units.
// A cut lands on the last paragraph break ("\n\n"), else line break, else
// space in the window, which is dropped; a break in the window's first half
// is used only when no kind of break lies in its second half. With no break
// at all the cut falls between two runes.
func splitVisible(text string, limit int) [][2]int {
	var out [][2]int
	for start := 0; start < len(text); {
		end, units := start, 0
		for end < len(text) {
			r, size := utf8.DecodeRuneInString(text[end:])
			n := utf16.RuneLen(r)
			if n < 0 {
				n = 1 // invalid UTF-8 is sent as U+FFFD
			}
			if units+n > limit {
				break
			}
			units += n
			end += size
		}
		if end == len(text) {
			return append(out, [2]int{start, end})
		}
		cut, next := breakIn(text[start:end])
		out = append(out, [2]int{start, start + cut})
		start += next
	}
	return out
}

// breakIn picks where to cut window: it returns the end of the piece and
// where the next one starts.
func breakIn(window string) (cut, next int) {
	for _, least := range []int{max(1, len(window)/2), 1} {
		for _, sep := range []string{"\n\n", "\n", " "} {
			if i := strings.LastIndex(window, sep); i >= least {
				return i, i + len(sep)
			}
		}
	}
	return len(window), len(window)
}
