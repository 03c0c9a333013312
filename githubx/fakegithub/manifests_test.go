package fakegithub

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bradleyfalzon/ghinstallation/v2"
	"github.com/golang-jwt/jwt/v4"
	"github.com/google/go-github/v66/github"
)

// rawHookSink records every webhook with its signature header, for a
// secret learnt after it starts.
type rawHookSink struct {
	srv  *httptest.Server
	mu   sync.Mutex
	got  [][]byte
	sigs []string
}

func newRawHookSink(t *testing.T) *rawHookSink {
	t.Helper()
	h := &rawHookSink{}
	h.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		h.mu.Lock()
		h.got = append(h.got, body)
		h.sigs = append(h.sigs, r.Header.Get("X-Hub-Signature-256"))
		h.mu.Unlock()
	}))
	t.Cleanup(h.srv.Close)
	return h
}

// postManifest posts the manifest form as a browser would and returns the
// answer without following a redirect.
func postManifest(t *testing.T, action string, form url.Values) *http.Response {
	t.Helper()
	client := &http.Client{Timeout: requestTimeout, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}
	resp, err := client.PostForm(action, form)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp
}

func manifestJSON(t *testing.T, m map[string]any) string {
	t.Helper()
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The manifest flow creates an App that replaces the installed one: its
// key and id sign JWTs, its bot acts, webhooks reach its hook URL signed
// with its secret, and the old credentials stop working.
func TestManifestFlowInstallsANewApp(t *testing.T) {
	t.Parallel()
	s := newServer(t, Options{})
	sink := newRawHookSink(t)
	oldToken := s.IssueToken()
	manifest := manifestJSON(t, map[string]any{
		"name": "Acme Merge Queue", "url": "https://mq.example.com",
		"hook_attributes":     map[string]any{"url": sink.srv.URL + "/api/github/hook"},
		"redirect_url":        "http://127.0.0.1:1/callback?from=setup",
		"default_events":      []string{"pull_request", "issue_comment"},
		"default_permissions": map[string]string{"contents": "write", "checks": "write"},
	})

	resp := postManifest(t, s.URL()+"/organizations/acme/settings/apps/new?state=s3cret", url.Values{"manifest": {manifest}})
	if resp.StatusCode != http.StatusFound {
		t.Fatalf("manifest form = %d, want 302", resp.StatusCode)
	}
	loc, err := url.Parse(resp.Header.Get("Location"))
	if err != nil || loc.Host != "127.0.0.1:1" || loc.Path != "/callback" {
		t.Fatalf("redirect = %q (%v), want the manifest's redirect_url", resp.Header.Get("Location"), err)
	}
	q := loc.Query()
	if q.Get("state") != "s3cret" || q.Get("from") != "setup" || len(q.Get("code")) != 40 {
		t.Fatalf("redirect query = %v, want code, the state and the redirect_url's own query", q)
	}

	api := github.NewClient(&http.Client{Timeout: requestTimeout})
	api.BaseURL, _ = url.Parse(s.URL() + "/api/v3/")
	cfg, _, err := api.Apps.CompleteAppManifest(t.Context(), q.Get("code"))
	if err != nil {
		t.Fatalf("CompleteAppManifest: %v", err)
	}
	if cfg.GetSlug() != "acme-merge-queue" || cfg.GetName() != "Acme Merge Queue" || cfg.GetOwner().GetLogin() != "acme" ||
		cfg.GetID() == testAppID || cfg.GetWebhookSecret() == "" || cfg.GetClientID() == "" || cfg.GetClientSecret() == "" ||
		!strings.HasPrefix(cfg.GetPEM(), "-----BEGIN RSA PRIVATE KEY-----") || cfg.GetHTMLURL() != s.URL()+"/apps/acme-merge-queue" {
		t.Fatalf("conversion = %+v", cfg)
	}
	if _, resp, err := api.Apps.CompleteAppManifest(t.Context(), q.Get("code")); statusOf(resp) != http.StatusNotFound {
		t.Fatalf("second conversion = %d (%v), want 404: a code converts once", statusOf(resp), err)
	}
	if s.AppID() != cfg.GetID() || s.AppSlug() != "acme-merge-queue" || string(s.AppPrivateKeyPEM()) != cfg.GetPEM() {
		t.Fatalf("installed app = %d %q, want the converted one", s.AppID(), s.AppSlug())
	}

	// The new App authenticates with its own key and id, the old one no longer.
	atr, err := ghinstallation.NewAppsTransport(http.DefaultTransport, cfg.GetID(), []byte(cfg.GetPEM()))
	if err != nil {
		t.Fatal(err)
	}
	atr.BaseURL = s.URL()
	app := github.NewClient(&http.Client{Transport: atr, Timeout: requestTimeout})
	app.BaseURL, _ = url.Parse(s.URL() + "/")
	me, _, err := app.Apps.Get(t.Context(), "")
	if err != nil || me.GetSlug() != "acme-merge-queue" || me.GetID() != cfg.GetID() {
		t.Fatalf("GET /app with the new App's JWT = %v, %v", me, err)
	}
	old := tokenClient(t, s, signJWT(t, jwt.MapClaims{"iss": testAppID, "exp": time.Now().Add(time.Minute).Unix()}))
	if _, resp, err := old.Apps.Get(t.Context(), ""); statusOf(resp) != http.StatusUnauthorized {
		t.Fatalf("GET /app with the replaced App's JWT = %d (%v), want 401", statusOf(resp), err)
	}
	if _, resp, err := tokenClient(t, s, oldToken).Repositories.Get(t.Context(), testOwner, testRepo); statusOf(resp) != http.StatusUnauthorized {
		t.Fatalf("the replaced App's installation token = %d (%v), want 401", statusOf(resp), err)
	}

	// Its installation token acts as its bot, and webhooks are signed with its secret.
	itr, err := ghinstallation.New(http.DefaultTransport, cfg.GetID(), s.InstallationID(), []byte(cfg.GetPEM()))
	if err != nil {
		t.Fatal(err)
	}
	itr.BaseURL = s.URL()
	client := github.NewClient(&http.Client{Transport: itr, Timeout: requestTimeout})
	client.BaseURL, _ = url.Parse(s.URL() + "/")
	if _, err := s.Commit(testOwner, testRepo, "feature", map[string]string{"f.txt": "f\n"}, "Add f"); err != nil {
		t.Fatal(err)
	}
	n, err := s.OpenPR(testOwner, testRepo, PROptions{Head: "feature"})
	if err != nil {
		t.Fatal(err)
	}
	cm, _, err := client.Issues.CreateComment(t.Context(), testOwner, testRepo, n, &github.IssueComment{Body: github.String("hello")})
	if err != nil || cm.GetUser().GetLogin() != "acme-merge-queue[bot]" {
		t.Fatalf("comment by the new App = %v, %v; want it by acme-merge-queue[bot]", cm.GetUser().GetLogin(), err)
	}
	waitIdle(t, s)
	sink.mu.Lock()
	defer sink.mu.Unlock()
	if len(sink.got) == 0 {
		t.Fatal("no webhook reached the new App's hook URL")
	}
	for i, body := range sink.got {
		mac := hmac.New(sha256.New, []byte(cfg.GetWebhookSecret()))
		mac.Write(body)
		if want := "sha256=" + hex.EncodeToString(mac.Sum(nil)); sink.sigs[i] != want {
			t.Errorf("webhook %d signature %q, want one made with the new webhook secret", i, sink.sigs[i])
		}
	}
}

// tokenClient is a go-github client sending raw (a JWT or a token) as its
// bearer credential.
func tokenClient(t *testing.T, s *Server, raw string) *github.Client {
	t.Helper()
	c := github.NewClient(&http.Client{Timeout: requestTimeout}).WithAuthToken(raw)
	c.BaseURL, _ = url.Parse(s.URL() + "/")
	return c
}

func TestManifestRefusals(t *testing.T) {
	t.Parallel()
	s := newServer(t, Options{})
	good := map[string]any{"name": "mq", "url": "https://mq.example.com", "redirect_url": "http://127.0.0.1:1/cb",
		"hook_attributes": map[string]any{"url": "https://mq.example.com/api/github/hook"}}
	with := func(k string, v any) string {
		m := map[string]any{}
		for kk, vv := range good {
			m[kk] = vv
		}
		if v == nil {
			delete(m, k)
		} else {
			m[k] = v
		}
		return manifestJSON(t, m)
	}
	tests := []struct {
		name string
		form url.Values
		want int
	}{
		{"no manifest", url.Values{}, http.StatusUnprocessableEntity},
		{"not JSON", url.Values{"manifest": {"{"}}, http.StatusUnprocessableEntity},
		{"no name", url.Values{"manifest": {with("name", nil)}}, http.StatusUnprocessableEntity},
		{"no url", url.Values{"manifest": {with("url", nil)}}, http.StatusUnprocessableEntity},
		{"no redirect_url", url.Values{"manifest": {with("redirect_url", nil)}}, http.StatusUnprocessableEntity},
		{"relative hook url", url.Values{"manifest": {with("hook_attributes", map[string]any{"url": "/hook"})}}, http.StatusUnprocessableEntity},
		{"inactive hook needs no url", url.Values{"manifest": {with("hook_attributes", map[string]any{"active": false})}}, http.StatusFound},
		{"bad permission", url.Values{"manifest": {with("default_permissions", map[string]string{"issues": "all"})}}, http.StatusUnprocessableEntity},
		{"good", url.Values{"manifest": {with("name", "mq")}}, http.StatusFound},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := postManifest(t, s.URL()+"/settings/apps/new", tc.form).StatusCode; got != tc.want {
				t.Fatalf("POST /settings/apps/new = %d, want %d", got, tc.want)
			}
		})
	}
	api := github.NewClient(&http.Client{Timeout: requestTimeout})
	api.BaseURL, _ = url.Parse(s.URL() + "/")
	if _, resp, err := api.Apps.CompleteAppManifest(t.Context(), "0123456789abcdef"); statusOf(resp) != http.StatusNotFound {
		t.Fatalf("unknown code = %d (%v), want 404", statusOf(resp), err)
	}
	if s.AppID() != testAppID {
		t.Fatalf("a manifest never converted replaced the App (id %d)", s.AppID())
	}
}
