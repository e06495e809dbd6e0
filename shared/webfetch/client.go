package webfetch

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/netip"
	"syscall"
	"time"

	"github.com/zero-gateway/zero/shared/fault"
)

// MaxRedirects is the most redirects one fetch follows.
const MaxRedirects = 5

// LookupFunc resolves a host name to its addresses.
type LookupFunc func(ctx context.Context, host string) ([]netip.Addr, error)

// ClientOptions build the HTTP client of a Fetcher.
type ClientOptions struct {
	// Guard decides which addresses may be connected to (zero: the
	// production rule).
	Guard Guard
	// Lookup resolves host names (nil: the system resolver). Tests set it
	// to answer private addresses or change their answer between calls.
	Lookup LookupFunc
	// DialTimeout bounds one connection attempt (0: 10 s).
	DialTimeout time.Duration
}

// NewClient returns the HTTP client web_fetch uses: it never goes
// through a proxy (the check must see the real peer), resolves each host
// itself and dials only addresses the guard accepts — the address checked
// is the address dialed, so a DNS answer that changes between check and
// connection (rebinding) cannot reach a private address; the dialer's
// Control hook checks the socket's address once more. Every redirect is
// dialed the same way, at most MaxRedirects of them, http and https only.
// The client has no overall timeout: Fetcher bounds each fetch.
func NewClient(opts ClientOptions) *http.Client {
	timeout := opts.DialTimeout
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	lookup := opts.Lookup
	if lookup == nil {
		lookup = func(ctx context.Context, host string) ([]netip.Addr, error) {
			return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
		}
	}
	d := &guardedDialer{guard: opts.Guard, lookup: lookup, dialer: &net.Dialer{
		Timeout: timeout,
		Control: func(_, address string, _ syscall.RawConn) error { return opts.Guard.checkHostPort(address) },
	}}
	transport := &http.Transport{
		Proxy:                 nil,
		DialContext:           d.DialContext,
		ForceAttemptHTTP2:     true,
		TLSHandshakeTimeout:   timeout,
		ResponseHeaderTimeout: 15 * time.Second,
		MaxIdleConns:          16,
		IdleConnTimeout:       30 * time.Second,
	}
	return &http.Client{Transport: transport, CheckRedirect: checkRedirect}
}

// checkRedirect allows at most MaxRedirects redirects, each to http or
// https; the new address is checked when it is dialed.
func checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) > MaxRedirects {
		return fault.New(fault.Invalid, "web_fetch: more than %d redirects", MaxRedirects)
	}
	if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
		return fault.New(fault.Invalid, "web_fetch: refused a redirect to a %q URL: only http and https", req.URL.Scheme)
	}
	return nil
}

// guardedDialer resolves, checks, then dials the checked address.
type guardedDialer struct {
	guard  Guard
	lookup LookupFunc
	dialer *net.Dialer
}

// DialContext connects to the first accepted address of host. A host
// whose every address is refused is a fault.Invalid error naming one.
func (d *guardedDialer) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(address)
	if err != nil {
		return nil, fault.Wrap(fault.Invalid, err, "web_fetch: bad address %q", address)
	}
	addrs, err := d.resolve(ctx, host)
	if err != nil {
		return nil, err
	}
	var errs []error
	for _, a := range addrs {
		if err := d.guard.Check(a); err != nil {
			return nil, err // one private answer is enough to refuse the host
		}
	}
	for _, a := range addrs {
		conn, err := d.dialer.DialContext(ctx, network, net.JoinHostPort(a.Unmap().String(), port))
		if err == nil {
			return conn, nil
		}
		errs = append(errs, err)
	}
	return nil, fault.Wrap(fault.Unavailable, errors.Join(errs...), "web_fetch: could not connect to %s", host)
}

// resolve returns host's addresses: the literal itself for an IP.
func (d *guardedDialer) resolve(ctx context.Context, host string) ([]netip.Addr, error) {
	if a, err := netip.ParseAddr(host); err == nil {
		return []netip.Addr{a}, nil
	}
	addrs, err := d.lookup(ctx, host)
	if err != nil {
		return nil, fault.Wrap(fault.Unavailable, err, "web_fetch: could not resolve %s", host)
	}
	if len(addrs) == 0 {
		return nil, fault.New(fault.Unavailable, "web_fetch: %s has no address", host)
	}
	return addrs, nil
}
