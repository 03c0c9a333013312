package textsafe

import (
	"net/url"
	"strings"
	"testing"
)

func TestCIURL(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ name, in, want string }{
		{"https", "https://ci.example.com/build/42?x=1&y=2#log", "https://ci.example.com/build/42?x=1&y=2#log"},
		{"http with port", "http://10.0.0.7:8080/job/a_b~c", "http://10.0.0.7:8080/job/a_b~c"},
		{"scheme and host lowered", "HTTPS://CI.Example.COM/Build", "https://ci.example.com/Build"},
		{"host only", "https://ci.example", "https://ci.example"},
		{"markdown characters encoded", "https://ci.example/a(b)[c]!*'@", "https://ci.example/a%28b%29%5Bc%5D%21%2A%27%40"},
		{"slack characters encoded", "https://ci.example/?q=<!channel>|x", "https://ci.example/?q=%3C%21channel%3E%7Cx"},
		{"markdown link breaking out", "https://ci.example/](http://evil)", "https://ci.example/%5D%28http://evil%29"},
		{"stray percent", "https://ci.example/100%", "https://ci.example/100%25"},
		{"escape kept", "https://ci.example/a%20b", "https://ci.example/a%20b"},
		{"second hash encoded", "https://ci.example/#a#b", "https://ci.example/#a%23b"},
		{"javascript", "javascript:alert(1)", ""},
		{"javascript disguised", "JavaScript://ci.example/%0aalert(1)", ""},
		{"data", "data:text/html,<script>alert(1)</script>", ""},
		{"slack command", "<!channel>", ""},
		{"markdown link", "](http://evil)", ""},
		{"markdown image", "![x](http://evil/x.png)", ""},
		{"scheme-relative", "//evil.example/x", ""},
		{"relative", "/build/42", ""},
		{"no host", "https:///x", ""},
		{"userinfo", "https://user:pass@ci.example/x", ""},
		{"userinfo without password", "https://ci.example@evil.example/", ""},
		{"space", "https://ci.example/a b", ""},
		{"newline", "https://ci.example/a\nb", ""},
		{"tab", "https://ci.example/\tb", ""},
		{"non-ASCII", "https://ci.exämple/", ""},
		{"backslash", "https://ci.example\\@evil.example/", ""},
		{"bad port", "https://ci.example:99999/", ""},
		{"empty port", "https://ci.example:/", ""},
		{"signed port", "https://ci.example:+80/", ""},
		{"label starting with a hyphen", "https://-ci.example/", ""},
		{"empty label", "https://ci..example/", ""},
		{"IPv6 literal", "http://[::1]:9000/x", ""},
		{"bracket junk", "https://[evil.example]/", ""},
		{"empty", "", ""},
		{"too long", "https://ci.example/" + strings.Repeat("a", MaxCIURLLen), ""},
		{"too long once encoded", "https://ci.example/" + strings.Repeat("(", MaxCIURLLen/3), ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if got := CIURL(c.in); got != c.want {
				t.Errorf("CIURL(%q) = %q, want %q", c.in, got, c.want)
			}
		})
	}
}

// FuzzCIURL: an accepted URL is an absolute http(s) URL with a host, no
// user information, bounded, of printable ASCII without the characters
// that end a link in markdown or Slack; it is canonical (accepted
// unchanged again) and Markdown shows it as one autolink.
func FuzzCIURL(f *testing.F) {
	for _, s := range []string{
		"https://ci.example.com/build/42?x=1&y=2#log", "javascript:alert(1)", "<!channel>", "](http://evil)",
		"![x](http://evil/x.png)", "http://[::1]:80/", "https://u@h/", "HTTP://H.example:08/%zz#a#b", "https://h/\u00e9",
		"http://h/\\x", "https://ci.example/a(b)",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		got := CIURL(raw)
		if got == "" {
			return
		}
		u, err := url.Parse(got)
		if err != nil {
			t.Fatalf("CIURL(%q) = %q, which does not parse: %v", raw, got, err)
		}
		if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" || u.User != nil || u.Opaque != "" {
			t.Fatalf("CIURL(%q) = %q: scheme %q host %q user %v", raw, got, u.Scheme, u.Host, u.User)
		}
		if len(got) > MaxCIURLLen {
			t.Fatalf("CIURL(%q) is %d bytes long", raw, len(got))
		}
		if i := strings.IndexAny(got, " <>()[]|!*@`'\"\\{}^$\n\r\t"); i >= 0 {
			t.Fatalf("CIURL(%q) = %q holds %q", raw, got, got[i])
		}
		for i := 0; i < len(got); i++ {
			if got[i] < 0x21 || got[i] > 0x7e {
				t.Fatalf("CIURL(%q) = %q holds byte %#x", raw, got, got[i])
			}
		}
		if again := CIURL(got); again != got {
			t.Fatalf("CIURL is not idempotent: %q → %q → %q", raw, got, again)
		}
		if md := Markdown(got); strings.TrimRight(got, ".,;:?") == got && md != "<"+got+">" {
			t.Fatalf("Markdown(%q) = %q, want one autolink", got, md)
		}
	})
}
