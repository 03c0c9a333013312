package sim

import "testing"

// TestMonorepoPresetConflictShare: the realistic monorepo preset is
// calibrated so that 30–72 % of PRs share a target with a PR in flight
// (SubmitQueue's published monthly conflict rates), on every seed.
func TestMonorepoPresetConflictShare(t *testing.T) {
	t.Parallel()
	p, err := PresetByName("monorepo")
	if err != nil {
		t.Fatal(err)
	}
	w := p.Workload
	if w.Targets != MonorepoTargets || w.AllShare > 0.002 || w.RatePerHour != 300 || w.FailRate != 0.10 {
		t.Fatalf("monorepo workload %+v drifted from the issue's parameters", w)
	}
	for seed := uint64(1); seed <= 10; seed++ {
		share := InFlightConflictShare(w.Generate(seed), w.MeanCI())
		if share < 0.30 || share > 0.72 {
			t.Errorf("seed %d: %.1f %% of PRs conflict with a PR in flight, want 30–72 %%", seed, 100*share)
		}
	}
	// A single lane (no targets) conflicts whenever anything is in flight.
	lane := w
	lane.Targets = 0
	if share := InFlightConflictShare(lane.Generate(1), lane.MeanCI()); share < 0.99 {
		t.Errorf("without targets only %.2f of PRs conflict; every PR after the first should", share)
	}
}

// TestPRHeadPresetRates: with PR-head CI, only interaction failures (1 %)
// and flakes (2 %) remain in the queue, on Shopify-like traffic; the drawn
// PRs follow that rate.
func TestPRHeadPresetRates(t *testing.T) {
	t.Parallel()
	p, err := PresetByName("prhead")
	if err != nil {
		t.Fatal(err)
	}
	w := p.Workload
	shopify, _ := PresetByName("shopify")
	if w.FailRate != PRHeadInteractionRate || w.FlakeRate != PRHeadFlakeRate || w.RatePerHour != shopify.Workload.RatePerHour ||
		w.CIMedian != shopify.Workload.CIMedian || w.FailRate >= shopify.Workload.FailRate {
		t.Fatalf("prhead workload %+v: want Shopify-like traffic with p = %g, f = %g", w, PRHeadInteractionRate, PRHeadFlakeRate)
	}
	w.PRs = 20000
	bad := 0
	for _, pr := range w.Generate(1) {
		if pr.Bad {
			bad++
		}
	}
	if share := float64(bad) / float64(w.PRs); share < 0.008 || share > 0.012 {
		t.Errorf("%.2f %% of PRs fail in the queue, want about 1 %%", 100*share)
	}
}
