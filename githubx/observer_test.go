package githubx

import (
	"net/http"
	"net/url"
	"slices"
	"sync"
	"testing"
)

func TestEndpointTemplates(t *testing.T) {
	t.Parallel()
	for path, want := range map[string]string{
		"":                                         "/",
		"/app":                                     "/app",
		"/app/installations/42/access_tokens":      "/app/installations/{installation_id}/access_tokens",
		"/repos/octo/widgets/installation":         "/repos/{owner}/{repo}/installation",
		"/repos/octo/widgets/pulls/12":             "/repos/{owner}/{repo}/pulls/{number}",
		"/repos/octo/pulls/pulls/12/merge":         "/repos/{owner}/{repo}/pulls/{number}/merge",
		"/repos/o/r/issues/3/comments":             "/repos/{owner}/{repo}/issues/{number}/comments",
		"/repos/o/r/issues/comments/99":            "/repos/{owner}/{repo}/issues/comments/{comment_id}",
		"/repos/o/r/issues/3/labels/mq%3A%20ready": "/repos/{owner}/{repo}/issues/{number}/labels/{name}",
		"/repos/o/r/git/refs/heads/mq-temp/a/b":    "/repos/{owner}/{repo}/git/refs/{ref}",
		"/repos/o/r/git/ref/heads/main":            "/repos/{owner}/{repo}/git/ref/{ref}",
		"/repos/o/r/commits/abc123/check-runs":     "/repos/{owner}/{repo}/commits/{ref}/check-runs",
		"/repos/o/r/commits/abc123/status":         "/repos/{owner}/{repo}/commits/{ref}/status",
		"/repos/o/r/check-runs/5":                  "/repos/{owner}/{repo}/check-runs/{check_run_id}",
		"/repos/o/r/compare/main...feature":        "/repos/{owner}/{repo}/compare/{basehead}",
		"/repos/o/r/contents/a/b/c.txt":            "/repos/{owner}/{repo}/contents/{path}",
		"/repos/o/r/branches/release%2F1/protection/required_status_checks": "/repos/{owner}/{repo}/branches/{branch}/protection/required_status_checks",
		"/repos/o/r/actions/runs/77":                                        "/repos/{owner}/{repo}/actions/runs/{run_id}",
		"/repos/o/r/collaborators/alice/permission":                         "/repos/{owner}/{repo}/collaborators/{username}/permission",
		"/secret-token-in-path/ghs_abcdef":                                  "/{id}/{id}",
		"/a/b/c/d/e/f/g/h/i/j/k/l":                                          "/{id}/{id}/{id}/{id}/{id}/{id}/{id}/{id}/{id}/{id}/{…}",
	} {
		if got := Endpoint(path); got != want {
			t.Errorf("Endpoint(%q) = %q, want %q", path, got, want)
		}
	}
}

func TestEndpointUnderAPIBasePaths(t *testing.T) {
	t.Parallel()
	b := newBasePaths(Config{V3APIURL: "https://ghe.example.com/api/v3/", V4APIURL: "https://ghe.example.com/api/graphql"})
	for raw, want := range map[string]string{
		"https://ghe.example.com/api/v3/repos/o/r/pulls/1": "/repos/{owner}/{repo}/pulls/{number}",
		"https://ghe.example.com/api/graphql":              "/graphql",
	} {
		u, _ := url.Parse(raw)
		if got := b.endpointOf(u); got != want {
			t.Errorf("endpointOf(%s) = %q, want %q", raw, got, want)
		}
	}
}

// calls records what an Observer is told.
type calls struct {
	mu sync.Mutex
	c  []Call
}

func (r *calls) ObserveGitHubCall(c Call) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.c = append(r.c, c)
}

func (r *calls) to(endpoint string) []Call {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []Call
	for _, c := range r.c {
		if c.Endpoint == endpoint {
			out = append(out, c)
		}
	}
	return out
}

func TestObserverSeesEveryAttempt(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	n := 0
	f.handle("GET /repos/o/r/pulls/7", func(w http.ResponseWriter, _ *http.Request) {
		n++
		w.Header().Set("X-Ratelimit-Limit", "5000")
		w.Header().Set("X-Ratelimit-Remaining", []string{"4999", "4998", "4997"}[n-1])
		w.Header().Set("X-Ratelimit-Resource", "core")
		if n < 3 {
			ghError(w, http.StatusBadGateway, "try again")
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"number": 7, "state": "open",
			"head": map[string]any{"sha": "h"}, "base": map[string]any{"ref": "main"}})
	})
	obs := &calls{}
	c, _ := f.client(WithObserver(obs))
	if _, err := c.GetPullRequest(t.Context(), testRepo, 7); err != nil {
		t.Fatal(err)
	}
	got := obs.to("/repos/{owner}/{repo}/pulls/{number}")
	if len(got) != 3 {
		t.Fatalf("observed %d attempts, want 3: %+v", len(got), obs.c)
	}
	for i, want := range []struct {
		status, remaining int
		retry             string
	}{{502, 4999, RetryServerError}, {502, 4998, RetryServerError}, {200, 4997, ""}} {
		c := got[i]
		if c.Method != http.MethodGet || c.Status != want.status || c.Attempt != i+1 || c.Retry != want.retry ||
			c.RateLimit != (RateLimit{Known: true, Resource: "core", Remaining: want.remaining, Limit: 5000}) || c.Duration <= 0 {
			t.Errorf("attempt %d = %+v, want status %d, retry %q, remaining %d", i+1, c, want.status, want.retry, want.remaining)
		}
	}
	if lookups := obs.to("/repos/{owner}/{repo}/installation"); len(lookups) != 1 || lookups[0].Status != 200 || lookups[0].RateLimit.Known {
		t.Errorf("installation lookup observed as %+v", lookups)
	}
}

func TestObserverSeesRateLimitWaitsAndNetworkErrors(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	n := 0
	f.handle("GET /repos/o/r/pulls/8", func(w http.ResponseWriter, _ *http.Request) {
		n++
		if n == 1 {
			w.Header().Set("Retry-After", "3")
			w.Header().Set("X-Ratelimit-Remaining", "0")
			w.Header().Set("X-Ratelimit-Resource", "something-new")
			ghError(w, http.StatusForbidden, "secondary rate limit")
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"number": 8, "state": "open"})
	})
	obs := &calls{}
	c, _ := f.client(WithObserver(obs))
	if _, err := c.GetPullRequest(t.Context(), testRepo, 8); err != nil {
		t.Fatal(err)
	}
	got := obs.to("/repos/{owner}/{repo}/pulls/{number}")
	if len(got) != 2 || got[0].Retry != RetryRateLimit || got[0].Status != 403 || got[0].RateLimit.Resource != "other" ||
		got[0].RateLimit.Remaining != 0 || got[1].Attempt != 2 || got[1].Retry != "" {
		t.Errorf("observed %+v", got)
	}

	// Nothing listens: every try is a network error, reported without a status.
	dead := newFakeAPI(t)
	dc, _ := dead.client(WithObserver(obs))
	dead.srv.Close()
	if _, err := dc.AppSlug(t.Context()); err == nil {
		t.Fatal("AppSlug succeeded against a closed server")
	}
	app := obs.to("/app")
	retries := []string{}
	for _, c := range app {
		if c.Status != 0 {
			t.Errorf("network error observed with status %d", c.Status)
		}
		retries = append(retries, c.Retry)
	}
	if !slices.Equal(retries, []string{RetryNetworkError, RetryNetworkError, ""}) {
		t.Errorf("retries %q, want two network-error retries then a final try", retries)
	}
}
