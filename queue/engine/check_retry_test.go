package engine

import (
	"reflect"
	"testing"

	"github.com/mergequeue/mq/queue"
)

// A chain run that failed on a check is tried again while its entries
// have attempts left and the retry budget allows; otherwise the failure
// goes its usual way (issue #19 item 3).
func TestCheckRetry(t *testing.T) {
	t.Parallel()
	failed := func(b *builder) *queue.Entry {
		e := b.entry(1, queue.StateTesting)
		r := b.run(e, queue.RunInProgress, "H0")
		b.s.Checks[r.SHA] = []queue.CheckResult{{SHA: r.SHA, Name: "ci", State: queue.CheckFailure, Raw: "failure", URL: "https://ci/1"}}
		return e
	}
	const failure = `required check "ci" failed (failure): https://ci/1`
	tests := []struct {
		name  string
		build func(b *builder)
		want  Action
	}{
		{"first failure: attempt 2 of 3", func(b *builder) {
			b.s.Queue.Settings.CheckRetries, b.s.RetryBudget = 2, 1
			failed(b)
		}, RetryFailedCheck{RunID: "r-e1", Failure: failure, Detail: failure + "; trying again on a new test commit: attempt 2 of 3", Attempt: 2, Of: 3}},
		{"second failure: attempt 3 of 3", func(b *builder) {
			b.s.Queue.Settings.CheckRetries, b.s.RetryBudget = 2, 1
			failed(b).CheckAttempts = 1
		}, RetryFailedCheck{RunID: "r-e1", Failure: failure, Detail: failure + "; trying again on a new test commit: attempt 3 of 3", Attempt: 3, Of: 3}},
		{"no attempt left", func(b *builder) {
			b.s.Queue.Settings.CheckRetries, b.s.RetryBudget = 2, 1
			failed(b).CheckAttempts = 2
		}, FinishRun{RunID: "r-e1", Status: queue.RunFailed, Reason: queue.ReasonTestsFailed, Detail: failure}},
		{"budget used up", func(b *builder) {
			b.s.Queue.Settings.CheckRetries, b.s.RetryBudget = 2, 0
			failed(b)
		}, FinishRun{RunID: "r-e1", Status: queue.RunFailed, Reason: queue.ReasonTestsFailed, Detail: failure}},
		{"off", func(b *builder) {
			b.s.RetryBudget = 1
			failed(b)
		}, FinishRun{RunID: "r-e1", Status: queue.RunFailed, Reason: queue.ReasonTestsFailed, Detail: failure}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := newSnap(2)
			tc.build(b)
			if got, _ := Next(b.s, t0); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Next() =\n  %#v\nwant\n  %#v", got, tc.want)
			}
		})
	}
}
