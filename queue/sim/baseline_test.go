package sim

import (
	"math"
	"testing"
	"time"
)

// Validation of the simulator against closed forms (background note §C5),
// before any policy comparison is trusted.

// forever lets a saturated queue drain completely.
var forever = RunOptions{MaxDrain: 100 * 365 * 24 * time.Hour}

// TestSerialMatchesPollaczekKhinchine: the serial FIFO queue is an M/G/1
// queue; its mean time in system must be within ±5 % of
// T = E[S] + λE[S²] / (2(1−ρ)).
func TestSerialMatchesPollaczekKhinchine(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		rate   float64
		median time.Duration
		sigma  float64
	}{
		{"rho 0.5 log-normal", 2, 15 * time.Minute, 0.32},
		{"rho 0.7 log-normal wide", 2, 20 * time.Minute, 0.6},
		{"rho 0.6 constant", 3, 12 * time.Minute, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := Workload{PRs: 60000, RatePerHour: tc.rate, CIMedian: tc.median, CISigma: tc.sigma,
				FailRate: 0.05, FlakeRate: 0.01, Warmup: 0.1}
			res, err := Run(w, PolicySpec{Kind: KindSerial}, 1, RunOptions{})
			if err != nil {
				t.Fatal(err)
			}
			want := PollaczekKhinchine(w)
			got := res.MeanDecision
			if dev := math.Abs(got.Hours()/want.Hours() - 1); dev > 0.05 {
				t.Errorf("mean time in system %v, P–K %v (%.1f %% off, > 5 %%)", got, want, 100*dev)
			}
			t.Logf("mean time in system %v, P–K %v", got.Round(time.Second), want.Round(time.Second))
		})
	}
}

// TestSpeculationRoundsMatchClosedForm: saturated prefix speculation in
// synchronous rounds with constant CI merges (1−p)(1−(1−p)^k)/p PRs per
// round (±2 %) and uses k/M runs per merged PR.
func TestSpeculationRoundsMatchClosedForm(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		k    int
		p    float64
		prs  int // about 20,000 rounds
	}{
		{"k=4 p=5%", 4, 0.05, 70000},
		{"k=8 p=10%", 8, 0.10, 100000},
		{"k=20 p=20%", 20, 0.20, 80000},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := Workload{PRs: tc.prs, Burst: Burst{Count: tc.prs}, CIMedian: 30 * time.Minute, FailRate: tc.p}
			res, err := Run(w, PolicySpec{Kind: KindGitHub, Concurrency: tc.k, Rounds: true}, 1, forever)
			if err != nil {
				t.Fatal(err)
			}
			want := SpeculationMergesPerRound(tc.k, tc.p)
			got := float64(res.Merged) / float64(res.Rounds)
			if dev := math.Abs(got/want - 1); dev > 0.02 {
				t.Errorf("merges per round %.3f, closed form %.3f (%.1f %% off, > 2 %%)", got, want, 100*dev)
			}
			if dev := math.Abs(res.RunsPerMerge/(float64(tc.k)/want) - 1); dev > 0.02 {
				t.Errorf("runs per merge %.3f, closed form %.3f", res.RunsPerMerge, float64(tc.k)/want)
			}
			t.Logf("merges per round %.3f (closed form %.3f), runs per merge %.3f", got, want, res.RunsPerMerge)
		})
	}
}

// TestBorsMatchesRecursiveHalving: saturated bors with full batches and no
// flakes costs c(b, p) builds per PR (±5 %).
func TestBorsMatchesRecursiveHalving(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		b    int
		p    float64
	}{
		{"b=4 p=10%", 4, 0.10},
		{"b=8 p=5%", 8, 0.05},
		{"b=16 p=2%", 16, 0.02},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := Workload{PRs: 16000, Burst: Burst{Count: 16000}, CIMedian: 30 * time.Minute, FailRate: tc.p}
			res, err := Run(w, PolicySpec{Kind: KindBors, BatchMax: tc.b}, 1, forever)
			if err != nil {
				t.Fatal(err)
			}
			want := RecursiveHalvingCost(tc.b, tc.p)
			got := float64(res.CIRuns) / float64(res.PRs)
			if dev := math.Abs(got/want - 1); dev > 0.05 {
				t.Errorf("builds per PR %.4f, recursive halving %.4f (%.1f %% off, > 5 %%)", got, want, 100*dev)
			}
			if res.WronglyMerged != 0 || res.FalseRejections != 0 {
				t.Errorf("wrongly merged %d, false rejections %d; want 0 without flakes", res.WronglyMerged, res.FalseRejections)
			}
		})
	}
}

// TestOracleIsTheLowerBound: the Oracle uses exactly one run per merged PR
// and each PR's time-to-merge is its own CI duration.
func TestOracleIsTheLowerBound(t *testing.T) {
	t.Parallel()
	w := Workload{PRs: 3000, RatePerHour: 50, CIMedian: 25 * time.Minute, FailRate: 0.1, FlakeRate: 0.2}
	res, err := Run(w, PolicySpec{Kind: KindOracle}, 7, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.CIRuns != res.Merged || res.RunsPerMerge != 1 {
		t.Errorf("runs %d for %d merges; want exactly one per merge", res.CIRuns, res.Merged)
	}
	for _, q := range []Quantile{res.P50, res.P95, res.P99} {
		if q.D != w.CIMedian || q.AtLeast {
			t.Errorf("time-to-merge percentile %v, want the CI duration %v", q, w.CIMedian)
		}
	}
	if res.WronglyMerged != 0 || res.FalseRejections != 0 || res.Merged+res.Rejected != res.PRs {
		t.Errorf("oracle result %+v: want every PR decided correctly", res)
	}
}

// TestBaselinesNeverMergeBrokenPRs: every baseline decides every PR (given
// time) and lands no broken PR; flakes only cause false rejections.
func TestBaselinesNeverMergeBrokenPRs(t *testing.T) {
	t.Parallel()
	w := Workload{PRs: 600, RatePerHour: 6, CIMedian: 10 * time.Minute, CISigma: 0.32,
		FailRate: 0.1, FlakeRate: 0.05, ConflictRate: 0.05, Warmup: 0.1}
	for _, p := range []PolicySpec{{Kind: KindSerial}, {Kind: KindBors, BatchMax: 8},
		{Kind: KindGitHub, Concurrency: 4}, {Kind: KindZuul, Concurrency: 20}, {Kind: KindOracle}} {
		t.Run(p.Label(), func(t *testing.T) {
			t.Parallel()
			res, err := Run(w, p, 3, RunOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if res.WronglyMerged != 0 || res.Unfinished != 0 || res.Merged+res.Rejected != res.PRs {
				t.Errorf("%s: merged %d rejected %d unfinished %d wrongly merged %d", p.Label(),
					res.Merged, res.Rejected, res.Unfinished, res.WronglyMerged)
			}
			if p.Kind != KindOracle && res.FalseRejections == 0 {
				t.Errorf("%s: no false rejections with 5 %% flakes", p.Label())
			}
		})
	}
}
