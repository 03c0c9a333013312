package sim

import (
	"testing"
	"time"
)

// TestGiveUpStopsARunThatFallsBehind: with GiveUpBeyond, a run whose p95
// is sure to exceed the bound stops early (fewer CI runs simulated, the
// cost of an estimate) and says so; a run that stays within it is the
// same as without.
func TestGiveUpStopsARunThatFallsBehind(t *testing.T) {
	t.Parallel()
	w := Workload{PRs: 60, RatePerHour: 17, CIMedian: 20 * time.Minute, CISigma: ciSigma, FailRate: 0.05, FlakeRate: 0.02, Warmup: 0.1}
	serial := PolicySpec{Kind: KindOurs, Ours: OursConfig{Concurrency: 1}}
	full, err := Run(w, serial, 1, RunOptions{Lean: true})
	if err != nil {
		t.Fatal(err)
	}
	if full.Beyond || full.P95.D < 4*time.Hour {
		t.Fatalf("one run at once kept up with 17 PR/h of 20 minutes (p95 %v)", full.P95.D)
	}
	cut, err := Run(w, serial, 1, RunOptions{Lean: true, GiveUpBeyond: 2 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if !cut.Beyond || cut.Stopped == "" || cut.CIRuns*2 > full.CIRuns {
		t.Errorf("did not give up early: beyond %v, stopped %q, %d CI runs of %d", cut.Beyond, cut.Stopped, cut.CIRuns, full.CIRuns)
	}
	fast := PolicySpec{Kind: KindOurs, Ours: OursConfig{Concurrency: 12}}
	want, err := Run(w, fast, 1, RunOptions{Lean: true})
	if err != nil {
		t.Fatal(err)
	}
	got, err := Run(w, fast, 1, RunOptions{Lean: true, GiveUpBeyond: 2 * want.P95.D})
	if err != nil {
		t.Fatal(err)
	}
	if got.Beyond || got.P95 != want.P95 || got.RunsPerMerge != want.RunsPerMerge || got.Merged != want.Merged {
		t.Errorf("within the bound: p95 %v, %.3f runs/merge, %d merged (beyond %v); without it %v, %.3f, %d",
			got.P95.D, got.RunsPerMerge, got.Merged, got.Beyond, want.P95.D, want.RunsPerMerge, want.Merged)
	}
}
