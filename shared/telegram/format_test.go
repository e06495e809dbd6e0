package telegram

import (
	"encoding/xml"
	"errors"
	"html"
	"io"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"unicode/utf16"
)

var tagPattern = regexp.MustCompile(`<[^>]*>`)

// visibleLength is what Telegram counts for an HTML message: the text after
// entity parsing, in UTF-16 code units.
func visibleLength(htmlText string) int {
	return len(utf16.Encode([]rune(html.UnescapeString(tagPattern.ReplaceAllString(htmlText, "")))))
}

// checkWellFormed fails unless piece's tags are balanced and its entities
// complete (Telegram's HTML is a subset of XML for what we emit).
func checkWellFormed(t *testing.T, piece string) {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader("<m>" + piece + "</m>"))
	for {
		_, err := d.Token()
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			t.Fatalf("piece is not well-formed (%v): %q", err, piece)
		}
	}
}

func TestFormatHTML(t *testing.T) {
	tests := []struct {
		name  string
		text  string
		limit int
		want  []string
	}{
		{name: "empty sends nothing", text: "", want: nil},
		{name: "whitespace sends nothing", text: " \n\n\t ", want: nil},
		{name: "html characters are escaped", text: `a < b && c > d "q"`, want: []string{`a &lt; b &amp;&amp; c &gt; d "q"`}},
		{name: "tag-like text stays text", text: "<b>not bold</b>", want: []string{"&lt;b&gt;not bold&lt;/b&gt;"}},
		{name: "bold and inline code", text: "**Note:** use `x<y` here", want: []string{"<b>Note:</b> use <code>x&lt;y</code> here"}},
		{name: "markup inside code is literal", text: "`**not bold**`", want: []string{"<code>**not bold**</code>"}},
		{
			name: "fence with language",
			text: "See:\n```go\nif a < b {\n\treturn\n}\n```\nDone.",
			want: []string{"See:\n<pre><code class=\"language-go\">if a &lt; b {\n\treturn\n}</code></pre>\nDone."},
		},
		{name: "fence without language", text: "```\nx := 1\n```", want: []string{"<pre>x := 1</pre>"}},
		{name: "unsafe fence language is dropped", text: "```\"><script>\nx\n```", want: []string{"<pre>x</pre>"}},
		{name: "unclosed fence runs to the end", text: "intro\n```sh\necho **hi**\n", want: []string{"intro\n<pre><code class=\"language-sh\">echo **hi**</code></pre>"}},
		{name: "unclosed bold is literal", text: "2 ** 3 = 8", want: []string{"2 ** 3 = 8"}},
		{name: "code does not span lines", text: "a `b\nc` d", want: []string{"a `b\nc` d"}},
		{name: "empty code is literal", text: "``", want: []string{"``"}},
		{
			name:  "paragraph break preferred",
			text:  "aaaa aaaa aaaa\n\nbbbb bbbb",
			limit: 20,
			want:  []string{"aaaa aaaa aaaa", "bbbb bbbb"},
		},
		{
			name:  "line break before word break",
			text:  "aaaa aaaa aaaa\nbbbb bbbb cc",
			limit: 20,
			want:  []string{"aaaa aaaa aaaa", "bbbb bbbb cc"},
		},
		{
			name:  "word break",
			text:  "aaaa bbbb cccc dddd eeee",
			limit: 20,
			want:  []string{"aaaa bbbb cccc dddd", "eeee"},
		},
		{
			name:  "early paragraph break loses to a later line break",
			text:  "aa\n\nbbbb bbbb bbbb\ncccc",
			limit: 20,
			want:  []string{"aa\n\nbbbb bbbb bbbb", "cccc"},
		},
		{
			name:  "no break at all cuts between runes",
			text:  strings.Repeat("x", 25),
			limit: 20,
			want:  []string{strings.Repeat("x", 20), strings.Repeat("x", 5)},
		},
		{
			name:  "surrogate pairs are never split",
			text:  "😀😀😀",
			limit: 5,
			want:  []string{"😀😀", "😀"},
		},
		{
			name:  "escapes are never split and count once",
			text:  "&&&&&",
			limit: 2,
			want:  []string{"&amp;&amp;", "&amp;&amp;", "&amp;"},
		},
		{
			name:  "pre split across pieces keeps tags balanced",
			text:  "```\nline one\nline two\n```",
			limit: 10,
			want:  []string{"<pre>line one</pre>", "<pre>line two</pre>"},
		},
		{
			name:  "bold split across pieces keeps tags balanced",
			text:  "**aaaa bbbb cccc**",
			limit: 10,
			want:  []string{"<b>aaaa bbbb</b>", "<b>cccc</b>"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			limit := tt.limit
			if limit == 0 {
				limit = maxMessageLength
			}
			got := formatHTML(tt.text, limit)
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("formatHTML(%q, %d)\n got %q\nwant %q", tt.text, limit, got, tt.want)
			}
			for _, piece := range got {
				checkWellFormed(t, piece)
				if n := visibleLength(piece); n < 1 || n > limit {
					t.Errorf("piece has %d visible units, want 1..%d: %q", n, limit, piece)
				}
			}
		})
	}
}

// TestFormatHTMLLong checks the real limit on a long mixed text: every piece
// fits, is well-formed, and together they keep every visible character.
func TestFormatHTMLLong(t *testing.T) {
	var b strings.Builder
	for i := 0; b.Len() < 60000; i++ {
		switch i % 5 {
		case 0:
			b.WriteString("Paragraph with <tags> & **bold words** and `code & co`.\n\n")
		case 1:
			b.WriteString("Emoji 😀👍🏽 and accents çãé, " + strings.Repeat("&", 40) + "\n")
		case 2:
			b.WriteString("```python\n" + strings.Repeat("print('<x>')  # 😀\n", 150) + "```\n")
		case 3:
			b.WriteString(strings.Repeat("unbroken", 700) + "\n")
		default:
			b.WriteString(strings.Repeat("word ", 300) + "\n")
		}
	}
	text := b.String()
	pieces := formatHTML(text, maxMessageLength)
	var visible strings.Builder
	for _, piece := range pieces {
		checkWellFormed(t, piece)
		n := visibleLength(piece)
		if n < 1 || n > maxMessageLength {
			t.Fatalf("piece has %d visible units, want 1..%d", n, maxMessageLength)
		}
		visible.WriteString(html.UnescapeString(tagPattern.ReplaceAllString(piece, "")))
	}
	noSpace := func(s string) string { return strings.Join(strings.Fields(s), "") }
	want := noSpace(parseMarkdown(text).text)
	if got := noSpace(visible.String()); got != want {
		t.Errorf("pieces lost or changed text: %d visible non-space bytes, want %d", len(got), len(want))
	}
	if len(pieces) < 15 {
		t.Errorf("got %d pieces for %d bytes; splitting looks wrong", len(pieces), len(text))
	}
}

func TestFormatHTMLParagraphsAtRealLimit(t *testing.T) {
	text := strings.Repeat("a", 3000) + "\n\n" + strings.Repeat("b", 3000)
	got := formatHTML(text, maxMessageLength)
	want := []string{strings.Repeat("a", 3000), strings.Repeat("b", 3000)}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %d pieces of lengths %v, want two paragraphs", len(got), lengths(got))
	}
}

func lengths(pieces []string) []int {
	out := make([]int, len(pieces))
	for i, p := range pieces {
		out[i] = visibleLength(p)
	}
	return out
}
