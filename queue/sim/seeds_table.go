package sim

import (
	"fmt"
	"math"
	"strings"
)

// BeatsMedian reports whether ours beats base over the seeds: ours keeps
// up on most seeds, its median p95 is below base's (or base falls behind
// on most seeds), and its median CI runs per merged PR is no more than
// base's; otherwise it says why not.
func BeatsMedian(ours, base SeedRow) (bool, string) {
	switch {
	case ours.Unstable():
		return false, fmt.Sprintf("ours is unstable on %d of %d seeds", ours.P95.N-ours.Stable, ours.P95.N)
	case !base.Unstable() && !(ours.P95.Median < base.P95.Median):
		return false, fmt.Sprintf("median p95 %s ≥ %s's %s", fmtMinutes(ours.P95.Median), base.Policy, fmtMinutes(base.P95.Median))
	case ours.RunsPerMerge.Median > base.RunsPerMerge.Median:
		return false, fmt.Sprintf("median %.2f CI runs per merge > %s's %.2f", ours.RunsPerMerge.Median, base.Policy, base.RunsPerMerge.Median)
	}
	return true, ""
}

// BestOurs is our best setting over the seeds, chosen by medians (never
// per seed): the one that beats the most baselines (BeatsMedian), then,
// among those keeping up on most seeds, the lowest median p95 and the
// fewest median runs per merge; among those that do not, the highest
// median saturated capacity.
func (r SeedReport) BestOurs() (best SeedRow, ok bool) {
	bestWins := -1
	for _, row := range r.Rows {
		if row.Kind != KindOurs || row.Auto {
			continue
		}
		w := r.wins(row)
		if w > bestWins || (w == bestWins && seedRowLess(row, best)) {
			best, bestWins, ok = row, w, true
		}
	}
	return best, ok
}

func (r SeedReport) wins(ours SeedRow) int {
	n := 0
	for _, base := range r.Rows {
		if base.Kind != KindOurs && base.Kind != KindOracle {
			if won, _ := BeatsMedian(ours, base); won {
				n++
			}
		}
	}
	return n
}

func seedRowLess(a, b SeedRow) bool {
	if a.Unstable() != b.Unstable() {
		return !a.Unstable()
	}
	if a.Unstable() && a.Capacity.Median != b.Capacity.Median {
		return a.Capacity.Median > b.Capacity.Median
	}
	if a.P95.Median != b.P95.Median {
		return a.P95.Median < b.P95.Median
	}
	return a.RunsPerMerge.Median < b.RunsPerMerge.Median
}

// Row finds a row by policy label.
func (r SeedReport) Row(policy string) (SeedRow, bool) {
	for _, row := range r.Rows {
		if row.Policy == policy {
			return row, true
		}
	}
	return SeedRow{}, false
}

// Markdown renders the comparison over seeds: one row per policy, each
// figure as "median (p10–p90)", our best setting in bold.
func (r SeedReport) Markdown() string {
	var b strings.Builder
	best, hasBest := r.BestOurs()
	b.WriteString("| policy | kept up (seeds) | p50 | p95 | p50 ×O | p95 ×O | CI runs/merge | CI min/merge | GitHub writes/merge | GitHub calls/merge | peak GitHub writes/h | saturated merges/h | wrongly merged | false rejections | violations |\n")
	b.WriteString("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n")
	for _, row := range r.Rows {
		name := row.Policy
		if hasBest && row.Kind == KindOurs && row.Policy == best.Policy {
			name = "**" + name + "**"
		}
		if row.Unstable() {
			name += " (unstable)"
		}
		capacity := "–"
		if row.Saturated != nil {
			capacity = fmtSpread(row.Capacity, "%.1f")
		}
		violations := "–"
		if row.Kind == KindOurs {
			violations = fmt.Sprint(row.Violations)
		}
		runs := fmtSpread(row.RunsPerMerge, "%.2f")
		// Baselines have no GitHub: fmtSpread prints "–" for them.
		writes, calls := fmtSpread(row.WritesPerMerge, "%.2f"), fmtSpread(row.CallsPerMerge, "%.1f")
		peak := fmtSpread(row.PeakHourlyWrites, "%.0f")
		if row.Stable < len(row.Results) {
			runs += "*"
			if row.Kind == KindOurs {
				writes, calls, peak = writes+"*", calls+"*", peak+"*"
			}
		}
		fmt.Fprintf(&b, "| %s | %d/%d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %d | %d | %s |\n",
			name, row.Stable, len(row.Results), fmtSpreadMinutes(row.P50), fmtSpreadMinutes(row.P95),
			fmtSpread(row.P50x, "%.2f"), fmtSpread(row.P95x, "%.2f"), runs, fmtSpread(row.MinutesPerMerge, "%.1f"),
			writes, calls, peak, capacity, row.WronglyMerged, row.FalseRejections, violations)
	}
	return b.String()
}

// fmtSpread prints "median (p10–p90)"; an unbounded value prints as ∞ and
// an unbounded median as "–".
func fmtSpread(s Spread, format string) string {
	if s.N == 0 || math.IsNaN(s.Median) {
		return "–"
	}
	if math.IsInf(s.Median, 1) {
		return "–"
	}
	v := func(x float64) string {
		if math.IsInf(x, 1) {
			return "∞"
		}
		return fmt.Sprintf(format, x)
	}
	if s.N == 1 {
		return v(s.Median)
	}
	return fmt.Sprintf("%s (%s–%s)", v(s.Median), v(s.P10), v(s.P90))
}

func fmtSpreadMinutes(s Spread) string {
	if s.N == 0 || math.IsInf(s.Median, 1) {
		return "–"
	}
	if s.N == 1 {
		return fmtMinutes(s.Median)
	}
	return fmt.Sprintf("%s (%s–%s)", fmtMinutes(s.Median), fmtMinutes(s.P10), fmtMinutes(s.P90))
}

// fmtMinutes prints minutes like fmtQuantile (∞ when unbounded).
func fmtMinutes(m float64) string {
	switch {
	case math.IsInf(m, 1):
		return "∞"
	case m >= 100:
		return fmt.Sprintf("%.0f", m)
	}
	return fmt.Sprintf("%.1f", m)
}

// FormatSpread prints a Spread as "median (p10–p90)" with format for each
// number (∞ for an unbounded bound, "–" for an unbounded median).
func FormatSpread(s Spread, format string) string { return fmtSpread(s, format) }

// FormatSpreadMinutes prints a Spread of minutes like the tables do.
func FormatSpreadMinutes(s Spread) string { return fmtSpreadMinutes(s) }
