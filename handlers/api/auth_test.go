package api

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mergequeue/mq/handlers/api/apitoken"
	"github.com/mergequeue/mq/handlers/api/apitoken/apitokentest"
)

func TestAuthentication(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		token  string
		status int
		want   string
	}{
		{"missing header", "", http.StatusUnauthorized, "missing API token"},
		{"unknown token", "mq_nope", http.StatusUnauthorized, apitoken.RefusalMessage},
		{"expired at now", secretExpired, http.StatusUnauthorized, apitoken.RefusalMessage},
		{"revoked", secretRevoked, http.StatusUnauthorized, apitoken.RefusalMessage},
		{"expires after now", secretFuture, http.StatusOK, ""},
		{"unscoped", secretAll, http.StatusOK, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			r := h.do(http.MethodPost, "/v1/createQueue", tt.token, strings.NewReader(body()))
			if tt.status == http.StatusOK {
				wantEmptyObject(t, r)
				return
			}
			wantError(t, r, tt.status, tt.want)
			if len(h.svc.calls().creates) != 0 {
				t.Errorf("service called despite %d", tt.status)
			}
		})
	}
}

func TestEmptyTokenHeaderIsMissing(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	req, err := http.NewRequest(http.MethodPost, h.srv.URL+"/v1/getQueue", strings.NewReader(body()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header[http.CanonicalHeaderKey(TokenHeader)] = []string{""}
	resp, err := h.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("status = %d, want 401", resp.StatusCode)
	}
	if h.tokens.Lookups() != 0 {
		t.Errorf("empty token looked up %d times", h.tokens.Lookups())
	}
}

func TestAuthenticationStoreFailureIs500(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.tokens.Configure(func(f *apitokentest.Store) { f.Err = errors.New("database is locked") })
	r := h.post("getQueue", body())
	wantError(t, r, http.StatusInternalServerError)
	if strings.TrimSpace(r.body) != "internal error" {
		t.Errorf("body = %q, want the generic message", r.body)
	}
	if !strings.Contains(h.logs.String(), "database is locked") {
		t.Errorf("log lacks the cause: %s", h.logs.String())
	}
}

func TestAuthenticationRejectsHashMismatch(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	// A store that answers with a token whose hash is not the request's.
	h.tokens.Configure(func(f *apitokentest.Store) {
		f.Override = &apitoken.Token{ID: "x", Name: "x", Hash: apitoken.Hash("other")}
	})
	wantError(t, h.post("getQueue", body()), http.StatusUnauthorized, apitoken.RefusalMessage)
}

// An unknown, a revoked and an expired token get the same answer, so an
// outsider cannot tell a secret that once worked; the log says which it
// was, naming the token but never quoting the secret.
func TestRefusalsLookAlike(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	var bodies []string
	for _, secret := range []string{"mq_nope", secretRevoked, secretExpired} {
		r := h.do(http.MethodPost, "/v1/getQueue", secret, strings.NewReader(body()))
		wantError(t, r, http.StatusUnauthorized)
		bodies = append(bodies, r.body)
	}
	if bodies[0] != bodies[1] || bodies[1] != bodies[2] {
		t.Errorf("refusals differ: unknown %q, revoked %q, expired %q", bodies[0], bodies[1], bodies[2])
	}
	logs := h.logs.String()
	for _, want := range []string{`"reason":"invalid API token"`, `"reason":"API token revoked","token_id":"id-revoked"`,
		`"reason":"API token expired","token_id":"id-expired"`} {
		if !strings.Contains(logs, want) {
			t.Errorf("log lacks %s:\n%s", want, logs)
		}
	}
	for _, secret := range []string{"mq_nope", secretRevoked, secretExpired} {
		if strings.Contains(logs, secret) {
			t.Errorf("log quotes the secret %q:\n%s", secret, logs)
		}
	}
}

func TestScope(t *testing.T) {
	t.Parallel()
	repoBody := func(owner, name string) string {
		return `{"repo":{"host":"github.com","owner":"` + owner + `","name":"` + name + `"},"targetBranch":"main"}`
	}
	tests := []struct {
		name        string
		token       string
		owner, repo string
		status      int
	}{
		{"repo token on its repo", secretRepo, "octo", "widgets", http.StatusOK},
		{"repo token any case", secretRepo, "OCTO", "Widgets", http.StatusOK},
		{"repo token other repo", secretRepo, "octo", "gadgets", http.StatusForbidden},
		{"repo token other owner", secretRepo, "acme", "widgets", http.StatusForbidden},
		{"owner token its owner", secretOwner, "acme", "anything", http.StatusOK},
		{"owner token other owner", secretOwner, "octo", "widgets", http.StatusForbidden},
		{"unscoped token", secretAll, "whoever", "whatever", http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			r := h.do(http.MethodPost, "/v1/createQueue", tt.token, strings.NewReader(repoBody(tt.owner, tt.repo)))
			if tt.status == http.StatusOK {
				wantEmptyObject(t, r)
				return
			}
			wantError(t, r, tt.status, "not allowed", tt.owner+"/"+tt.repo)
			if len(h.svc.calls().creates) != 0 {
				t.Error("service called for an out-of-scope repository")
			}
		})
	}
}

func TestScopeAppliesToEveryOperation(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	other := `{"repo":{"host":"github.com","owner":"octo","name":"gadgets"},"targetBranch":"main",` +
		`"pr":{"number":1,"sha":"` + testSHA + `"},"impactedTargets":[],"testRunId":"run-1"}`
	for op, rt := range New(nil, nil, nil, Options{}).(*API).routes {
		if rt.method != http.MethodPost {
			continue
		}
		r := h.do(http.MethodPost, "/v1/"+op, secretRepo, strings.NewReader(other))
		if r.status != http.StatusForbidden {
			t.Errorf("%s: status = %d, want 403", op, r.status)
		}
	}
}

func TestTokenNeverLogged(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.svc.configure(func(f *fakeService) { f.getErr = errors.New("boom") })
	h.post("getQueue", body())                                                            // 500, logged
	h.do(http.MethodPost, "/v1/getQueue", secretRevoked, strings.NewReader(body()))       // 401
	h.do(http.MethodPost, "/v1/getQueue", "mq_unknown_secret", strings.NewReader(body())) // 401
	h.do(http.MethodPost, "/v1/getQueue", secretRepo, strings.NewReader(body()))          // 500
	logs := h.logs.String()
	if logs == "" {
		t.Fatal("nothing logged")
	}
	for _, s := range []string{secretAll, secretRevoked, "mq_unknown_secret", secretRepo} {
		if strings.Contains(logs, s) {
			t.Errorf("log contains token secret %q:\n%s", s, logs)
		}
	}
	if !strings.Contains(logs, `"token_name":"all"`) {
		t.Errorf("log lacks the token name:\n%s", logs)
	}
}

// An issued secret authenticates through the API, within its scope only.
func TestIssuedTokenAuthenticates(t *testing.T) {
	t.Parallel()
	store := apitokentest.NewStore()
	secret, _, err := apitoken.Issue(context.Background(), store, "ci", []string{"octo/widgets"}, []string{"acme"}, 24*time.Hour, testNow)
	if err != nil {
		t.Fatalf("Issue: %v", err)
	}
	svc := &fakeService{}
	handler := New(svc, svc, store, Options{Now: func() time.Time { return testNow }})
	send := func(owner string) int {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodPost, "/v1/createQueue",
			strings.NewReader(`{"repo":{"host":"github.com","owner":"`+owner+`","name":"widgets"},"targetBranch":"main"}`))
		req.Header.Set(TokenHeader, secret)
		handler.ServeHTTP(rec, req)
		return rec.Code
	}
	if got := send("octo"); got != http.StatusOK {
		t.Errorf("in scope: %d", got)
	}
	if got := send("other"); got != http.StatusForbidden {
		t.Errorf("out of scope: %d", got)
	}
}
