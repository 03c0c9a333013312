package dashboard

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/mergequeue/mq/handlers/api/apitoken"
)

// Destinations after sign-in stay on the dashboard: what a browser could
// turn into another site's URL falls back to "/".
func TestSafeNext(t *testing.T) {
	t.Parallel()
	cases := []struct{ in, want string }{
		{"/", "/"},
		{"/repos/acme/widgets", "/repos/acme/widgets"},
		{"/repos/acme/widgets/history?branch=main&before=3", "/repos/acme/widgets/history?branch=main&before=3"},
		{"/prs/acme/widgets/1#timeline", "/prs/acme/widgets/1#timeline"},
		{"/a%2F%2Fb", "/a%2F%2Fb"},
		{"", "/"},
		{"repos/acme", "/"},
		{"https://evil.example/", "/"},
		{"//evil.example", "/"},
		{"///evil.example", "/"},
		{"/\\evil.example", "/"},
		{"\\/evil.example", "/"},
		{"/\t/evil.example", "/"},
		{"/\n/evil.example", "/"},
		{"/\r/evil.example", "/"},
		{"\t//evil.example", "/"},
		{"/%09/ok", "/%09/ok"},
		{"/repos\\..\\..\\evil", "/"},
		{"/x\x00y", "/"},
		{"/x\x7fy", "/"},
		{"/x\x1by", "/"},
		{" //evil.example", "/"},
		{"javascript:alert(1)", "/"},
		{"/" + strings.Repeat("a", maxNextLen), "/"},
	}
	for _, c := range cases {
		if got := safeNext(c.in); got != c.want {
			t.Errorf("safeNext(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// sameSite reports whether next, as a browser would follow it from a page
// of base (dropping TAB, CR and LF, reading "\" as "/"), stays on base's
// host.
func sameSite(base *url.URL, next string) bool {
	browser := strings.NewReplacer("\t", "", "\r", "", "\n", "", "\\", "/").Replace(next)
	u, err := url.Parse(browser)
	if err != nil {
		return false
	}
	return base.ResolveReference(u).Host == base.Host
}

// Whatever is asked for, safeNext answers a path that parses without
// scheme or host, and that a browser resolves on this site.
func FuzzSafeNext(f *testing.F) {
	for _, seed := range []string{"/", "/repos/acme/widgets?branch=main", "//evil.example", "/\\evil.example",
		"/\t/evil.example", "/\n/evil", "https://evil.example", "/%2F%2Fevil", "/\x00", "\\\\evil", "/.//evil"} {
		f.Add(seed)
	}
	base, _ := url.Parse("https://mq.example/login")
	f.Fuzz(func(t *testing.T, next string) {
		got := safeNext(next)
		if got != "/" && got != next {
			t.Fatalf("safeNext(%q) = %q: neither the input nor /", next, got)
		}
		u, err := url.Parse(got)
		if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || !strings.HasPrefix(got, "/") || strings.HasPrefix(got, "//") {
			t.Fatalf("safeNext(%q) = %q, which is not a local path (%+v, %v)", next, got, u, err)
		}
		if !sameSite(base, got) {
			t.Fatalf("safeNext(%q) = %q leaves the site in a browser", next, got)
		}
	})
}

// The redirects after sign-in keep to the dashboard: token sign-in, a
// public dashboard's /login (no click needed) and GitHub sign-in.
func TestSignInRedirectsStayOnTheDashboard(t *testing.T) {
	evil := []string{"/\t/evil.example", "/\n/evil.example", "/\\evil.example", "//evil.example", "/\r\n/evil.example", "\\\\evil.example"}

	d := newDashEnv(t, AccessToken)
	secret, _, err := apitoken.Issue(context.Background(), d.store, "t", nil, nil, 0, d.now)
	d.must(err)
	for _, next := range evil {
		rec := d.do("POST", "/login", url.Values{"token": {secret}, "next": {next}})
		if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != "/" {
			t.Errorf("token sign-in with next %q: %d → %q, want /", next, rec.Code, rec.Header().Get("Location"))
		}
		page := d.do("GET", "/login?next="+url.QueryEscape(next), nil).Body.String()
		if !strings.Contains(page, `name="next" value="/"`) {
			t.Errorf("sign-in page with next %q keeps it:\n%s", next, page)
		}
	}

	pub := newDashEnv(t, AccessPublic)
	for _, next := range evil {
		rec := pub.do("GET", "/login?next="+url.QueryEscape(next), nil)
		if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != "/" {
			t.Errorf("public /login with next %q: %d → %q, want /", next, rec.Code, rec.Header().Get("Location"))
		}
	}

	gh, _ := newOAuthDashEnv(t)
	for _, next := range evil {
		res := signInWithGitHub(t, gh, "alice", next)
		body, _ := io.ReadAll(res.Body)
		if res.StatusCode != http.StatusOK || !strings.Contains(string(body), `content="0; url=/"`) {
			t.Errorf("GitHub sign-in with next %q: %d\n%s", next, res.StatusCode, body)
		}
	}
}
