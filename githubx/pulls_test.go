package githubx

import (
	"errors"
	"net/http"
	"testing"

	"github.com/mergequeue/mq/queue"
)

func TestGetPullRequest(t *testing.T) {
	t.Parallel()
	yes := true
	tests := []struct {
		name      string
		mergeable any
		want      *bool
	}{
		{"mergeable computed", true, &yes},
		{"mergeable still computing", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFakeAPI(t)
			f.handle("GET /repos/o/r/pulls/7", func(w http.ResponseWriter, r *http.Request) {
				writeJSON(w, http.StatusOK, map[string]any{
					"number": 7, "title": "Fix", "body": "merge-commit-title: x", "state": "open",
					"draft": true, "merged": false, "merge_commit_sha": "m1",
					"mergeable": tt.mergeable, "mergeable_state": "clean",
					"user": map[string]any{"login": "alice"},
					"head": map[string]any{"sha": "h1", "ref": "feature", "repo": map[string]any{"full_name": "forker/r"}},
					"base": map[string]any{"sha": "b1", "ref": "main"},
				})
			})
			c, _ := f.client()
			pr, err := c.GetPullRequest(t.Context(), testRepo, 7)
			if err != nil {
				t.Fatal(err)
			}
			mustEqual(t, "PullRequest", *pr, queue.PullRequest{Number: 7, HeadRef: "feature", HeadRepo: "forker/r", PRFacts: queue.PRFacts{
				Title: "Fix", Body: "merge-commit-title: x", Author: "alice", HeadSHA: "h1",
				BaseBranch: "main", Open: true, Draft: true, // m1 is an open PR's test merge: no fact
				MergeableState: "clean", Mergeable: tt.want, ReadAt: testNow,
			}})
		})
	}
}

func TestGetPullRequestErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name          string
		status        int
		wantNotFound  bool
		wantTransient bool
	}{
		{"404 is ErrPRNotFound", http.StatusNotFound, true, false},
		{"502 is transient", http.StatusBadGateway, false, true},
		{"403 is neither", http.StatusForbidden, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFakeAPI(t)
			f.handle("GET /repos/o/r/pulls/7", func(w http.ResponseWriter, r *http.Request) {
				ghError(w, tt.status, "x")
			})
			c, _ := f.client()
			_, err := c.GetPullRequest(t.Context(), testRepo, 7)
			if err == nil {
				t.Fatal("GetPullRequest() succeeded")
			}
			mustEqual(t, "is ErrPRNotFound", errors.Is(err, queue.ErrPRNotFound), tt.wantNotFound)
			mustEqual(t, "is ErrTransient", errors.Is(err, queue.ErrTransient), tt.wantTransient)
			mustEqual(t, "status", StatusCode(err), tt.status)
		})
	}
}

func TestPermission(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		status int
		body   map[string]any
		want   string
	}{
		{"maintain is kept apart from write", 200, map[string]any{"permission": "write", "role_name": "maintain"}, "maintain"},
		{"triage is kept apart from read", 200, map[string]any{"permission": "read", "role_name": "triage"}, "triage"},
		{"admin", 200, map[string]any{"permission": "admin", "role_name": "admin"}, "admin"},
		{"custom role falls back to permission", 200, map[string]any{"permission": "write", "role_name": "deployer"}, "write"},
		{"no access", 200, map[string]any{"permission": "none"}, "none"},
		{"unknown user", 404, map[string]any{"message": "Not Found"}, "none"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFakeAPI(t)
			f.handle("GET /repos/o/r/collaborators/bob/permission", func(w http.ResponseWriter, r *http.Request) {
				writeJSON(w, tt.status, tt.body)
			})
			c, _ := f.client()
			got, err := c.Permission(t.Context(), testRepo, "bob")
			if err != nil {
				t.Fatal(err)
			}
			mustEqual(t, "permission", got, tt.want)
		})
	}
}
