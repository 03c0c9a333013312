package sim

import (
	"math/rand/v2"
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

// TestCommonRandomGivesAPRsRunTheSameCI: with RunOptions.CommonRandom, a
// PR's n-th run draws the same CI duration and flake whatever the order
// the runs start in (two settings of one seed); without, the draws follow
// that order.
func TestCommonRandomGivesAPRsRunTheSameCI(t *testing.T) {
	t.Parallel()
	draws := func(common bool, order []int) map[[2]int]float64 {
		r := &oursRun{index: map[int]int{10: 0, 11: 1, 12: 2}, ci: rand.New(rand.NewPCG(5, 0xc1c1c1c1))}
		if common {
			r.common = newCommonCI(5)
		}
		out := map[[2]int]float64{}
		seen := map[int]int{}
		for _, pr := range order {
			seen[pr]++
			out[[2]int{pr, seen[pr]}] = r.ciRand(CIJob{Contains: []int{9, pr}}).Float64()
		}
		return out
	}
	a, b := []int{10, 11, 12, 10, 11}, []int{12, 11, 11, 10, 10}
	alike := func(x, y map[[2]int]float64) int {
		n := 0
		for k, v := range x {
			if y[k] == v {
				n++
			}
		}
		return n
	}
	if n := alike(draws(true, a), draws(true, b)); n != 5 {
		t.Errorf("common random numbers: %d of 5 runs drew alike in another order, want 5", n)
	}
	if n := alike(draws(false, a), draws(false, b)); n == 5 {
		t.Errorf("without common random numbers every run drew alike: the test cannot tell them apart")
	}
}
