package modeltest

import (
	"bytes"
	"io"
	"net/http"
	"strconv"
)

// FixedAnswer is an http.RoundTripper that answers every request with
// 200, ContentType and Body, in memory. The stream fuzz targets use it in
// place of an httptest server, so an exec opens no socket and runs no
// server goroutine (their coverage, which varies with dial versus reused
// connection, no longer mixes into the target's). What froze those
// targets at 0 execs/s was Go's 60 s shrinking of each find, bounded in
// `make fuzz` (FUZZMINIMIZE), not the server.
//
// It drains and closes the request body, as a server would. Not safe for
// concurrent use: set Body between calls (a fuzz target's execs run one
// at a time).
type FixedAnswer struct {
	ContentType string
	Body        []byte
}

// Client is an *http.Client whose every request a answers.
func (a *FixedAnswer) Client() *http.Client { return &http.Client{Transport: a} }

// RoundTrip implements http.RoundTripper.
func (a *FixedAnswer) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		_, _ = io.Copy(io.Discard, r.Body)
		_ = r.Body.Close()
	}
	h := http.Header{}
	h.Set("Content-Type", a.ContentType)
	h.Set("Content-Length", strconv.Itoa(len(a.Body)))
	return &http.Response{
		Status: "200 OK", StatusCode: http.StatusOK, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: h, Body: io.NopCloser(bytes.NewReader(a.Body)), ContentLength: int64(len(a.Body)), Request: r,
	}, nil
}
