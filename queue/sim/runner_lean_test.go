package sim

import (
	"testing"
)

// TestLeanRunsDecideAlike: without the reconciler the engine merges the
// same PRs at the same times with the same runs, for the settings
// autoTune chooses between.
func TestLeanRunsDecideAlike(t *testing.T) {
	t.Parallel()
	p, err := PresetByName("flakestorm")
	if err != nil {
		t.Fatal(err)
	}
	w := p.Workload
	w.PRs = 40
	cands := singleCandidates(6)
	for _, c := range []OursConfig{cands[0], cands[3], isolationCandidates(6)[1]} {
		for _, seed := range []uint64{1} {
			full, err := Run(w, PolicySpec{Kind: KindOurs, Ours: c}, seed, RunOptions{})
			if err != nil {
				t.Fatal(err)
			}
			lean, err := Run(w, PolicySpec{Kind: KindOurs, Ours: c}, seed, RunOptions{Lean: true})
			if err != nil {
				t.Fatal(err)
			}
			if len(full.Violations) > 0 || len(lean.Violations) > 0 {
				t.Fatalf("%s seed %d: violations %v / %v", c.Label(), seed, full.Violations, lean.Violations)
			}
			if full.P50 != lean.P50 || full.P95 != lean.P95 || full.RunsPerMerge != lean.RunsPerMerge || full.Merged != lean.Merged {
				t.Errorf("%s seed %d: full p50 %v p95 %v %.3f runs/merge %d merged; lean %v %v %.3f %d", c.Label(), seed,
					full.P50.D, full.P95.D, full.RunsPerMerge, full.Merged, lean.P50.D, lean.P95.D, lean.RunsPerMerge, lean.Merged)
			}
		}
	}
}
