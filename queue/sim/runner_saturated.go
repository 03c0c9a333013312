package sim

import (
	"math"
	"sort"
)

// The steady-state window of a saturated run: from the decision of the
// SaturatedFrom share of the backlog to that of the SaturatedTo share. The
// first 20 % leave out the ramp-up (the queue starts with nothing in
// flight); stopping at 70 % keeps at least 30 % of the backlog waiting, more
// than any preset's concurrency, so the queue is saturated throughout.
const (
	SaturatedFrom = 0.2
	SaturatedTo   = 0.7
)

// Saturated returns w as a saturated measurement: backlog PRs (the same
// ones Generate draws for w, in the same order) all waiting at time 0.
// Run on it measures Result.Capacity, the merges per hour the policy
// sustains with a long backlog: the capacity of a policy that cannot keep
// up with w's arrivals, where merges per hour until it fell behind would
// only measure the ramp-up.
func (w Workload) Saturated(backlog int) Workload {
	w.PRs = backlog
	w.Backlog = true
	w.Warmup = 0
	return w
}

// steadyCapacity is merges per hour between the decisions of the
// SaturatedFrom and SaturatedTo shares of the PRs (0 when too few were
// decided to have such a window).
func steadyCapacity(records []Record) float64 {
	var decided []Record
	for _, r := range records {
		if r.Outcome != Open {
			decided = append(decided, r)
		}
	}
	sort.SliceStable(decided, func(i, j int) bool { return decided[i].End < decided[j].End })
	n := len(records)
	from := int(math.Ceil(SaturatedFrom*float64(n))) - 1
	to := int(math.Ceil(SaturatedTo*float64(n))) - 1
	if from < 0 || to >= len(decided) || to <= from {
		return 0
	}
	start, end := decided[from].End, decided[to].End
	if end <= start {
		return 0
	}
	merges := 0
	for _, r := range decided[from+1 : to+1] {
		if r.Outcome == Merged {
			merges++
		}
	}
	return float64(merges) / (end - start).Hours()
}

// SaturatedBacklog is the backlog a saturated run of preset p starts with:
// one and a half times its queue cap, so the steady-state window holds more
// PRs than the cap at which an unstable run stops.
func (p Preset) SaturatedBacklog() int {
	limit := p.MaxQueue
	if limit <= 0 {
		limit = p.Workload.QueueCap()
	}
	return limit * 3 / 2
}
