package textsafe

import (
	"strconv"
	"strings"
)

// MaxCIURLLen bounds the URLs CIURL accepts, in bytes, before and after
// canonicalisation.
const MaxCIURLLen = 2048

// CIURL validates a URL reported by CI (a commit status's target_url, a
// check run's details_url or html_url) and returns its canonical form, or
// "" when it is not acceptable. The bot never fetches it; it only shows it.
//
// Accepted: an absolute URL of scheme http or https (any case), with a host
// name or IPv4 address (letters, digits, '-' and '.'; no IPv6 literal), an
// optional port, no user information (no '@' before the path), at most
// MaxCIURLLen bytes of printable ASCII, without a backslash. Everything
// else is refused: other schemes (javascript:, data:, …), relative and
// scheme-relative URLs, spaces, control and non-ASCII characters, and text
// that merely contains a URL.
//
// The canonical form has the scheme and host in lower case, and in its path,
// query and fragment every byte outside the set A–Z a–z 0–9 - . _ ~ / ? = &
// + , ; : % and a single '#' percent-encoded (a '%' not followed by two hex
// digits as %25). So it holds none of the characters that end or change a
// link in markdown or Slack: no space, '<', '>', '(', ')', '[', ']', '|',
// '!', '*', '@', '`', quote or backslash. CIURL(CIURL(u)) == CIURL(u).
func CIURL(raw string) string {
	if raw == "" || len(raw) > MaxCIURLLen {
		return ""
	}
	for i := 0; i < len(raw); i++ {
		if c := raw[i]; c <= ' ' || c >= 0x7f || c == '\\' {
			return ""
		}
	}
	var scheme, rest string
	switch lower := strings.ToLower(raw); {
	case strings.HasPrefix(lower, "https://"):
		scheme, rest = "https://", raw[len("https://"):]
	case strings.HasPrefix(lower, "http://"):
		scheme, rest = "http://", raw[len("http://"):]
	default:
		return ""
	}
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	host, ok := canonicalHost(rest[:end])
	if !ok {
		return ""
	}
	var b strings.Builder
	b.Grow(len(raw))
	b.WriteString(scheme)
	b.WriteString(host)
	fragment := false
	tail := rest[end:]
	for i := 0; i < len(tail); i++ {
		c := tail[i]
		switch {
		case c == '#' && !fragment:
			fragment = true
			b.WriteByte(c)
		case c == '%' && i+2 < len(tail) && isHex(tail[i+1]) && isHex(tail[i+2]):
			b.WriteByte(c)
		case c != '%' && c != '#' && urlSafe(c):
			b.WriteByte(c)
		default:
			b.WriteString(percent(c))
		}
	}
	if b.Len() > MaxCIURLLen {
		return ""
	}
	return b.String()
}

// urlSafe reports whether c is kept as is in a canonical CI URL's path,
// query and fragment ('%' and '#' are decided by the caller).
func urlSafe(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("-._~/?=&+,;:%#", c) >= 0
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func percent(c byte) string {
	const hex = "0123456789ABCDEF"
	return string([]byte{'%', hex[c>>4], hex[c&15]})
}

// canonicalHost checks an authority without user information and returns
// it in lower case: a DNS name (or IPv4 address) of labels of letters,
// digits and '-' (not at a label's ends), then an optional port (1 to
// 65535).
func canonicalHost(auth string) (string, bool) {
	host, port, hasPort := strings.Cut(auth, ":")
	if !validDNSName(host) {
		return "", false
	}
	if hasPort {
		n, err := strconv.Atoi(port)
		if err != nil || port == "" || len(port) > 5 || n < 1 || n > 65535 || strings.Trim(port, "0123456789") != "" {
			return "", false
		}
	}
	return strings.ToLower(auth), true
}

// validDNSName reports whether s is a host name: 1 to 253 bytes of dot-
// separated labels of 1 to 63 letters, digits and hyphens, no label
// starting or ending with a hyphen; one trailing dot is allowed.
func validDNSName(s string) bool {
	s = strings.TrimSuffix(s, ".")
	if s == "" || len(s) > 253 {
		return false
	}
	for _, label := range strings.Split(s, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for i := 0; i < len(label); i++ {
			c := label[i]
			if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-') {
				return false
			}
		}
	}
	return true
}
