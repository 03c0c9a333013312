package readside

import (
	"reflect"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
)

// WaitingFor names what an entry waits for: a check on a commit since
// when, a check not started yet, a test slot, the PRs ahead, a paused
// queue, a readiness condition, a conflict (issue #19 item 5).
func TestWaitingFor(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 23, 10, 30, 0, 0, time.UTC)
	started := now.Add(-20 * time.Minute)
	mk := func() (*queue.Queue, []*queue.Entry, []*queue.TestRun) {
		q := &queue.Queue{ID: 1, State: queue.QueueRunning, Settings: queue.DefaultSettings()}
		e1 := &queue.Entry{ID: "e1", PRNumber: 1, State: queue.StateTesting, RunID: "r1", Seq: 1, Position: 1, StateChangedAt: started}
		e2 := &queue.Entry{ID: "e2", PRNumber: 2, State: queue.StatePending, Seq: 2, StateChangedAt: started}
		r1 := &queue.TestRun{ID: "r1", EntryIDs: []string{"e1"}, PRNumbers: []int{1}, SHA: "abcdef123456", Branch: "mq-merge/pr-1/r1",
			RequiredChecks: []string{"ci/test", "ci/lint"}, Status: queue.RunInProgress, StartedAt: started}
		return q, []*queue.Entry{e1, e2}, []*queue.TestRun{r1}
	}
	tests := []struct {
		name   string
		change func(q *queue.Queue, es []*queue.Entry, rs []*queue.TestRun, checks map[string][]queue.CheckResult)
		entry  int
		want   queue.Waiting
	}{
		{"a check not started", func(*queue.Queue, []*queue.Entry, []*queue.TestRun, map[string][]queue.CheckResult) {}, 0,
			queue.Waiting{Reason: queue.WaitChecksStart, Check: "ci/test", Commit: "abcdef123456", Since: started,
				Detail: `required check "ci/test" to start on mq-merge/pr-1/r1 (abcdef1), since 10:10 UTC`}},
		{"a check in progress", func(_ *queue.Queue, _ []*queue.Entry, _ []*queue.TestRun, c map[string][]queue.CheckResult) {
			c["abcdef123456"] = []queue.CheckResult{
				{Name: "ci/test", State: queue.CheckSuccess, Raw: "success"},
				{Name: "ci/lint", State: queue.CheckPending, Raw: "in_progress", UpdatedAt: now.Add(-5 * time.Minute)}}
		}, 0, queue.Waiting{Reason: queue.WaitChecks, Check: "ci/lint", Commit: "abcdef123456", Since: now.Add(-5 * time.Minute),
			Detail: `required check "ci/lint" (in_progress) on abcdef1 since 10:25 UTC`}},
		{"a test slot", func(*queue.Queue, []*queue.Entry, []*queue.TestRun, map[string][]queue.CheckResult) {}, 1,
			queue.Waiting{Reason: queue.WaitTestSlot, PRs: []int{1}, Since: started, Detail: "a test slot: 1 of 1 are taken (testing #1)"}},
		{"a paused queue", func(q *queue.Queue, _ []*queue.Entry, _ []*queue.TestRun, _ map[string][]queue.CheckResult) {
			q.State, q.PausedReason, q.UpdatedAt = queue.QueuePaused, "CI is not starting", started
		}, 1, queue.Waiting{Reason: queue.WaitQueuePaused, Since: started, Detail: "the queue to run again (it is paused): CI is not starting"}},
		{"readiness", func(_ *queue.Queue, es []*queue.Entry, _ []*queue.TestRun, _ map[string][]queue.CheckResult) {
			es[1].State, es[1].StateReasonDetail = queue.StateNotReady, "the pull request is a draft"
		}, 1, queue.Waiting{Reason: queue.WaitReadiness, Since: started, Detail: "the pull request is a draft"}},
		{"a conflict ahead", func(_ *queue.Queue, es []*queue.Entry, _ []*queue.TestRun, _ map[string][]queue.CheckResult) {
			es[1].BlockedBy = "e1"
		}, 1, queue.Waiting{Reason: queue.WaitConflict, PRs: []int{1}, Since: started, Detail: "#1 ahead, which it conflicts with, to leave the queue"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			q, es, rs := mk()
			checks := map[string][]queue.CheckResult{}
			tc.change(q, es, rs, checks)
			got := WaitingFor(q, es[tc.entry], es, rs, checks, now)
			if got == nil || !reflect.DeepEqual(*got, tc.want) {
				t.Errorf("WaitingFor() = %+v, want %+v", got, tc.want)
			}
		})
	}
	t.Run("the PRs ahead to merge", func(t *testing.T) {
		t.Parallel()
		q, es, rs := mk()
		es[1].State, es[1].RunID, es[1].Position = queue.StateTestsPassed, "r2", 2
		rs = append(rs, &queue.TestRun{ID: "r2", Ahead: []string{"e1"}, Status: queue.RunSucceeded})
		got := WaitingFor(q, es[1], es, rs, nil, now)
		want := queue.Waiting{Reason: queue.WaitPRsAhead, PRs: []int{1}, Since: started, Detail: "#1 ahead to merge first"}
		if got == nil || !reflect.DeepEqual(*got, want) {
			t.Errorf("WaitingFor() = %+v, want %+v", got, want)
		}
	})
}
