package sqlite

import (
	"time"

	"github.com/mergequeue/mq/queue"
)

func fullRun(id string, queueID int64) *queue.TestRun {
	return &queue.TestRun{
		ID: id, QueueID: queueID,
		EntryIDs: []string{"e1", "e2"}, PRNumbers: []int{1, 2}, PRSHAs: []string{"a1", "b2"},
		Ahead: []string{"e0"}, BaseSHA: "base", Branch: "mq/main/" + id, SHA: "sha-" + id,
		RequiredChecks: []string{"ci/test"}, Bisection: true,
		Status: queue.RunFailed, FailureReason: queue.ReasonTestTimeout, FailureDetail: "took too long",
		CreatedAt: at(time.Second), StartedAt: at(2 * time.Second), FinishedAt: at(3 * time.Second),
		Closed: true,
	}
}

func runIDs(rs []*queue.TestRun) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.ID)
	}
	return out
}
