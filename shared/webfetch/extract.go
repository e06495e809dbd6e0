package webfetch

import (
	"bytes"
	"net/url"
	"regexp"
	"strings"

	readability "codeberg.org/readeck/go-readability/v2"
	htmltomarkdown "github.com/JohannesKaufmann/html-to-markdown/v2"
	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"golang.org/x/net/html"

	"github.com/zero-gateway/zero/shared/fault"
)

// extract turns a body into readable content. HTML (or an unlabelled
// body that looks like HTML) goes through readability (the article, not
// the navigation and ads), then to markdown or plain text; when
// readability finds no article the whole body is converted. Plain text,
// markdown, JSON, XML and CSV are returned as they are. Anything else
// (images, PDFs, archives) is a fault.Invalid error.
func extract(body []byte, contentType string, pageURL *url.URL, mode string) (title, content string, err error) {
	mt := mediaType(contentType)
	switch {
	case mt == "text/html" || mt == "application/xhtml+xml" || (mt == "" && looksHTML(body)):
		return extractHTML(body, pageURL, mode)
	case strings.HasPrefix(mt, "text/") || mt == "application/json" || strings.HasSuffix(mt, "+json") ||
		mt == "application/xml" || strings.HasSuffix(mt, "+xml") || mt == "":
		return "", strings.ToValidUTF8(string(body), "\uFFFD"), nil
	default:
		return "", "", fault.New(fault.Invalid, "web_fetch: %s is %s, which is not text; only HTML and text pages are read", pageURL.Redacted(), mt)
	}
}

// looksHTML reports whether an unlabelled body starts like an HTML page.
func looksHTML(body []byte) bool {
	head := strings.ToLower(string(bytes.TrimSpace(body[:min(len(body), 512)])))
	return strings.HasPrefix(head, "<!doctype html") || strings.HasPrefix(head, "<html") || strings.Contains(head, "<body")
}

// extractHTML runs readability, falling back to the whole document.
func extractHTML(body []byte, pageURL *url.URL, mode string) (title, content string, err error) {
	doc, err := html.Parse(bytes.NewReader(body))
	if err != nil {
		return "", "", fault.Wrap(fault.Invalid, err, "web_fetch: %s is not readable HTML", pageURL.Redacted())
	}
	node := doc
	if article, err := readability.FromDocument(doc, pageURL); err == nil && article.Node != nil {
		title, node = article.Title(), article.Node
	} else {
		title = documentTitle(doc)
	}
	if mode == ModeText {
		return title, plainText(node), nil
	}
	md, err := htmltomarkdown.ConvertNode(node, converter.WithDomain(pageURL.Scheme+"://"+pageURL.Host))
	if err != nil {
		return title, plainText(node), nil // markdown failed: text is still the content
	}
	return title, strings.TrimSpace(string(md)), nil
}

// blankLines matches runs of blank lines.
var blankLines = regexp.MustCompile(`\n[ \t]*(\n[ \t]*)+`)

// plainText is the node's text, scripts and styles left out, with runs of
// blank lines collapsed.
func plainText(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && (n.Data == "script" || n.Data == "style" || n.Data == "noscript" || n.Data == "template") {
			return
		}
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
		if n.Type == html.ElementNode && blockElement[n.Data] {
			b.WriteString("\n")
		}
	}
	walk(n)
	return strings.TrimSpace(blankLines.ReplaceAllString(b.String(), "\n\n"))
}

var blockElement = map[string]bool{
	"p": true, "div": true, "br": true, "li": true, "tr": true, "h1": true, "h2": true, "h3": true,
	"h4": true, "h5": true, "h6": true, "pre": true, "blockquote": true, "section": true, "article": true,
	"header": true, "footer": true, "table": true, "ul": true, "ol": true, "hr": true,
}

// documentTitle is the text of the first <title>.
func documentTitle(n *html.Node) string {
	if n.Type == html.ElementNode && n.Data == "title" {
		return strings.TrimSpace(plainText(n))
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if t := documentTitle(c); t != "" {
			return t
		}
	}
	return ""
}
