package githubx

import (
	"errors"
	"fmt"
	"testing"

	"github.com/mergequeue/mq/githubx/fakegithub"
	"github.com/mergequeue/mq/queue"
)

// TestFastForward: FirstParents reads a built branch's merge commits with
// their parents; FastForward moves main to a commit containing it (REST:
// one non-forced PATCH; git builds: a push, no content-creating request),
// and refuses, moving nothing, an update that is not a fast-forward
// (ErrNotFastForward) or that branch protection refuses (*RejectedError).
func TestFastForward(t *testing.T) {
	for _, viaGit := range []bool{false, true} {
		t.Run(fmt.Sprintf("git=%v", viaGit), func(t *testing.T) {
			f := newGitFixture(t)
			c := f.rest
			if viaGit {
				c = f.git
			}
			h1 := f.head(t, "pr1", map[string]string{"a.txt": "one\n"})
			h2 := f.head(t, "pr2", map[string]string{"b.txt": "two\n"})
			built, err := c.BuildBranch(t.Context(), f.repo, queue.BranchSpec{From: f.base, Temp: "mq-temp/x", Name: "mq-merge/pr-1/run",
				Heads: []queue.MergeHead{{PRNumber: 1, SHA: h1, Message: "m1"}, {PRNumber: 2, SHA: h2, Message: "m2"}}})
			if err != nil {
				t.Fatal(err)
			}
			chain, err := c.FirstParents(t.Context(), f.repo, built.SHA, 2)
			if err != nil || len(chain) != 2 || chain[0].SHA != built.SHA || chain[0].Parents[1] != h2 ||
				chain[1].Parents[0] != f.base || chain[1].Parents[1] != h1 || chain[0].Parents[0] != chain[1].SHA {
				t.Fatalf("FirstParents = %+v, %v", chain, err)
			}
			// Not a fast-forward: a sibling of main's head.
			other := f.head(t, "other", map[string]string{"c.txt": "c\n"})
			err = c.FastForward(t.Context(), f.repo, "pr1", h1, other)
			if !errors.Is(err, queue.ErrNotFastForward) {
				t.Fatalf("a non-fast-forward update: %v, want ErrNotFastForward", err)
			}
			if at, _ := f.fake.BranchSHA("acme", "widgets", "pr1"); at != h1 {
				t.Fatalf("a refused update moved pr1 to %s", at)
			}
			if !viaGit {
				f.fake.InjectFault(fakegithub.Fault{Method: "PATCH", PathContains: "/git/refs/heads/main", Status: 422,
					Message: "Protected branch update failed for refs/heads/main."})
				var rejected *queue.RejectedError
				if err := c.FastForward(t.Context(), f.repo, "main", f.base, built.SHA); !errors.As(err, &rejected) || errors.Is(err, queue.ErrTransient) {
					t.Fatalf("a protected branch's refusal: %v, want a RejectedError", err)
				}
			}
			before := f.fake.CallCounts()
			if err := c.FastForward(t.Context(), f.repo, "main", f.base, built.SHA); err != nil {
				t.Fatal(err)
			}
			if at, _ := f.fake.BranchSHA("acme", "widgets", "main"); at != built.SHA {
				t.Fatalf("main at %s, want %s", at, built.SHA)
			}
			writes := contentWrites(f.fake.CallCounts()) - contentWrites(before)
			if want := map[bool]int{false: 1, true: 0}[viaGit]; writes != want {
				t.Errorf("%d content-creating requests for the fast-forward, want %d", writes, want)
			}
		})
	}
}
