package engine

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mergequeue/mq/queue"
)

// ChecksNotStarted ends a chain run some of whose required checks reported
// nothing at all (not even pending or queued) within the queue's
// checksStartTimeoutMinutes. Without blame on its PRs: they go back to
// pending, keeping their place. The first time (Outage false) the unit is
// tested once more on a new test commit with the same tree; the second
// time in a row (Outage true) the queue pauses its new runs and alerts,
// since a CI that never starts is an outage, not a failed PR.
type ChecksNotStarted struct {
	RunID string
	// Missing are the required checks that reported nothing, in order.
	Missing []string
	Outage  bool
	Detail  string
}

func (ChecksNotStarted) isAction() {}

// MissingChecks are the required checks with no report at all among
// results (a pending or queued report counts as started).
func MissingChecks(required []string, results []queue.CheckResult) []string {
	var missing []string
	for _, name := range required {
		if !slices.ContainsFunc(results, func(c queue.CheckResult) bool { return c.Name == name }) && !slices.Contains(missing, name) {
			missing = append(missing, name)
		}
	}
	return missing
}

// checksStart decides a chain run in progress whose required checks have
// not all started within the queue's checksStartTimeoutMinutes (nil when
// they did, or it is too early: then it wakes at the deadline).
func (p *planner) checksStart(r *queue.TestRun) Action {
	limit := p.q.Settings.ChecksStartTimeout()
	if limit <= 0 || r.Isolation || r.StartedAt.IsZero() {
		return nil
	}
	missing := MissingChecks(r.RequiredChecks, p.s.Checks[r.SHA])
	if len(missing) == 0 {
		return nil
	}
	deadline := r.StartedAt.Add(limit)
	if p.now.Before(deadline) {
		p.wakeAt(deadline)
		return nil
	}
	outage := false
	for _, id := range r.EntryIDs {
		if e := p.s.Entry(id); e != nil && e.ChecksMissing > 0 {
			outage = true
		}
	}
	return ChecksNotStarted{RunID: r.ID, Missing: missing, Outage: outage,
		Detail: ChecksNotStartedDetail(missing, r.Branch, p.q.Settings.ChecksStartTimeoutMinutes, outage)}
}

// ChecksNotStartedDetail says which required checks did not start on
// which test branch, and what the queue does about it.
func ChecksNotStartedDetail(missing []string, branch string, minutes int, outage bool) string {
	what := MissingChecksText(missing, branch, minutes)
	if outage {
		return what + ", again: CI is not starting, so the queue paused its new runs (not a failure of this PR); " +
			"set the queue running once CI works"
	}
	return what + "; testing again on a new test commit"
}

// MissingChecksText names the required checks that did not start on a
// test branch within the queue's checksStartTimeoutMinutes: `required
// check "ci/test" has not started on mq-merge/pr-1/… within 10 minutes`.
func MissingChecksText(missing []string, branch string, minutes int) string {
	quoted := make([]string, len(missing))
	for i, m := range missing {
		quoted[i] = fmt.Sprintf("%q", m)
	}
	noun, verb := "check", "has"
	if len(missing) > 1 {
		noun, verb = "checks", "have"
	}
	return fmt.Sprintf("required %s %s %s not started on %s within %s", noun, strings.Join(quoted, ", "), verb, branch,
		queue.Count(minutes, "minute"))
}
