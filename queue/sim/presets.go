package sim

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/mergequeue/mq/queue"
)

// DefaultPRs is the number of arrivals per preset: enough for a stable p95
// (about 100 PRs above it) after a 10 % warm-up.
const DefaultPRs = 2000

// Preset is a named scenario of issue #3 / background note §C2: a workload,
// the baselines it is compared with, and the candidate settings of our
// engine.
type Preset struct {
	Name        string
	Description string
	Workload    Workload
	// Concurrency is the build concurrency given to GitHub-style
	// speculation and to our engine's candidates.
	Concurrency int
	// Ours are the candidate settings of our engine for this preset.
	Ours []OursConfig
	// MaxQueue overrides Workload.QueueCap as the default RunOptions.MaxQueue.
	MaxQueue int
}

// Policies returns the baselines followed by our candidates, in table order.
func (p Preset) Policies() []PolicySpec {
	out := []PolicySpec{
		{Kind: KindOracle},
		{Kind: KindSerial},
		{Kind: KindBors, BatchMax: 8},
		{Kind: KindGitHub, Concurrency: p.Concurrency},
		{Kind: KindZuul, Concurrency: 20, Floor: 3},
	}
	for _, o := range p.Ours {
		out = append(out, PolicySpec{Kind: KindOurs, Ours: o})
	}
	return out
}

// lane is the log-normal spread of CI durations (p90/p50 ≈ 1.5, note §C2).
const ciSigma = 0.32

// singleCandidates are our engine's candidate settings in single mode at
// build concurrency k: plain speculation, flake absorption (pending failure
// depth 1 + optimistic merging), and flake absorption with batches
// (waiting up to 5 minutes for a second entry): of 2, bisected in halves,
// and of 2 to 8 whose failures are split into single entries at once
// (bisectionParts 8).
func singleCandidates(k int) []OursConfig {
	flakes := OursConfig{Concurrency: k, PendingFailureDepth: 1, CanOptimisticallyMerge: true}
	batched := func(maxSize, parts int) OursConfig {
		c := flakes
		c.Batch, c.BatchingMinSize, c.BatchingMaxSize, c.BatchingMaxWaitMinutes, c.BisectionConcurrency = true, 2, maxSize, 5, k
		c.BisectionParts = parts
		return c
	}
	return []OursConfig{{Concurrency: k}, flakes, batched(2, 0), batched(8, 8)}
}

// Presets returns every preset, in report order.
func Presets() []Preset {
	base := func(rate float64, median time.Duration, p, f float64) Workload {
		return Workload{PRs: DefaultPRs, RatePerHour: rate, CIMedian: median, CISigma: ciSigma,
			FailRate: p, FlakeRate: f, Warmup: 0.1}
	}
	uber := base(300, 30*time.Minute, 0.10, 0)
	uber.Targets, uber.ZipfS, uber.TargetsPerPR, uber.AllShare = 64, 1.1, 2, 0.079
	burst := base(0, 20*time.Minute, 0.05, 0.02)
	burst.Burst = Burst{Count: 50, Within: 5 * time.Minute, Every: 24 * time.Hour}
	burst.Warmup = 0
	return []Preset{
		{Name: "small", Description: "small team: 2 PR/h, 10 min CI, 5 % broken, 1 % flaky",
			Workload: base(2, 10*time.Minute, 0.05, 0.01), Concurrency: 4, Ours: singleCandidates(4)},
		{Name: "shopify", Description: "Shopify-like: 17 PR/h, 20 min CI, 5 % broken, 2 % flaky",
			Workload: base(17, 20*time.Minute, 0.05, 0.02), Concurrency: 12, Ours: singleCandidates(12)},
		{Name: "chromium", Description: "Chromium-like: 40 PR/h, 40 min CI, 8.5 % broken, 5 % flaky",
			Workload: base(40, 40*time.Minute, 0.085, 0.05), Concurrency: 24, Ours: singleCandidates(24)},
		{Name: "uber", Description: "Uber-like parallel: 300 PR/h, 30 min CI, 10 % broken, no flakes, 64 Zipf(1.1) targets, 2 per PR on average, 7.9 % ALL",
			// The Oracle peaks at about 165 PRs in the queue; 400 (2.4×) is
			// unstable.
			Workload: uber, Concurrency: 64, MaxQueue: 400, Ours: []OursConfig{
				{Mode: queue.ModeParallel, Concurrency: 64},
				{Mode: queue.ModeParallel, Concurrency: 200},
			}},
		{Name: "flakestorm", Description: "flake storm: 17 PR/h, 20 min CI, 5 % broken, 20 % flaky",
			Workload: base(17, 20*time.Minute, 0.05, 0.20), Concurrency: 12, Ours: singleCandidates(12)},
		{Name: "burst", Description: "burst: 50 PRs within 5 minutes once a day (40 days), 20 min CI, 5 % broken, 2 % flaky",
			// Less speculation spends fewer runs on a burst's restarts.
			Workload: burst, Concurrency: 16, Ours: append(singleCandidates(16),
				OursConfig{Concurrency: 12, PendingFailureDepth: 1, CanOptimisticallyMerge: true})},
	}
}

// PresetNames lists the preset names in report order.
func PresetNames() []string {
	var names []string
	for _, p := range Presets() {
		names = append(names, p.Name)
	}
	return names
}

// PresetByName finds a preset (case-insensitive).
func PresetByName(name string) (Preset, error) {
	for _, p := range Presets() {
		if strings.EqualFold(p.Name, name) {
			return p, nil
		}
	}
	names := PresetNames()
	sort.Strings(names)
	return Preset{}, fmt.Errorf("unknown preset %q (known: %s)", name, strings.Join(names, ", "))
}
