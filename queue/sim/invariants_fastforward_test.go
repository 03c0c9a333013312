package sim

import "testing"

// The randomized suite lands units by fast-forward in a share of its seeds
// (randomSettings draws fastForwardLanding with merge_commit), and those
// seeds keep every invariant: a suite that never took the path would prove
// nothing about it.
func TestInvariantsExerciseFastForwardLanding(t *testing.T) {
	t.Parallel()
	seeds, landed, prs := 0, 0, 0
	for seed := uint64(1); seed <= 300; seed++ {
		d, err := runSeed(seed, 0)
		if err != nil {
			t.Fatal(err)
		}
		if d.failure != nil {
			t.Fatalf("seed %d: %v", seed, d.failure)
		}
		calls := d.world.Calls()
		if calls["FastForward"] > 0 {
			seeds++
			// The PRs the queue merged without the PR merge endpoint.
			prs += len(d.world.MergedByQueue()) - calls["MergePullRequest"]
		}
		landed += calls["FastForward"]
	}
	if seeds < 10 || prs < seeds {
		t.Errorf("only %d of 300 seeds tried to land a unit by fast-forward (%d fast-forwards, %d PRs landed by them)", seeds, landed, prs)
	}
	t.Logf("%d seeds, %d fast-forwards, at least %d PRs landed by them", seeds, landed, prs)
}
