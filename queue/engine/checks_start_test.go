package engine

import (
	"reflect"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
)

// A chain run whose required checks report nothing at all within
// checksStartTimeoutMinutes is ended without blame: tested once more the
// first time, an outage (the queue pauses) the second time in a row. A
// check that reported anything, even queued, has started (issue #19).
func TestChecksThatNeverStart(t *testing.T) {
	t.Parallel()
	retry := ChecksNotStarted{RunID: "r-e1", Missing: []string{"ci"},
		Detail: `required check "ci" has not started on mq-merge/x within 10 minutes; testing again on a new test commit`}
	outage := retry
	outage.Outage = true
	outage.Detail = `required check "ci" has not started on mq-merge/x within 10 minutes, again: CI is not starting, ` +
		`so the queue paused its new runs (not a failure of this PR); set the queue running once CI works`
	tests := []struct {
		name     string
		build    func(b *builder)
		now      time.Time
		want     Action
		wantWake time.Time
	}{
		{"before the deadline it waits for it", func(b *builder) {
			b.run(b.entry(1, queue.StateTesting), queue.RunInProgress, "H0")
		}, t0.Add(9 * time.Minute), nil, t0.Add(10 * time.Minute)},
		{"silent past the deadline: tested again", func(b *builder) {
			b.run(b.entry(1, queue.StateTesting), queue.RunInProgress, "H0")
		}, t0.Add(10 * time.Minute), retry, time.Time{}},
		{"silent again after a retry: outage", func(b *builder) {
			e := b.entry(1, queue.StateTesting)
			e.ChecksMissing = 1
			b.run(e, queue.RunInProgress, "H0")
		}, t0.Add(11 * time.Minute), outage, time.Time{}},
		{"a queued check has started", func(b *builder) {
			b.run(b.entry(1, queue.StateTesting), queue.RunInProgress, "H0")
			b.s.Checks["t-e1"] = []queue.CheckResult{{SHA: "t-e1", Name: "ci", State: queue.CheckPending, Raw: "queued"}}
		}, t0.Add(30 * time.Minute), nil, t0.Add(60 * time.Minute)},
		{"another check does not count", func(b *builder) {
			b.run(b.entry(1, queue.StateTesting), queue.RunInProgress, "H0")
			b.s.Checks["t-e1"] = []queue.CheckResult{{SHA: "t-e1", Name: "lint", State: queue.CheckPending, Raw: "queued"}}
		}, t0.Add(10 * time.Minute), retry, time.Time{}},
		{"0 is off", func(b *builder) {
			b.s.Queue.Settings.ChecksStartTimeoutMinutes = 0
			b.run(b.entry(1, queue.StateTesting), queue.RunInProgress, "H0")
		}, t0.Add(30 * time.Minute), nil, t0.Add(60 * time.Minute)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := newSnap(2)
			b.s.Queue.Settings.ChecksStartTimeoutMinutes = 10
			tc.build(b)
			got, wake := Next(b.s, tc.now)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Next() =\n  %#v\nwant\n  %#v", got, tc.want)
			}
			if tc.want == nil && !wake.Equal(tc.wantWake) {
				t.Errorf("wake = %v, want %v", wake, tc.wantWake)
			}
		})
	}
}

// An isolation run whose checks never start is left to the isolation
// runs' own retry and the testing timeout.
func TestChecksNotStartedIgnoresIsolationRuns(t *testing.T) {
	t.Parallel()
	b := newSnap(2)
	b.s.Queue.Settings.ChecksStartTimeoutMinutes = 10
	b.s.Queue.Settings.IsolationRuns = true
	e := b.entry(1, queue.StatePending)
	r := b.run(e, queue.RunInProgress, "H0")
	r.Isolation, r.EntryIDs = true, []string{e.ID}
	e.RunID, e.IsolationRunID = "", r.ID
	for now := t0; now.Before(t0.Add(30 * time.Minute)); now = now.Add(time.Minute) {
		if got, _ := Next(b.s, now); reflect.TypeOf(got) == reflect.TypeOf(ChecksNotStarted{}) {
			t.Fatalf("Next() at %v = %#v; an isolation run is not ended for its checks", now.Sub(t0), got)
		}
	}
}

func TestMissingChecksText(t *testing.T) {
	t.Parallel()
	got := MissingChecksText([]string{"ci/a", "ci/b"}, "mq-merge/pr-1/r", 1)
	want := `required checks "ci/a", "ci/b" have not started on mq-merge/pr-1/r within 1 minute`
	if got != want {
		t.Errorf("MissingChecksText() = %q, want %q", got, want)
	}
}
