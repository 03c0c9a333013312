package sim

import (
	"fmt"
	"strings"
)

// Describe states the workload's parameters in one line.
func (w Workload) Describe() string {
	var parts []string
	arrivals := fmt.Sprintf("%d PRs", w.PRs)
	if w.RatePerHour > 0 {
		arrivals += fmt.Sprintf(", Poisson %g/h", w.RatePerHour)
	}
	if w.Burst.Count > 0 {
		b := fmt.Sprintf("bursts of %d within %v", w.Burst.Count, w.Burst.Within)
		if w.Burst.Every > 0 {
			b += fmt.Sprintf(" every %v", w.Burst.Every)
		}
		arrivals += ", " + b
	}
	parts = append(parts, arrivals)
	ci := fmt.Sprintf("CI log-normal median %v σ %g (mean %.1f min)", w.CIMedian, w.CISigma, w.MeanCI().Minutes())
	if w.CISigma == 0 {
		ci = fmt.Sprintf("CI constant %v", w.CIMedian)
	}
	parts = append(parts, ci, fmt.Sprintf("p = %g %% broken", 100*w.FailRate), fmt.Sprintf("f = %g %% flaky runs", 100*w.FlakeRate))
	if len(w.Drift) > 0 {
		parts = append(parts, w.describeDrift())
	}
	if w.Targets > 0 {
		parts = append(parts, fmt.Sprintf("%d targets Zipf(s=%g), %g per PR on average, %g %% ALL", w.Targets, w.ZipfS, w.TargetsPerPR, 100*w.AllShare))
	}
	if w.ConflictRate > 0 {
		parts = append(parts, fmt.Sprintf("conflict rate %g", w.ConflictRate))
	}
	parts = append(parts, fmt.Sprintf("warm-up %g %%", 100*w.Warmup))
	return strings.Join(parts, "; ")
}
