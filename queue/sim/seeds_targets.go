package sim

import "fmt"

// Targets evaluates the targets of issues #3 and #11 on the medians over
// seeds, for our best setting (BestOurs), and for the preset-specific ones
// also for any setting of ours that reaches them:
//   - against each baseline: lower median p95 at no more median CI runs per
//     merged PR (BeatsMedian; on "shopify" that is the target of #11 for
//     GitHub-style and Zuul);
//   - "shopify": median ≤ 0.8 CI runs per merged PR (#3);
//   - "uber": median p50 ≤ 1.5× the Oracle's (#3);
//   - "monorepo": median p50 ≤ 1.1× and median p95 ≤ 1.3× the Oracle's (#11);
//   - "chromium": keeping up on every seed at ≤ 2.5 median CI runs per
//     merged PR and median p50 ≤ 2× the Oracle's (#11).
func (r SeedReport) Targets() []Target {
	best, ok := r.BestOurs()
	if !ok {
		return nil
	}
	var out []Target
	for _, base := range r.Rows {
		if base.Kind == KindOurs || base.Kind == KindOracle {
			continue
		}
		won, why := BeatsMedian(best, base)
		detail := fmt.Sprintf("median p95 %s vs %s, %.2f vs %.2f CI runs per merge",
			medianP95Text(best), medianP95Text(base), best.RunsPerMerge.Median, base.RunsPerMerge.Median)
		if !won && !best.Unstable() {
			detail += ": " + why
		}
		out = append(out, Target{Name: "beats " + base.Policy, Reached: won, Detail: detail})
	}
	switch r.Preset.Name {
	case "shopify":
		out = append(out, r.target("≤ 0.8 CI runs per merged PR (median)", best, func(row SeedRow) bool {
			return !row.Unstable() && row.RunsPerMerge.Median <= 0.8
		}, func(row SeedRow) string {
			return fmt.Sprintf("%.2f CI runs per merged PR at median p95 %s", row.RunsPerMerge.Median, medianP95Text(row))
		}))
	case "uber":
		out = append(out, r.target("p50 ≤ 1.5× Oracle (median)", best, func(row SeedRow) bool {
			return !row.Unstable() && row.P50x.Median <= 1.5
		}, ratioText))
	case "monorepo":
		out = append(out, r.target("p50 ≤ 1.1× and p95 ≤ 1.3× Oracle (medians)", best, func(row SeedRow) bool {
			return !row.Unstable() && row.P50x.Median <= 1.1 && row.P95x.Median <= 1.3
		}, ratioText))
	case "chromium":
		out = append(out, r.target("keeps up on every seed at ≤ 2.5 CI runs per merge and p50 ≤ 2× Oracle (medians)", best,
			func(row SeedRow) bool {
				return row.Stable == len(row.Results) && row.RunsPerMerge.Median <= 2.5 && row.P50x.Median <= 2
			}, func(row SeedRow) string {
				return fmt.Sprintf("kept up on %d/%d seeds, %.2f CI runs per merge, %s",
					row.Stable, len(row.Results), row.RunsPerMerge.Median, ratioText(row))
			}))
	}
	if best.Unstable() {
		out = append(out, Target{Name: "stable", Detail: fmt.Sprintf("%s kept up on %d of %d seeds; saturated capacity %s merges/h",
			best.Policy, best.Stable, len(best.Results), fmtSpread(best.Capacity, "%.1f"))})
	}
	if best.Violations > 0 {
		out = append(out, Target{Name: "no invariant violations",
			Detail: fmt.Sprintf("%d violations, first: %s", best.Violations, best.FirstViolation)})
	}
	return out
}

// target evaluates one preset-specific target on best, or else on the
// first setting of ours that reaches it.
func (r SeedReport) target(name string, best SeedRow, reached func(SeedRow) bool, text func(SeedRow) string) Target {
	t := Target{Name: name, Reached: reached(best), Detail: best.Policy + ": " + text(best)}
	if t.Reached {
		return t
	}
	for _, row := range r.Rows {
		if row.Kind == KindOurs && reached(row) {
			t.Reached = true
			t.Detail += "; reached by " + row.Policy + ": " + text(row)
			break
		}
	}
	return t
}

func ratioText(row SeedRow) string {
	if row.Unstable() {
		return fmt.Sprintf("unstable on %d of %d seeds", len(row.Results)-row.Stable, len(row.Results))
	}
	return fmt.Sprintf("p50 %s× and p95 %s× the Oracle's", fmtSpread(row.P50x, "%.2f"), fmtSpread(row.P95x, "%.2f"))
}

func medianP95Text(row SeedRow) string {
	if row.Unstable() {
		return "unstable"
	}
	return fmtMinutes(row.P95.Median) + " min"
}
