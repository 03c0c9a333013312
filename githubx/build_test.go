package githubx

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"slices"
	"sync"
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

// buildFake answers the calls BuildBranch makes, keeping the scratch ref's
// position: mergeStatus[i] answers the i-th merge (201 merges, 204 is
// "already contained", others fail), publishStatus the first create of the
// published ref, graphQL (when not nil) the GraphQL endpoint.
type buildFake struct {
	t       *testing.T
	mu      sync.Mutex
	scratch string // where the scratch ref points ("" = absent)
	merges  int
	deletes atomic.Int32
	publish []string // SHAs the published ref was set to
}

func buildRoutes(t *testing.T, f *fakeAPI, mergeStatus []int, publishStatus int, graphQL http.HandlerFunc) *buildFake {
	b := &buildFake{t: t}
	f.handle("POST /repos/o/r/git/refs", func(w http.ResponseWriter, r *http.Request) {
		var body struct{ Ref, SHA string }
		decode(t, r, &body)
		b.mu.Lock()
		defer b.mu.Unlock()
		switch body.Ref {
		case "refs/heads/mq-temp/u1":
			if b.scratch != "" {
				ghError(w, http.StatusUnprocessableEntity, "Reference already exists")
				return
			}
			b.scratch = body.SHA
		case "refs/heads/mq-merge/pr-1/run1":
			if publishStatus != http.StatusCreated {
				ghError(w, publishStatus, "Reference already exists")
				return
			}
			b.publish = append(b.publish, body.SHA)
		default:
			t.Errorf("unexpected ref %q", body.Ref)
		}
		writeJSON(w, http.StatusCreated, map[string]any{"ref": body.Ref, "object": map[string]any{"sha": body.SHA}})
	})
	f.handle("PATCH /repos/o/r/git/refs/heads/mq-temp/u1", func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			SHA   string
			Force bool
		}
		decode(t, r, &body)
		b.mu.Lock()
		defer b.mu.Unlock()
		if b.scratch == "" {
			ghError(w, http.StatusUnprocessableEntity, "Reference does not exist")
			return
		}
		b.scratch = body.SHA
		writeJSON(w, http.StatusOK, map[string]any{"ref": "refs/heads/mq-temp/u1", "object": map[string]any{"sha": body.SHA}})
	})
	f.handle("POST /repos/o/r/merges", func(w http.ResponseWriter, r *http.Request) {
		var body struct{ Base, Head string }
		decode(t, r, &body)
		mustEqual(t, "merge base", body.Base, "mq-temp/u1")
		b.mu.Lock()
		defer b.mu.Unlock()
		i := b.merges
		b.merges++
		switch mergeStatus[i] {
		case http.StatusCreated:
			sha := "m" + body.Head[1:] + "@" + b.scratch
			writeJSON(w, http.StatusCreated, map[string]any{"sha": sha, "parents": []map[string]any{{"sha": b.scratch}, {"sha": body.Head}},
				"commit": map[string]any{"tree": map[string]any{"sha": "tree-" + sha}}})
			b.scratch = sha
		case http.StatusNoContent:
			w.WriteHeader(http.StatusNoContent)
		default:
			ghError(w, mergeStatus[i], "Merge conflict")
		}
	})
	f.handle("PATCH /repos/o/r/git/refs/heads/mq-merge/pr-1/run1", func(w http.ResponseWriter, r *http.Request) {
		var body struct{ SHA string }
		decode(t, r, &body)
		b.mu.Lock()
		b.publish = append(b.publish, body.SHA)
		b.mu.Unlock()
		writeJSON(w, http.StatusOK, map[string]any{"ref": "refs/heads/mq-merge/pr-1/run1", "object": map[string]any{"sha": body.SHA}})
	})
	f.handle("DELETE /repos/o/r/git/refs/heads/mq-temp/u1", func(w http.ResponseWriter, r *http.Request) {
		b.deletes.Add(1)
		w.WriteHeader(http.StatusNoContent)
	})
	f.handle("GET /repos/o/r", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"id": 1, "node_id": "R_1", "name": "r"})
	})
	if graphQL != nil {
		f.handle("POST /graphql", graphQL)
	}
	return b
}

func TestBuildBranch(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		merges    []int
		publish   int
		wantSHA   string
		wantCalls []string
	}{
		{
			name:    "two merges, new branch",
			merges:  []int{201, 201},
			publish: 201,
			wantSHA: "m2@m1@base0",
			wantCalls: []string{
				"POST /repos/o/r/git/refs",
				"POST /repos/o/r/merges",
				"POST /repos/o/r/merges",
				"POST /repos/o/r/git/refs",
				"DELETE /repos/o/r/git/refs/heads/mq-temp/u1",
			},
		},
		{
			name:    "head already contained (204), branch exists",
			merges:  []int{201, 204},
			publish: 422,
			wantSHA: "m1@base0",
			wantCalls: []string{
				"POST /repos/o/r/git/refs",
				"POST /repos/o/r/merges",
				"POST /repos/o/r/merges",
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
			b := buildRoutes(t, f, tt.merges, tt.publish, nil)
			c, _ := f.client()
			built, err := c.BuildBranch(t.Context(), testRepo, testSpec)
			if err != nil {
				t.Fatal(err)
			}
			mustEqual(t, "sha", built.SHA, tt.wantSHA)
			mustEqual(t, "published", b.publish, []string{tt.wantSHA})
			mustEqual(t, "calls", f.recorded(), tt.wantCalls)
		})
	}
}

// A lane left where the next build starts costs no ref write for its
// scratch: the merges go onto it, and only the publish follows.
func TestBuildBranchLaneInPlace(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	b := buildRoutes(t, f, []int{201}, 201, nil)
	b.scratch = "base0"
	c, _ := f.client()
	spec := testSpec
	spec.Heads, spec.KeepTemp, spec.TempAt = spec.Heads[:1], true, "base0"
	built, err := c.BuildBranch(t.Context(), testRepo, spec)
	if err != nil {
		t.Fatal(err)
	}
	mustEqual(t, "built", built, queue.Built{SHA: "m1@base0", Tree: "tree-m1@base0"})
	mustEqual(t, "calls", f.recorded(), []string{"POST /repos/o/r/merges", "POST /repos/o/r/git/refs"})
	mustEqual(t, "lane left at", b.scratch, "m1@base0")
	if tree, err := c.TreeSHA(t.Context(), testRepo, built.SHA); err != nil || tree != built.Tree {
		t.Errorf("TreeSHA(built) = %q, %v; want %q from memory", tree, err, built.Tree)
	}
	mustEqual(t, "calls after TreeSHA", len(f.recorded()), 2)
}

// A lane that is not where the caller left it is found out by the first
// merge's parent, moved to From, and the build starts again: what is
// published is From plus the heads, never another base.
func TestBuildBranchLaneMovedMeanwhile(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	b := buildRoutes(t, f, []int{201, 201, 201}, 201, nil)
	b.scratch = "elsewhere"
	c, _ := f.client()
	spec := testSpec
	spec.KeepTemp, spec.TempAt = true, "base0"
	built, err := c.BuildBranch(t.Context(), testRepo, spec)
	if err != nil {
		t.Fatal(err)
	}
	mustEqual(t, "sha", built.SHA, "m2@m1@base0")
	mustEqual(t, "calls", f.recorded(), []string{
		"POST /repos/o/r/merges",                     // onto "elsewhere": its parent gives it away
		"PATCH /repos/o/r/git/refs/heads/mq-temp/u1", // one write: the lane exists
		"POST /repos/o/r/merges",
		"POST /repos/o/r/merges",
		"POST /repos/o/r/git/refs",
	})
	mustEqual(t, "scratch deletes", b.deletes.Load(), int32(0))
}

// A "contained" answer on a lane that was not checked yet cannot tell
// where the lane is: the lane is moved to From and the merge asked again.
func TestBuildBranchLaneContainedIsNotTrusted(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	b := buildRoutes(t, f, []int{204, 201}, 201, nil)
	b.scratch = "elsewhere"
	c, _ := f.client()
	spec := testSpec
	spec.Heads, spec.KeepTemp, spec.TempAt = spec.Heads[:1], true, "base0"
	built, err := c.BuildBranch(t.Context(), testRepo, spec)
	if err != nil {
		t.Fatal(err)
	}
	mustEqual(t, "sha", built.SHA, "m1@base0")
}

// A lane whose position is unknown (after a restart) is moved to From
// first, with one write; a queue's first build creates it.
func TestBuildBranchLaneUnknown(t *testing.T) {
	t.Parallel()
	for _, exists := range []bool{true, false} {
		f := newFakeAPI(t)
		b := buildRoutes(t, f, []int{201}, 201, nil)
		want := []string{"PATCH /repos/o/r/git/refs/heads/mq-temp/u1", "POST /repos/o/r/merges", "POST /repos/o/r/git/refs"}
		if exists {
			b.scratch = "somewhere"
		} else {
			want = append([]string{"PATCH /repos/o/r/git/refs/heads/mq-temp/u1", "POST /repos/o/r/git/refs"}, want[1:]...)
		}
		c, _ := f.client()
		spec := testSpec
		spec.Heads, spec.KeepTemp = spec.Heads[:1], true
		built, err := c.BuildBranch(t.Context(), testRepo, spec)
		if err != nil {
			t.Fatal(err)
		}
		mustEqual(t, "sha", built.SHA, "m1@base0")
		mustEqual(t, "calls", f.recorded(), want)
	}
}

// Ended branches named in Delete go in the request that publishes the new
// one (GraphQL updateRefs).
func TestBuildBranchFoldsDeletes(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	var got []any
	b := buildRoutes(t, f, []int{201}, 201, func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Query     string
			Variables struct {
				Input struct {
					RepositoryID string `json:"repositoryId"`
					RefUpdates   []any  `json:"refUpdates"`
				}
			}
		}
		decode(t, r, &body)
		mustEqual(t, "repository", body.Variables.Input.RepositoryID, "R_1")
		got = body.Variables.Input.RefUpdates
		writeJSON(w, http.StatusOK, map[string]any{"data": map[string]any{"updateRefs": map[string]any{}}})
	})
	b.scratch = "base0"
	c, _ := f.client()
	spec := testSpec
	spec.Heads, spec.KeepTemp, spec.TempAt = spec.Heads[:1], true, "base0"
	spec.Delete = []string{"mq-merge/pr-0/old", "mq-temp/x"}
	built, err := c.BuildBranch(t.Context(), testRepo, spec)
	if err != nil {
		t.Fatal(err)
	}
	mustEqual(t, "deleted", built.Deleted, spec.Delete)
	mustEqual(t, "calls", f.recorded(), []string{"POST /repos/o/r/merges", "GET /repos/o/r", "POST /graphql"})
	want := []any{
		map[string]any{"name": "refs/heads/mq-merge/pr-1/run1", "afterOid": "m1@base0", "force": true},
		map[string]any{"name": "refs/heads/mq-merge/pr-0/old", "afterOid": zeroOID},
		map[string]any{"name": "refs/heads/mq-temp/x", "afterOid": zeroOID},
	}
	mustEqual(t, "ref updates", got, want)
}

// A refused fold publishes the branch alone and deletes nothing.
func TestBuildBranchFoldRefused(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	b := buildRoutes(t, f, []int{201}, 201, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"data": map[string]any{"updateRefs": nil},
			"errors": []map[string]any{{"type": "UNPROCESSABLE", "message": "A ref named refs/heads/gone does not exist"}}})
	})
	b.scratch = "base0"
	c, _ := f.client()
	spec := testSpec
	spec.Heads, spec.KeepTemp, spec.TempAt, spec.Delete = spec.Heads[:1], true, "base0", []string{"gone"}
	built, err := c.BuildBranch(t.Context(), testRepo, spec)
	if err != nil {
		t.Fatal(err)
	}
	mustEqual(t, "deleted", len(built.Deleted), 0)
	mustEqual(t, "published", b.publish, []string{"m1@base0"})
}

func TestBuildBranchConflict(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	b := buildRoutes(t, f, []int{201, 409}, 201, nil)
	c, _ := f.client()
	_, err := c.BuildBranch(t.Context(), testRepo, testSpec)
	var conflict *queue.ConflictError
	if !errors.As(err, &conflict) {
		t.Fatalf("BuildBranch() error = %v, want *queue.ConflictError", err)
	}
	mustEqual(t, "conflict", *conflict, queue.ConflictError{Index: 1, SHA: "h2"})
	mustEqual(t, "scratch deletes", b.deletes.Load(), int32(1))
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
	b := buildRoutes(t, f, []int{502}, 201, nil)
	c, _ := f.client()
	_, err := c.BuildBranch(t.Context(), testRepo, testSpec)
	if !errors.Is(err, queue.ErrTransient) {
		t.Fatalf("BuildBranch() error = %v, want ErrTransient", err)
	}
	mustEqual(t, "scratch deletes", b.deletes.Load(), int32(1))
}

func TestBuildBranchCancelledStillDeletesScratch(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	ctx, cancel := context.WithCancel(t.Context())
	b := buildRoutes(t, f, []int{201, 201}, 201, nil)
	c, _ := f.client(WithMiddleware(func(next http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(r *http.Request) (*http.Response, error) {
			if r.Method == http.MethodPost && r.URL.Path == "/repos/o/r/merges" {
				cancel() // the caller gives up while the branch is being built
			}
			return next.RoundTrip(r)
		})
	}))
	if _, err := c.BuildBranch(ctx, testRepo, testSpec); err == nil {
		t.Fatal("BuildBranch() succeeded after cancellation")
	}
	mustEqual(t, "scratch deletes", b.deletes.Load(), int32(1))
}

func TestBuildBranchBadSpec(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	c, _ := f.client()
	for _, spec := range []queue.BranchSpec{
		{Temp: "t", Name: "n"},
		{From: "a", Name: "n"},
		{From: "a", Temp: "same", Name: "same"},
		{From: "a", Temp: "t"}, // a probe needs a lane
		{From: "a", Temp: "t", Name: "n", Delete: []string{"../x"}},
	} {
		if _, err := c.BuildBranch(t.Context(), testRepo, spec); err == nil {
			t.Errorf("BuildBranch(%+v) succeeded", spec)
		}
	}
	mustEqual(t, "calls", len(f.recorded()), 0)
}

// DeleteBranches deletes in one request, or one by one when GitHub refuses
// the batch; either way every branch is gone.
func TestDeleteBranches(t *testing.T) {
	t.Parallel()
	for _, refuse := range []bool{false, true} {
		f := newFakeAPI(t)
		var rest []string
		f.handle("GET /repos/o/r", func(w http.ResponseWriter, r *http.Request) {
			writeJSON(w, http.StatusOK, map[string]any{"id": 1, "node_id": "R_1"})
		})
		f.handle("POST /graphql", func(w http.ResponseWriter, r *http.Request) {
			raw, _ := io.ReadAll(r.Body)
			var body map[string]any
			_ = json.Unmarshal(raw, &body)
			if refuse {
				writeJSON(w, http.StatusOK, map[string]any{"errors": []map[string]any{{"message": "no"}}})
				return
			}
			writeJSON(w, http.StatusOK, map[string]any{"data": map[string]any{"updateRefs": map[string]any{}}})
		})
		f.handle("DELETE /repos/o/r/git/refs/heads/{name...}", func(w http.ResponseWriter, r *http.Request) {
			rest = append(rest, r.PathValue("name"))
			w.WriteHeader(http.StatusNoContent)
		})
		c, _ := f.client()
		names := []string{"mq-merge/a", "mq-merge/b"}
		done, err := c.DeleteBranches(t.Context(), testRepo, names)
		if err != nil {
			t.Fatal(err)
		}
		mustEqual(t, "deleted", done, names)
		if refuse != slices.Equal(rest, names) || !refuse && len(rest) != 0 {
			t.Errorf("refuse=%v: REST deletes %v", refuse, rest)
		}
	}
}

// roundTripFunc adapts a function to http.RoundTripper.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
