package githubx

import (
	"context"
	"errors"
	"testing"
)

// BuildBranch tells spec.Publishing the assembled commit before it
// publishes the branch (so the queue records it before CI can ask), and a
// Publishing error publishes nothing.
func TestBuildBranchPublishingBeforePublish(t *testing.T) {
	t.Parallel()
	t.Run("told before the publish", func(t *testing.T) {
		t.Parallel()
		f := newFakeAPI(t)
		b := buildRoutes(t, f, []int{201, 201}, 201, nil)
		c, _ := f.client()
		spec := testSpec
		var told string
		var callsBefore []string
		spec.Publishing = func(_ context.Context, sha string) error {
			told, callsBefore = sha, f.recorded()
			return nil
		}
		built, err := c.BuildBranch(t.Context(), testRepo, spec)
		if err != nil {
			t.Fatal(err)
		}
		mustEqual(t, "told", told, built.SHA)
		mustEqual(t, "published", b.publish, []string{built.SHA})
		mustEqual(t, "calls before Publishing", callsBefore, []string{
			"POST /repos/o/r/git/refs", "POST /repos/o/r/merges", "POST /repos/o/r/merges"})
	})
	t.Run("an error publishes nothing", func(t *testing.T) {
		t.Parallel()
		f := newFakeAPI(t)
		b := buildRoutes(t, f, []int{201, 201}, 201, nil)
		c, _ := f.client()
		spec := testSpec
		boom := errors.New("store down")
		spec.Publishing = func(context.Context, string) error { return boom }
		if _, err := c.BuildBranch(t.Context(), testRepo, spec); !errors.Is(err, boom) {
			t.Fatalf("BuildBranch() error = %v, want %v", err, boom)
		}
		mustEqual(t, "published", len(b.publish), 0)
	})
}
