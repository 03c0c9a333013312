package fakegithub

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// The OAuth web flow: authorize redirects back with a one-time code and
// the state; the code and the client's credentials buy a user token that
// acts as the user on GET /user; a wrong secret, a reused code or another
// redirect_uri buy nothing.
func TestOAuthWebFlow(t *testing.T) {
	t.Parallel()
	s := newServer(t, Options{})
	id, secret := s.OAuthClient()
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	authorize := func(clientID, login string) *http.Response {
		t.Helper()
		q := url.Values{"client_id": {clientID}, "redirect_uri": {"http://127.0.0.1:9/cb?x=1"}, "state": {"st8"}, "login": {login}}
		res, err := noRedirect.Get(s.URL() + "/login/oauth/authorize?" + q.Encode())
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res
	}
	if res := authorize("Iv1.other", "alice"); res.StatusCode != http.StatusNotFound {
		t.Errorf("unknown client: %d", res.StatusCode)
	}
	if res := authorize(id, ""); res.StatusCode != http.StatusOK {
		t.Errorf("no login: %d, want the sign-in form", res.StatusCode)
	}
	res := authorize(id, "alice")
	loc, _ := url.Parse(res.Header.Get("Location"))
	code := loc.Query().Get("code")
	if res.StatusCode != http.StatusFound || loc.Host != "127.0.0.1:9" || loc.Query().Get("state") != "st8" || loc.Query().Get("x") != "1" || code == "" {
		t.Fatalf("authorize: %d → %s", res.StatusCode, loc)
	}
	exchange := func(form url.Values) map[string]string {
		t.Helper()
		req, _ := http.NewRequest("POST", s.URL()+"/login/oauth/access_token", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Accept", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		out := map[string]string{}
		if err := json.NewDecoder(res.Body).Decode(&out); err != nil || res.StatusCode != http.StatusOK {
			t.Fatalf("exchange: %d %v", res.StatusCode, err)
		}
		return out
	}
	if got := exchange(url.Values{"client_id": {id}, "client_secret": {"wrong"}, "code": {code}}); got["error"] != "incorrect_client_credentials" {
		t.Errorf("wrong secret: %v", got)
	}
	// The refused exchange used the code up, as a guessed secret must not
	// leave it usable.
	if got := exchange(url.Values{"client_id": {id}, "client_secret": {secret}, "code": {code}}); got["error"] != "bad_verification_code" {
		t.Errorf("reused code: %v", got)
	}
	loc, _ = url.Parse(authorize(id, "alice").Header.Get("Location"))
	if got := exchange(url.Values{"client_id": {id}, "client_secret": {secret}, "code": {loc.Query().Get("code")},
		"redirect_uri": {"http://127.0.0.1:9/elsewhere"}}); got["error"] != "redirect_uri_mismatch" {
		t.Errorf("other redirect_uri: %v", got)
	}
	loc, _ = url.Parse(authorize(id, "alice").Header.Get("Location"))
	got := exchange(url.Values{"client_id": {id}, "client_secret": {secret}, "code": {loc.Query().Get("code")},
		"redirect_uri": {"http://127.0.0.1:9/cb?x=1"}})
	if !strings.HasPrefix(got["access_token"], "ghu_") || got["token_type"] != "bearer" {
		t.Fatalf("exchange: %v", got)
	}
	user, _, err := tokenClient(t, s, got["access_token"]).Users.Get(t.Context(), "")
	if err != nil || user.GetLogin() != "alice" {
		t.Errorf("GET /user with the user token: %q, %v", user.GetLogin(), err)
	}
	if _, resp, _ := newClient(t, s, "/").Users.Get(t.Context(), ""); statusOf(resp) != http.StatusForbidden {
		t.Errorf("GET /user with an installation token: %d, want 403", statusOf(resp))
	}
}
