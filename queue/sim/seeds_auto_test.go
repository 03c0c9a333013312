package sim

import (
	"strings"
	"testing"
)

func TestAutoVerdictAgainstTheAcceptance(t *testing.T) {
	t.Parallel()
	row := func(policy string, kind Kind, auto bool, p95, runs float64) SeedRow {
		return SeedRow{Policy: policy, Kind: kind, Auto: auto, P95: Spread{Median: p95, N: 10}, RunsPerMerge: Spread{Median: runs, N: 10}}
	}
	steady := SeedReport{Rows: []SeedRow{
		row("oracle", KindOracle, false, 30, 1),
		row("github(k=12)", KindGitHub, false, 130, 1.54),
		row("ours(k=12)", KindOurs, false, 100, 1.58),
		row("ours(k=12,d=1,opt)", KindOurs, false, 82, 1.70),
		row("ours(auto,≤24 runs)", KindOurs, true, 88, 1.60),
	}}
	v, ok := steady.AutoVerdict()
	if !ok || !strings.Contains(v, "**yes**") || !strings.Contains(v, "ours(k=12,d=1,opt), 82.0 min") {
		t.Errorf("within 10 %% and cheaper: %q", v)
	}
	if best, _ := steady.BestOurs(); best.Auto {
		t.Error("ours(auto) was taken as the best fixed setting")
	}
	steady.Rows[4].P95.Median = 95 // 16 % above 82
	if v, _ := steady.AutoVerdict(); !strings.Contains(v, "**no**") {
		t.Errorf("16 %% slower: %q", v)
	}
	drifting := steady
	drifting.Preset.Workload.Drift = []Phase{{Name: "x"}}
	drifting.Rows[4].P95.Median = 80
	if v, _ := drifting.AutoVerdict(); !strings.Contains(v, "**yes**") {
		t.Errorf("drifting, fastest at fewer runs than the closest: %q", v)
	}
	drifting.Rows[4].RunsPerMerge.Median = 1.75
	if v, _ := drifting.AutoVerdict(); !strings.Contains(v, "**no**") {
		t.Errorf("drifting, more runs than the closest: %q", v)
	}
	drifting.Rows[4].RunsPerMerge.Median, drifting.Rows[4].P95.Median = 1.5, 90
	if v, _ := drifting.AutoVerdict(); !strings.Contains(v, "**no**") || !strings.Contains(v, "not beaten: ours(k=12,d=1,opt)") {
		t.Errorf("drifting, slower than a fixed setting: %q", v)
	}
	if _, ok := (SeedReport{Rows: steady.Rows[:4]}).AutoVerdict(); ok {
		t.Error("a verdict without ours(auto)")
	}
}
