package queue

import (
	"fmt"
	"strings"
	"time"
)

// Readiness polling and retry bounds.
const (
	// NotReadyPoll is how often a not_ready entry's PR is re-read.
	NotReadyPoll = 5 * time.Second
	// MaxMergeAttempts bounds retries of "base branch was modified".
	MaxMergeAttempts = 6
)

// Next is the engine: from a snapshot and the current time it returns the
// next action to take (nil when the queue is settled) and the time at which
// the queue must be looked at again even if nothing happens (zero = never).
//
// Guarantees, for every snapshot:
//   - Merge is only returned for the first entry of the chain, whose run
//     succeeded, tested the entry's submitted head, and is still valid (the
//     target head equals the run's base plus the queue's own merges since).
//   - StartRun never brings the number of runs in progress above the
//     queue's concurrency.
//   - A run is never used once a unit it was built on left the queue or the
//     target branch moved outside the queue: its entries restart.
func Next(s *Snapshot, now time.Time) (Action, time.Time) {
	var wake time.Time
	q := s.Queue

	// 1. Facts about the PRs end entries, whatever the queue state.
	for _, e := range s.Entries {
		if a := factAction(s, e); a != nil {
			return a, time.Time{}
		}
	}

	// 2. Results of runs in progress.
	for _, r := range s.Runs {
		switch r.Status {
		case RunBuilding:
			// Only left behind by a crash mid-build: start over.
			return CloseRun{RunID: r.ID}, time.Time{}
		case RunInProgress:
			status, detail := EvaluateChecks(r.RequiredChecks, s.Checks[r.SHA])
			if status != RunInProgress {
				reason := Reason("")
				if status == RunFailed {
					reason = ReasonTestsFailed
				}
				return FinishRun{RunID: r.ID, Status: status, Reason: reason, Detail: detail}, time.Time{}
			}
			if limit := time.Duration(q.Settings.TestingTimeoutMinutes) * time.Minute; limit > 0 {
				deadline := r.StartedAt.Add(limit)
				if !now.Before(deadline) {
					return FinishRun{RunID: r.ID, Status: RunFailed, Reason: ReasonTestTimeout,
						Detail: fmt.Sprintf("tests did not finish within %d minutes", q.Settings.TestingTimeoutMinutes)}, time.Time{}
				}
				wake = minTime(wake, deadline)
			}
		}
	}

	// 3. Admission of not_ready entries.
	for _, e := range s.Entries {
		if e.State != StateNotReady {
			continue
		}
		if h := q.Settings.NotReadyTimeoutHours; h > 0 {
			deadline := e.SubmittedAt.Add(time.Duration(h) * time.Hour)
			if !now.Before(deadline) {
				return Transition{EntryID: e.ID, To: StateCancelled, Reason: ReasonNotReadyTimeout,
					Detail: fmt.Sprintf("not ready within %d hours: %s", h, e.StateReasonDetail)}, time.Time{}
			}
			wake = minTime(wake, deadline)
		}
		ready, why := Ready(q, e)
		switch {
		case ready && q.Admits():
			return Transition{EntryID: e.ID, To: StatePending, Reason: ReasonAdmitted, Detail: "admitted to the queue"}, time.Time{}
		case ready:
			why = fmt.Sprintf("the queue is %s", q.State)
		}
		if why != e.StateReasonDetail {
			return Transition{EntryID: e.ID, To: StateNotReady, Reason: e.StateReason, Detail: why}, time.Time{}
		}
		wake = minTime(wake, now.Add(NotReadyPoll))
	}

	// 4. Keep every admitted entry's run valid and its state in step with it.
	chain := s.chain()
	for i, e := range chain {
		if a := runAction(s, chain[:i], e); a != nil {
			return a, time.Time{}
		}
	}
	// Entries waiting on a conflicting entry ahead lose any run they had.
	for _, e := range s.Ordered() {
		if e.BlockedBy != "" && e.RunID != "" && !contains(ids(chain), e.ID) {
			return Transition{EntryID: e.ID, To: StatePending, Reason: e.StateReason, Detail: e.StateReasonDetail, ClearRun: true}, time.Time{}
		}
	}

	// 5. Merge the head of the chain once its run passed.
	if len(chain) > 0 && q.Merges() {
		e := chain[0]
		if r := s.run(e.RunID); e.State == StateTestsPassed && r != nil && r.Status == RunSucceeded {
			if now.Before(e.NextAttemptAt) {
				wake = minTime(wake, e.NextAttemptAt)
			} else {
				return Merge{EntryID: e.ID, RunID: r.ID, Before: s.TargetHead}, time.Time{}
			}
		}
	}

	// 6. Start runs for the first units without one, up to concurrency.
	if q.StartsRuns() && s.TargetHead != "" {
		inFlight := 0
		for _, r := range s.Runs {
			if r.Status == RunInProgress {
				inFlight++
			}
		}
		for i, e := range chain {
			if e.RunID != "" || e.State != StatePending {
				continue
			}
			if inFlight >= max(q.Settings.Concurrency, 1) {
				break
			}
			return startRun(s, chain[:i], e), wake
		}
	}
	return nil, wake
}

// factAction ends or settles an entry from what GitHub says about its PR.
func factAction(s *Snapshot, e *Entry) Action {
	if e.MergeIntent {
		before := s.TargetHead
		if r := s.run(e.RunID); r != nil {
			if head, _, ok := s.expectedBase(r); ok {
				before = head
			}
		}
		return ResolveMerge{EntryID: e.ID, RunID: e.RunID, Before: before}
	}
	pr := e.PR
	switch {
	case pr.Merged:
		return Transition{EntryID: e.ID, To: StateMerged, Reason: ReasonMergedManually,
			Detail: "the pull request was merged outside the queue", ClearRun: true}
	case !pr.Open && !pr.ReadAt.IsZero():
		return Transition{EntryID: e.ID, To: StateCancelled, Reason: ReasonPRClosed,
			Detail: "the pull request was closed", ClearRun: true}
	case pr.HeadSHA != "" && pr.HeadSHA != e.PRSHA:
		return Transition{EntryID: e.ID, To: StateCancelled, Reason: ReasonPRPushed,
			Detail: fmt.Sprintf("new commits were pushed (head %s, submitted %s); submit again to test them", short(pr.HeadSHA), short(e.PRSHA)), ClearRun: true}
	case pr.BaseBranch != "" && pr.BaseBranch != s.Queue.Key.Branch:
		return Transition{EntryID: e.ID, To: StateCancelled, Reason: ReasonBaseBranchChanged,
			Detail: fmt.Sprintf("the base branch changed to %s", pr.BaseBranch), ClearRun: true}
	case pr.Draft:
		return Transition{EntryID: e.ID, To: StateCancelled, Reason: ReasonPRDraft,
			Detail: "the pull request was converted to a draft", ClearRun: true}
	}
	return nil
}

// Ready reports whether a not_ready entry may be admitted (SPEC §3), and
// if not, why, in words for the user.
func Ready(q *Queue, e *Entry) (bool, string) {
	if e.Direct {
		return true, ""
	}
	pr := e.PR
	switch {
	case pr.ReadAt.IsZero():
		return false, "waiting to read the pull request from GitHub"
	case !pr.Open:
		return false, "the pull request is closed"
	case pr.Draft:
		return false, "the pull request is a draft"
	case pr.BaseBranch != q.Key.Branch:
		return false, fmt.Sprintf("the pull request targets %s, not %s", pr.BaseBranch, q.Key.Branch)
	}
	switch pr.MergeableState {
	case "clean", "unstable", "has_hooks", "behind":
		return true, ""
	case "dirty":
		return false, fmt.Sprintf("the pull request conflicts with %s", q.Key.Branch)
	case "blocked":
		return false, "branch protection is not satisfied (reviews or required checks)"
	case "draft":
		return false, "the pull request is a draft"
	default:
		return false, "waiting for GitHub to compute mergeability"
	}
}

// runAction keeps entry e (with `ahead` before it in the chain) consistent
// with its run.
func runAction(s *Snapshot, ahead []*Entry, e *Entry) Action {
	if e.RunID == "" {
		if e.State != StatePending {
			return Transition{EntryID: e.ID, To: StatePending, Reason: ReasonRestartedDependencyRemoved, Detail: "its test run ended"}
		}
		return nil
	}
	r := s.run(e.RunID)
	if r == nil || r.Status == RunCancelled {
		return Transition{EntryID: e.ID, To: StatePending, Reason: ReasonRestartedDependencyRemoved,
			Detail: "its test run was cancelled", ClearRun: true}
	}
	if ok, why := s.runValid(r, ahead); !ok {
		detail := "the target branch moved outside the queue"
		if why == ReasonRestartedDependencyRemoved {
			detail = "the pull requests ahead of it changed"
		}
		return Transition{EntryID: e.ID, To: StatePending, Reason: why, Detail: detail + "; testing again", ClearRun: true}
	}
	switch r.Status {
	case RunSucceeded:
		if e.State != StateTestsPassed {
			return Transition{EntryID: e.ID, To: StateTestsPassed, Reason: ReasonTestsPassed, Detail: r.FailureDetail}
		}
	case RunFailed:
		for _, a := range ahead {
			if a.State != StateTestsPassed {
				detail := fmt.Sprintf("tests failed; waiting for #%d ahead to decide whether it caused the failure", a.PRNumber)
				if e.State != StatePendingFailure || e.StateReasonDetail != detail {
					return Transition{EntryID: e.ID, To: StatePendingFailure, Reason: r.FailureReason, Detail: detail}
				}
				return nil
			}
		}
		return Transition{EntryID: e.ID, To: StateFailed, Reason: r.FailureReason, Detail: r.FailureDetail, ClearRun: true}
	}
	return nil
}

// startRun tests e on the target head plus every unit ahead, building on the
// commit of the run just ahead when it is still valid.
func startRun(s *Snapshot, ahead []*Entry, e *Entry) StartRun {
	if n := len(ahead); n > 0 {
		if prev := s.run(ahead[n-1].RunID); prev != nil && prev.SHA != "" {
			return StartRun{Unit: []string{e.ID}, Ahead: append(append([]string{}, prev.Ahead...), prev.EntryIDs...),
				BaseSHA: prev.BaseSHA, From: prev.SHA, Merge: []string{e.ID}}
		}
	}
	return StartRun{Unit: []string{e.ID}, Ahead: ids(ahead), BaseSHA: s.TargetHead, From: s.TargetHead,
		Merge: append(ids(ahead), e.ID)}
}

func contains(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

func short(sha string) string {
	if len(sha) > 7 {
		return sha[:7]
	}
	return sha
}

// prList formats PR numbers as "#1, #2".
func prList(nums []int) string {
	parts := make([]string, len(nums))
	for i, n := range nums {
		parts[i] = fmt.Sprintf("#%d", n)
	}
	return strings.Join(parts, ", ")
}
