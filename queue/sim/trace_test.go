package sim

import (
	"strings"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
)

// TestTraceOfOurs: with RunOptions.Trace a run of our engine reports what it
// did over time, consistent with its result: the merges of its buckets are
// its merges, every ALL PR is listed and ran, and restarts are counted.
func TestTraceOfOurs(t *testing.T) {
	t.Parallel()
	w := smallWorkload
	w.PRs, w.RatePerHour, w.Targets, w.ZipfS, w.TargetsPerPR, w.AllShare = 40, 20, 16, 1.1, 1.5, 0.1
	p := PolicySpec{Kind: KindOurs, Ours: OursConfig{Mode: queue.ModeParallel, Concurrency: 20}}
	res, err := Run(w, p, 3, RunOptions{Trace: true})
	if err != nil {
		t.Fatal(err)
	}
	tr := res.Trace
	if tr == nil {
		t.Fatal("no trace")
	}
	merged, restarts := 0, 0
	for i, b := range tr.Buckets {
		merged += b.Merged
		restarts += b.Restarts
		if b.At != time.Duration(i)*TraceBucketWidth {
			t.Errorf("bucket %d at %v", i, b.At)
		}
	}
	if merged != res.Merged || tr.Phases.Merged != res.Merged {
		t.Errorf("buckets merged %d, phases %d, result %d", merged, tr.Phases.Merged, res.Merged)
	}
	byReason := 0
	for _, n := range tr.Restarts {
		byReason += n
	}
	if byReason != restarts {
		t.Errorf("restarts by reason %d, by bucket %d", byReason, restarts)
	}
	all := 0
	for _, pr := range w.Generate(3) {
		if pr.All {
			all++
		}
	}
	if all == 0 || len(tr.All) != all {
		t.Fatalf("%d ALL PRs traced, the workload has %d", len(tr.All), all)
	}
	for _, a := range tr.All {
		if a.Runs == 0 || a.End == 0 {
			t.Errorf("ALL PR %+v never tested or never decided", a)
		}
	}
	if text := tr.Text(); !strings.Contains(text, "ALL PR #") || !strings.Contains(text, "restarts by reason:") {
		t.Errorf("Text() =\n%s", text)
	}
	if res, err := Run(w, p, 3, RunOptions{}); err != nil || res.Trace != nil {
		t.Errorf("untraced run: trace %v, err %v", res.Trace, err)
	}
}
