package githubx

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/mergequeue/mq/githubx/fakegithub"
)

// newSignInFake is a fake GitHub holding acme/widgets (alice may read it)
// and acme/secret (she may not), and a SignIn on it reporting to rec.
func newSignInFake(t *testing.T, rec *calls) (*fakegithub.Server, *SignIn) {
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
	c, err := New(Config{V3APIURL: fake.URL() + "/", V4APIURL: fake.URL() + "/graphql", WebURL: fake.URL(),
		AppID: fake.AppID(), PrivateKey: fake.AppPrivateKeyPEM()},
		WithObserver(rec), WithRetryPolicy(RetryPolicy{Sleep: func(context.Context, time.Duration) error { return nil }}))
	if err != nil {
		t.Fatal(err)
	}
	id, secret := fake.OAuthClient()
	s, err := c.SignIn(OAuthConfig{ClientID: id, ClientSecret: secret, RedirectURL: "http://127.0.0.1:9/login/github/callback"})
	if err != nil {
		t.Fatal(err)
	}
	return fake, s
}

// authorize follows GitHub's authorize page as login and returns the code
// it sends back with state.
func authorize(t *testing.T, s *SignIn, login string) string {
	t.Helper()
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := noRedirect.Get(s.AuthCodeURL("st8") + "&login=" + login)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	back, err := url.Parse(res.Header.Get("Location"))
	if err != nil || res.StatusCode != http.StatusFound || back.Query().Get("state") != "st8" || back.Path != "/login/github/callback" {
		t.Fatalf("authorize: %d → %q (%v)", res.StatusCode, res.Header.Get("Location"), err)
	}
	return back.Query().Get("code")
}

// The App's OAuth web flow through x/oauth2 and githubx's middlewares: a
// code buys a user token, which names the user and lists the wanted
// repositories the user can read; a used code buys nothing and says why;
// every call is observed under its endpoint template, and a read GitHub
// fails with a 502 is retried.
func TestSignInWebFlow(t *testing.T) {
	t.Parallel()
	rec := &calls{}
	fake, s := newSignInFake(t, rec)
	ctx := context.Background()

	code := authorize(t, s, "alice")
	token, err := s.Exchange(ctx, code)
	if err != nil || !strings.HasPrefix(token, "ghu_") {
		t.Fatalf("Exchange = %q, %v", token, err)
	}
	if _, err := s.Exchange(ctx, code); err == nil || !strings.Contains(err.Error(), "GitHub refused the code (bad_verification_code") {
		t.Errorf("second exchange of one code: %v", err)
	}
	if _, err := s.Exchange(ctx, ""); err == nil || err.Error() != "GitHub sent no code" {
		t.Errorf("no code: %v", err)
	}

	fake.InjectFault(fakegithub.Fault{Method: "GET", PathContains: "/user", Status: http.StatusBadGateway})
	login, err := s.Login(ctx, token)
	if err != nil || login != "alice" {
		t.Fatalf("Login = %q, %v", login, err)
	}
	if got := rec.to("/user"); len(got) != 2 || got[0].Retry != RetryServerError || got[1].Status != http.StatusOK {
		t.Errorf("GET /user tries: %+v, want a retried 502 then a 200", got)
	}
	if _, err := s.Login(ctx, "ghu_nobody"); err == nil {
		t.Error("Login with a token GitHub does not know succeeded")
	}

	repos, complete, err := s.ReadableRepos(ctx, token, map[string]bool{"acme/widgets": true, "acme/secret": true}, 20)
	if err != nil || !complete || strings.Join(repos, ",") != "acme/widgets" {
		t.Errorf("ReadableRepos = %v, %v, %v; want acme/widgets, complete", repos, complete, err)
	}
	for _, endpoint := range []string{"/login/oauth/access_token", "/user/installations", "/user/installations/{installation_id}/repositories"} {
		if len(rec.to(endpoint)) == 0 {
			t.Errorf("no call to %s observed; saw %+v", endpoint, rec.c)
		}
	}

	// bob can read neither repository.
	bob, err := s.Exchange(ctx, authorize(t, s, "bob"))
	if err != nil {
		t.Fatal(err)
	}
	if repos, complete, err := s.ReadableRepos(ctx, bob, map[string]bool{"acme/widgets": true, "acme/secret": true}, 20); err != nil || !complete || len(repos) != 0 {
		t.Errorf("bob's ReadableRepos = %v, %v, %v; want none, complete", repos, complete, err)
	}
}

// A client whose secret GitHub refuses buys no token, and the error says
// GitHub's reason without quoting the secret.
func TestSignInWrongClientSecret(t *testing.T) {
	t.Parallel()
	_, s := newSignInFake(t, &calls{})
	s.oauth.ClientSecret = "not-the-secret"
	_, err := s.Exchange(context.Background(), authorize(t, s, "alice"))
	if err == nil || !strings.Contains(err.Error(), "incorrect_client_credentials") || strings.Contains(err.Error(), "not-the-secret") {
		t.Errorf("Exchange with a wrong secret: %v", err)
	}
}

// Past its bound of calls, ReadableRepos answers what it found so far,
// incomplete: never more.
func TestReadableReposIsBounded(t *testing.T) {
	t.Parallel()
	rec := &calls{}
	_, s := newSignInFake(t, rec)
	token, err := s.Exchange(context.Background(), authorize(t, s, "alice"))
	if err != nil {
		t.Fatal(err)
	}
	before := len(rec.c)
	repos, complete, err := s.ReadableRepos(context.Background(), token, map[string]bool{"acme/widgets": true, "acme/other": true}, 1)
	if err != nil || complete || len(repos) != 0 {
		t.Errorf("ReadableRepos with a bound of 1 call = %v, %v, %v; want nothing, incomplete", repos, complete, err)
	}
	if n := len(rec.c) - before; n != 1 {
		t.Errorf("%d calls made, want the bound: 1", n)
	}
}
