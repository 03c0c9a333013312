package sim

import (
	"fmt"
	"math"
	"strings"
	"time"
)

// Check is one validation of the simulator against a closed form
// (background note §C5).
type Check struct {
	Name      string
	Expected  string
	Measured  string
	Tolerance string
	Pass      bool
}

// Validate runs the validation checks with scale × the base sample sizes
// (scale 1 takes about a second) and returns them in order. A failing
// check means the simulator, not a policy, is wrong.
func Validate(seed uint64, scale float64) ([]Check, error) {
	n := func(base int) int { return max(int(float64(base)*scale), 100) }
	forever := RunOptions{MaxDrain: 100 * 365 * 24 * time.Hour}
	var out []Check

	for _, c := range []struct {
		rate   float64
		median time.Duration
		sigma  float64
	}{{2, 15 * time.Minute, 0.32}, {2, 20 * time.Minute, 0.6}, {3, 12 * time.Minute, 0}} {
		w := Workload{PRs: n(60000), RatePerHour: c.rate, CIMedian: c.median, CISigma: c.sigma,
			FailRate: 0.05, FlakeRate: 0.01, Warmup: 0.1}
		res, err := Run(w, PolicySpec{Kind: KindSerial}, seed, RunOptions{})
		if err != nil {
			return nil, err
		}
		want := PollaczekKhinchine(w)
		dev := math.Abs(res.MeanDecision.Hours()/want.Hours() - 1)
		out = append(out, Check{
			Name:     fmt.Sprintf("serial, M/G/1 mean time in system (λ=%g/h, median %v, σ=%g, ρ=%.2f)", c.rate, c.median, c.sigma, c.rate*w.MeanCI().Hours()),
			Expected: fmt.Sprintf("%.1f min (Pollaczek–Khinchine)", want.Minutes()), Measured: fmt.Sprintf("%.1f min (%+.1f %%)", res.MeanDecision.Minutes(), 100*(res.MeanDecision.Hours()/want.Hours()-1)),
			Tolerance: "±5 %", Pass: dev <= 0.05})
	}

	for _, c := range []struct {
		k   int
		p   float64
		prs int
	}{{4, 0.05, 70000}, {8, 0.10, 100000}, {20, 0.20, 80000}, {5, 0.10, 90000}} {
		w := Workload{PRs: n(c.prs), Burst: Burst{Count: n(c.prs)}, CIMedian: 30 * time.Minute, FailRate: c.p}
		res, err := Run(w, PolicySpec{Kind: KindGitHub, Concurrency: c.k, Rounds: true}, seed, forever)
		if err != nil {
			return nil, err
		}
		cont, err := Run(w, PolicySpec{Kind: KindGitHub, Concurrency: c.k}, seed, forever)
		if err != nil {
			return nil, err
		}
		want := SpeculationMergesPerRound(c.k, c.p)
		got := float64(res.Merged) / float64(res.Rounds)
		perRound := cont.Throughput / 2 // continuous mode, per 30-minute CI duration
		name := fmt.Sprintf("saturated speculation in rounds, merges per CI duration (k=%d, p=%g, constant 30 min)", c.k, c.p)
		if c.k == 5 && c.p == 0.10 {
			name += "; the sonos/github-merge-queue-simulator example reports ≈ 7.3 PR/h"
		}
		out = append(out, Check{
			Name:      name,
			Expected:  fmt.Sprintf("%.3f = (1−p)(1−(1−p)^k)/p; %.2f runs/merge", want, float64(c.k)/want),
			Measured:  fmt.Sprintf("%.3f (%+.1f %%); %.2f runs/merge; continuous mode: %.3f (%.1f merges/h)", got, 100*(got/want-1), res.RunsPerMerge, perRound, cont.Throughput),
			Tolerance: "±2 %", Pass: math.Abs(got/want-1) <= 0.02})
	}

	for _, c := range []struct {
		b int
		p float64
	}{{4, 0.10}, {8, 0.05}, {16, 0.02}} {
		w := Workload{PRs: n(16000), Burst: Burst{Count: n(16000)}, CIMedian: 30 * time.Minute, FailRate: c.p}
		res, err := Run(w, PolicySpec{Kind: KindBors, BatchMax: c.b}, seed, forever)
		if err != nil {
			return nil, err
		}
		want := RecursiveHalvingCost(c.b, c.p)
		got := float64(res.CIRuns) / float64(res.PRs)
		out = append(out, Check{
			Name:     fmt.Sprintf("saturated bors, builds per PR (b=%d, p=%g, no flakes)", c.b, c.p),
			Expected: fmt.Sprintf("%.4f (recursive halving)", want), Measured: fmt.Sprintf("%.4f (%+.1f %%)", got, 100*(got/want-1)),
			Tolerance: "±5 %", Pass: math.Abs(got/want-1) <= 0.05})
	}

	w := Workload{PRs: n(3000), RatePerHour: 50, CIMedian: 25 * time.Minute, FailRate: 0.1, FlakeRate: 0.2}
	res, err := Run(w, PolicySpec{Kind: KindOracle}, seed, RunOptions{})
	if err != nil {
		return nil, err
	}
	exact := res.CIRuns == res.Merged && res.P50.D == w.CIMedian && res.P99.D == w.CIMedian
	out = append(out, Check{Name: "Oracle: CI runs per merged PR and time-to-merge (constant 25 min CI, p=0.1, f=0.2)",
		Expected: "1 run per merge; p50 = p99 = 25 min", Measured: fmt.Sprintf("%.3f runs per merge; p50 %s, p99 %s min", res.RunsPerMerge, fmtQuantile(res.P50), fmtQuantile(res.P99)),
		Tolerance: "exact", Pass: exact})
	return out, nil
}

// ValidationMarkdown renders checks as a table.
func ValidationMarkdown(checks []Check) string {
	var b strings.Builder
	b.WriteString("| check | expected | measured | tolerance | result |\n|---|---|---|---|---|\n")
	for _, c := range checks {
		verdict := "pass"
		if !c.Pass {
			verdict = "**FAIL**"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", c.Name, c.Expected, c.Measured, c.Tolerance, verdict)
	}
	return b.String()
}
