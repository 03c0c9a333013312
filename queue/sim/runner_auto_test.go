package sim

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
)

func TestOursAutoRetunesFromTheDefaults(t *testing.T) {
	t.Parallel()
	p, err := PresetByName("shopify")
	if err != nil {
		t.Fatal(err)
	}
	w := p.Workload
	w.PRs = 120
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

// TestOursAutoTunesAParallelQueue: a parallel queue starting from the
// defaults (one run at once) cannot keep up with 40 PRs an hour of 30
// minutes; ours(parallel,auto) chooses a concurrency for it from its own
// traffic, targets included, keeps up, changes nothing but the
// concurrency, and breaks no invariant.
func TestOursAutoTunesAParallelQueue(t *testing.T) {
	t.Parallel()
	w := Workload{PRs: 120, RatePerHour: 40, CIMedian: 30 * time.Minute, CISigma: 0.3, FailRate: 0.05,
		Targets: 300, TargetsPerPR: 2, Warmup: 0.1}
	auto := AutoConfig(queue.ModeParallel, 24)
	auto.AutoEval = TuneEvaluator{Seeds: 1, MaxPRs: 60}
	res, err := Run(w, PolicySpec{Kind: KindOurs, Ours: auto}, 1, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: p50 %v p95 %v runs/merge %.2f\n%s", res.Policy, res.P50.D, res.P95.D, res.RunsPerMerge, strings.Join(res.Retunes, "\n"))
	if len(res.Violations) > 0 {
		t.Fatalf("violations: %v", res.Violations)
	}
	if res.Stopped != "" || res.Unfinished > 0 {
		t.Fatalf("ours(parallel,auto) fell behind: %s", res.Stopped)
	}
	if len(res.Retunes) == 0 {
		t.Fatal("no retune from the defaults")
	}
	// Before any 30-minute run ended, the backlog outgrew the one run at
	// once: a head start, looked for every minute as the service does.
	var at float64
	if _, err := fmt.Sscanf(res.Retunes[0], "%f h: backlog of", &at); err != nil || at >= 0.5 {
		t.Errorf("first retune %q, want a head start within the first CI run", res.Retunes[0])
	}
	for _, r := range res.Retunes {
		if !strings.Contains(r, "(parallel, k=") || strings.Contains(r, "batches 2") || strings.Contains(r, "isolation runs on") {
			t.Errorf("retune %q is not a parallel queue's concurrency", r)
		}
	}
	if res.Observed.TargetedPRs == 0 || res.Observed.Overlap <= 0 {
		t.Errorf("observed no targets: %+v", res.Observed)
	}
	fixed, err := Run(w, PolicySpec{Kind: KindOurs, Ours: OursConfig{Mode: queue.ModeParallel, Concurrency: 1}}, 1, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if fixed.Stopped == "" && fixed.P95.D <= res.P95.D {
		t.Errorf("the defaults did as well (p95 %v) as ours(parallel,auto) (p95 %v)", fixed.P95.D, res.P95.D)
	}
}

// TestOursAutoSeesAResubmittedPRsRejectionAsAFlake: with no broken PR,
// 40 % flaky runs, and every falsely rejected PR submitted again at the
// same head, ours(auto)'s observer ends seeing no PR fail (each rejection
// was a flake, as the service's observer counts it) though flakes
// rejected some.
func TestOursAutoSeesAResubmittedPRsRejectionAsAFlake(t *testing.T) {
	t.Parallel()
	w := Workload{PRs: 30, RatePerHour: 15, CIMedian: 20 * time.Minute, CISigma: 0.3, FlakeRate: 0.4}
	auto := AutoConfig("", 8)
	auto.AutoEval = TuneEvaluator{Seeds: 1, MaxPRs: 30}
	res, err := Run(w, PolicySpec{Kind: KindOurs, Ours: auto}, 2, RunOptions{Resubmit: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Violations) > 0 || res.Unfinished > 0 || res.Rejected > 0 {
		t.Fatalf("violations %v, %d unfinished, %d rejected for good", res.Violations, res.Unfinished, res.Rejected)
	}
	if res.FalseRejections == 0 {
		t.Fatalf("40 %% flakes rejected no good PR; the test needs some")
	}
	t.Logf("%d false rejections; observed %+v", res.FalseRejections, res.Observed)
	if res.Observed.Concluded == 0 || res.Observed.FailRate != 0 {
		t.Errorf("observed a failure rate of PRs of %.3f over %d conclusions; every rejection was a flake",
			res.Observed.FailRate, res.Observed.Concluded)
	}
}
