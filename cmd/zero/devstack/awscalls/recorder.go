// Package awscalls records the AWS calls of the local stack's functions as
// IAM sees them. A Recorder is a reverse proxy in front of the AWS
// emulator; each function gets its own handler (its own listener), so a
// call is attributed to its function whatever credentials it carries.
// Each request is parsed into the authorisations AWS would ask of the
// caller's policy (iampolicy.Call: action, resource ARN with a Query's
// index and an S3 call's object key, and the condition keys the call
// supplies) and then forwarded unchanged, so its signature still holds.
//
// Parsed: DynamoDB (transactions and batches per item and table, with
// the partition keys each touches as dynamodb:LeadingKeys), SQS
// (JSON and query protocols; batch operations as their single action),
// S3 (path-style requests; ListObjects with s3:prefix, s3:delimiter and
// s3:max-keys; DeleteObjects per key), SSM parameters, STS and
// EventBridge Scheduler's calls on one schedule (with iam:PassRole for a
// create or update). A request
// it cannot parse is recorded as action "unparsed:<service>", which no
// policy allows, so a new kind of call fails the check loudly rather than
// passing unchecked.
package awscalls

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httputil"
	"net/url"
	"sync"

	"github.com/zero-gateway/zero/cmd/zero/devstack/iampolicy"
)

// maxBody bounds the request body read for parsing; larger bodies (S3
// object uploads) are forwarded without being read.
const maxBody = 4 << 20

// Recorder forwards requests to the emulator and records the calls.
// Safe for concurrent use.
type Recorder struct {
	proxy   *httputil.ReverseProxy
	account string
	onCall  func(iampolicy.Call)

	mu    sync.Mutex
	seen  map[string]bool
	calls []iampolicy.Call
}

// New returns a recorder forwarding to upstream (the emulator's URL).
// account is the account id of ARNs the requests do not carry (the
// emulator's). onCall, when non-nil, is called once for each distinct
// call, as it is first seen.
func New(upstream, account string, onCall func(iampolicy.Call)) (*Recorder, error) {
	u, err := url.Parse(upstream)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("recording proxy: upstream %q is not a URL", upstream)
	}
	r := &Recorder{account: account, onCall: onCall, seen: map[string]bool{}}
	r.proxy = &httputil.ReverseProxy{
		// Keep the Host header the client signed.
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(u)
			pr.Out.Host = pr.In.Host
		},
		// Stream long polls and downloads as they come.
		FlushInterval: -1,
	}
	return r, nil
}

// Handler serves function's calls: it records each request and forwards it.
func (r *Recorder) Handler(function string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		var body []byte
		if req.ContentLength >= 0 && req.ContentLength <= maxBody && req.Body != nil {
			b, err := io.ReadAll(req.Body)
			if err != nil {
				http.Error(w, "recording proxy: read body: "+err.Error(), http.StatusBadGateway)
				return
			}
			body = b
			req.Body = io.NopCloser(bytes.NewReader(b))
		}
		op, reqs := Parse(req, body, r.account)
		for _, ir := range reqs {
			r.record(iampolicy.Call{Function: function, Operation: op, Request: ir})
		}
		r.proxy.ServeHTTP(w, req)
	})
}

func (r *Recorder) record(c iampolicy.Call) {
	k := c.Key()
	r.mu.Lock()
	if r.seen[k] {
		r.mu.Unlock()
		return
	}
	r.seen[k] = true
	r.calls = append(r.calls, c)
	r.mu.Unlock()
	if r.onCall != nil {
		r.onCall(c)
	}
}

// Calls returns the distinct calls recorded so far, in the order first seen.
func (r *Recorder) Calls() []iampolicy.Call {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]iampolicy.Call(nil), r.calls...)
}
