package dashboard

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/mergequeue/mq/githubx"
	"github.com/mergequeue/mq/githubx/fakegithub"
	"github.com/mergequeue/mq/queue/readside"
)

// newOAuthDashEnv is a dashboard with access github against a fake GitHub
// holding acme/widgets (alice may read it) and acme/secret (she may not).
func newOAuthDashEnv(t *testing.T) (*dashEnv, *fakegithub.Server) {
	t.Helper()
	fake, err := fakegithub.New(fakegithub.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(fake.Close)
	for _, name := range []string{"widgets", "secret"} {
		if err := fake.CreateRepo("acme", name, map[string]string{"README.md": "x\n"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := fake.SetPermission("acme", "widgets", "alice", "read"); err != nil {
		t.Fatal(err)
	}
	d := newDashEnv(t, AccessToken)
	gh, err := githubx.New(githubx.Config{V3APIURL: fake.URL() + "/", V4APIURL: fake.URL() + "/graphql", WebURL: fake.URL(),
		AppID: fake.AppID(), PrivateKey: fake.AppPrivateKeyPEM(), Host: "github.com"})
	if err != nil {
		t.Fatal(err)
	}
	id, secret := fake.OAuthClient()
	if d.signIn, err = gh.SignIn(githubx.OAuthConfig{ClientID: id, ClientSecret: secret, RedirectURL: CallbackURL(d.cfg.PublicURL)}); err != nil {
		t.Fatal(err)
	}
	d.cfg.Access, d.cfg.WebURL = AccessGitHub, fake.URL()
	d.rewire()
	d.queue("acme", "widgets", "main")
	d.queue("acme", "secret", "main")
	return d, fake
}

// signInWithGitHub runs the web flow as login up to the callback and
// returns the callback's response and the state cookie it was sent with.
func signInWithGitHub(t *testing.T, d *dashEnv, login, next string) *http.Response {
	t.Helper()
	start := d.do("GET", "/login/github?next="+url.QueryEscape(next), nil)
	var state *http.Cookie
	for _, c := range start.Result().Cookies() {
		if c.Name == oauthStateCookie {
			state = c
		}
	}
	if start.Code != http.StatusFound || state == nil || state.SameSite != http.SameSiteLaxMode || !state.HttpOnly {
		t.Fatalf("start: %d, state cookie %+v", start.Code, state)
	}
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := noRedirect.Get(start.Header().Get("Location") + "&login=" + login)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	back, err := url.Parse(res.Header.Get("Location"))
	if err != nil || res.StatusCode != http.StatusFound || back.Path != "/login/github/callback" {
		t.Fatalf("GitHub's authorize page: %d → %q (%v)", res.StatusCode, res.Header.Get("Location"), err)
	}
	return d.do("GET", back.RequestURI(), nil, "Cookie", state.Name+"="+state.Value).Result()
}

// A GitHub user signs in through the App's OAuth and sees the queues of
// the repositories they can read, not the others; a forged state, a
// tampered or expired session sign nobody in.
func TestAccessGitHubSignIn(t *testing.T) {
	d, _ := newOAuthDashEnv(t)
	login := d.page("/login")
	wantIn(t, login, `href="/login/github?next=%2f"`, "Sign in with GitHub", `name="token"`)
	if rec := d.do("GET", "/", nil); rec.Code != http.StatusSeeOther {
		t.Fatalf("anonymous: %d", rec.Code)
	}

	res := signInWithGitHub(t, d, "alice", "/repos/acme/widgets")
	var session *http.Cookie
	for _, c := range res.Cookies() {
		if c.Name == sessionCookie && c.MaxAge > 0 {
			session = c
		}
	}
	if res.StatusCode != http.StatusOK || session == nil || !session.HttpOnly || session.SameSite != http.SameSiteStrictMode {
		t.Fatalf("callback: %d, session %+v", res.StatusCode, session)
	}
	cookie := session.Name + "=" + session.Value
	page := d.page("/", "Cookie", cookie)
	wantIn(t, page, "acme/widgets", "alice", "Sign out")
	if strings.Contains(page, "acme/secret") {
		t.Errorf("alice sees a repository she cannot read:\n%s", page)
	}
	if rec := d.do("GET", "/repos/acme/secret", nil, "Cookie", cookie); rec.Code != http.StatusNotFound {
		t.Errorf("alice's GET of the other repository: %d", rec.Code)
	}
	if rec := d.do("GET", "/", nil, "Cookie", cookie[:len(cookie)-2]+"xx"); rec.Code != http.StatusSeeOther {
		t.Errorf("tampered session: %d", rec.Code)
	}

	// bob can read neither: signed in, he sees no queue.
	res = signInWithGitHub(t, d, "bob", "/")
	for _, c := range res.Cookies() {
		if c.Name == sessionCookie && c.MaxAge > 0 {
			if p := d.page("/", "Cookie", c.Name+"="+c.Value); strings.Contains(p, "acme/") {
				t.Errorf("bob sees repositories:\n%s", p)
			}
		}
	}

	// A callback without the state this browser was given is refused.
	start := d.do("GET", "/login/github", nil)
	loc, _ := url.Parse(start.Header().Get("Location"))
	forged := d.do("GET", "/login/github/callback?code=x&state="+loc.Query().Get("state"), nil)
	if forged.Code != http.StatusBadRequest || len(sessionCookies(forged.Result())) != 0 {
		t.Errorf("callback without the state cookie: %d", forged.Code)
	}

	d.now = d.now.Add(githubSessionAge + time.Minute)
	if rec := d.do("GET", "/", nil, "Cookie", cookie); rec.Code != http.StatusSeeOther {
		t.Errorf("expired session: %d", rec.Code)
	}
}

func sessionCookies(res *http.Response) []*http.Cookie {
	var out []*http.Cookie
	for _, c := range res.Cookies() {
		if c.Name == sessionCookie && c.MaxAge > 0 {
			out = append(out, c)
		}
	}
	return out
}

// Without access github the OAuth routes do not exist; with it, a
// dashboard needs GitHub's side of the sign-in.
func TestDashboardGitHubConfig(t *testing.T) {
	d := newDashEnv(t, AccessToken)
	if rec := d.do("GET", "/login/github", nil); rec.Code != http.StatusNotFound {
		t.Errorf("/login/github with access token: %d", rec.Code)
	}
	if _, err := New(Config{Access: AccessGitHub}, Ports{Reads: readside.New(d.store, readside.Options{}), Sessions: testSessions{}, Tokens: d.store}); err == nil {
		t.Error("New with access github and no sign-in succeeded")
	}
	if _, err := New(Config{Access: "everyone"}, Ports{Reads: readside.New(d.store, readside.Options{}), Sessions: testSessions{}, Tokens: d.store}); err == nil {
		t.Error("New with access everyone succeeded")
	}
}

// A GitHub sign-in opens a server-side session: the cookie is a random id,
// the store keeps the login and the readable repositories, and signing out
// ends it, so the replayed cookie no longer works. Turning GitHub sign-in
// off ends GitHub sessions too.
func TestGitHubSessionIsServerSide(t *testing.T) {
	d, _ := newOAuthDashEnv(t)
	res := signInWithGitHub(t, d, "alice", "/")
	cs := sessionCookies(res)
	if len(cs) != 1 {
		t.Fatalf("callback set %v", res.Cookies())
	}
	s, err := d.store.Session(context.Background(), sessionHash(cs[0].Value))
	if err != nil || s.Login != "alice" || strings.Join(s.Repos, ",") != "acme/widgets" || s.TokenID != "" ||
		!s.ExpiresAt.Equal(d.now.Add(githubSessionAge)) {
		t.Fatalf("stored session %+v, %v", s, err)
	}
	cookie := cs[0].Name + "=" + cs[0].Value
	if !d.signedIn(cookie) {
		t.Fatal("not signed in")
	}
	if out := d.do("POST", "/logout", url.Values{}, "Cookie", cookie); out.Code != http.StatusSeeOther {
		t.Fatalf("sign out: %d", out.Code)
	}
	if d.signedIn(cookie) {
		t.Error("the cookie of a signed-out GitHub session still opens the dashboard")
	}

	res = signInWithGitHub(t, d, "alice", "/")
	cookie = sessionCookies(res)[0].Name + "=" + sessionCookies(res)[0].Value
	d.cfg.Access = AccessToken
	d.rewire()
	if d.signedIn(cookie) {
		t.Error("a GitHub session still opens the dashboard once access is token")
	}
}

// githubCalls is how many API calls the fake has served in all.
func githubCalls(fake *fakegithub.Server) int {
	n := 0
	for _, c := range fake.CallCounts() {
		n += c
	}
	return n
}

// A queue on a repository the App cannot see (not installed: unknown to
// the fake) does not break GitHub sign-in for everyone: alice signs in and
// sees what she can read.
func TestGitHubSignInWithAQueueTheAppCannotSee(t *testing.T) {
	d, _ := newOAuthDashEnv(t)
	d.queue("elsewhere", "ghost", "main")
	res := signInWithGitHub(t, d, "alice", "/")
	cs := sessionCookies(res)
	if res.StatusCode != http.StatusOK || len(cs) != 1 {
		t.Fatalf("sign-in with a queue on a repository without the App: %d", res.StatusCode)
	}
	page := d.page("/", "Cookie", cs[0].Name+"="+cs[0].Value)
	wantIn(t, page, "acme/widgets")
	if strings.Contains(page, "elsewhere/ghost") || strings.Contains(page, "acme/secret") {
		t.Errorf("alice sees a repository she cannot read:\n%s", page)
	}
}

// The GitHub calls of a sign-in do not grow with the number of queued
// repositories.
func TestGitHubSignInCallsDoNotGrowWithQueues(t *testing.T) {
	d, fake := newOAuthDashEnv(t)
	callsOfSignIn := func() int {
		t.Helper()
		before := githubCalls(fake)
		if res := signInWithGitHub(t, d, "alice", "/"); res.StatusCode != http.StatusOK {
			t.Fatalf("sign-in: %d", res.StatusCode)
		}
		return githubCalls(fake) - before
	}
	few := callsOfSignIn()
	for i := range 30 {
		name := fmt.Sprintf("repo%d", i)
		if err := fake.CreateRepo("acme", name, map[string]string{"README.md": "x\n"}); err != nil {
			t.Fatal(err)
		}
		d.queue("acme", name, "main")
	}
	if many := callsOfSignIn(); many != few {
		t.Errorf("a sign-in made %d GitHub calls with 2 queued repositories and %d with 32", few, many)
	}
}

// Past maxSignInListCalls GitHub calls, listing stops: the user sees the
// repositories found so far, never more.
func TestGitHubSignInListingIsBounded(t *testing.T) {
	d := newDashEnv(t, AccessToken)
	d.queue("acme", "widgets", "main")
	d.queue("acme", "never-listed", "main")
	calls := 0
	gh := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls++
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == "/user/installations" {
			fmt.Fprint(w, `{"total_count":1,"installations":[{"id":7}]}`)
			return
		}
		// An installation with endless pages of repositories.
		var repos []string
		for i := range githubx.UserListPerPage {
			name := fmt.Sprintf("other%d", i)
			if r.URL.Query().Get("page") == "1" && i == 0 {
				name = "widgets"
			}
			repos = append(repos, fmt.Sprintf(`{"full_name":"acme/%s","permissions":{"pull":true}}`, name))
		}
		fmt.Fprintf(w, `{"total_count":1000000,"repositories":[%s]}`, strings.Join(repos, ","))
	}))
	defer gh.Close()
	key, _, err := fakegithub.GenerateAppKey()
	if err != nil {
		t.Fatal(err)
	}
	client, err := githubx.New(githubx.Config{V3APIURL: gh.URL + "/", AppID: 1, PrivateKey: key})
	if err != nil {
		t.Fatal(err)
	}
	if d.signIn, err = client.SignIn(githubx.OAuthConfig{ClientID: "Iv1.x", ClientSecret: "s"}); err != nil {
		t.Fatal(err)
	}
	d.cfg.Access = AccessGitHub
	d.rewire()
	repos, err := d.dash.readableRepos(context.Background(), "ghu_token")
	if err != nil || strings.Join(repos, ",") != "acme/widgets" {
		t.Errorf("readableRepos = %v, %v; want what was found: acme/widgets", repos, err)
	}
	if calls != maxSignInListCalls {
		t.Errorf("%d GitHub calls, want the bound %d", calls, maxSignInListCalls)
	}
}
