package dashboard

import (
	"net/url"
	"strings"
)

// maxNextLen bounds a post-sign-in destination (it travels in a form field
// and in the OAuth state cookie).
const maxNextLen = 2048

// safeNext keeps a post-sign-in destination on this site: it returns next
// when it is a local absolute path ("/repos/acme/widgets?branch=main"),
// else "/". Refused, whatever follows:
//   - anything not starting with "/", or longer than maxNextLen;
//   - "//" and "/\" (scheme-relative: another host);
//   - any control character (below 0x20, and 0x7f) anywhere: browsers drop
//     TAB, CR and LF from URLs, so "/\t/evil.example" would become
//     "//evil.example";
//   - a backslash anywhere: browsers read it as "/" in http(s) URLs;
//   - whatever net/url parses with a scheme, a host, user information or an
//     opaque part.
func safeNext(next string) string {
	if next == "" || next[0] != '/' || len(next) > maxNextLen || strings.HasPrefix(next, "//") ||
		strings.ContainsFunc(next, browserRewrites) {
		return "/"
	}
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || u.Opaque != "" || !strings.HasPrefix(u.Path, "/") {
		return "/"
	}
	return next
}

// browserRewrites reports the characters a browser drops from a URL or
// reads as another (control characters, DEL, and "\\" for "/").
func browserRewrites(r rune) bool { return r < 0x20 || r == 0x7f || r == '\\' }
