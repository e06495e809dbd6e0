package webfetch

import (
	"net/url"
	"testing"
	"unicode/utf8"
)

// FuzzExtract: no fetched body, however malformed, crashes the readable
// content extraction, and what it returns is valid UTF-8 (it goes into the
// model's request inside the untrusted envelope).
func FuzzExtract(f *testing.F) {
	f.Add([]byte(`<html><head><title>T</title></head><body><article><h1>Hi</h1><p>text <a href="/x">link</a></p></article></body></html>`), "text/html; charset=utf-8", "markdown")
	f.Add([]byte(`<p>unclosed <b>bold <i>italic`), "text/html", "text")
	f.Add([]byte(`{"a":1}`), "application/json", "markdown")
	f.Add([]byte("plain\xff\xfe text"), "text/plain", "text")
	page, _ := url.Parse("https://example.com/page")
	f.Fuzz(func(t *testing.T, body []byte, contentType, mode string) {
		title, content, err := extract(body, contentType, page, mode)
		if err != nil {
			return
		}
		if !utf8.ValidString(title) || !utf8.ValidString(content) {
			t.Fatalf("extract returned invalid UTF-8")
		}
	})
}
