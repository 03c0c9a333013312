package sim

import "time"

// InFlightConflictShare is the share of PRs that potentially conflict
// (share an impacted target, or either is ALL) with some PR in flight when
// they arrive, a PR being in flight for window after its arrival (use the
// mean CI duration: the Oracle's time in the queue). It is the figure
// SubmitQueue's paper reports as the monthly conflict rate (30–72 %). PRs
// without targets conflict with everything (a single lane).
func InFlightConflictShare(prs []PR, window time.Duration) float64 {
	if len(prs) == 0 {
		return 0
	}
	n := 0
	for j := range prs {
		for i := j - 1; i >= 0 && prs[j].Arrival-prs[i].Arrival < window; i-- {
			if overlap(prs[i], prs[j]) {
				n++
				break
			}
		}
	}
	return float64(n) / float64(len(prs))
}
