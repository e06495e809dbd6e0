// Package webfetch fetches a web page for the web_fetch tool: http and
// https only, every connection checked against the SSRF rules (Guard)
// after DNS resolution, redirects re-checked, byte and time limits, and
// the page reduced to its readable content as markdown or text.
package webfetch

import (
	"fmt"
	"net/netip"

	"github.com/zero-gateway/zero/shared/fault"
)

// blocked are the address ranges web_fetch never connects to: the
// unspecified and "this network" range, loopback, RFC 1918 private
// space, CGNAT, link-local (the cloud metadata endpoint 169.254.169.254
// is in it), IETF and documentation ranges, benchmarking, multicast and
// reserved space; in IPv6 the unspecified and loopback addresses,
// unique-local, link-local, site-local, multicast, documentation and the
// NAT64 prefix (which maps to any IPv4 address). IPv4-mapped IPv6
// addresses are unmapped before the check.
var blocked = prefixes(
	"0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16",
	"172.16.0.0/12", "192.0.0.0/24", "192.0.2.0/24", "192.88.99.0/24", "192.168.0.0/16",
	"198.18.0.0/15", "198.51.100.0/24", "203.0.113.0/24", "224.0.0.0/4", "240.0.0.0/4",
	"::/128", "::1/128", "64:ff9b::/96", "64:ff9b:1::/48", "100::/64", "2001:db8::/32",
	"fc00::/7", "fe80::/10", "fec0::/10", "ff00::/8",
)

func prefixes(ss ...string) []netip.Prefix {
	out := make([]netip.Prefix, len(ss))
	for i, s := range ss {
		out[i] = netip.MustParsePrefix(s)
	}
	return out
}

// Guard decides which addresses may be connected to. The zero Guard is
// the production rule: every public address, nothing in blocked.
type Guard struct {
	// Allow lets addresses through that blocked would refuse. Only tests
	// set it (an httptest server on 127.0.0.1); production leaves it empty.
	Allow []netip.Prefix
}

// Check returns nil when addr may be connected to, else a fault.Invalid
// error naming the address and why it is refused.
func (g Guard) Check(addr netip.Addr) error {
	addr = addr.Unmap().WithZone("")
	if !addr.IsValid() {
		return fault.New(fault.Invalid, "web_fetch: refused an invalid address")
	}
	for _, p := range g.Allow {
		if p.Contains(addr) {
			return nil
		}
	}
	for _, p := range blocked {
		if p.Contains(addr) {
			return fault.New(fault.Invalid, "web_fetch: refused %s: a private, loopback, link-local or reserved address (%s) is never fetched", addr, p)
		}
	}
	return nil
}

// checkHostPort checks the address a connection is about to be made to
// ("ip:port", as net.Dialer's Control gets it).
func (g Guard) checkHostPort(address string) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fault.Wrap(fault.Invalid, err, "web_fetch: refused a connection to %q: not an IP address", address)
	}
	if err := g.Check(ap.Addr()); err != nil {
		return fmt.Errorf("dial %s: %w", address, err)
	}
	return nil
}
