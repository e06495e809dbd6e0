package webfetch

import (
	"net/netip"
	"testing"
)

func TestGuardCheck(t *testing.T) {
	cases := []struct {
		name    string
		addr    string
		allow   []string
		refused bool
	}{
		{name: "loopback", addr: "127.0.0.1", refused: true},
		{name: "loopback range", addr: "127.8.9.10", refused: true},
		{name: "rfc1918 10/8", addr: "10.1.2.3", refused: true},
		{name: "rfc1918 172.16/12", addr: "172.16.0.1", refused: true},
		{name: "rfc1918 172.31 edge", addr: "172.31.255.255", refused: true},
		{name: "rfc1918 192.168/16", addr: "192.168.1.1", refused: true},
		{name: "metadata endpoint", addr: "169.254.169.254", refused: true},
		{name: "cgnat", addr: "100.64.0.1", refused: true},
		{name: "this network", addr: "0.0.0.0", refused: true},
		{name: "multicast", addr: "224.0.0.1", refused: true},
		{name: "broadcast", addr: "255.255.255.255", refused: true},
		{name: "ipv6 loopback", addr: "::1", refused: true},
		{name: "ipv6 unspecified", addr: "::", refused: true},
		{name: "unique local", addr: "fc00::1", refused: true},
		{name: "unique local fd", addr: "fd12:3456::1", refused: true},
		{name: "ipv6 link-local", addr: "fe80::1", refused: true},
		{name: "ipv6 link-local with zone", addr: "fe80::1%eth0", refused: true},
		{name: "ipv4-mapped private", addr: "::ffff:10.0.0.1", refused: true},
		{name: "ipv4-mapped loopback", addr: "::ffff:127.0.0.1", refused: true},
		{name: "ipv4-mapped metadata", addr: "::ffff:169.254.169.254", refused: true},
		{name: "nat64 of private", addr: "64:ff9b::a00:1", refused: true},
		{name: "public ipv4", addr: "93.184.216.34"},
		{name: "public ipv4 next to cgnat", addr: "100.128.0.1"},
		{name: "public ipv4 next to 172.16/12", addr: "172.32.0.1"},
		{name: "public ipv6", addr: "2606:4700::1111"},
		{name: "ipv4-mapped public", addr: "::ffff:8.8.8.8"},
		{name: "allow-listed loopback (tests only)", addr: "127.0.0.1", allow: []string{"127.0.0.1/32"}},
		{name: "allow-list is exact", addr: "127.0.0.2", allow: []string{"127.0.0.1/32"}, refused: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := Guard{Allow: prefixes(c.allow...)}
			err := g.Check(netip.MustParseAddr(c.addr))
			if (err != nil) != c.refused {
				t.Fatalf("Check(%s) = %v, want refused %v", c.addr, err, c.refused)
			}
		})
	}
}

func TestGuardCheckHostPort(t *testing.T) {
	cases := []struct {
		name    string
		address string
		refused bool
	}{
		{name: "ipv4 private", address: "10.0.0.1:80", refused: true},
		{name: "ipv6 loopback", address: "[::1]:443", refused: true},
		{name: "not an ip", address: "example.com:80", refused: true},
		{name: "public", address: "1.1.1.1:443"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := Guard{}.checkHostPort(c.address)
			if (err != nil) != c.refused {
				t.Fatalf("checkHostPort(%s) = %v, want refused %v", c.address, err, c.refused)
			}
		})
	}
}
