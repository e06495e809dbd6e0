package webui

import (
	"io/fs"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
)

func newUI(t *testing.T) *UI {
	t.Helper()
	u, err := New()
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return u
}

// TestServe pins status, content type and caching of every kind of path.
func TestServe(t *testing.T) {
	u := newUI(t)
	base := AssetsPrefix + u.Version() + "/"
	tests := []struct {
		name       string
		method     string
		path       string
		wantStatus int
		wantType   string
		wantCache  string
	}{
		{name: "index", method: "GET", path: "/", wantStatus: 200, wantType: "text/html; charset=utf-8", wantCache: "no-cache"},
		{name: "index HEAD", method: "HEAD", path: "/", wantStatus: 200, wantType: "text/html; charset=utf-8", wantCache: "no-cache"},
		{name: "script", method: "GET", path: base + "app.js", wantStatus: 200, wantType: "text/javascript; charset=utf-8", wantCache: "public, max-age=31536000, immutable"},
		{name: "page module", method: "GET", path: base + "pages/chat.js", wantStatus: 200, wantType: "text/javascript; charset=utf-8", wantCache: "public, max-age=31536000, immutable"},
		{name: "stylesheet", method: "GET", path: base + "app.css", wantStatus: 200, wantType: "text/css; charset=utf-8", wantCache: "public, max-age=31536000, immutable"},
		{name: "icon", method: "GET", path: base + "icon.svg", wantStatus: 200, wantType: "image/svg+xml", wantCache: "public, max-age=31536000, immutable"},
		{name: "another version", method: "GET", path: AssetsPrefix + "000000000000/app.js", wantStatus: 404, wantCache: "no-store"},
		{name: "unversioned asset", method: "GET", path: AssetsPrefix + "app.js", wantStatus: 404, wantCache: "no-store"},
		{name: "missing asset", method: "GET", path: base + "nope.js", wantStatus: 404, wantCache: "no-store"},
		{name: "dot segments", method: "GET", path: base + "pages/../app.js", wantStatus: 404, wantCache: "no-store"},
		{name: "directory", method: "GET", path: base + "pages", wantStatus: 404, wantCache: "no-store"},
		{name: "POST is refused", method: "POST", path: "/", wantStatus: 405},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			u.ServeHTTP(rec, httptest.NewRequest(tc.method, tc.path, nil))
			if rec.Code != tc.wantStatus {
				t.Fatalf("status %d; want %d", rec.Code, tc.wantStatus)
			}
			if tc.wantType != "" && rec.Header().Get("Content-Type") != tc.wantType {
				t.Errorf("Content-Type %q; want %q", rec.Header().Get("Content-Type"), tc.wantType)
			}
			if tc.wantCache != "" && rec.Header().Get("Cache-Control") != tc.wantCache {
				t.Errorf("Cache-Control %q; want %q", rec.Header().Get("Cache-Control"), tc.wantCache)
			}
			if tc.method == "HEAD" && rec.Body.Len() != 0 {
				t.Errorf("HEAD answered a body")
			}
			for h, want := range map[string]string{"Content-Security-Policy": CSP, "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer"} {
				if got := rec.Header().Get(h); got != want {
					t.Errorf("%s = %q; want %q", h, got, want)
				}
			}
		})
	}
}

// TestCSP: same origin only, no inline script, no framing.
func TestCSP(t *testing.T) {
	for _, want := range []string{"default-src 'self'", "script-src 'self'", "frame-ancestors 'none'", "object-src 'none'", "base-uri 'none'"} {
		t.Run(want, func(t *testing.T) {
			if !strings.Contains(CSP, want) {
				t.Fatalf("CSP %q lacks %q", CSP, want)
			}
		})
	}
	if strings.Contains(CSP, "unsafe-") {
		t.Fatalf("CSP %q allows unsafe sources", CSP)
	}
}

// TestIndex: the index references versioned assets, no inline script or
// style, no other origin.
func TestIndex(t *testing.T) {
	u := newUI(t)
	idx := string(u.index)
	tests := []struct {
		name string
		bad  *regexp.Regexp
	}{
		{name: "placeholder replaced", bad: regexp.MustCompile(regexp.QuoteMeta(versionPlaceholder))},
		{name: "no inline script", bad: regexp.MustCompile(`<script(?:\s+type="module")?>`)},
		{name: "no inline style", bad: regexp.MustCompile(`<style|style=`)},
		{name: "no event handler attributes", bad: regexp.MustCompile(`\son[a-z]+=`)},
		{name: "no other origin", bad: regexp.MustCompile(`(?i)(src|href)="(https?:)?//`)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if m := tc.bad.FindString(idx); m != "" {
				t.Fatalf("index has %q", m)
			}
		})
	}
	if !strings.Contains(idx, `src="`+AssetsPrefix+u.Version()+`/app.js"`) {
		t.Fatalf("index does not load the versioned app.js")
	}
}

// TestScripts greps the page's code: no HTML parsing sinks, no token in
// a URL, no other origin.
func TestScripts(t *testing.T) {
	u := newUI(t)
	var all strings.Builder
	err := fs.WalkDir(u.assets, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".js") {
			return err
		}
		b, err := fs.ReadFile(u.assets, p)
		all.Write(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	code := all.String()
	tests := []struct {
		name string
		bad  *regexp.Regexp
	}{
		{name: "no innerHTML or outerHTML", bad: regexp.MustCompile(`(inner|outer)HTML`)},
		{name: "no insertAdjacentHTML or document.write", bad: regexp.MustCompile(`insertAdjacentHTML|document\.write`)},
		{name: "no eval", bad: regexp.MustCompile(`\beval\(|new Function\(`)},
		{name: "token not in a hash", bad: regexp.MustCompile(`location\.hash\s*=.*token`)},
		{name: "token not in a query", bad: regexp.MustCompile(`[?&](token|access_token|auth)=`)},
		{name: "token not in localStorage", bad: regexp.MustCompile(`localStorage`)},
		{name: "no other origin", bad: regexp.MustCompile(`fetch\(\s*['"]https?:`)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if m := tc.bad.FindString(code); m != "" {
				t.Fatalf("the page's scripts have %q", m)
			}
		})
	}
	if n := strings.Count(code, "fetch("); n != 1 || !strings.Contains(code, "fetch('/rpc'") {
		t.Fatalf("the page calls fetch %d times; want once, to /rpc", n)
	}
}

// TestMount: the page answers GET / and /assets/..., the API the rest.
func TestMount(t *testing.T) {
	api := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusTeapot) })
	h := Mount(newUI(t), api)
	tests := []struct {
		name, method, path string
		want               int
	}{
		{name: "index", method: "GET", path: "/", want: 200},
		{name: "asset path", method: "GET", path: "/assets/x/y.js", want: 404},
		{name: "rpc", method: "POST", path: "/rpc", want: http.StatusTeapot},
		{name: "GET rpc goes to the API", method: "GET", path: "/rpc", want: http.StatusTeapot},
		{name: "POST / goes to the API", method: "POST", path: "/", want: http.StatusTeapot},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(tc.method, tc.path, nil))
			if rec.Code != tc.want {
				t.Fatalf("%s %s: %d; want %d", tc.method, tc.path, rec.Code, tc.want)
			}
		})
	}
}
