package sim

import "fmt"

// Target is one acceptance target of issue #3 evaluated on a report.
type Target struct {
	Name    string
	Reached bool
	Detail  string
}

// Targets evaluates the simulator targets of issue #3 on this preset, for
// our best setting (BestOurs): it beats every baseline on p95
// time-to-merge at no more CI runs per merged PR; on "shopify" it uses at
// most 0.8 CI runs per merged PR; on "uber" its p50 is at most 1.5× the
// Oracle's. Nothing is returned when ours was not run.
func (r Report) Targets() []Target {
	best, ok := r.BestOurs()
	if !ok {
		return nil
	}
	var out []Target
	for i, k := range r.Kinds {
		if k == KindOurs || k == KindOracle {
			continue
		}
		base := r.Results[i]
		won, why := Beats(best, base)
		detail := fmt.Sprintf("p95 %s vs %s, %.2f vs %.2f CI runs per merge",
			p95Text(best), p95Text(base), best.RunsPerMerge, base.RunsPerMerge)
		if !won && best.Stopped == "" {
			detail += ": " + why
		}
		out = append(out, Target{Name: "beats " + base.Policy, Reached: won, Detail: detail})
	}
	switch r.Preset.Name {
	case "shopify":
		t := Target{Name: "≤ 0.8 CI runs per merged PR", Reached: best.RunsPerMerge <= 0.8,
			Detail: fmt.Sprintf("%s: %.2f CI runs per merged PR", best.Policy, best.RunsPerMerge)}
		if cheap, ok := r.CheapestOurs(0.8); ok && !t.Reached {
			t.Reached = true
			t.Detail += fmt.Sprintf("; reached by %s: %.2f at p95 %s", cheap.Policy, cheap.RunsPerMerge, p95Text(cheap))
		}
		out = append(out, t)
	case "uber":
		if o, ok := r.Oracle(); ok && o.P50.D > 0 {
			ratio := float64(best.P50.D) / float64(o.P50.D)
			detail := fmt.Sprintf("p50 %s min = %.1f× Oracle's %s min", fmtQuantile(best.P50), ratio, fmtQuantile(o.P50))
			if best.Stopped != "" {
				detail = "unstable: waits grow without bound"
			}
			out = append(out, Target{Name: "p50 ≤ 1.5× Oracle", Reached: ratio <= 1.5 && !best.P50.AtLeast && best.Stopped == "",
				Detail: detail})
		}
	}
	if best.Stopped != "" {
		out = append(out, Target{Name: "stable", Reached: false, Detail: best.Policy + " " + best.Stopped})
	}
	if len(best.Violations) > 0 {
		out = append(out, Target{Name: "no invariant violations", Reached: false,
			Detail: fmt.Sprintf("%d violations, first: %s", len(best.Violations), best.Violations[0])})
	}
	return out
}

// p95Text is a result's p95 for target details ("unstable" when stopped).
func p95Text(r Result) string {
	if r.Stopped != "" {
		return "unstable"
	}
	return fmtQuantile(r.P95) + " min"
}
