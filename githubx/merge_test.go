package githubx

import (
	"errors"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
)

func TestMergePullRequest(t *testing.T) {
	t.Parallel()
	tests := []struct {
		method queue.MergeMethod
		title  string
		want   string
	}{
		{queue.Squash, "Fix things (#7)", `{"commit_title":"Fix things (#7)","merge_method":"squash","sha":"h1"}`},
		{queue.MergeCommit, "", `{"merge_method":"merge","sha":"h1"}`},
		{queue.Rebase, "", `{"merge_method":"rebase","sha":"h1"}`},
	}
	for _, tt := range tests {
		t.Run(string(tt.method), func(t *testing.T) {
			t.Parallel()
			f := newFakeAPI(t)
			f.handle("PUT /repos/o/r/pulls/7/merge", func(w http.ResponseWriter, r *http.Request) {
				wantBody(t, r, tt.want)
				writeJSON(w, http.StatusOK, map[string]any{"sha": "m1", "merged": true, "message": "Pull Request successfully merged"})
			})
			c, _ := f.client()
			sha, err := c.MergePullRequest(t.Context(), testRepo, 7, queue.MergeRequest{SHA: "h1", Method: tt.method, Title: tt.title})
			if err != nil {
				t.Fatal(err)
			}
			mustEqual(t, "merge SHA", sha, "m1")
		})
	}
}

func TestMergePullRequestErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		status   int
		headers  map[string]string
		message  string
		docURL   string
		wantIs   error
		wantRej  *queue.RejectedError
		wantReqs int32
	}{
		{name: "405 base modified", status: 405, message: "Base branch was modified. Review and try the merge again.", wantIs: queue.ErrBaseModified, wantReqs: 1},
		{name: "405 not mergeable", status: 405, message: "Pull Request is not mergeable", wantRej: &queue.RejectedError{Status: 405, Message: "Pull Request is not mergeable"}, wantReqs: 1},
		{name: "409 head moved", status: 409, message: "Head branch was modified. Review and try the merge again.", wantIs: queue.ErrHeadMoved, wantReqs: 1},
		{name: "422 validation", status: 422, message: "Validation Failed", wantRej: &queue.RejectedError{Status: 422, Message: "Validation Failed"}, wantReqs: 1},
		{name: "403 not allowed", status: 403, message: "Resource not accessible by integration", wantRej: &queue.RejectedError{Status: 403, Message: "Resource not accessible by integration"}, wantReqs: 1},
		{name: "404 PR gone", status: 404, message: "Not Found", wantIs: queue.ErrPRNotFound, wantReqs: 1},
		{name: "500 not retried", status: 500, message: "Server Error", wantIs: queue.ErrTransient, wantReqs: 1},
		{name: "502 not retried", status: 502, message: "", wantIs: queue.ErrTransient, wantReqs: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFakeAPI(t)
			var reqs atomic.Int32
			f.handle("PUT /repos/o/r/pulls/7/merge", func(w http.ResponseWriter, r *http.Request) {
				reqs.Add(1)
				for k, v := range tt.headers {
					w.Header().Set(k, v)
				}
				writeJSON(w, tt.status, map[string]any{"message": tt.message, "documentation_url": tt.docURL})
			})
			c, sl := f.client()
			_, err := c.MergePullRequest(t.Context(), testRepo, 7, queue.MergeRequest{SHA: "h1", Method: queue.Squash})
			if err == nil {
				t.Fatal("MergePullRequest() succeeded")
			}
			if tt.wantIs != nil && !errors.Is(err, tt.wantIs) {
				t.Errorf("error = %v, want errors.Is %v", err, tt.wantIs)
			}
			if tt.wantRej != nil {
				var rej *queue.RejectedError
				if !errors.As(err, &rej) {
					t.Errorf("error = %v, want *queue.RejectedError", err)
				} else {
					mustEqual(t, "RejectedError", *rej, *tt.wantRej)
				}
			}
			if !errors.Is(tt.wantIs, queue.ErrTransient) && errors.Is(err, queue.ErrTransient) {
				t.Errorf("error = %v is transient, want final", err)
			}
			mustEqual(t, "requests", reqs.Load(), tt.wantReqs)
			mustEqual(t, "sleeps", len(sl.all()), 0)
		})
	}
}

func TestMergePullRequestNotMerged(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	f.handle("PUT /repos/o/r/pulls/7/merge", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"merged": false, "message": "Merge already in progress"})
	})
	c, _ := f.client()
	_, err := c.MergePullRequest(t.Context(), testRepo, 7, queue.MergeRequest{SHA: "h1", Method: queue.Squash})
	var rej *queue.RejectedError
	if !errors.As(err, &rej) || rej.Message != "Merge already in progress" {
		t.Fatalf("error = %v, want RejectedError with GitHub's message", err)
	}
}

func TestMergePullRequestRateLimitedThenMerged(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	var reqs atomic.Int32
	f.handle("PUT /repos/o/r/pulls/7/merge", func(w http.ResponseWriter, r *http.Request) {
		wantBody(t, r, `{"merge_method":"squash","sha":"h1"}`)
		if reqs.Add(1) == 1 {
			w.Header().Set("Retry-After", "5")
			ghError(w, http.StatusTooManyRequests, "slow down")
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"sha": "m1", "merged": true})
	})
	c, sl := f.client()
	sha, err := c.MergePullRequest(t.Context(), testRepo, 7, queue.MergeRequest{SHA: "h1", Method: queue.Squash})
	if err != nil {
		t.Fatal(err)
	}
	mustEqual(t, "sha", sha, "m1")
	mustEqual(t, "requests", reqs.Load(), int32(2))
	mustEqual(t, "sleeps", sl.all(), []time.Duration{5 * time.Second})
}

func TestMergePullRequestBadInput(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	c, _ := f.client()
	if _, err := c.MergePullRequest(t.Context(), testRepo, 7, queue.MergeRequest{SHA: "h1", Method: "octopus"}); err == nil {
		t.Error("unknown method accepted")
	}
	if _, err := c.MergePullRequest(t.Context(), testRepo, 7, queue.MergeRequest{Method: queue.Squash}); err == nil {
		t.Error("empty SHA accepted")
	}
}
