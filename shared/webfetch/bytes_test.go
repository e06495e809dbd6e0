package webfetch

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/fault"
)

// TestFetchBytes: bytes come back with their Content-Type; a body over the
// limit, an HTTP error, a private target and a redirect to one are refused.
func TestFetchBytes(t *testing.T) {
	png := "\x89PNG\r\n\x1a\n0123456789"
	mux := http.NewServeMux()
	mux.HandleFunc("/cat.png", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		_, _ = w.Write([]byte(png))
	})
	mux.HandleFunc("/big.png", func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(strings.Repeat("x", 100)))
	})
	mux.HandleFunc("/gone.png", http.NotFound)
	mux.HandleFunc("/redirect", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://169.254.169.254/latest/meta-data/", http.StatusFound)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	tests := []struct {
		name     string
		url      string
		max      int64
		want     string
		wantType string
		wantCode fault.Code
	}{
		{name: "image", url: srv.URL + "/cat.png", max: 64, want: png, wantType: "image/png"},
		{name: "over the limit", url: srv.URL + "/big.png", max: 64, wantCode: fault.Invalid},
		{name: "http error", url: srv.URL + "/gone.png", max: 64, wantCode: fault.Unavailable},
		{name: "metadata address", url: "http://169.254.169.254/latest/meta-data/", max: 64, wantCode: fault.Invalid},
		{name: "redirect to the metadata address", url: srv.URL + "/redirect", max: 64, wantCode: fault.Invalid},
		{name: "not http", url: "file:///etc/passwd", max: 64, wantCode: fault.Invalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data, ctype, err := testFetcher(nil).FetchBytes(context.Background(), tt.url, tt.max)
			if tt.wantCode != "" {
				if fault.CodeOf(err) != tt.wantCode {
					t.Fatalf("FetchBytes = %v; want %s", err, tt.wantCode)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, string(data)); diff != "" || ctype != tt.wantType {
				t.Errorf("type %q (want %q), body (-want +got):\n%s", ctype, tt.wantType, diff)
			}
		})
	}
}
