package sim

import (
	"testing"
	"time"
)

// The simulator models retries of failed checks: a retried run's CI draws
// its flake afresh, so with 20 % flaky runs far fewer good PRs are
// rejected and no broken PR lands (issue #19).
func TestCheckRetriesAbsorbFlakes(t *testing.T) {
	t.Parallel()
	w := Workload{PRs: 150, RatePerHour: 6, CIMedian: 20 * time.Minute, CISigma: 0.32, FailRate: 0.05, FlakeRate: 0.2, Warmup: 0.1}
	run := func(retries int) Result {
		res, err := Run(w, PolicySpec{Kind: KindOurs, Ours: OursConfig{Concurrency: 4, CheckRetries: retries}}, 5, RunOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Violations) > 0 || res.WronglyMerged != 0 || res.Merged+res.Rejected != w.PRs {
			t.Fatalf("retries %d: %d violations, %d wrongly merged, %d of %d decided", retries, len(res.Violations),
				res.WronglyMerged, res.Merged+res.Rejected, w.PRs)
		}
		return res
	}
	without, with := run(0), run(2)
	if with.FalseRejections*2 > without.FalseRejections || without.FalseRejections == 0 {
		t.Errorf("false rejections: %d with 2 retries, %d without; want at most half", with.FalseRejections, without.FalseRejections)
	}
}
