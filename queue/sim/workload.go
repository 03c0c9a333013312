package sim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"time"
)

// Workload is the traffic a queue sees (background note §C2): when pull
// requests arrive, how long CI takes, how often a PR is broken or CI
// flakes, and which build targets PRs touch.
type Workload struct {
	// PRs is how many pull requests arrive in one simulation.
	PRs int
	// RatePerHour is the mean of the Poisson arrivals (0 = none besides bursts).
	RatePerHour float64
	// Burst, when Count > 0, adds Count arrivals spread uniformly over
	// Within, repeated Every (0 = once), the first at time 0.
	Burst Burst
	// CIMedian and CISigma define the log-normal CI duration:
	// CIMedian × exp(CISigma × N(0,1)). CISigma 0 makes it constant.
	CIMedian time.Duration
	CISigma  float64
	// FailRate (p) is the share of PRs that are broken: every tree that
	// contains one fails.
	FailRate float64
	// FlakeRate (f) is the probability that a CI run of a good tree fails.
	FlakeRate float64
	// Targets > 0 gives each PR impacted targets out of Targets names with
	// Zipf(ZipfS) popularity: 1 + Poisson(TargetsPerPR − 1) distinct
	// targets, or every target (ALL) with probability AllShare.
	Targets      int
	ZipfS        float64
	TargetsPerPR float64
	AllShare     float64
	// ConflictRate (optional, default 0) is the probability that a PR
	// textually conflicts with each earlier PR that arrived within
	// ConflictWindow before it and shares a target with it (any earlier PR
	// when there are no targets).
	ConflictRate   float64
	ConflictWindow time.Duration
	// Warmup is the share of the first arrivals left out of the latency
	// percentiles (the queue starts empty).
	Warmup float64
	// Drift, when set, makes the traffic change over time: the phases
	// follow each other and repeat, each with its own arrival rate (a
	// factor of RatePerHour), share of broken PRs and flake rate, which
	// replace FailRate and FlakeRate (workload_drift.go).
	Drift []Phase
	// Queued of the PRs arrive at time 0, ahead of the others: the backlog
	// of a queue as it stands (an estimate of autoTune's starts from it).
	Queued int
	// Backlog makes every PR arrive at time 0: a saturated queue, whose
	// steady-state capacity Summarize measures (Result.Capacity). See
	// Saturated.
	Backlog bool
}

// Burst is a group of arrivals close together (a release cut, an agent swarm).
type Burst struct {
	Count  int
	Within time.Duration
	Every  time.Duration
}

// PR is one generated pull request.
type PR struct {
	// Index is the PR's position in arrival order (0-based).
	Index   int
	Arrival time.Duration
	// Bad PRs fail every tree they are part of.
	Bad bool
	// All PRs impact every target; otherwise Targets lists theirs.
	All     bool
	Targets []string
	// Conflicts are the indexes of earlier PRs this one textually conflicts with.
	Conflicts []int
}

// Validate reports the first unusable parameter.
func (w Workload) Validate() error {
	switch {
	case w.PRs < 1:
		return fmt.Errorf("workload: PRs must be at least 1, got %d", w.PRs)
	case w.RatePerHour < 0:
		return fmt.Errorf("workload: RatePerHour must not be negative")
	case w.RatePerHour == 0 && w.Burst.Count == 0:
		return fmt.Errorf("workload: needs a RatePerHour or a Burst")
	case w.Burst.Count > 0 && w.RatePerHour == 0 && w.Burst.Every == 0 && w.Burst.Count < w.PRs:
		return fmt.Errorf("workload: a single burst of %d cannot supply %d PRs", w.Burst.Count, w.PRs)
	case w.CIMedian <= 0:
		return fmt.Errorf("workload: CIMedian must be positive")
	case w.CISigma < 0:
		return fmt.Errorf("workload: CISigma must not be negative")
	case w.FailRate < 0 || w.FailRate >= 1, w.FlakeRate < 0 || w.FlakeRate >= 1:
		return fmt.Errorf("workload: FailRate and FlakeRate must be in [0, 1)")
	case w.Targets < 0 || (w.Targets > 0 && w.TargetsPerPR < 1):
		return fmt.Errorf("workload: with Targets, TargetsPerPR must be at least 1")
	case w.AllShare < 0 || w.AllShare > 1, w.ConflictRate < 0 || w.ConflictRate > 1:
		return fmt.Errorf("workload: AllShare and ConflictRate must be in [0, 1]")
	case w.Warmup < 0 || w.Warmup >= 1:
		return fmt.Errorf("workload: Warmup must be in [0, 1)")
	case w.Queued < 0 || w.Queued > w.PRs:
		return fmt.Errorf("workload: Queued must be in [0, PRs], got %d of %d", w.Queued, w.PRs)
	}
	return w.validateDrift()
}

// MeanCI is the mean of the CI duration distribution.
func (w Workload) MeanCI() time.Duration {
	return time.Duration(float64(w.CIMedian) * math.Exp(w.CISigma*w.CISigma/2))
}

// Generate draws the pull requests of one simulation. The result depends
// only on w and seed, so every policy sees the same PRs (common random
// numbers).
func (w Workload) Generate(seed uint64) []PR {
	rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	arrivals := w.arrivals(rng)
	switch {
	case w.Backlog:
		clear(arrivals)
	case w.Queued > 0:
		arrivals = append(make([]time.Duration, w.Queued), arrivals[:len(arrivals)-w.Queued]...)
	}
	prs := make([]PR, len(arrivals))
	weights := zipfCumulative(w.Targets, w.ZipfS)
	for i, at := range arrivals {
		p := PR{Index: i, Arrival: at, Bad: rng.Float64() < w.FailRateAt(at)}
		if w.Targets > 0 {
			if rng.Float64() < w.AllShare {
				p.All = true
			} else {
				p.Targets = sampleTargets(rng, weights, 1+poisson(rng, w.TargetsPerPR-1))
			}
		}
		prs[i] = p
	}
	if w.ConflictRate > 0 {
		window := w.ConflictWindow
		if window <= 0 {
			window = 4 * w.CIMedian
		}
		for j := range prs {
			for i := j - 1; i >= 0 && prs[j].Arrival-prs[i].Arrival <= window; i-- {
				if overlap(prs[i], prs[j]) && rng.Float64() < w.ConflictRate {
					prs[j].Conflicts = append(prs[j].Conflicts, i)
				}
			}
		}
	}
	return prs
}

// arrivals merges Poisson arrivals and bursts, sorted, truncated to w.PRs.
func (w Workload) arrivals(rng *rand.Rand) []time.Duration {
	var out []time.Duration
	if w.Burst.Count > 0 {
		for start := time.Duration(0); len(out) < w.PRs; start += w.Burst.Every {
			for range w.Burst.Count {
				out = append(out, start+time.Duration(rng.Float64()*float64(w.Burst.Within)))
			}
			if w.Burst.Every <= 0 {
				break
			}
		}
	}
	if len(w.Drift) > 0 {
		return w.driftArrivals(rng, w.PRs)
	}
	if w.RatePerHour > 0 {
		mean := float64(time.Hour) / w.RatePerHour
		t := time.Duration(0)
		for range w.PRs {
			t += time.Duration(rng.ExpFloat64() * mean)
			out = append(out, t)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	if len(out) > w.PRs {
		out = out[:w.PRs]
	}
	return out
}

// SampleCI draws one CI duration.
func (w Workload) SampleCI(rng *rand.Rand) time.Duration {
	if w.CISigma == 0 {
		return w.CIMedian
	}
	return time.Duration(float64(w.CIMedian) * math.Exp(w.CISigma*rng.NormFloat64()))
}

func overlap(a, b PR) bool {
	if a.All || b.All || (len(a.Targets) == 0 && len(b.Targets) == 0) {
		return true
	}
	for _, x := range a.Targets {
		for _, y := range b.Targets {
			if x == y {
				return true
			}
		}
	}
	return false
}

// TargetName names target i ("t00", "t01", …).
func TargetName(i int) string { return fmt.Sprintf("t%02d", i) }

func zipfCumulative(n int, s float64) []float64 {
	cum := make([]float64, n)
	total := 0.0
	for i := range n {
		total += 1 / math.Pow(float64(i+1), s)
		cum[i] = total
	}
	for i := range cum {
		cum[i] /= total
	}
	return cum
}

// sampleTargets draws k distinct targets by popularity, returned sorted.
func sampleTargets(rng *rand.Rand, cum []float64, k int) []string {
	k = min(k, len(cum))
	picked := map[int]bool{}
	for tries := 0; len(picked) < k && tries < 100*k; tries++ {
		u := rng.Float64()
		picked[sort.SearchFloat64s(cum, u)%len(cum)] = true
	}
	idx := make([]int, 0, len(picked))
	for i := range picked {
		idx = append(idx, i)
	}
	sort.Ints(idx)
	out := make([]string, len(idx))
	for i, t := range idx {
		out[i] = TargetName(t)
	}
	return out
}

// poisson draws from Poisson(mean) (Knuth; mean is small here).
func poisson(rng *rand.Rand, mean float64) int {
	if mean <= 0 {
		return 0
	}
	l, k, p := math.Exp(-mean), 0, 1.0
	for {
		p *= rng.Float64()
		if p <= l {
			return k
		}
		k++
	}
}
