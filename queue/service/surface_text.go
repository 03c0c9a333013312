package service

import (
	"fmt"
	"strings"

	"github.com/mergequeue/mq/queue"
)

// The texts below render an entry's state on its PR. The reconciler writes
// them; they depend only on the queue and the entry, so writing one twice
// changes nothing.

var stateWords = map[queue.EntryState]string{
	queue.StateNotReady:       "⏳ Waiting to be ready",
	queue.StatePending:        "🕐 Queued",
	queue.StateTesting:        "🧪 Testing",
	queue.StateTestsPassed:    "✅ Tests passed, waiting to merge",
	queue.StatePendingFailure: "⚠️ Tests failed, waiting on the PRs ahead",
	queue.StateMerged:         "🎉 Merged",
	queue.StateFailed:         "❌ Failed",
	queue.StateCancelled:      "🚫 Cancelled",
}

// StatusMarker identifies the queue's sticky comment on a PR.
func StatusMarker(q *queue.Queue) string {
	return fmt.Sprintf("<!-- merge-queue-status %s -->", q.Key)
}

func statusComment(q *queue.Queue, e *queue.Entry) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n**Merge queue** (`%s`): %s\n\n", StatusMarker(q), q.Key.Branch, stateWords[e.State])
	if e.StateReasonDetail != "" {
		fmt.Fprintf(&b, "%s\n\n", e.StateReasonDetail)
	}
	fmt.Fprintf(&b, "<sub>state `%s` · reason `%s` · priority %s (%d) · head %s</sub>\n",
		e.State, e.StateReason, e.PriorityName, e.PriorityValue, queue.ShortSHA(e.PRSHA))
	return b.String()
}

func failureComment(q *queue.Queue, e *queue.Entry) string {
	who := e.Submitter
	if who == "" {
		who = e.PR.Author
	}
	mention := ""
	if who != "" {
		mention = "@" + who + " "
	}
	verb := "was removed from"
	if e.State == queue.StateFailed {
		verb = "failed in"
	}
	return fmt.Sprintf("%sthis pull request %s the merge queue for `%s` (`%s`): %s", mention, verb, q.Key.Branch, e.StateReason, e.StateReasonDetail)
}

// CheckRunName is the name of the queue's check run on PR heads.
func CheckRunName(q *queue.Queue) string { return fmt.Sprintf("Merge Queue (%s)", q.Key.Branch) }

func checkRun(q *queue.Queue, e *queue.Entry) queue.CheckRun {
	cr := queue.CheckRun{Name: CheckRunName(q), HeadSHA: e.PRSHA, ExternalID: e.ID,
		Title: stateWords[e.State], Summary: fmt.Sprintf("`%s` (%s): %s", e.State, e.StateReason, e.StateReasonDetail)}
	switch e.State {
	case queue.StateNotReady, queue.StatePending:
		cr.Status = "queued"
	case queue.StateTesting, queue.StateTestsPassed, queue.StatePendingFailure:
		cr.Status = "in_progress"
	case queue.StateMerged:
		cr.Status, cr.Conclusion = "completed", "success"
	case queue.StateFailed:
		cr.Status, cr.Conclusion = "completed", "failure"
	case queue.StateCancelled:
		cr.Status, cr.Conclusion = "completed", "cancelled"
	}
	return cr
}
