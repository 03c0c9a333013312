package sim

import (
	"testing"
	"time"
)

// TestResubmitBringsBackFalselyRejectedPRs: at depth 0, flakes reject good
// PRs; with RunOptions.Resubmit each comes back and merges, so none is
// left rejected, every good PR merges, every ejection still counts as a
// false rejection, and the resubmissions' runs show in runs per merge.
// Our engine and each baseline that can reject a good PR alike.
func TestResubmitBringsBackFalselyRejectedPRs(t *testing.T) {
	t.Parallel()
	w := Workload{PRs: 80, RatePerHour: 12, CIMedian: 20 * time.Minute, CISigma: 0.3, FailRate: 0.05, FlakeRate: 0.12, Warmup: 0.1}
	bad := 0
	for _, pr := range w.Generate(3) {
		if pr.Bad {
			bad++
		}
	}
	for _, p := range []PolicySpec{
		{Kind: KindOurs, Ours: OursConfig{Concurrency: 6}},
		{Kind: KindSerial},
		{Kind: KindBors, BatchMax: 4},
		{Kind: KindGitHub, Concurrency: 6},
		{Kind: KindZuul, Concurrency: 6},
	} {
		t.Run(p.Label(), func(t *testing.T) {
			t.Parallel()
			plain, err := Run(w, p, 3, RunOptions{Lean: true})
			if err != nil {
				t.Fatal(err)
			}
			if plain.FalseRejections == 0 {
				t.Fatalf("12 %% flakes rejected no good PR; the test needs some")
			}
			again, err := Run(w, p, 3, RunOptions{Lean: true, Resubmit: true})
			if err != nil {
				t.Fatal(err)
			}
			if len(again.Violations) > 0 {
				t.Fatalf("violations: %v", again.Violations)
			}
			if again.Rejected+again.WronglyMerged > bad || again.Merged+again.WronglyMerged < w.PRs-bad || again.Unfinished != 0 {
				t.Errorf("with resubmission: %d rejected of %d bad, %d merged of %d good, %d unfinished; want no good PR left rejected",
					again.Rejected, bad, again.Merged, w.PRs-bad, again.Unfinished)
			}
			if again.FalseRejections == 0 {
				t.Errorf("with resubmission no false rejection counted: the ejections before each resubmission are lost")
			}
			t.Logf("without: %d runs, %d merged, %d false rejections; with: %d runs, %d merged, %d false rejections",
				plain.CIRuns, plain.Merged, plain.FalseRejections, again.CIRuns, again.Merged, again.FalseRejections)
			if again.CIRuns <= plain.CIRuns {
				t.Errorf("with resubmission %d runs, without %d: the resubmitted PRs' runs are not counted", again.CIRuns, plain.CIRuns)
			}
		})
	}
}
