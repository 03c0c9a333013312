package sim

import (
	"slices"
	"testing"

	"github.com/mergequeue/mq/queue"
)

// TestConflictedBuildLeavesNoBranchToDelete: a test branch that did not
// build (its PR conflicted with the one ahead) was never published, but
// its record stayed, so the next publish asked GitHub to delete it with
// the ended branches in one updateRefs. GitHub refuses that request whole
// (the ref is missing): the ended branches stayed on GitHub, their test
// runs still counted as in flight, and the publish cost a refused request
// and a second one. Expected: the next publish deletes the ended branches
// in its own request.
func TestConflictedBuildLeavesNoBranchToDelete(t *testing.T) {
	s := queue.DefaultSettings()
	s.Concurrency = 2
	sc := newScenario(t, s)
	a := sc.open(PRSpec{}, "")
	sc.open(PRSpec{Conflicts: []int{a}}, "") // built on #1: conflicts, publishes nothing
	sc.sync()
	sc.open(PRSpec{}, "")
	sc.sync()
	sc.passAll() // #1 and #3 merge: their branches end
	sc.passAll()
	testBranches := func() []string {
		t.Helper()
		out, err := sc.world.ListBranches(sc.ctx, sc.q.Key.Repo, TestBranchPrefix)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	ended := testBranches()
	if len(ended) == 0 {
		t.Fatal("no ended test branch to delete: the scenario does not test anything")
	}
	before := sc.world.RequestsByCall()["BuildBranch"]
	sc.open(PRSpec{}, "")
	sc.sync() // publishes #4's test branch, with the ended ones deleted in the same request
	left := testBranches()
	for _, name := range ended {
		if slices.Contains(left, name) {
			t.Errorf("ended branch %s still on GitHub after the next publish (branches: %v)", name, left)
		}
	}
	// The lane moves (1), #4 merges on it (1), one updateRefs publishes and
	// deletes (1).
	if got := sc.world.RequestsByCall()["BuildBranch"].Writes - before.Writes; got != 3 {
		t.Errorf("the publish cost %d writes, want 3", got)
	}
}
