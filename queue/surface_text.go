package queue

import (
	"fmt"
	"strings"
)

// The texts below render an entry's state on its PR. The reconciler writes
// them; they depend only on the queue and the entry, so writing one twice
// changes nothing.

var stateWords = map[EntryState]string{
	StateNotReady:       "⏳ Waiting to be ready",
	StatePending:        "🕐 Queued",
	StateTesting:        "🧪 Testing",
	StateTestsPassed:    "✅ Tests passed, waiting to merge",
	StatePendingFailure: "⚠️ Tests failed, waiting on the PRs ahead",
	StateMerged:         "🎉 Merged",
	StateFailed:         "❌ Failed",
	StateCancelled:      "🚫 Cancelled",
}

// StatusMarker identifies the queue's sticky comment on a PR.
func StatusMarker(q *Queue) string {
	return fmt.Sprintf("<!-- merge-queue-status %s -->", q.Key)
}

func statusComment(q *Queue, e *Entry) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n**Merge queue** (`%s`): %s\n\n", StatusMarker(q), q.Key.Branch, stateWords[e.State])
	if e.StateReasonDetail != "" {
		fmt.Fprintf(&b, "%s\n\n", e.StateReasonDetail)
	}
	fmt.Fprintf(&b, "<sub>state `%s` · reason `%s` · priority %s (%d) · head %s</sub>\n",
		e.State, e.StateReason, e.PriorityName, e.PriorityValue, ShortSHA(e.PRSHA))
	return b.String()
}

func failureComment(q *Queue, e *Entry) string {
	who := e.Submitter
	if who == "" {
		who = e.PR.Author
	}
	mention := ""
	if who != "" {
		mention = "@" + who + " "
	}
	verb := "was removed from"
	if e.State == StateFailed {
		verb = "failed in"
	}
	return fmt.Sprintf("%sthis pull request %s the merge queue for `%s` (`%s`): %s", mention, verb, q.Key.Branch, e.StateReason, e.StateReasonDetail)
}

// CheckRunName is the name of the queue's check run on PR heads.
func CheckRunName(q *Queue) string { return fmt.Sprintf("Merge Queue (%s)", q.Key.Branch) }

func checkRun(q *Queue, e *Entry) CheckRun {
	cr := CheckRun{Name: CheckRunName(q), HeadSHA: e.PRSHA, ExternalID: e.ID,
		Title: stateWords[e.State], Summary: fmt.Sprintf("`%s` (%s): %s", e.State, e.StateReason, e.StateReasonDetail)}
	switch e.State {
	case StateNotReady, StatePending:
		cr.Status = "queued"
	case StateTesting, StateTestsPassed, StatePendingFailure:
		cr.Status = "in_progress"
	case StateMerged:
		cr.Status, cr.Conclusion = "completed", "success"
	case StateFailed:
		cr.Status, cr.Conclusion = "completed", "failure"
	case StateCancelled:
		cr.Status, cr.Conclusion = "completed", "cancelled"
	}
	return cr
}
