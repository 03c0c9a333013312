package sim

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
)

// smallWorkload is a quick shopify-like workload for tests of the engine.
var smallWorkload = Workload{PRs: 120, RatePerHour: 12, CIMedian: 20 * time.Minute, CISigma: 0.32,
	FailRate: 0.08, FlakeRate: 0.03, Warmup: 0.1}

func TestOursDrivesTheRealEngine(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		w    Workload
		ours OursConfig
	}{
		{"single k=1 is serial", smallWorkload, OursConfig{Concurrency: 1}},
		{"single k=6", smallWorkload, OursConfig{Concurrency: 6}},
		{"single k=6 pending failure and optimistic merging", smallWorkload,
			OursConfig{Concurrency: 6, PendingFailureDepth: 1, CanOptimisticallyMerge: true}},
		{"single k=6 batching", smallWorkload, OursConfig{Concurrency: 6, Batch: true, BatchingMinSize: 2,
			BatchingMaxSize: 4, BatchingMaxWaitMinutes: 1, BisectionConcurrency: 6, SkipRedundantTests: true}},
		{"parallel with targets", func() Workload {
			w := smallWorkload
			// The engine's parallel planner is costly per step: keep it small.
			w.PRs, w.RatePerHour, w.Targets, w.ZipfS, w.TargetsPerPR, w.AllShare = 50, 20, 16, 1.1, 1.5, 0.05
			return w
		}(), OursConfig{Mode: queue.ModeParallel, Concurrency: 20}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := PolicySpec{Kind: KindOurs, Ours: tc.ours}
			res, err := Run(tc.w, p, 11, RunOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Violations) > 0 {
				t.Fatalf("%d violations, first: %s", len(res.Violations), res.Violations[0])
			}
			if res.Stopped != "" || res.Unfinished != 0 || res.Merged+res.Rejected != tc.w.PRs {
				t.Fatalf("merged %d rejected %d unfinished %d (%s); want every PR decided", res.Merged, res.Rejected, res.Unfinished, res.Stopped)
			}
			if res.WronglyMerged != 0 || res.CIRuns < res.Merged || res.P50.D < tc.w.CIMedian/3 {
				t.Errorf("implausible result %+v", res)
			}
			checkGitHubCost(t, res)
			again, err := Run(tc.w, p, 11, RunOptions{})
			if err != nil {
				t.Fatal(err)
			}
			res.Wall, again.Wall = 0, 0
			if !equalResults(res, again) {
				t.Errorf("same seed, different results:\n%+v\n%+v", res, again)
			}
		})
	}
}

func equalResults(a, b Result) bool {
	return a.Policy == b.Policy && a.Merged == b.Merged && a.Rejected == b.Rejected && a.P50 == b.P50 &&
		a.P95 == b.P95 && a.P99 == b.P99 && a.CIRuns == b.CIRuns && a.CIMinutes == b.CIMinutes &&
		a.MaxDepth == b.MaxDepth && a.FalseRejections == b.FalseRejections && a.Throughput == b.Throughput &&
		a.GitHubWrites == b.GitHubWrites && a.GitHubCalls == b.GitHubCalls && a.PeakHourlyWrites == b.PeakHourlyWrites
}

// checkGitHubCost checks what a run of our engine reports of its GitHub
// requests: the surfaces were written as the reconciler writes them in
// production (each decided PR's check run created and completed, a
// comment for each failure), and the per-merge figures add up.
func checkGitHubCost(t *testing.T, res Result) {
	t.Helper()
	by := res.GitHubByCall
	decided := res.Merged + res.Rejected
	if got := by["UpsertCheckRun"].Writes; got < 2*decided {
		t.Errorf("%d check run writes for %d decided PRs: want each created and completed (the reconciler ran?)", got, decided)
	}
	if got := by["UpsertComment"].Writes; got < res.Rejected {
		t.Errorf("%d comment writes for %d failed PRs: want a comment for each failure", got, res.Rejected)
	}
	if got := by["MergePullRequest"].Writes; got < res.Merged {
		t.Errorf("%d merge requests for %d merged PRs", got, res.Merged)
	}
	sum := GitHubCost{}
	for _, c := range by {
		sum = sum.plus(c)
	}
	if sum.Writes != res.GitHubWrites || sum.Calls() != res.GitHubCalls {
		t.Errorf("per call %+v adds up to %+v, not %d writes and %d calls", by, sum, res.GitHubWrites, res.GitHubCalls)
	}
	wpm, cpm := float64(res.GitHubWrites)/float64(res.Merged), float64(res.GitHubCalls)/float64(res.Merged)
	if math.Abs(res.WritesPerMerge-wpm) > 1e-9 || math.Abs(res.CallsPerMerge-cpm) > 1e-9 || res.CallsPerMerge <= res.WritesPerMerge {
		t.Errorf("%.3f writes and %.3f calls per merge, want %.3f and %.3f", res.WritesPerMerge, res.CallsPerMerge, wpm, cpm)
	}
	if res.PeakHourlyWrites <= 0 || res.PeakHourlyWrites > res.GitHubWrites {
		t.Errorf("peak %d writes in an hour of %d in all", res.PeakHourlyWrites, res.GitHubWrites)
	}
}

// TestOursSerialMatchesTheSerialBaseline: with concurrency 1 and no
// flakes, the engine is a serial FIFO queue, so it decides every PR at the
// same moments as the serial baseline (same PRs, same CI durations).
func TestOursSerialMatchesTheSerialBaseline(t *testing.T) {
	t.Parallel()
	w := smallWorkload
	w.RatePerHour, w.FlakeRate = 2, 0
	ours, err := Run(w, PolicySpec{Kind: KindOurs, Ours: OursConfig{Concurrency: 1}}, 4, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	serial, err := Run(w, PolicySpec{Kind: KindSerial}, 4, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ours.Merged != serial.Merged || ours.CIRuns != serial.CIRuns {
		t.Fatalf("ours merged %d with %d runs, serial %d with %d", ours.Merged, ours.CIRuns, serial.Merged, serial.CIRuns)
	}
	if d := ours.MeanDecision - serial.MeanDecision; d < 0 || d > time.Second {
		t.Errorf("mean decision ours %v, serial %v", ours.MeanDecision, serial.MeanDecision)
	}
}

func TestRunStopsAnUnstableQueue(t *testing.T) {
	t.Parallel()
	w := Workload{PRs: 2000, RatePerHour: 20, CIMedian: 30 * time.Minute}
	res, err := Run(w, PolicySpec{Kind: KindSerial}, 1, RunOptions{MaxQueue: 50})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Stopped, "51 PRs in the queue") || res.PRs >= 2000 || res.MaxDepth != 51 {
		t.Errorf("stopped %q after %d PRs, depth %d; want a stop at 51 waiting", res.Stopped, res.PRs, res.MaxDepth)
	}
}

func TestRunPresetKeepsPolicyOrder(t *testing.T) {
	t.Parallel()
	p, err := PresetByName("small")
	if err != nil {
		t.Fatal(err)
	}
	p.Workload.PRs = 200
	var pols []PolicySpec
	for _, pol := range p.Policies() {
		if pol.Kind != KindOurs {
			pols = append(pols, pol)
		}
	}
	rep, err := RunPreset(p, pols, 2, RunOptions{}, 3)
	if err != nil {
		t.Fatal(err)
	}
	for i, pol := range pols {
		if rep.Results[i].Policy != pol.Label() || rep.Kinds[i] != pol.Kind {
			t.Errorf("row %d is %s, want %s", i, rep.Results[i].Policy, pol.Label())
		}
	}
	if _, err := PresetByName("nope"); err == nil {
		t.Error("unknown preset accepted")
	}
}
