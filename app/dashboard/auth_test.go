package dashboard

import (
	"bytes"
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/mergequeue/mq/handlers/api/apitoken"
)

// By default the dashboard needs an API token: pages send the reader to
// /login, fragments answer 401, a wrong token is refused and sets nothing;
// the right one opens a session kept in an HttpOnly, SameSite=Strict
// cookie. A token scoped to a repository sees only that one. The sign-in
// page and the static assets are not guarded.
func TestDashboardRequiresTokenByDefault(t *testing.T) {
	d := newDashEnv(t, "")
	ctx := context.Background()
	d.queue("acme", "widgets", "main")
	d.queue("other", "secret", "main")
	all, _, err := apitoken.Issue(ctx, d.store, "all", nil, nil, 0, d.now)
	d.must(err)
	scoped, _, err := apitoken.Issue(ctx, d.store, "widgets-only", []string{"acme/widgets"}, nil, 0, d.now)
	d.must(err)
	expiring, _, err := apitoken.Issue(ctx, d.store, "short", nil, nil, time.Hour, d.now)
	d.must(err)

	for _, path := range []string{"/", "/repos/acme/widgets", "/prs/acme/widgets/1", "/repos/acme/widgets/history?branch=main"} {
		rec := d.do("GET", path, nil)
		if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != "/login?next="+url.QueryEscape(path) {
			t.Errorf("GET %s without a token: %d → %q", path, rec.Code, rec.Header().Get("Location"))
		}
		if strings.Contains(rec.Body.String(), `class="queue"`) {
			t.Errorf("GET %s without a token leaks: %s", path, rec.Body)
		}
	}
	if rec := d.do("GET", "/fragments/queues", nil); rec.Code != http.StatusUnauthorized {
		t.Errorf("fragment without a token: %d", rec.Code)
	}
	for _, path := range []string{"/static/style.css", "/login"} {
		if rec := d.do("GET", path, nil); rec.Code != http.StatusOK {
			t.Errorf("GET %s: %d", path, rec.Code)
		}
	}

	bad := d.do("POST", "/login", url.Values{"token": {"mq_nope"}, "next": {"/repos/acme/widgets"}})
	if bad.Code != http.StatusUnauthorized || !strings.Contains(bad.Body.String(), apitoken.RefusalMessage) || len(bad.Result().Cookies()) != 0 {
		t.Errorf("wrong token: %d cookies %v\n%s", bad.Code, bad.Result().Cookies(), bad.Body)
	}
	ok := d.do("POST", "/login", url.Values{"token": {all}, "next": {"//evil.example/x"}})
	cookies := ok.Result().Cookies()
	if ok.Code != http.StatusSeeOther || ok.Header().Get("Location") != "/" || len(cookies) != 1 {
		t.Fatalf("sign in: %d → %q, cookies %v", ok.Code, ok.Header().Get("Location"), cookies)
	}
	c := cookies[0]
	if !c.HttpOnly || c.SameSite != http.SameSiteStrictMode || c.Secure || c.Path != "/" {
		t.Errorf("cookie attributes: %+v", c)
	}
	page := d.page("/", "Cookie", c.Name+"="+c.Value)
	wantIn(t, page, "acme/widgets", "other/secret", "token all", "Sign out")

	onlyWidgets := d.page("/", "x-api-token", scoped)
	if !strings.Contains(onlyWidgets, "acme/widgets") || strings.Contains(onlyWidgets, "other/secret") {
		t.Errorf("a scoped token sees other repositories:\n%s", onlyWidgets)
	}
	for _, path := range []string{"/repos/other/secret", "/prs/other/secret/1", "/repos/other/secret/history?branch=main",
		"/repos/other/secret/charts?branch=main"} {
		if rec := d.do("GET", path, nil, "x-api-token", scoped); rec.Code != http.StatusNotFound {
			t.Errorf("GET %s with a token of another repository: %d", path, rec.Code)
		}
	}
	if frag := d.do("GET", "/fragments/queues", nil, "x-api-token", scoped); strings.Contains(frag.Body.String(), "other/secret") {
		t.Errorf("fragment leaks another repository: %s", frag.Body)
	}

	// Expiry of the token applies to a browser already signed in with it:
	// it is sent back to /login and its cookie cleared.
	signedIn := d.do("POST", "/login", url.Values{"token": {expiring}}).Result().Cookies()[0]
	d.page("/", "Cookie", signedIn.Name+"="+signedIn.Value)
	d.now = d.now.Add(2 * time.Hour)
	rec := d.do("GET", "/", nil, "Cookie", signedIn.Name+"="+signedIn.Value)
	if rec.Code != http.StatusSeeOther || !allCleared(rec.Result().Cookies()) {
		t.Errorf("expired token: %d, cookies %v", rec.Code, rec.Result().Cookies())
	}
	out := d.do("POST", "/logout", url.Values{}, "Cookie", c.Name+"="+c.Value)
	if out.Code != http.StatusSeeOther || !allCleared(out.Result().Cookies()) {
		t.Errorf("sign out: %d, cookies %v", out.Code, out.Result().Cookies())
	}
}

// allCleared reports whether cookies clear the session cookie and nothing
// else is set.
func allCleared(cookies []*http.Cookie) bool {
	found := false
	for _, c := range cookies {
		if c.MaxAge >= 0 {
			return false
		}
		found = found || c.Name == sessionCookie
	}
	return found
}

// Over https the cookie is Secure.
func TestDashboardCookieSecureOverHTTPS(t *testing.T) {
	d := newDashEnv(t, AccessToken)
	d.cfg.PublicURL = "https://mq.example"
	d.rewire()
	secret, _, err := apitoken.Issue(context.Background(), d.store, "t", nil, nil, 0, d.now)
	d.must(err)
	rec := d.do("POST", "/login", url.Values{"token": {secret}})
	if cs := rec.Result().Cookies(); len(cs) != 1 || !cs[0].Secure {
		t.Errorf("cookie over https: %v", cs)
	}
}

// access: public shows every queue to anyone, and /login just goes back.
func TestAccessPublicWhenConfigured(t *testing.T) {
	d := newDashEnv(t, AccessPublic)
	d.queue("acme", "widgets", "main")
	page := d.page("/")
	wantIn(t, page, "acme/widgets")
	if strings.Contains(page, "Sign out") {
		t.Errorf("public page offers to sign out:\n%s", page)
	}
	if rec := d.do("GET", "/login?next=/repos/acme/widgets", nil); rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != "/repos/acme/widgets" {
		t.Errorf("public /login: %d → %q", rec.Code, rec.Header().Get("Location"))
	}
}

// An unknown, a revoked and an expired token get the same refusal from the
// sign-in form and from pages asked with x-api-token; the log tells them
// apart, naming the token, never quoting the secret.
func TestDashboardRefusalsLookAlike(t *testing.T) {
	d := newDashEnv(t, AccessToken)
	var logs bytes.Buffer
	d.log = zerolog.New(&logs)
	ctx := context.Background()
	revoked, tok, err := apitoken.Issue(ctx, d.store, "gone", nil, nil, 0, d.now)
	d.must(err)
	d.must(d.store.RevokeToken(ctx, tok.ID, d.now))
	expired, _, err := apitoken.Issue(ctx, d.store, "old", nil, nil, time.Minute, d.now.Add(-time.Hour))
	d.must(err)
	secrets := []string{"mq_unknown", revoked, expired}
	var forms, frags []string
	for _, s := range secrets {
		rec := d.do("POST", "/login", url.Values{"token": {s}})
		if rec.Code != http.StatusUnauthorized {
			t.Errorf("sign-in: %d, want 401", rec.Code)
		}
		forms = append(forms, rec.Body.String())
		rec = d.do("GET", "/fragments/queues", nil, "x-api-token", s)
		if rec.Code != http.StatusUnauthorized {
			t.Errorf("fragment: %d, want 401", rec.Code)
		}
		frags = append(frags, rec.Body.String())
	}
	for i := 1; i < len(secrets); i++ {
		if forms[i] != forms[0] || frags[i] != frags[0] {
			t.Errorf("refusals differ:\n%q\n%q\n%q\n%q", forms[0], forms[i], frags[0], frags[i])
		}
	}
	out := logs.String()
	for _, want := range []string{`"reason":"invalid API token"`, `"reason":"API token revoked"`, `"reason":"API token expired"`,
		`"token_id":"` + tok.ID + `"`} {
		if !strings.Contains(out, want) {
			t.Errorf("log lacks %s:\n%s", want, out)
		}
	}
	for _, s := range secrets {
		if strings.Contains(out, s) {
			t.Errorf("log quotes a secret:\n%s", out)
		}
	}
}

// A read-only token reads the dashboard: signed in through the form, or
// with x-api-token.
func TestDashboardAcceptsReadOnlyToken(t *testing.T) {
	d := newDashEnv(t, AccessToken)
	d.queue("acme", "widgets", "main")
	secret, tok, err := apitoken.Issue(context.Background(), d.store, "viewer", nil, nil, 0, d.now, apitoken.ReadOnly())
	d.must(err)
	if !tok.ReadOnly {
		t.Fatalf("issued %+v, want read-only", tok)
	}
	wantIn(t, d.page("/", "x-api-token", secret), "acme/widgets")
	wantIn(t, d.page("/repos/acme/widgets", "x-api-token", secret), "acme/widgets")
	rec := d.do("POST", "/login", url.Values{"token": {secret}})
	if rec.Code != http.StatusSeeOther || len(rec.Result().Cookies()) == 0 {
		t.Fatalf("sign-in with a read-only token: %d %v", rec.Code, rec.Result().Cookies())
	}
	c := rec.Result().Cookies()[0]
	wantIn(t, d.page("/", "Cookie", c.Name+"="+c.Value), "acme/widgets", "token viewer")
}
