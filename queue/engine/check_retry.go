package engine

import (
	"fmt"

	"github.com/mergequeue/mq/queue"
)

// RetryFailedCheck ends a chain run that failed on a required check and
// tries its unit again on a new test commit with the same tree
// (Settings.CheckRetries): its PRs go back to pending keeping their place,
// and the runs behind wait as for any undecided failure. Detail says what
// failed and which attempt comes next ("attempt 2 of 3").
type RetryFailedCheck struct {
	RunID string
	// Failure is what failed (EvaluateChecks' detail), kept for the
	// detail of the attempt that decides.
	Failure string
	Detail  string
	// Attempt is the attempt that comes next (2 for the first retry), of
	// Of in all (CheckRetries + 1): the service says so when it re-runs
	// the failed check in place instead.
	Attempt, Of int
}

func (RetryFailedCheck) isAction() {}

// checkRetry decides whether run r, which failed on a check (failure),
// is tried again: a chain run (not a bisection or isolation run) whose
// entries all have attempts left, within the queue's retry budget
// (Snapshot.RetryBudget). nil: the failure goes its usual way.
func (p *planner) checkRetry(r *queue.TestRun, failure string) Action {
	retries := p.q.Settings.CheckRetries
	if retries <= 0 || r.Bisection || r.Isolation || p.s.RetryBudget <= 0 {
		return nil
	}
	attempts := 0
	for _, id := range r.EntryIDs {
		e := p.s.Entry(id)
		if e == nil {
			return nil
		}
		attempts = max(attempts, e.CheckAttempts)
	}
	if attempts >= retries {
		return nil
	}
	return RetryFailedCheck{RunID: r.ID, Failure: failure, Attempt: attempts + 2, Of: retries + 1,
		Detail: fmt.Sprintf("%s; trying again on a new test commit: attempt %d of %d", failure, attempts+2, retries+1)}
}
