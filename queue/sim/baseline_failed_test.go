package sim

import (
	"testing"
	"time"
)

// TestSpeculationStopsBehindAFailedRun: when a run behind the head fails,
// GitHub-style and Zuul-style speculation cancel the runs behind it and
// start nothing behind it until it is decided, as those systems do; once
// the head merges, the failed PR is rejected and the rest is rebuilt.
func TestSpeculationStopsBehindAFailedRun(t *testing.T) {
	t.Parallel()
	for _, adaptive := range []bool{false, true} {
		w := Workload{PRs: 5, RatePerHour: 1, CIMedian: 10 * time.Minute}
		prs := []PR{
			{Index: 0, Arrival: 0},
			{Index: 1, Arrival: 0, Bad: true},
			{Index: 2, Arrival: time.Minute},
			{Index: 3, Arrival: 2 * time.Minute},
			{Index: 4, Arrival: 12 * time.Minute},
		}
		s := NewSim()
		rec := NewRecorder(prs)
		h := newHarness(s, w, prs, rec, 1)
		q := newSpeculative(h, 4, 3, adaptive, false)
		for _, pr := range prs {
			s.At(pr.Arrival, func() {
				q.arrive(pr.Index)
				if pr.Index == 0 { // the head's CI is slow: PR 1's failure comes first
					b := q.runs[0]
					fn := b.ev.fn
					s.Cancel(b.ev)
					b.ev = s.After(20*time.Minute, fn)
				}
			})
		}
		s.RunUntil(15*time.Minute, nil)
		if len(q.runs) != 2 || q.runs[0] == nil || q.runs[1] == nil {
			t.Fatalf("adaptive=%v: runs at 15 min are %v, want only the head's and the failed one", adaptive, q.runs)
		}
		if rec.Runs != 4 {
			t.Errorf("adaptive=%v: %d runs started by 15 min, want 4 (nothing behind the failed run)", adaptive, rec.Runs)
		}
		// PR 2's run (from 1 min) and PR 3's (from 2 min) were cancelled at
		// 10 min, when PR 1's failed.
		if want := 10*time.Minute + 9*time.Minute + 8*time.Minute; rec.CITime != want {
			t.Errorf("adaptive=%v: CI time by 15 min %v, want %v", adaptive, rec.CITime, want)
		}
		s.RunUntil(24*time.Hour, nil)
		want := []Outcome{Merged, Rejected, Merged, Merged, Merged}
		for i, o := range want {
			if rec.Records[i].Outcome != o {
				t.Errorf("adaptive=%v: PR %d outcome %v, want %v", adaptive, i, rec.Records[i].Outcome, o)
			}
		}
		if rec.Runs != 7 { // + PRs 2, 3 and 4 rebuilt after PR 1 was rejected at 20 min
			t.Errorf("adaptive=%v: %d runs, want 7", adaptive, rec.Runs)
		}
	}
}
