package sim

import (
	"fmt"
	"strings"
)

// Report is the comparison of every policy on one preset and seed.
type Report struct {
	Preset  Preset
	Seed    uint64
	Results []Result // in the order of Preset.Policies (or as run)
	// Kinds parallels Results.
	Kinds []Kind
}

// Oracle returns the Oracle's result, if it was run.
func (r Report) Oracle() (Result, bool) {
	for i, k := range r.Kinds {
		if k == KindOracle {
			return r.Results[i], true
		}
	}
	return Result{}, false
}

// BestOurs is our engine's best setting: the one that beats the most
// baselines (lower p95 time-to-merge at no more CI runs per merged PR, see
// Beats), then by resultLess (stable first, lowest p95, fewest runs). ok is
// false when no setting of ours was run.
func (r Report) BestOurs() (best Result, ok bool) {
	wins := func(res Result) int {
		n := 0
		for i, k := range r.Kinds {
			if k != KindOurs && k != KindOracle {
				if won, _ := Beats(res, r.Results[i]); won {
					n++
				}
			}
		}
		return n
	}
	bestWins := -1
	for i, k := range r.Kinds {
		if k != KindOurs {
			continue
		}
		res := r.Results[i]
		w := wins(res)
		if w > bestWins || (w == bestWins && resultLess(res, best)) {
			best, bestWins, ok = res, w, true
		}
	}
	return best, ok
}

// CheapestOurs is the setting of ours with the lowest p95 among the stable
// ones using at most maxRuns CI runs per merged PR; ok is false if none.
func (r Report) CheapestOurs(maxRuns float64) (best Result, ok bool) {
	for i, k := range r.Kinds {
		res := r.Results[i]
		if k != KindOurs || res.Stopped != "" || res.RunsPerMerge > maxRuns {
			continue
		}
		if !ok || resultLess(res, best) {
			best, ok = res, true
		}
	}
	return best, ok
}

// resultLess ranks settings of ours: stable before unstable, unstable ones
// by throughput (who keeps up best), stable ones by p95, then by CI runs
// per merge.
func resultLess(a, b Result) bool {
	if (a.Stopped == "") != (b.Stopped == "") {
		return a.Stopped == ""
	}
	if a.Stopped != "" && a.Throughput != b.Throughput {
		return a.Throughput > b.Throughput
	}
	if a.P95 != b.P95 {
		return quantileLess(a.P95, b.P95)
	}
	return a.RunsPerMerge < b.RunsPerMerge
}

// quantileLess orders percentiles, a lower bound counting as larger than
// an exact value of the same duration.
func quantileLess(a, b Quantile) bool {
	if a.D != b.D {
		return a.D < b.D
	}
	return !a.AtLeast && b.AtLeast
}

// Beats reports whether ours is surely faster at p95 than base (ours
// stable, and base unstable or slower) and uses no more CI runs per merged
// PR than base (measured until base stopped, if it did), and says why not
// otherwise.
func Beats(ours, base Result) (bool, string) {
	switch {
	case ours.Stopped != "":
		return false, "ours is unstable too (" + ours.Stopped + ")"
	case ours.P95.AtLeast:
		return false, fmt.Sprintf("our p95 is only a lower bound (%d PRs unfinished)", ours.Unfinished)
	case base.Stopped == "" && !(ours.P95.D < base.P95.D): // an unstable queue's waits grow without bound
		return false, fmt.Sprintf("p95 %s ≥ %s's %s", fmtQuantile(ours.P95), base.Policy, fmtQuantile(base.P95))
	case ours.RunsPerMerge > base.RunsPerMerge:
		return false, fmt.Sprintf("%.2f CI runs per merge > %s's %.2f", ours.RunsPerMerge, base.Policy, base.RunsPerMerge)
	}
	return true, ""
}

// Markdown renders the comparison table: one row per policy, times in
// minutes, ×Oracle ratios, and the best setting of ours in bold; unstable
// policies (stopped early) get no percentiles and a note below the table.
func (r Report) Markdown() string {
	var b strings.Builder
	oracle, hasOracle := r.Oracle()
	best, hasBest := r.BestOurs()
	b.WriteString("| policy | p50 | p95 | p99 | p50 ×O | p95 ×O | merges/h | CI runs/merge | CI min/merge | GitHub writes/merge | GitHub calls/merge | peak GitHub writes/h | wrongly merged | false rejections | max depth | unfinished | violations |\n")
	b.WriteString("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n")
	for i, res := range r.Results {
		name := res.Policy
		if hasBest && r.Kinds[i] == KindOurs && res.Policy == best.Policy {
			name = "**" + name + "**"
		}
		if res.Stopped != "" {
			name += " (unstable)"
		}
		ratio := func(q, o Quantile) string {
			if !hasOracle || o.D <= 0 || res.Stopped != "" {
				return "–"
			}
			s := fmt.Sprintf("%.1f", float64(q.D)/float64(o.D))
			if q.AtLeast {
				s = "≥ " + s
			}
			return s
		}
		// Baselines run in the abstract harness, without the checked world
		// and its GitHub.
		violations, writes, calls, peak := "–", "–", "–", "–"
		if r.Kinds[i] == KindOurs {
			violations = fmt.Sprint(len(res.Violations))
			writes, calls = fmt.Sprintf("%.2f", res.WritesPerMerge), fmt.Sprintf("%.1f", res.CallsPerMerge)
			peak = fmt.Sprint(res.PeakHourlyWrites)
		}
		p50, p95, p99 := fmtQuantile(res.P50), fmtQuantile(res.P95), fmtQuantile(res.P99)
		if res.Stopped != "" { // waits grow without bound: no percentile is meaningful
			p50, p95, p99 = "–", "–", "–"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %.1f | %.2f | %.1f | %s | %s | %s | %d | %d | %d | %d | %s |\n",
			name, p50, p95, p99,
			ratio(res.P50, oracle.P50), ratio(res.P95, oracle.P95),
			res.Throughput, res.RunsPerMerge, res.MinutesPerMerge, writes, calls, peak,
			res.WronglyMerged, res.FalseRejections, res.MaxDepth, res.Unfinished, violations)
	}
	notes := false
	for _, res := range r.Results {
		if res.Stopped != "" {
			if !notes {
				b.WriteString("\nUnstable (the queue outgrew the cap, so the simulation stopped; merges/h and CI use are measured until then):\n")
				notes = true
			}
			fmt.Fprintf(&b, "- %s: %s.\n", res.Policy, res.Stopped)
		}
	}
	return b.String()
}

// fmtQuantile prints a percentile in minutes ("≥ " for lower bounds).
func fmtQuantile(q Quantile) string {
	m := q.Minutes()
	s := fmt.Sprintf("%.1f", m)
	if m >= 100 {
		s = fmt.Sprintf("%.0f", m)
	}
	if q.AtLeast {
		s = "≥ " + s
	}
	return s
}
