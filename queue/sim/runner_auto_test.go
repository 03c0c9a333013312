package sim

import (
	"errors"
	"strings"
	"testing"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/autotune"
)

func TestOursAutoRetunesFromTheDefaults(t *testing.T) {
	t.Parallel()
	p, err := PresetByName("shopify")
	if err != nil {
		t.Fatal(err)
	}
	w := p.Workload
	w.PRs = 200
	auto := AutoConfig("", 24)
	auto.AutoEval = TuneEvaluator{Seeds: 1, MaxPRs: 60}
	res, err := Run(w, PolicySpec{Kind: KindOurs, Ours: auto}, 1, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: p50 %v p95 %v runs/merge %.2f, slowest retune %v\n%s", res.Policy, res.P50.D, res.P95.D, res.RunsPerMerge,
		res.SlowestRetune, strings.Join(res.Retunes, "\n"))
	if len(res.Violations) > 0 {
		t.Fatalf("violations: %v", res.Violations)
	}
	if res.Stopped != "" || res.Unfinished > 0 {
		t.Fatalf("ours(auto) fell behind: %s", res.Stopped)
	}
	if len(res.Retunes) == 0 || !strings.HasPrefix(strings.SplitN(res.Retunes[0], ": ", 2)[1], "first observation") {
		t.Fatalf("no retune from the defaults: %v", res.Retunes)
	}
	again, err := Run(w, PolicySpec{Kind: KindOurs, Ours: auto}, 1, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if again.P95 != res.P95 || again.RunsPerMerge != res.RunsPerMerge || strings.Join(again.Retunes, "\n") != strings.Join(res.Retunes, "\n") {
		t.Errorf("ours(auto) is not deterministic per seed: %v %v, then %v %v", res.P95.D, res.Retunes, again.P95.D, again.Retunes)
	}
	// The defaults (one run at once) cannot keep up with 17 PR/h of 20
	// minutes: ours(k=1) falls behind where ours(auto) did not.
	fixed, err := Run(w, PolicySpec{Kind: KindOurs, Ours: OursConfig{Concurrency: 1}}, 1, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if fixed.Stopped == "" && fixed.P95.D <= res.P95.D {
		t.Errorf("the defaults did as well (p95 %v) as ours(auto) (p95 %v)", fixed.P95.D, res.P95.D)
	}
}

// TestOursAutoRefusesParallelMode: autoTune's estimates have no lanes, so
// ours(auto) in parallel mode is an error, not a silent single-mode tuning.
func TestOursAutoRefusesParallelMode(t *testing.T) {
	t.Parallel()
	p, err := PresetByName("monorepo")
	if err != nil {
		t.Fatal(err)
	}
	w := p.Workload
	w.PRs = 20
	_, err = Run(w, PolicySpec{Kind: KindOurs, Ours: AutoConfig(queue.ModeParallel, 64)}, 1, RunOptions{})
	if !errors.Is(err, autotune.ErrParallelMode) {
		t.Fatalf("ours(parallel,auto): %v, want %v", err, autotune.ErrParallelMode)
	}
	if p.Auto.AutoTune {
		t.Error("the monorepo preset offers ours(auto)")
	}
}
