package webfetch

import (
	"context"
	"errors"
	"io"
	"net/http"

	"github.com/zero-gateway/zero/shared/fault"
)

// FetchBytes gets rawURL through f's client, so under the same SSRF rules
// as Fetch (checked on the dialed address and after every redirect), within
// f.Timeout, and returns the body and the response's Content-Type. A body
// larger than maxBytes is fault.Invalid (nothing past maxBytes+1 is read);
// the URL and transport errors are classified as Fetch's are.
func (f *Fetcher) FetchBytes(ctx context.Context, rawURL string, maxBytes int64) ([]byte, string, error) {
	u, err := checkURL(rawURL)
	if err != nil {
		return nil, "", err
	}
	timeout := f.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	hreq, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, "", fault.Wrap(fault.Invalid, err, "bad request for %s", u.Redacted())
	}
	hreq.Header.Set("User-Agent", userAgent)
	hreq.Header.Set("Accept", "image/*;q=0.9,*/*;q=0.5")
	resp, err := f.Client.Do(hreq)
	if err != nil {
		if fault.CodeOf(err) != fault.Internal {
			return nil, "", err // a refused address or redirect keeps its own message
		}
		return nil, "", fault.Wrap(fault.Unavailable, err, "could not fetch %s: %v", u.Redacted(), err)
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 400 {
		return nil, "", fault.New(fault.Unavailable, "%s answered HTTP %d", u.Redacted(), resp.StatusCode)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBytes+1))
	switch {
	case err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded):
		return nil, "", fault.Wrap(fault.Unavailable, err, "%s took longer than %s", u.Redacted(), timeout)
	case err != nil:
		return nil, "", fault.Wrap(fault.Unavailable, err, "reading %s: %v", u.Redacted(), err)
	case int64(len(body)) > maxBytes:
		return nil, "", fault.New(fault.Invalid, "%s is larger than the limit of %d bytes", u.Redacted(), maxBytes)
	}
	return body, resp.Header.Get("Content-Type"), nil
}
