package telegram

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zero-gateway/zero/shared/fault"
	"github.com/zero-gateway/zero/shared/inbound"
)

// fakeFiles speaks the Bot API's getFile and file download: files maps a
// file id to its file_path and bytes; it records every request as
// "<METHOD> <path with the token as <token>>".
type fakeFiles struct {
	t        *testing.T
	files    map[string]fakeFile
	mu       sync.Mutex
	requests []string
}

type fakeFile struct {
	path   string
	data   []byte
	status int // of the download; 0 means 200
}

func newFakeFiles(t *testing.T, files map[string]fakeFile) (*fakeFiles, *Client) {
	f := &fakeFiles{t: t, files: files}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return f, NewClient(srv.URL, testToken, srv.Client())
}

func (f *fakeFiles) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.requests = append(f.requests, r.Method+" "+strings.ReplaceAll(r.URL.Path, testToken, "<token>"))
	f.mu.Unlock()
	if r.Method == http.MethodPost && r.URL.Path == "/bot"+testToken+"/getFile" {
		var p struct {
			FileID string `json:"file_id"`
		}
		if err := json.NewDecoder(r.Body).Decode(&p); err != nil || r.Header.Get("Content-Type") != "application/json" {
			f.t.Errorf("getFile body: %v", err)
		}
		file, ok := f.files[p.FileID]
		if !ok {
			w.WriteHeader(http.StatusBadRequest)
			_, _ = io.WriteString(w, `{"ok":false,"error_code":400,"description":"Bad Request: invalid file_id"}`)
			return
		}
		_, _ = io.WriteString(w, `{"ok":true,"result":{"file_id":"`+p.FileID+`","file_unique_id":"u","file_size":`+
			strconv.Itoa(len(file.data))+`,"file_path":"`+file.path+`"}}`)
		return
	}
	path, ok := strings.CutPrefix(r.URL.Path, "/file/bot"+testToken+"/")
	if r.Method != http.MethodGet || !ok {
		f.t.Errorf("unexpected request %s %s", r.Method, r.URL.Path)
		http.NotFound(w, r)
		return
	}
	for _, file := range f.files {
		if file.path == path {
			if file.status != 0 {
				w.WriteHeader(file.status)
				return
			}
			_, _ = w.Write(file.data)
			return
		}
	}
	http.NotFound(w, r)
}

func TestFetchAttachment(t *testing.T) {
	jpeg := []byte("\xff\xd8\xff\xe0 a small jpeg")
	files := map[string]fakeFile{
		"AgAC-photo": {path: "photos/file_0.jpg", data: jpeg},
		"AgAC-gone":  {path: "photos/file_1.jpg", data: jpeg, status: http.StatusNotFound},
		"AgAC-down":  {path: "photos/file_2.jpg", data: jpeg, status: http.StatusBadGateway},
	}
	tests := []struct {
		name         string
		att          inbound.Attachment
		maxBytes     int64
		want         []byte
		wantCode     fault.Code
		wantRequests []string
	}{
		{name: "getFile then the download", att: inbound.Attachment{FileID: "AgAC-photo"}, maxBytes: 1 << 20, want: jpeg,
			wantRequests: []string{"POST /bot<token>/getFile", "GET /file/bot<token>/photos/file_0.jpg"}},
		{name: "known size over the limit: no request", att: inbound.Attachment{FileID: "AgAC-photo", Size: 5000}, maxBytes: 100,
			wantCode: fault.Invalid},
		{name: "size from getFile over the limit: no download", att: inbound.Attachment{FileID: "AgAC-photo"}, maxBytes: 4,
			wantCode: fault.Invalid, wantRequests: []string{"POST /bot<token>/getFile"}},
		{name: "unknown file id", att: inbound.Attachment{FileID: "nope"}, maxBytes: 100,
			wantCode: fault.Invalid, wantRequests: []string{"POST /bot<token>/getFile"}},
		{name: "expired path", att: inbound.Attachment{FileID: "AgAC-gone"}, maxBytes: 100, wantCode: fault.NotFound,
			wantRequests: []string{"POST /bot<token>/getFile", "GET /file/bot<token>/photos/file_1.jpg"}},
		{name: "5xx is transient", att: inbound.Attachment{FileID: "AgAC-down"}, maxBytes: 100, wantCode: fault.Unavailable,
			wantRequests: []string{"POST /bot<token>/getFile", "GET /file/bot<token>/photos/file_2.jpg"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, c := newFakeFiles(t, files)
			got, err := c.FetchAttachment(context.Background(), tt.att, tt.maxBytes)
			if tt.wantCode != "" {
				if !fault.Is(err, tt.wantCode) {
					t.Errorf("error %v; want class %s", err, tt.wantCode)
				}
			} else if err != nil {
				t.Fatalf("FetchAttachment: %v", err)
			}
			if err != nil && strings.Contains(err.Error(), testToken) {
				t.Errorf("error carries the bot token: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("bytes (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantRequests, f.requests); diff != "" {
				t.Errorf("requests (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDownload(t *testing.T) {
	big := []byte(strings.Repeat("x", 64))
	tests := []struct {
		name     string
		path     string
		maxBytes int64
		wantCode fault.Code
	}{
		{name: "within the limit", path: "documents/file_3.png", maxBytes: 64},
		{name: "over the limit", path: "documents/file_3.png", maxBytes: 63, wantCode: fault.Invalid},
		{name: "a path that climbs out", path: "../bot/getMe", maxBytes: 64, wantCode: fault.Invalid},
		{name: "empty path", maxBytes: 64, wantCode: fault.Invalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, c := newFakeFiles(t, map[string]fakeFile{"doc": {path: "documents/file_3.png", data: big}})
			got, err := c.Download(context.Background(), tt.path, tt.maxBytes)
			if tt.wantCode == "" && (err != nil || len(got) != len(big)) {
				t.Fatalf("Download = %d bytes, %v; want %d bytes", len(got), err, len(big))
			}
			if tt.wantCode != "" && !fault.Is(err, tt.wantCode) {
				t.Errorf("error %v; want class %s", err, tt.wantCode)
			}
		})
	}
}

// TestDownloadErrorHidesToken: a network failure's *url.Error carries the
// download URL, whose path has the token.
func TestDownloadErrorHidesToken(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	c := NewClient(srv.URL, testToken, srv.Client())
	srv.Close() // nothing listens any more
	_, err := c.Download(context.Background(), "photos/file_0.jpg", 100)
	if !fault.Is(err, fault.Unavailable) {
		t.Fatalf("error %v; want fault.Unavailable", err)
	}
	if strings.Contains(err.Error(), testToken) || !strings.Contains(err.Error(), "<token>") {
		t.Errorf("error should name <token>, never the token: %v", err)
	}
}
