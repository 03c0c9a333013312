package service

import (
	"fmt"
	"strings"
	"time"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/readside"
	"github.com/mergequeue/mq/queue/textsafe"
)

// The texts below render an entry's state on its PR. The reconciler writes
// them; they depend only on the queue, the entry and its view, so writing
// one twice changes nothing. They are GitHub markdown: every string that
// is not the queue's own wording (branch names, priority names, state
// details, which quote check names, CI URLs and file paths) goes through
// package textsafe, so nobody's text becomes a mention, link, image or
// HTML on the PR. State details keep #123 references: the queue's own
// wording names PRs in them.

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

// entryView is what the PR is shown beyond the entry itself: where it
// stands in the queue, its run, and links.
type entryView struct {
	est readside.Estimate // zero Position: not in the queue order
	// runURL links to the run testing the entry (its test PR, else its
	// commit's checks on GitHub); "" when not testing.
	runURL string
	// pageURL is the PR's page on the dashboard ("" without a public URL).
	pageURL string
	// waiting is what the entry waits for (nil once ended).
	waiting *queue.Waiting
}

// etaStep rounds expected times up, so a PR's texts change when the
// estimate moves by minutes, not seconds.
const etaStep = 5 * time.Minute

// clock formats an expected time for people: "14:05 UTC", with the day
// when it is not today's.
func clock(t, now time.Time) string {
	t = t.UTC()
	if r := t.Truncate(etaStep); r.Before(t) {
		t = r.Add(etaStep)
	}
	if y, m, d := t.Date(); y == now.UTC().Year() && m == now.UTC().Month() && d == now.UTC().Day() {
		return t.Format("15:04 UTC")
	}
	return t.Format("Mon 2 Jan 15:04 UTC")
}

// moment formats a deadline for people, to the minute (rounded up): "14:07
// UTC", with the day when it is not today's.
func moment(t, now time.Time) string {
	t = t.UTC()
	if r := t.Truncate(time.Minute); r.Before(t) {
		t = r.Add(time.Minute)
	}
	if y, m, d := t.Date(); y == now.UTC().Year() && m == now.UTC().Month() && d == now.UTC().Day() {
		return t.Format("15:04 UTC")
	}
	return t.Format("Mon 2 Jan 15:04 UTC")
}

// standing says where an active entry stands, in one sentence ("" when
// there is nothing to say).
func standing(e *queue.Entry, v entryView, now time.Time) string {
	if !e.Active() || v.est.Position == 0 {
		return ""
	}
	switch {
	case e.State == queue.StateTesting && !v.est.RunEndsAt.IsZero():
		s := "Testing"
		if v.runURL != "" {
			s += fmt.Sprintf(" ([run](%s))", v.runURL)
		}
		s += ", expected to finish around " + clock(v.est.RunEndsAt, now)
		if !v.est.MergeAt.IsZero() {
			s += " and to merge around " + clock(v.est.MergeAt, now)
		}
		if !v.est.TimesOutAt.IsZero() {
			s += "; it times out at " + moment(v.est.TimesOutAt, now)
		}
		return s + "."
	case e.State == queue.StatePending || e.State == queue.StateTestsPassed:
		s := fmt.Sprintf("Position %d of %d", v.est.Position, v.est.Of)
		if !v.est.MergeAt.IsZero() {
			s += ", expected to merge around " + clock(v.est.MergeAt, now)
		}
		return s + "."
	}
	return fmt.Sprintf("Position %d of %d.", v.est.Position, v.est.Of)
}

// StatusMarker identifies the queue's sticky comment on a PR.
func StatusMarker(q *queue.Queue) string {
	return fmt.Sprintf("<!-- merge-queue-status %s -->", q.Key)
}

func statusComment(q *queue.Queue, e *queue.Entry, v entryView, now time.Time) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n**Merge queue** (%s): %s\n\n", StatusMarker(q), textsafe.MarkdownCode(q.Key.Branch), stateWords[e.State])
	if s := standing(e, v, now); s != "" {
		fmt.Fprintf(&b, "%s\n\n", s)
	}
	if e.StateReasonDetail != "" {
		fmt.Fprintf(&b, "%s\n\n", textsafe.MarkdownKeepingRefs(e.StateReasonDetail))
	}
	fmt.Fprintf(&b, "<sub>state `%s` · reason `%s` · priority %s (%d) · head %s",
		e.State, e.StateReason, textsafe.Markdown(e.PriorityName), e.PriorityValue, queue.ShortSHA(e.PRSHA))
	if v.pageURL != "" {
		fmt.Fprintf(&b, " · [details](%s)", v.pageURL)
	}
	b.WriteString("</sub>\n")
	return b.String()
}

func failureComment(q *queue.Queue, e *queue.Entry) string {
	who := e.Submitter
	if who == "" {
		who = e.PR.Author
	}
	mention := ""
	if who != "" {
		mention = textsafe.MarkdownMention(who) + " "
	}
	verb := "was removed from"
	if e.State == queue.StateFailed {
		verb = "failed in"
	}
	return fmt.Sprintf("%sthis pull request %s the merge queue for %s (`%s`): %s", mention, verb,
		textsafe.MarkdownCode(q.Key.Branch), e.StateReason, textsafe.MarkdownKeepingRefs(e.StateReasonDetail))
}

// checkRun renders the entry's check run: queued with its position (and
// ETA), in progress while testing (with the run's link and expected
// finish), then its conclusion (SPEC §6).
func checkRun(q *queue.Queue, e *queue.Entry, v entryView, now time.Time) queue.CheckRun {
	title := stateWords[e.State]
	switch {
	case !e.Active() || v.est.Position == 0:
	case e.State == queue.StateTesting && !v.est.RunEndsAt.IsZero():
		title += " · expected to finish around " + clock(v.est.RunEndsAt, now)
		if !v.est.TimesOutAt.IsZero() {
			title += " · times out " + moment(v.est.TimesOutAt, now)
		}
	default:
		title += fmt.Sprintf(" · %d of %d", v.est.Position, v.est.Of)
		if !v.est.MergeAt.IsZero() {
			title += " · merge around " + clock(v.est.MergeAt, now)
		}
	}
	summary := fmt.Sprintf("`%s` (%s): %s", e.State, e.StateReason, textsafe.MarkdownKeepingRefs(e.StateReasonDetail))
	if v.waiting != nil && v.waiting.Detail != "" {
		summary = "Waiting for " + textsafe.MarkdownKeepingRefs(v.waiting.Detail) + ".\n\n" + summary
	}
	if s := standing(e, v, now); s != "" {
		summary = s + "\n\n" + summary
	}
	cr := queue.CheckRun{Name: queue.CheckRunName(q.Key.Branch), HeadSHA: e.PRSHA, ExternalID: e.ID, Title: title, Summary: summary,
		DetailsURL: v.pageURL}
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
