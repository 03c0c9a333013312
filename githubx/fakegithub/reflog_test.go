package fakegithub

import (
	"strings"
	"testing"

	"github.com/google/go-github/v66/github"
)

// RefHistory tells how a branch came and went, in order, for a test that
// finds one it did not expect.
func TestRefHistorySaysHowABranchCameAndWent(t *testing.T) {
	t.Parallel()
	s := newServer(t, Options{CI: CIOptions{Disabled: true}})
	c := newClient(t, s, "/")
	ctx := t.Context()
	main := must(t)(s.BranchSHA(testOwner, testRepo, "main"))
	const ref = "refs/heads/mq-merge/pr-2/run"
	if _, _, err := c.Git.CreateRef(ctx, testOwner, testRepo, &github.Reference{Ref: github.String(ref), Object: &github.GitObject{SHA: github.String(main)}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Git.DeleteRef(ctx, testOwner, testRepo, strings.TrimPrefix(ref, "refs/")); err != nil {
		t.Fatal(err)
	}
	got := s.RefHistory(testOwner, testRepo, ref)
	if len(got) != 2 || got[0].Old != "" || got[0].New != main || got[1].Old != main || got[1].New != "" {
		t.Fatalf("RefHistory = %v, want created at %.7s then deleted", got, main)
	}
	if !strings.Contains(got[0].String(), "created") || !strings.Contains(got[1].String(), "deleted") {
		t.Errorf("RefHistory lines %q, %q: want them to say created and deleted", got[0], got[1])
	}
	if other := s.RefHistory(testOwner, testRepo, "refs/heads/main"); len(other) != 1 || other[0].New != main {
		t.Errorf("RefHistory(main) = %v, want its creation alone", other)
	}
}
