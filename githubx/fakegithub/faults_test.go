package fakegithub

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v66/github"
)

func TestFaultInjection(t *testing.T) {
	t.Parallel()
	s := newServer(t, Options{})
	ctx := t.Context()
	must(t)(s.Commit(testOwner, testRepo, "feat", map[string]string{"a.txt": "a"}, "a"))
	n, _ := s.OpenPR(testOwner, testRepo, PROptions{Head: "feat", Author: "alice"})
	main := must(t)(s.BranchSHA(testOwner, testRepo, "main"))

	t.Run("times then recovers", func(t *testing.T) {
		c := newClient(t, s, "/")
		s.InjectFault(Fault{Method: "GET", PathContains: "/pulls/", Status: 502, Times: 2})
		s.InjectFault(Fault{Method: "PATCH", Status: 500}) // does not match GETs
		before := s.Calls("GET /repos/{owner}/{repo}/pulls/{number}")
		for i, want := range []int{502, 502, 200} {
			_, resp, _ := c.PullRequests.Get(ctx, testOwner, testRepo, n)
			if statusOf(resp) != want {
				t.Fatalf("attempt %d = %d, want %d", i, statusOf(resp), want)
			}
		}
		if got := s.Calls("GET /repos/{owner}/{repo}/pulls/{number}") - before; got != 3 {
			t.Fatalf("counted %d calls, want 3", got)
		}
		s.ClearFaults()
	})

	t.Run("apply then fail", func(t *testing.T) {
		c := newClient(t, s, "/")
		s.InjectFault(Fault{Method: "POST", PathContains: "/git/refs", Status: 502, ApplyThenFail: true})
		_, resp, _ := c.Git.CreateRef(ctx, testOwner, testRepo, &github.Reference{Ref: github.String("refs/heads/applied"), Object: &github.GitObject{SHA: github.String(main)}})
		if statusOf(resp) != 502 {
			t.Fatalf("status = %d, want 502", statusOf(resp))
		}
		if sha, err := s.BranchSHA(testOwner, testRepo, "applied"); err != nil || sha != main {
			t.Fatalf("ref not applied: %s, %v", sha, err)
		}
	})

	t.Run("secondary rate limit 429", func(t *testing.T) {
		c := newClient(t, s, "/")
		s.InjectFault(Fault{PathContains: "/branches/main", Status: 429, RetryAfter: 7})
		_, resp, _ := c.Repositories.GetBranch(ctx, testOwner, testRepo, "main", 0)
		if statusOf(resp) != 429 || resp.Header.Get("Retry-After") != "7" {
			t.Fatalf("429 fault = %d Retry-After %q", statusOf(resp), resp.Header.Get("Retry-After"))
		}
	})

	t.Run("secondary rate limit 403", func(t *testing.T) {
		c := newClient(t, s, "/")
		s.InjectFault(Fault{PathContains: "/git/ref/heads/main", Status: 403, RetryAfter: 3})
		_, _, err := c.Git.GetRef(ctx, testOwner, testRepo, "heads/main")
		var abuse *github.AbuseRateLimitError
		if !errors.As(err, &abuse) || abuse.GetRetryAfter() != 3*time.Second {
			t.Fatalf("err = %T %v, want AbuseRateLimitError with 3s", err, err)
		}
	})

	t.Run("primary rate limit 403", func(t *testing.T) {
		c := newClient(t, s, "/")
		s.InjectFault(Fault{PathContains: "/git/ref/heads/main", Status: 403})
		_, _, err := c.Git.GetRef(ctx, testOwner, testRepo, "heads/main")
		var rl *github.RateLimitError
		if !errors.As(err, &rl) || rl.Rate.Remaining != 0 {
			t.Fatalf("err = %T %v, want RateLimitError", err, err)
		}
	})

	t.Run("base branch modified", func(t *testing.T) {
		c := newClient(t, s, "/")
		s.InjectFault(Fault{Method: "PUT", PathContains: "/merge", Status: http.StatusMethodNotAllowed})
		_, resp, err := c.PullRequests.Merge(ctx, testOwner, testRepo, n, "", nil)
		if statusOf(resp) != 405 || !strings.Contains(err.Error(), "Base branch was modified. Review and try the merge again.") {
			t.Fatalf("merge = %d %v", statusOf(resp), err)
		}
		if pr, _ := s.PR(testOwner, testRepo, n); pr.GetMerged() {
			t.Fatal("PR merged despite fault")
		}
	})
}
