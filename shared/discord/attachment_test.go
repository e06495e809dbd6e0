package discord_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/discord"
	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/inbound"
)

const (
	catID   = "1310000000000000001"
	catURL  = "https://cdn.discordapp.com/ephemeral-attachments/1310000000000000000/1310000000000000001/cat.png?ex=67a1b2c3&is=67a06143&hm=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef&"
	catPath = "/ephemeral-attachments/1310000000000000000/1310000000000000001/cat.png"
)

func fixture(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestParseInteractionAttachment: /ask's attachment option becomes an
// image reference when Discord's resolved attachment is an image within
// the limit on the CDN, else a note before the text.
func TestParseInteractionAttachment(t *testing.T) {
	body := fixture(t, "ask_image.json")
	cat := inbound.Attachment{Kind: inbound.AttachmentImage, FileID: catID, URL: catURL, MimeType: "image/png", Size: 51234}
	tests := []struct {
		name     string
		replace  []string // old, new pairs applied to the fixture
		wantText string
		wantAtts []inbound.Attachment
	}{
		{name: "a png on the CDN", wantText: "what is on this picture?", wantAtts: []inbound.Attachment{cat}},
		{name: "content type with parameters", replace: []string{`"image/png"`, `"image/png; charset=binary"`},
			wantText: "what is on this picture?", wantAtts: []inbound.Attachment{cat}},
		{name: "a pdf is not passed on", replace: []string{`"image/png"`, `"application/pdf"`},
			wantText: "[the user attached \"cat.png\", not passed on: not a PNG, JPEG, GIF or WebP image]\nwhat is on this picture?"},
		{name: "over 5 MB is not passed on", replace: []string{`"size": 51234`, `"size": 5242881`},
			wantText: "[the user attached \"cat.png\", not passed on: over the limit of 5 MB]\nwhat is on this picture?"},
		{name: "the proxy URL when the URL is off the CDN", replace: []string{`"https://cdn.discordapp.com/`, `"https://evil.example/`},
			wantText: "what is on this picture?",
			wantAtts: []inbound.Attachment{{Kind: inbound.AttachmentImage, FileID: catID, MimeType: "image/png", Size: 51234,
				URL: strings.Replace(catURL, "cdn.discordapp.com", "media.discordapp.net", 1)}}},
		{name: "no https URL on the CDN", replace: []string{`"https://`, `"http://`},
			wantText: "[the user attached \"cat.png\", not passed on: not on Discord's CDN]\nwhat is on this picture?"},
		{name: "an attachment Discord did not resolve", replace: []string{`"value": "1310000000000000001"`, `"value": "42"`},
			wantText: "[the user attached a file Discord did not describe; it was not passed on]\nwhat is on this picture?"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := strings.NewReplacer(tt.replace...).Replace(body)
			req, skip, err := discord.ParseInteraction([]byte(b))
			if err != nil || skip != "" {
				t.Fatalf("ParseInteraction: skip %q, err %v", skip, err)
			}
			m := req.Message
			if m.Text != tt.wantText {
				t.Errorf("text %q; want %q", m.Text, tt.wantText)
			}
			if diff := cmp.Diff(tt.wantAtts, m.Attachments); diff != "" {
				t.Errorf("attachments (-want +got):\n%s", diff)
			}
			if m.ID != "discord:999:1310000000000000002" || m.To != "123" || m.ReplyToken != "tok-abc" {
				t.Errorf("message %+v: want the fixture's interaction", m)
			}
		})
	}
}

// fakeCDN serves Discord's attachment CDN: one file at catPath, when the
// request carries the signature query; it records "<METHOD> <path>".
type fakeCDN struct {
	t *testing.T
	cdnAnswer
	mu       sync.Mutex
	requests []string
}

// cdnAnswer is how the fake CDN answers a request for its file.
type cdnAnswer struct {
	data     []byte
	status   int    // 0 means 200
	location string // a redirect's target
}

func (f *fakeCDN) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.requests = append(f.requests, r.Method+" "+r.URL.Path)
	f.mu.Unlock()
	if r.Header.Get("Authorization") != "" {
		f.t.Errorf("the CDN got an Authorization header")
	}
	if r.URL.Path != catPath || r.URL.Query().Get("hm") == "" {
		http.NotFound(w, r)
		return
	}
	switch {
	case f.location != "":
		http.Redirect(w, r, f.location, http.StatusFound)
	case f.status != 0:
		w.WriteHeader(f.status)
	default:
		_, _ = w.Write(f.data)
	}
}

func TestFetchAttachment(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\n fake png")
	cat := inbound.Attachment{Kind: inbound.AttachmentImage, FileID: catID, URL: catURL, MimeType: "image/png", Size: int64(len(png))}
	with := func(f func(*inbound.Attachment)) inbound.Attachment { a := cat; f(&a); return a }
	tests := []struct {
		name         string
		cdn          cdnAnswer
		att          inbound.Attachment
		maxBytes     int64
		want         []byte
		wantCode     fault.Code
		wantRequests []string
	}{
		{name: "downloads from the CDN path", cdn: cdnAnswer{data: png}, att: cat, maxBytes: 100, want: png,
			wantRequests: []string{"GET " + catPath}},
		{name: "the proxy host too", cdn: cdnAnswer{data: png}, maxBytes: 100, want: png,
			att: with(func(a *inbound.Attachment) {
				a.URL = strings.Replace(catURL, "cdn.discordapp.com", "media.discordapp.net", 1)
			}),
			wantRequests: []string{"GET " + catPath}},
		{name: "a known size over the limit: no request", cdn: cdnAnswer{data: png}, att: cat, maxBytes: 5, wantCode: fault.Invalid},
		{name: "a body over the limit", cdn: cdnAnswer{data: png}, att: with(func(a *inbound.Attachment) { a.Size = 0 }), maxBytes: 5,
			wantCode: fault.Invalid, wantRequests: []string{"GET " + catPath}},
		{name: "off the CDN: no request", cdn: cdnAnswer{data: png}, maxBytes: 100, wantCode: fault.Invalid,
			att: with(func(a *inbound.Attachment) {
				a.URL = strings.Replace(catURL, "cdn.discordapp.com", "169.254.169.254", 1)
			})},
		{name: "not https: no request", cdn: cdnAnswer{data: png}, maxBytes: 100, wantCode: fault.Invalid,
			att: with(func(a *inbound.Attachment) { a.URL = strings.Replace(catURL, "https:", "http:", 1) })},
		{name: "no URL: no request", cdn: cdnAnswer{data: png}, maxBytes: 100, wantCode: fault.Invalid,
			att: with(func(a *inbound.Attachment) { a.URL = "" })},
		{name: "expired is not found", cdn: cdnAnswer{status: http.StatusNotFound}, att: cat, maxBytes: 100,
			wantCode: fault.NotFound, wantRequests: []string{"GET " + catPath}},
		{name: "forbidden", cdn: cdnAnswer{status: http.StatusForbidden}, att: cat, maxBytes: 100,
			wantCode: fault.Unauthorized, wantRequests: []string{"GET " + catPath}},
		{name: "a 5xx is transient", cdn: cdnAnswer{status: http.StatusBadGateway}, att: cat, maxBytes: 100,
			wantCode: fault.Unavailable, wantRequests: []string{"GET " + catPath}},
		{name: "a redirect is not followed", cdn: cdnAnswer{location: "http://169.254.169.254/latest"}, att: cat, maxBytes: 100,
			wantCode: fault.Invalid, wantRequests: []string{"GET " + catPath}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cdn := &fakeCDN{t: t, cdnAnswer: tt.cdn}
			srv := httptest.NewServer(cdn)
			defer srv.Close()
			c := discord.NewClient(discord.ClientConfig{CDNBaseURL: srv.URL, BotToken: "bot-secret", HTTPClient: srv.Client()})
			got, err := c.FetchAttachment(context.Background(), tt.att, tt.maxBytes)
			if code := fault.CodeOf(err); (err != nil || tt.wantCode != "") && code != tt.wantCode {
				t.Fatalf("FetchAttachment: %v (%s); want code %q", err, code, tt.wantCode)
			}
			if err != nil && strings.Contains(err.Error(), "hm=") {
				t.Errorf("error %q carries the URL's signature", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("bytes (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantRequests, cdn.requests); diff != "" {
				t.Errorf("CDN requests (-want +got):\n%s", diff)
			}
		})
	}
}

// TestFetchAttachmentNetworkFailure: no answer is transient.
func TestFetchAttachmentNetworkFailure(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	base := srv.URL
	srv.Close()
	c := discord.NewClient(discord.ClientConfig{CDNBaseURL: base})
	_, err := c.FetchAttachment(context.Background(), inbound.Attachment{FileID: catID, URL: catURL}, 100)
	if !fault.Is(err, fault.Unavailable) || strings.Contains(err.Error(), "hm=") {
		t.Errorf("FetchAttachment = %v; want fault.Unavailable without the signature", err)
	}
}
