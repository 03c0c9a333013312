package sim

import (
	"fmt"
	"math"
	"strings"
)

// SteadyTolerance is how far apart the median time-to-merge of the second
// and of the last third of the arrivals may be for a run to count as at
// steady state (issue #20): a queue still filling up (or draining) shows a
// trend between the two.
const SteadyTolerance = 0.10

// Steady reports whether the policy reached steady state over the seeds:
// it kept up on most seeds and the median over the seeds of the last
// third's median time-to-merge is within SteadyTolerance of the second
// third's.
func (r SeedRow) Steady() bool {
	mid, late := r.Mid.Median, r.Late.Median
	if math.IsInf(mid, 0) || math.IsInf(late, 0) || math.IsNaN(mid) || math.IsNaN(late) || mid <= 0 {
		return false
	}
	return math.Abs(late-mid) <= SteadyTolerance*mid
}

// SteadyState says, for every policy but the Oracle, whether it reached
// steady state (SeedRow.Steady), with the two medians: figures of a run
// that did not are not its long-run figures.
func (r SeedReport) SteadyState() string {
	var parts []string
	all := true
	for _, row := range r.Rows {
		if row.Kind == KindOracle {
			continue
		}
		switch {
		case row.Unstable():
			parts = append(parts, fmt.Sprintf("%s fell behind", row.Policy))
			continue
		case row.Steady():
			parts = append(parts, fmt.Sprintf("%s **yes** (%s then %s min)", row.Policy, fmtMinutes(row.Mid.Median), fmtMinutes(row.Late.Median)))
			continue
		}
		all = false
		parts = append(parts, fmt.Sprintf("%s **no** (%s then %s min, %+.0f %%)", row.Policy, fmtMinutes(row.Mid.Median), fmtMinutes(row.Late.Median),
			100*(row.Late.Median-row.Mid.Median)/row.Mid.Median))
	}
	verdict := "every policy that kept up reached it"
	if !all {
		verdict = "**not every policy reached it: run more PRs per seed (-prs) before reading its figures as long-run ones**"
	}
	return fmt.Sprintf("Steady state (median time-to-merge of the PRs arriving in the last third within %.0f %% of the second third's, medians over the seeds): %s; %s.\n",
		100*SteadyTolerance, verdict, strings.Join(parts, "; "))
}
