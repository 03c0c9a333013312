package sim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"
)

// FloorMode says when an in-order floor learns that a broken PR is broken.
type FloorMode int

// The in-order floors, from the most to the least informed queue.
const (
	// FloorClairvoyant knows every broken PR on arrival and never tests
	// it (the Oracle's knowledge).
	FloorClairvoyant FloorMode = iota
	// FloorAlone learns it when a run of the PR alone, started on
	// arrival, ends (as an isolation run would, SPEC §5.11a).
	FloorAlone
	// FloorRuns learns it as SPEC §5.3 decides a culprit: from a failed
	// run on top of its dependencies once they all passed, a run that
	// contains no broken dependency (so it starts only once those are
	// known).
	FloorRuns
)

// FloorModes lists the modes in order.
var FloorModes = []FloorMode{FloorClairvoyant, FloorAlone, FloorRuns}

func (m FloorMode) String() string {
	switch m {
	case FloorClairvoyant:
		return "culprits known on arrival"
	case FloorAlone:
		return "culprits known after a run alone"
	case FloorRuns:
		return "culprits decided as SPEC §5.3"
	}
	return fmt.Sprintf("FloorMode(%d)", int(m))
}

// InOrderFloor returns, for each PR, a lower bound on when a queue that
// merges in dependency order (SPEC §5.5: a PR merges only after every PR
// ahead of it whose targets overlap its own, ALL overlapping everything)
// can merge it, and for a broken PR when it can know it is broken. Every
// run of PR i takes ci[i], a good PR's passing run starts on arrival at
// the earliest and never before the broken PRs it depends on are known,
// and there is no limit on runs at once. Dependencies are direct only
// (not through PRs that may leave first), so the bound holds for every
// order in which the queue decides.
func InOrderFloor(prs []PR, ci []time.Duration, mode FloorMode) []time.Duration {
	end := make([]time.Duration, len(prs))  // merged (good) or known (broken)
	pass := make([]time.Duration, len(prs)) // good: its run passed
	var active []int                        // PRs whose end is not known to be past yet
	for g, pr := range prs {
		a := pr.Arrival
		active = slices.DeleteFunc(active, func(j int) bool { return end[j] <= a })
		// start: the broken dependencies are known; merged, passed: the
		// good ones merged, passed.
		start, merged, passed := a, time.Duration(0), time.Duration(0)
		for _, d := range active {
			if !overlap(prs[d], pr) {
				continue
			}
			if prs[d].Bad {
				start = max(start, end[d])
			} else {
				merged, passed = max(merged, end[d]), max(passed, pass[d])
			}
		}
		switch {
		case !pr.Bad:
			pass[g] = start + ci[g]
			end[g] = max(pass[g], merged)
		case mode == FloorClairvoyant:
			end[g] = a
		case mode == FloorAlone:
			end[g] = a + ci[g]
		default:
			// Blamed once its run (without broken PRs it depends on)
			// failed and every good PR it depends on passed.
			end[g] = max(start+ci[g], passed)
		}
		active = append(active, g)
	}
	return end
}

// FloorRatios runs InOrderFloor on the workload's seed and returns its
// p50 and p95 time-to-merge of the good PRs past the warm-up over the
// Oracle's (each good PR merged when its own run ends), with the same CI
// durations.
func FloorRatios(w Workload, seed uint64, mode FloorMode) (p50, p95 float64) {
	prs := w.Generate(seed)
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	ci := make([]time.Duration, len(prs))
	for i := range ci {
		ci[i] = w.SampleCI(rng)
	}
	end := InOrderFloor(prs, ci, mode)
	var ours, oracle []time.Duration
	for _, pr := range prs[int(math.Floor(w.Warmup*float64(len(prs)))):] {
		if !pr.Bad {
			ours = append(ours, end[pr.Index]-pr.Arrival)
			oracle = append(oracle, ci[pr.Index])
		}
	}
	o, f := p50p95(oracle), p50p95(ours)
	if o[0] == 0 || o[1] == 0 {
		return 0, 0
	}
	return float64(f[0]) / float64(o[0]), float64(f[1]) / float64(o[1])
}
