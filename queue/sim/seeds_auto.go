package sim

import (
	"fmt"
	"math"
	"strings"
)

// AutoTolerance is how far above the best fixed setting's median p95
// ours(auto)'s may be (issue #20: within 10 %).
const AutoTolerance = 0.10

// AutoVerdict compares ours(auto) with the fixed settings of ours on the
// medians, against issue #20's acceptance: on a steady preset, a median
// p95 within AutoTolerance of the best fixed setting's at no more runs per
// merge; on a drifting one, a lower median p95 than every fixed setting of
// ours and every baseline, at no more runs per merge than the fixed
// setting with the closest p95. ok is false without an ours(auto) row.
func (r SeedReport) AutoVerdict() (text string, ok bool) {
	var auto *SeedRow
	for i := range r.Rows {
		if r.Rows[i].Auto {
			auto = &r.Rows[i]
		}
	}
	if auto == nil {
		return "", false
	}
	var best, closest *SeedRow
	var others []string
	beatsAll := !auto.Unstable()
	for i := range r.Rows {
		row := &r.Rows[i]
		if row.Auto || row.Kind == KindOracle {
			continue
		}
		if row.P95.Median <= auto.P95.Median || (row.Unstable() && auto.Unstable()) {
			beatsAll = false
			others = append(others, row.Policy)
		}
		if row.Kind != KindOurs {
			continue
		}
		if best == nil || row.P95.Median < best.P95.Median {
			best = row
		}
		if closest == nil || math.Abs(row.P95.Median-auto.P95.Median) < math.Abs(closest.P95.Median-auto.P95.Median) {
			closest = row
		}
	}
	if best == nil {
		return "", false
	}
	if len(r.Preset.Workload.Drift) > 0 {
		cheap := auto.RunsPerMerge.Median <= closest.RunsPerMerge.Median
		verdict := "no"
		if beatsAll && cheap {
			verdict = "yes"
		}
		detail := fmt.Sprintf("median p95 %s min at %.2f runs per merge; the fixed setting with the closest p95 is %s (%s min, %.2f runs)",
			fmtMinutes(auto.P95.Median), auto.RunsPerMerge.Median, closest.Policy, fmtMinutes(closest.P95.Median), closest.RunsPerMerge.Median)
		if len(others) > 0 {
			detail += "; not beaten: " + strings.Join(others, ", ")
		}
		return fmt.Sprintf("- %s beats every fixed setting and baseline on median p95 at no more runs per merge than the closest: **%s** (%s)\n",
			auto.Policy, verdict, detail), true
	}
	within := auto.P95.Median <= (1+AutoTolerance)*best.P95.Median
	cheap := auto.RunsPerMerge.Median <= best.RunsPerMerge.Median
	verdict := "no"
	if within && cheap {
		verdict = "yes"
	}
	return fmt.Sprintf("- %s within %.0f %% of the best fixed p95 at no more runs per merge: **%s** (median p95 %s min at %.2f runs per merge; lowest fixed p95 %s, %s min at %.2f runs)\n",
		auto.Policy, 100*AutoTolerance, verdict, fmtMinutes(auto.P95.Median), auto.RunsPerMerge.Median,
		best.Policy, fmtMinutes(best.P95.Median), best.RunsPerMerge.Median), true
}
