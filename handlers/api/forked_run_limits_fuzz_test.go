package api

import (
	"net/netip"
	"strings"
	"testing"
)

// FuzzAddressKey: every remote address has a key; the port never matters;
// an IPv4 address (mapped or not) is its own key; an IPv6 address's key is
// its /64.
func FuzzAddressKey(f *testing.F) {
	for _, seed := range []string{"192.0.2.7:4242", "[2001:db8::1]:443", "[::ffff:10.0.0.1]:1", "[fe80::1%eth0]:80",
		"", "garbage", "1.2.3.4", "[::1]:0", "[2001:db8::1]:99999"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, remote string) {
		key := addressKey(remote)
		ap, err := netip.ParseAddrPort(remote)
		if err != nil {
			if key != remote {
				t.Fatalf("addressKey(%q) = %q, want the raw value", remote, key)
			}
			return
		}
		other := netip.AddrPortFrom(ap.Addr(), ap.Port()+1).String()
		if k2 := addressKey(other); k2 != key {
			t.Fatalf("ports changed the key: %q → %q, %q → %q", remote, key, other, k2)
		}
		ip := ap.Addr().Unmap()
		if ip.Is4() {
			if key != ip.String() {
				t.Fatalf("addressKey(%q) = %q, want %s", remote, key, ip)
			}
			return
		}
		p, err := netip.ParsePrefix(key)
		if err != nil || p.Bits() != 64 || !p.Contains(ip.WithZone("")) || strings.Contains(key, "%") {
			t.Fatalf("addressKey(%q) = %q, want the /64 of %s", remote, key, ip)
		}
	})
}
