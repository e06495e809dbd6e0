package modeltest

import (
	"bytes"
	"io"
	"net/http"
	"strconv"
)

// FixedAnswer is an http.RoundTripper that answers every request with
// 200, ContentType and Body, in memory. The stream fuzz targets use it in
// place of an httptest server: through a loopback server every exec costs
// a round trip, and the server's goroutines and the client's connection
// pool (a new dial or a reused connection) add coverage that varies from
// run to run, so the fuzzer kept "finding" inputs it then spent its whole
// minimization budget (60 s, no execs counted) failing to shrink.
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
