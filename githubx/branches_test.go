package githubx

import (
	"errors"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/mergequeue/mq/queue"
)

func TestBranchHead(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	f.handle("GET /repos/o/r/branches/{branch}", func(w http.ResponseWriter, r *http.Request) {
		mustEqual(t, "branch", r.PathValue("branch"), "release/1.x")
		writeJSON(w, http.StatusOK, map[string]any{"name": "release/1.x", "commit": map[string]any{"sha": "abc"}})
	})
	c, _ := f.client()
	sha, err := c.BranchHead(t.Context(), testRepo, "release/1.x")
	if err != nil {
		t.Fatal(err)
	}
	mustEqual(t, "sha", sha, "abc")
}

func TestBranchHeadMissing(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	f.handle("GET /repos/o/r/branches/gone", func(w http.ResponseWriter, r *http.Request) {
		ghError(w, http.StatusNotFound, "Branch not found")
	})
	c, _ := f.client()
	_, err := c.BranchHead(t.Context(), testRepo, "gone")
	if !IsNotFound(err) || errors.Is(err, queue.ErrTransient) {
		t.Fatalf("BranchHead() error = %v, want a final 404", err)
	}
}

func TestReadRetriedOn5xx(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		failures  int32
		wantErr   bool
		wantReqs  int32
		wantSleep int
	}{
		{"500 then success", 1, false, 2, 1},
		{"two 502s then success", 2, false, 3, 2},
		{"three 503s give up", 3, true, 3, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFakeAPI(t)
			var reqs atomic.Int32
			f.handle("GET /repos/o/r/branches/main", func(w http.ResponseWriter, r *http.Request) {
				if n := reqs.Add(1); n <= tt.failures {
					ghError(w, 500+int(n)-1, "Server Error")
					return
				}
				writeJSON(w, http.StatusOK, map[string]any{"name": "main", "commit": map[string]any{"sha": "abc"}})
			})
			c, sl := f.client()
			sha, err := c.BranchHead(t.Context(), testRepo, "main")
			if tt.wantErr {
				if !errors.Is(err, queue.ErrTransient) {
					t.Fatalf("error = %v, want ErrTransient", err)
				}
			} else if err != nil || sha != "abc" {
				t.Fatalf("BranchHead() = %q, %v", sha, err)
			}
			mustEqual(t, "requests", reqs.Load(), tt.wantReqs)
			mustEqual(t, "sleeps", len(sl.all()), tt.wantSleep)
			for _, d := range sl.all() {
				if d <= 0 || d > DefaultRetryPolicy().MaxDelay {
					t.Errorf("backoff %v outside (0, max]", d)
				}
			}
		})
	}
}

func TestRequiredChecks(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		status int
		body   map[string]any
		want   []string
	}{
		{"contexts and checks are merged", 200, map[string]any{
			"strict":   true,
			"contexts": []string{"ci/build", "ci/test"},
			"checks":   []map[string]any{{"context": "ci/test", "app_id": 1}, {"context": "lint", "app_id": -1}},
		}, []string{"ci/build", "ci/test", "lint"}},
		{"none required", 200, map[string]any{"strict": false, "contexts": []string{}, "checks": []map[string]any{}}, []string{}},
		{"branch not protected", 404, map[string]any{"message": "Branch not protected"}, []string{}},
		{"status checks not enabled", 404, map[string]any{"message": "Required status checks not enabled"}, []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFakeAPI(t)
			f.handle("GET /repos/o/r/branches/main/protection/required_status_checks", func(w http.ResponseWriter, r *http.Request) {
				writeJSON(w, tt.status, tt.body)
			})
			c, _ := f.client()
			got, err := c.RequiredChecks(t.Context(), testRepo, "main")
			if err != nil {
				t.Fatal(err)
			}
			mustEqual(t, "required checks", got, tt.want)
		})
	}
}

func TestRequiredChecksForbidden(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	f.handle("GET /repos/o/r/branches/main/protection/required_status_checks", func(w http.ResponseWriter, r *http.Request) {
		ghError(w, http.StatusForbidden, "Resource not accessible by integration")
	})
	c, _ := f.client()
	if _, err := c.RequiredChecks(t.Context(), testRepo, "main"); StatusCode(err) != http.StatusForbidden {
		t.Fatalf("RequiredChecks() error = %v, want 403", err)
	}
}

func TestDeleteBranch(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		status  int
		message string
		wantErr bool
	}{
		{"deleted", 204, "", false},
		{"already gone (404)", 404, "Not Found", false},
		{"already gone (422)", 422, "Reference does not exist", false},
		{"other 422", 422, "Cannot delete a protected branch", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFakeAPI(t)
			f.handle("DELETE /repos/o/r/git/refs/heads/mq-merge/pr-1/run", func(w http.ResponseWriter, r *http.Request) {
				if tt.status == 204 {
					w.WriteHeader(204)
					return
				}
				ghError(w, tt.status, tt.message)
			})
			c, _ := f.client()
			err := c.DeleteBranch(t.Context(), testRepo, "mq-merge/pr-1/run")
			mustEqual(t, "error?", err != nil, tt.wantErr)
		})
	}
}

func TestTreeSHA(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	f.handle("GET /repos/o/r/git/commits/c1", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"sha": "c1", "tree": map[string]any{"sha": "t1"}})
	})
	c, _ := f.client()
	tree, err := c.TreeSHA(t.Context(), testRepo, "c1")
	if err != nil {
		t.Fatal(err)
	}
	mustEqual(t, "tree", tree, "t1")
}

// TestListBranchesUnderADirectory is what the start-up sweep does: list
// every branch under "mq-temp/" (a prefix ending in a slash).
func TestListBranchesUnderADirectory(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	f.handle("GET /repos/o/r/git/matching-refs/heads/mq-temp/", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, []map[string]any{
			{"ref": "refs/heads/mq-temp/a", "object": map[string]any{"sha": "abc"}},
			{"ref": "refs/heads/mq-temp/b", "object": map[string]any{"sha": "def"}},
		})
	})
	c, _ := f.client()
	got, err := c.ListBranches(t.Context(), testRepo, "mq-temp/")
	if err != nil {
		t.Fatalf("ListBranches(mq-temp/) error = %v", err)
	}
	mustEqual(t, "branches", len(got), 2)
	mustEqual(t, "first", got[0], "mq-temp/a")
	for _, bad := range []string{"", "/", "mq-temp//", "../x/", "a/./b"} {
		if _, err := c.ListBranches(t.Context(), testRepo, bad); !errors.Is(err, ErrUnsafePath) {
			t.Errorf("ListBranches(%q) error = %v, want ErrUnsafePath", bad, err)
		}
	}
}
