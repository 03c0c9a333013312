package githubx

import (
	"context"
	"errors"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/mergequeue/mq/queue"
)

var testSpec = queue.BranchSpec{
	From: "base0",
	Heads: []queue.MergeHead{
		{PRNumber: 1, SHA: "h1", Message: "Merge #1"},
		{PRNumber: 2, SHA: "h2", Message: "Merge #2"},
	},
	Temp: "mq-temp/u1",
	Name: "mq-merge/pr-1/run1",
}

// buildRoutes answers the calls BuildBranch makes; mergeStatus[i] is the
// answer to merging head i, publishStatus the first answer to creating the
// published ref, and readScratch (when not nil) answers reading the scratch
// ref.
func buildRoutes(t *testing.T, f *fakeAPI, mergeStatus []int, publishStatus int, readScratch http.HandlerFunc) (deletes *atomic.Int32) {
	deletes = new(atomic.Int32)
	var merges atomic.Int32
	f.handle("POST /repos/o/r/git/refs", func(w http.ResponseWriter, r *http.Request) {
		var body struct{ Ref, SHA string }
		decode(t, r, &body)
		switch body.Ref {
		case "refs/heads/mq-temp/u1":
			mustEqual(t, "scratch start", body.SHA, "base0")
			writeJSON(w, http.StatusCreated, map[string]any{"ref": body.Ref, "object": map[string]any{"sha": body.SHA}})
		case "refs/heads/mq-merge/pr-1/run1":
			mustEqual(t, "published SHA", body.SHA, "m2")
			if publishStatus != http.StatusCreated {
				ghError(w, publishStatus, "Reference already exists")
				return
			}
			writeJSON(w, http.StatusCreated, map[string]any{"ref": body.Ref, "object": map[string]any{"sha": body.SHA}})
		default:
			t.Errorf("unexpected ref %q", body.Ref)
		}
	})
	f.handle("POST /repos/o/r/merges", func(w http.ResponseWriter, r *http.Request) {
		i := int(merges.Add(1)) - 1
		head := testSpec.Heads[i]
		wantBody(t, r, `{"base":"mq-temp/u1","head":"`+head.SHA+`","commit_message":"`+head.Message+`"}`)
		switch mergeStatus[i] {
		case http.StatusCreated:
			writeJSON(w, http.StatusCreated, map[string]any{"sha": "m" + head.SHA[1:]})
		case http.StatusNoContent:
			w.WriteHeader(http.StatusNoContent)
		default:
			ghError(w, mergeStatus[i], "Merge conflict")
		}
	})
	if readScratch == nil {
		readScratch = func(w http.ResponseWriter, r *http.Request) {
			writeJSON(w, http.StatusOK, map[string]any{"ref": "refs/heads/mq-temp/u1", "object": map[string]any{"sha": "m2"}})
		}
	}
	f.handle("GET /repos/o/r/git/ref/heads/mq-temp/u1", readScratch)
	f.handle("PATCH /repos/o/r/git/refs/heads/mq-merge/pr-1/run1", func(w http.ResponseWriter, r *http.Request) {
		wantBody(t, r, `{"sha":"m2","force":true}`)
		writeJSON(w, http.StatusOK, map[string]any{"ref": "refs/heads/mq-merge/pr-1/run1", "object": map[string]any{"sha": "m2"}})
	})
	f.handle("DELETE /repos/o/r/git/refs/heads/mq-temp/u1", func(w http.ResponseWriter, r *http.Request) {
		deletes.Add(1)
		w.WriteHeader(http.StatusNoContent)
	})
	return deletes
}

func TestBuildBranch(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		merges    []int
		publish   int
		wantCalls []string
	}{
		{
			name:    "two merges, new branch",
			merges:  []int{201, 201},
			publish: 201,
			wantCalls: []string{
				"POST /repos/o/r/git/refs",
				"POST /repos/o/r/merges",
				"POST /repos/o/r/merges",
				"GET /repos/o/r/git/ref/heads/mq-temp/u1",
				"POST /repos/o/r/git/refs",
				"DELETE /repos/o/r/git/refs/heads/mq-temp/u1",
			},
		},
		{
			name:    "head already contained (204), branch exists",
			merges:  []int{201, 204},
			publish: 422,
			wantCalls: []string{
				"POST /repos/o/r/git/refs",
				"POST /repos/o/r/merges",
				"POST /repos/o/r/merges",
				"GET /repos/o/r/git/ref/heads/mq-temp/u1",
				"POST /repos/o/r/git/refs",
				"PATCH /repos/o/r/git/refs/heads/mq-merge/pr-1/run1",
				"DELETE /repos/o/r/git/refs/heads/mq-temp/u1",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFakeAPI(t)
			buildRoutes(t, f, tt.merges, tt.publish, nil)
			c, _ := f.client()
			sha, err := c.BuildBranch(t.Context(), testRepo, testSpec)
			if err != nil {
				t.Fatal(err)
			}
			mustEqual(t, "sha", sha, "m2")
			mustEqual(t, "calls", f.recorded(), tt.wantCalls)
		})
	}
}

func TestBuildBranchConflict(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	deletes := buildRoutes(t, f, []int{201, 409}, 201, nil)
	c, _ := f.client()
	_, err := c.BuildBranch(t.Context(), testRepo, testSpec)
	var conflict *queue.ConflictError
	if !errors.As(err, &conflict) {
		t.Fatalf("BuildBranch() error = %v, want *queue.ConflictError", err)
	}
	mustEqual(t, "conflict", *conflict, queue.ConflictError{Index: 1, SHA: "h2"})
	mustEqual(t, "scratch deletes", deletes.Load(), int32(1))
	mustEqual(t, "calls", f.recorded(), []string{
		"POST /repos/o/r/git/refs",
		"POST /repos/o/r/merges",
		"POST /repos/o/r/merges",
		"DELETE /repos/o/r/git/refs/heads/mq-temp/u1",
	})
}

func TestBuildBranchMergeFailsTransiently(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	deletes := buildRoutes(t, f, []int{502}, 201, nil)
	c, _ := f.client()
	_, err := c.BuildBranch(t.Context(), testRepo, testSpec)
	if !errors.Is(err, queue.ErrTransient) {
		t.Fatalf("BuildBranch() error = %v, want ErrTransient", err)
	}
	mustEqual(t, "scratch deletes", deletes.Load(), int32(1))
}

func TestBuildBranchCancelledStillDeletesScratch(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	ctx, cancel := context.WithCancel(t.Context())
	deletes := buildRoutes(t, f, []int{201, 201}, 201, func(w http.ResponseWriter, r *http.Request) {
		cancel() // the caller gives up while the branch is being built
		ghError(w, http.StatusInternalServerError, "late")
	})
	c, _ := f.client()
	if _, err := c.BuildBranch(ctx, testRepo, testSpec); err == nil {
		t.Fatal("BuildBranch() succeeded after cancellation")
	}
	mustEqual(t, "scratch deletes", deletes.Load(), int32(1))
}

func TestBuildBranchBadSpec(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	c, _ := f.client()
	for _, spec := range []queue.BranchSpec{
		{Temp: "t", Name: "n"},
		{From: "a", Name: "n"},
		{From: "a", Temp: "same", Name: "same"},
	} {
		if _, err := c.BuildBranch(t.Context(), testRepo, spec); err == nil {
			t.Errorf("BuildBranch(%+v) succeeded", spec)
		}
	}
	mustEqual(t, "calls", len(f.recorded()), 0)
}
