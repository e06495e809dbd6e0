package webfetch

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zero-gateway/zero/shared/fault"
)

const articleHTML = `<!doctype html><html><head><title>The Page Title</title><script>var tracking=1;</script></head>
<body><nav><a href="/">Home</a> | <a href="/about">About</a></nav>
<article><h1>The Page Title</h1>
<p>First paragraph of the article with <strong>bold words</strong> and a <a href="/more">relative link</a>. It is long enough for readability to keep it as the content of the page, which wants some text.</p>
<p>Second paragraph, also with plenty of words so the scoring picks this block as the article body rather than the navigation or the footer of the page.</p>
<p>Third paragraph: more sentences, commas, and words, because readability scores paragraphs by their length and by the number of commas they hold.</p>
</article><footer>Copyright footer</footer></body></html>`

// webServer is a fake web server on 127.0.0.1 recording what it got.
func webServer(t *testing.T) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var hits atomic.Int32
	mux := http.NewServeMux()
	mux.HandleFunc("/article", func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if r.Method != http.MethodGet || !strings.Contains(r.UserAgent(), "ZERO-web_fetch") {
			t.Errorf("got %s with User-Agent %q, want GET by ZERO-web_fetch", r.Method, r.UserAgent())
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(articleHTML))
	})
	mux.HandleFunc("/plain", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Write([]byte(strings.Repeat("x", 5000)))
	})
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Write([]byte(strings.Repeat("y", 4096)))
	})
	mux.HandleFunc("/image", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Write([]byte("\x89PNG"))
	})
	mux.HandleFunc("/missing", http.NotFound)
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(2 * time.Second):
		}
	})
	mux.HandleFunc("/redirect", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Connection", "close") // the next hop dials again
		http.Redirect(w, r, r.URL.Query().Get("to"), http.StatusFound)
	})
	mux.HandleFunc("/loop", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/loop", http.StatusFound)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv, &hits
}

// testFetcher allows 127.0.0.1 (the fake server) only; lookup answers
// host names.
func testFetcher(lookup LookupFunc) *Fetcher {
	guard := Guard{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}}
	return &Fetcher{Client: NewClient(ClientOptions{Guard: guard, Lookup: lookup}), MaxBytes: 1024, Timeout: 500 * time.Millisecond}
}

// fixedLookup answers every host with addrs.
func fixedLookup(addrs ...string) LookupFunc {
	return func(context.Context, string) ([]netip.Addr, error) {
		var out []netip.Addr
		for _, a := range addrs {
			out = append(out, netip.MustParseAddr(a))
		}
		return out, nil
	}
}

func TestFetchRefusesPrivateTargets(t *testing.T) {
	srv, _ := webServer(t)
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	hostURL := func(host string) string { return "http://" + net.JoinHostPort(host, itoa(port)) + "/" }
	cases := []struct {
		name   string
		url    string
		lookup LookupFunc
	}{
		{name: "ipv4 10/8 literal", url: hostURL("10.0.0.1")},
		{name: "ipv4 172.16/12 literal", url: hostURL("172.16.5.4")},
		{name: "ipv4 192.168/16 literal", url: hostURL("192.168.0.1")},
		{name: "metadata literal", url: "http://169.254.169.254/latest/meta-data/"},
		{name: "cgnat literal", url: hostURL("100.64.0.1")},
		{name: "loopback not allow-listed", url: hostURL("127.0.0.2")},
		{name: "ipv6 loopback literal", url: hostURL("::1")},
		{name: "ipv6 unique-local literal", url: hostURL("fc00::1")},
		{name: "ipv6 link-local literal", url: hostURL("fe80::1")},
		{name: "ipv4-mapped ipv6 literal", url: hostURL("::ffff:10.0.0.1")},
		{name: "host resolving to a private address", url: "http://intranet.example/", lookup: fixedLookup("192.168.1.10")},
		{name: "host with a public and a private answer", url: "http://mixed.example/", lookup: fixedLookup("127.0.0.1", "10.1.1.1")},
		{name: "redirect to a private literal", url: srv.URL + "/redirect?to=http://10.0.0.1/admin"},
		{name: "redirect to the metadata address", url: srv.URL + "/redirect?to=http://169.254.169.254/latest/meta-data/"},
		{name: "redirect to a host resolving privately", url: srv.URL + "/redirect?to=http://internal.example/", lookup: fixedLookup("172.20.0.1")},
		{name: "redirect to a non-http scheme", url: srv.URL + "/redirect?to=file:///etc/passwd"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := testFetcher(c.lookup).Fetch(context.Background(), Request{URL: c.url})
			if err == nil || !fault.Is(err, fault.Invalid) {
				t.Fatalf("Fetch(%s) = %v, want a fault.Invalid refusal", c.url, err)
			}
		})
	}
}

// TestFetchDNSRebinding: a name that answers an allowed address, then a
// private one, is refused on the second connection.
func TestFetchDNSRebinding(t *testing.T) {
	srv, hits := webServer(t)
	port := itoa(srv.Listener.Addr().(*net.TCPAddr).Port)
	var calls atomic.Int32
	lookup := func(context.Context, string) ([]netip.Addr, error) {
		if calls.Add(1) == 1 {
			return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
		}
		return []netip.Addr{netip.MustParseAddr("10.0.0.7")}, nil
	}
	target := "http://rebind.example:" + port
	_, err := testFetcher(lookup).Fetch(context.Background(), Request{URL: target + "/redirect?to=" + target + "/article"})
	if !fault.Is(err, fault.Invalid) || !strings.Contains(fault.Message(err), "10.0.0.7") {
		t.Fatalf("Fetch = %v, want the second answer 10.0.0.7 refused", err)
	}
	if calls.Load() != 2 || hits.Load() != 0 {
		t.Errorf("lookups %d, article hits %d; want 2 and 0", calls.Load(), hits.Load())
	}
}

func TestFetchProductionGuardRefusesLoopback(t *testing.T) {
	srv, hits := webServer(t)
	f := &Fetcher{Client: NewClient(ClientOptions{})}
	if _, err := f.Fetch(context.Background(), Request{URL: srv.URL + "/article"}); !fault.Is(err, fault.Invalid) {
		t.Fatalf("Fetch = %v, want the loopback test server refused by the default guard", err)
	}
	if hits.Load() != 0 {
		t.Errorf("the server was reached %d times", hits.Load())
	}
}

func TestFetch(t *testing.T) {
	srv, _ := webServer(t)
	cases := []struct {
		name        string
		req         Request
		wantCode    fault.Code
		want        []string
		wantNot     []string
		wantTitle   string
		wantTrunc   bool
		wantMaxRune int
	}{
		{name: "html as markdown", req: Request{URL: srv.URL + "/article"}, wantTitle: "The Page Title",
			want:    []string{"**bold words**", "[relative link](" + srv.URL + "/more)", "Second paragraph"},
			wantNot: []string{"tracking", "Copyright footer"}},
		{name: "html as text", req: Request{URL: srv.URL + "/article", Mode: "text"}, wantTitle: "The Page Title",
			want: []string{"bold words", "Second paragraph"}, wantNot: []string{"**", "tracking"}},
		{name: "maxChars truncates", req: Request{URL: srv.URL + "/plain", MaxChars: 100}, wantTrunc: true, wantMaxRune: 100},
		{name: "byte limit truncates", req: Request{URL: srv.URL + "/big"}, wantTrunc: true, wantMaxRune: 1024},
		{name: "redirect followed", req: Request{URL: srv.URL + "/redirect?to=/article"}, want: []string{"Second paragraph"}},
		{name: "redirect loop", req: Request{URL: srv.URL + "/loop"}, wantCode: fault.Invalid},
		{name: "not text", req: Request{URL: srv.URL + "/image"}, wantCode: fault.Invalid},
		{name: "http error", req: Request{URL: srv.URL + "/missing"}, wantCode: fault.Unavailable},
		{name: "time limit", req: Request{URL: srv.URL + "/slow"}, wantCode: fault.Unavailable},
		{name: "ftp scheme", req: Request{URL: "ftp://example.com/x"}, wantCode: fault.Invalid},
		{name: "file scheme", req: Request{URL: "file:///etc/passwd"}, wantCode: fault.Invalid},
		{name: "no host", req: Request{URL: "http:///x"}, wantCode: fault.Invalid},
		{name: "credentials in url", req: Request{URL: "http://u:p@example.com/"}, wantCode: fault.Invalid},
		{name: "bad mode", req: Request{URL: srv.URL + "/article", Mode: "pdf"}, wantCode: fault.Invalid},
		{name: "negative maxChars", req: Request{URL: srv.URL + "/article", MaxChars: -1}, wantCode: fault.Invalid},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			page, err := testFetcher(nil).Fetch(context.Background(), c.req)
			if c.wantCode != "" {
				if fault.CodeOf(err) != c.wantCode {
					t.Fatalf("Fetch = %v (%s), want %s", err, fault.CodeOf(err), c.wantCode)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range c.want {
				if !strings.Contains(page.Content, w) {
					t.Errorf("content lacks %q:\n%s", w, page.Content)
				}
			}
			for _, w := range c.wantNot {
				if strings.Contains(page.Content, w) {
					t.Errorf("content holds %q:\n%s", w, page.Content)
				}
			}
			if c.wantTitle != "" && page.Title != c.wantTitle {
				t.Errorf("title %q, want %q", page.Title, c.wantTitle)
			}
			if page.Truncated != c.wantTrunc || (c.wantMaxRune > 0 && len([]rune(page.Content)) != c.wantMaxRune) {
				t.Errorf("truncated %v with %d chars, want %v with %d", page.Truncated, len([]rune(page.Content)), c.wantTrunc, c.wantMaxRune)
			}
		})
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
