package fakegithub

import (
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/bradleyfalzon/ghinstallation/v2"
	"github.com/golang-jwt/jwt/v4"
	"github.com/google/go-github/v66/github"
)

func signJWT(t *testing.T, claims jwt.MapClaims) string {
	t.Helper()
	_, key := testKey(t)
	tok, err := jwt.NewWithClaims(jwt.SigningMethodRS256, claims).SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func TestAppJWTFlow(t *testing.T) {
	t.Parallel()
	s := newServer(t, Options{})
	now := time.Now()
	tests := []struct {
		name   string
		claims jwt.MapClaims
		want   int
	}{
		{"numeric iss", jwt.MapClaims{"iss": testAppID, "iat": now.Add(-30 * time.Second).Unix(), "exp": now.Add(2 * time.Minute).Unix()}, http.StatusOK},
		{"string iss", jwt.MapClaims{"iss": "42", "iat": now.Unix(), "exp": now.Add(time.Minute).Unix()}, http.StatusOK},
		{"wrong iss", jwt.MapClaims{"iss": "7", "exp": now.Add(time.Minute).Unix()}, http.StatusUnauthorized},
		{"expired", jwt.MapClaims{"iss": "42", "exp": now.Add(-time.Minute).Unix()}, http.StatusUnauthorized},
		{"no exp", jwt.MapClaims{"iss": "42"}, http.StatusUnauthorized},
		{"too long", jwt.MapClaims{"iss": "42", "exp": now.Add(time.Hour).Unix()}, http.StatusUnauthorized},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest("GET", s.URL()+"/app", nil)
			req.Header.Set("Authorization", "Bearer "+signJWT(t, tc.claims))
			resp, err := testHTTP.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tc.want {
				t.Fatalf("GET /app = %d, want %d", resp.StatusCode, tc.want)
			}
		})
	}
}

func TestInstallationTokenViaGhinstallation(t *testing.T) {
	t.Parallel()
	s := newServer(t, Options{})
	pemKey, _ := testKey(t)
	ctx := t.Context()

	atr, err := ghinstallation.NewAppsTransport(http.DefaultTransport, testAppID, pemKey)
	if err != nil {
		t.Fatal(err)
	}
	atr.BaseURL = s.URL() + "/api/v3"
	app := github.NewClient(&http.Client{Transport: atr, Timeout: requestTimeout})
	app.BaseURL, _ = url.Parse(s.URL() + "/api/v3/")
	me, _, err := app.Apps.Get(ctx, "")
	if err != nil || me.GetSlug() != AppSlug {
		t.Fatalf("Apps.Get = %v, %v", me, err)
	}
	inst, _, err := app.Apps.FindRepositoryInstallation(ctx, testOwner, testRepo)
	if err != nil || inst.GetID() != 1 {
		t.Fatalf("FindRepositoryInstallation = %v, %v", inst, err)
	}

	itr, err := ghinstallation.New(http.DefaultTransport, testAppID, inst.GetID(), pemKey)
	if err != nil {
		t.Fatal(err)
	}
	itr.BaseURL = s.URL() + "/api/v3"
	client := github.NewClient(&http.Client{Transport: itr, Timeout: requestTimeout})
	client.BaseURL, _ = url.Parse(s.URL() + "/api/v3/")
	repo, _, err := client.Repositories.Get(ctx, testOwner, testRepo)
	if err != nil || repo.GetDefaultBranch() != "main" || repo.GetFullName() != "acme/widgets" {
		t.Fatalf("Repositories.Get = %v, %v", repo, err)
	}
	if got := s.Calls("POST /app/installations/{id}/access_tokens"); got != 1 {
		t.Fatalf("token calls = %d, want 1", got)
	}

	// The app JWT is not an installation token.
	_, resp, err := app.Repositories.Get(ctx, testOwner, testRepo)
	if statusOf(resp) != http.StatusUnauthorized {
		t.Fatalf("repo with JWT = %d (%v), want 401", statusOf(resp), err)
	}
}

func TestTokenRequired(t *testing.T) {
	t.Parallel()
	s := newServer(t, Options{})
	tests := []struct {
		name string
		auth string
		want int
	}{
		{"none", "", http.StatusUnauthorized},
		{"unknown token", "token ghs_nope", http.StatusUnauthorized},
		{"token scheme", "token " + s.IssueToken(), http.StatusOK},
		{"bearer scheme", "Bearer " + s.IssueToken(), http.StatusOK},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest("GET", s.URL()+"/repos/acme/widgets", nil)
			if tc.auth != "" {
				req.Header.Set("Authorization", tc.auth)
			}
			resp, err := testHTTP.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tc.want {
				t.Fatalf("status = %d, want %d", resp.StatusCode, tc.want)
			}
		})
	}
}

func TestUnknownRouteAndBadJSON(t *testing.T) {
	t.Parallel()
	s := newServer(t, Options{})
	tok := s.IssueToken()
	tests := []struct {
		name, method, path, body string
		want                     int
	}{
		{"unknown route", "GET", "/nope/nope", "", http.StatusNotFound},
		{"unknown repo", "GET", "/repos/acme/nope", "", http.StatusNotFound},
		{"bad json", "POST", "/repos/acme/widgets/git/refs", "{not json", http.StatusBadRequest},
		{"api v3 prefix", "GET", "/api/v3/repos/acme/widgets", "", http.StatusOK},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(tc.method, s.URL()+tc.path, stringsReader(tc.body))
			req.Header.Set("Authorization", "token "+tok)
			resp, err := testHTTP.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tc.want {
				t.Fatalf("status = %d, want %d", resp.StatusCode, tc.want)
			}
		})
	}
	if s.Calls("GET NOT_FOUND") != 1 || s.Calls("GET /repos/{owner}/{repo}") != 2 {
		t.Fatalf("call counts = %v", s.CallCounts())
	}
}
