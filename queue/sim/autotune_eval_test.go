package sim

import (
	"math"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue/autotune"
)

// benchChoose measures one choice on an observation not in the cache (a
// retuning after the traffic moved), within maxRuns runs at once.
func benchChoose(b *testing.B, obs autotune.Observation, maxRuns int) {
	obs = obs.Fitted()
	for i := range b.N {
		o := obs
		o.ArrivalsPerHour += float64(i+1) * 1e-6 // a new cache key each time
		if _, err := autotune.Choose(TuneEvaluator{}, o, autotune.Bounds{MaxRuns: maxRuns}, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// shopifyObservation is Shopify-like traffic as the observer would see it.
var shopifyObservation = autotune.Observation{ArrivalsPerHour: 17, CIMedian: 20 * time.Minute, CISigma: 0.3, FailRate: 0.05, FlakeRate: 0.02}

// smallEvaluator is the evaluator of the tests: three seeds of at most 60
// PRs.
var smallEvaluator = TuneEvaluator{Seeds: 3, MaxPRs: 60}

// BenchmarkChooseShopify: Shopify-like traffic, at most 24 runs at once.
func BenchmarkChooseShopify(b *testing.B) {
	benchChoose(b, shopifyObservation, 24)
}

// BenchmarkChooseChromium: Chromium-like traffic, at most 64 runs at once.
func BenchmarkChooseChromium(b *testing.B) {
	benchChoose(b, autotune.Observation{ArrivalsPerHour: 40, CIMedian: 40 * time.Minute, CISigma: 0.3, FailRate: 0.085, FlakeRate: 0.05}, 64)
}

// BenchmarkChooseFlakeStorm: a flake storm (25 % of runs), 24 runs.
func BenchmarkChooseFlakeStorm(b *testing.B) {
	benchChoose(b, autotune.Observation{ArrivalsPerHour: 17, CIMedian: 20 * time.Minute, CISigma: 0.3, FailRate: 0.05, FlakeRate: 0.25}, 24)
}

// TestEvaluatorGivesUpOnlyBeyondTheLimit: a bounded estimate of a tuning
// that falls behind gives up (Beyond); one of a tuning within the limit
// is the unbounded estimate.
func TestEvaluatorGivesUpOnlyBeyondTheLimit(t *testing.T) {
	t.Parallel()
	ev := smallEvaluator
	obs := shopifyObservation.Fitted()
	good := autotune.Tuning{Concurrency: 12}
	full, err := ev.Evaluate(obs, good)
	if err != nil || !full.KeptUp {
		t.Fatalf("k=12: %+v %v", full, err)
	}
	if got, err := ev.EvaluateWithin(obs, good, 2*full.P95); err != nil || got != full {
		t.Errorf("within twice its p95: %+v, want %+v (%v)", got, full, err)
	}
	slow, err := ev.EvaluateWithin(obs, autotune.Tuning{Concurrency: 1}, 2*full.P95)
	if err != nil || !slow.Beyond || slow.KeptUp {
		t.Errorf("one run at once within twice k=12's p95: %+v %v", slow, err)
	}
}

// TestEvaluatorPoolsTheSeeds: the estimated p95 is the 95th percentile of
// every seed's times-to-merge together, not the median
// of per-seed p95s (each about the 5th longest of a hundred): 95 % of the
// pooled waits are at most the estimate, and fewer are below it.
func TestEvaluatorPoolsTheSeeds(t *testing.T) {
	t.Parallel()
	ev := smallEvaluator
	obs := autotune.Observation{ArrivalsPerHour: 17, CIMedian: 20 * time.Minute, CISigma: 0.5, FailRate: 0.08, FlakeRate: 0.08}.Fitted()
	tu := autotune.Tuning{Concurrency: 3}
	est, err := ev.Evaluate(obs, tu)
	if err != nil || !est.KeptUp {
		t.Fatalf("%+v %v", est, err)
	}
	var atMost, below, n int
	for _, seed := range ev.seeds() {
		res, err := Run(ev.workload(obs, tu), PolicySpec{Kind: KindOurs, Ours: OursFromTuning(tu)}, seed, estimateOptions(0))
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range res.Waits {
			n++
			if d <= est.P95 {
				atMost++
			}
			if d < est.P95 {
				below++
			}
		}
	}
	if n < 120 || float64(atMost) < 0.95*float64(n) || float64(below) >= 0.95*float64(n) {
		t.Errorf("estimate %v: %d of %d pooled waits at most it, %d below; want it the pooled 95th percentile", est.P95, atMost, n, below)
	}
}

// TestEstimatesStartFromTheBacklog: an observation with PRs queued is
// estimated on a workload that starts with them (at time 0, counted in the
// p95, none left out as warm-up), so the same traffic with a backlog of
// 60 PRs is estimated slower than without one, and fewer runs at once
// fall further behind on it.
func TestEstimatesStartFromTheBacklog(t *testing.T) {
	t.Parallel()
	ev := smallEvaluator
	quiet := shopifyObservation
	rush := quiet
	rush.Queued = 60
	quiet, rush = quiet.Fitted(), rush.Fitted()
	w := ev.workload(rush, autotune.Tuning{Concurrency: 12})
	prs := w.Generate(1)
	if w.Queued != rush.Queued || w.Warmup != 0 || len(prs) != ev.EvalPRs(rush.ArrivalsPerHour)+rush.Queued {
		t.Fatalf("workload %+v with %d PRs for a backlog of %d", w, len(prs), rush.Queued)
	}
	for i, pr := range prs {
		if (i < rush.Queued) != (pr.Arrival == 0) {
			t.Fatalf("PR %d arrives at %v; the first %d should be queued at 0", i, pr.Arrival, rush.Queued)
		}
	}
	k6, k12 := autotune.Tuning{Concurrency: 6}, autotune.Tuning{Concurrency: 12}
	est := map[string]autotune.Estimate{}
	for name, c := range map[string]struct {
		o autotune.Observation
		t autotune.Tuning
	}{"quiet k=6": {quiet, k6}, "quiet k=12": {quiet, k12}, "rush k=6": {rush, k6}, "rush k=12": {rush, k12}} {
		e, err := ev.Evaluate(c.o, c.t)
		if err != nil || !e.KeptUp {
			t.Fatalf("%s: %+v %v", name, e, err)
		}
		est[name] = e
	}
	if est["rush k=12"].P95 <= est["quiet k=12"].P95 {
		t.Errorf("k=12 with a backlog of %d: p95 %v, not above %v without", rush.Queued, est["rush k=12"].P95, est["quiet k=12"].P95)
	}
	if gap, quietGap := est["rush k=6"].P95-est["rush k=12"].P95, est["quiet k=6"].P95-est["quiet k=12"].P95; gap <= quietGap {
		t.Errorf("k=6 behind k=12 by %v with the backlog, %v without: the backlog should widen the gap", gap, quietGap)
	}
}

// TestFittedTargetsOverlapAsObserved: the workload an estimate of a
// parallel tuning simulates overlaps as the observed traffic did. For the
// monorepo and Uber-like presets' targets, a thousand PRs observed, the
// fitted workload's PRs share a target as often (within 25 %), have as
// many targets (within 10 %) and impact every target as often.
func TestFittedTargetsOverlapAsObserved(t *testing.T) {
	t.Parallel()
	observe := func(w Workload, seed uint64) autotune.Observation {
		o := autotune.NewObserver(time.Hour)
		o.Arrived(time.Unix(0, 0))
		for i, pr := range w.Generate(seed) {
			o.Targeted(i, pr.All, pr.Targets)
		}
		return o.Observe(time.Unix(0, 0))
	}
	for _, name := range []string{"monorepo", "uber"} {
		p, err := PresetByName(name)
		if err != nil {
			t.Fatal(err)
		}
		w := p.Workload
		w.PRs = autotune.TargetsKept
		obs := observe(w, 3)
		fitted := TuneEvaluator{}.workload(obs.Fitted(), autotune.Tuning{Parallel: true, Concurrency: 8})
		fitted.PRs, fitted.Queued, fitted.RatePerHour, fitted.CIMedian = autotune.TargetsKept, 0, 10, time.Minute
		again := observe(fitted, 4)
		t.Logf("%s: observed overlap %.4f, %.2f per PR, ALL %.4f; fitted %d targets: overlap %.4f, %.2f per PR, ALL %.4f",
			name, obs.Overlap, obs.TargetsPerPR, obs.AllShare, fitted.Targets, again.Overlap, again.TargetsPerPR, again.AllShare)
		if math.Abs(again.Overlap-obs.Overlap) > 0.25*obs.Overlap || math.Abs(again.TargetsPerPR-obs.TargetsPerPR) > 0.1*obs.TargetsPerPR {
			t.Errorf("%s: the fitted workload overlaps %.4f with %.2f targets per PR, observed %.4f with %.2f",
				name, again.Overlap, again.TargetsPerPR, obs.Overlap, obs.TargetsPerPR)
		}
		if math.Abs(fitted.AllShare-obs.AllShare) > 0.2*obs.AllShare+1e-9 {
			t.Errorf("%s: fitted ALL share %.4f, observed %.4f", name, fitted.AllShare, obs.AllShare)
		}
	}
}
