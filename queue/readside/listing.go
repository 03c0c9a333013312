package readside

import (
	"context"
	"errors"
	"fmt"

	"github.com/mergequeue/mq/queue"
)

// MaxListTake is the largest page ListPullRequests serves.
const MaxListTake = 100

// ListPullRequests lists a queue's entries, active or ended, newest first
// by ActivityAt (see EntryQuery; its QueueID is set here), each as
// getSubmittedPullRequest shows it. ErrNotFound if the queue is unknown; an
// *InputError if the limit is outside 1..MaxListTake+1 (a caller paging
// asks for one more entry than its page to learn whether more follow).
func (r *Reads) ListPullRequests(ctx context.Context, key queue.QueueKey, query queue.EntryQuery) ([]*queue.SubmittedPR, error) {
	if query.Limit < 1 || query.Limit > MaxListTake+1 {
		return nil, queue.Inputf("take must be between 1 and %d, got %d", MaxListTake, query.Limit)
	}
	q, err := r.store.GetQueue(ctx, key)
	if err != nil {
		return nil, fmt.Errorf("failed to load queue %s: %w", key, err)
	}
	query.QueueID = q.ID
	entries, err := r.store.ListEntries(ctx, query)
	if err != nil {
		return nil, fmt.Errorf("failed to list entries of %s: %w", key, err)
	}
	active, err := r.store.ListActiveEntries(ctx, q.ID)
	if err != nil {
		return nil, fmt.Errorf("failed to list active entries of %s: %w", key, err)
	}
	position := map[string]int{}
	for i, e := range queue.InQueueOrder(active) {
		position[e.ID] = i + 1
	}
	out := make([]*queue.SubmittedPR, 0, len(entries))
	for _, e := range entries {
		sub, err := r.describeEntry(ctx, q, e, position[e.ID])
		if err != nil {
			return nil, err
		}
		out = append(out, sub)
	}
	return out, nil
}

// describeEntry builds the getSubmittedPullRequest view of an entry whose
// 1-based position among admitted entries is pos (0 if none).
func (r *Reads) describeEntry(ctx context.Context, q *queue.Queue, e *queue.Entry, pos int) (*queue.SubmittedPR, error) {
	sub := &queue.SubmittedPR{Entry: e, TestRunID: e.RunID, IsCurrentlySubmitted: e.Active(), QueuePosition: pos}
	sub.Readiness = queue.Readiness{
		RequiresImpactedTargets: q.Settings.Mode == queue.ModeParallel,
		DoesBaseBranchMatch:     e.PR.BaseBranch == q.Key.Branch,
		GitHubMergeability:      mergeability(e.PR),
	}
	t, err := r.store.GetTargets(ctx, q.ID, e.PRNumber)
	switch {
	case err == nil:
		sub.Readiness.HasImpactedTargets = t.SHA == e.PRSHA || (e.PR.HeadSHA != "" && t.SHA == e.PR.HeadSHA)
	case !errors.Is(err, queue.ErrNotFound):
		return nil, fmt.Errorf("failed to load impacted targets of #%d: %w", e.PRNumber, err)
	}
	if sub.VerifiedByTestRun, err = r.verifiedBy(ctx, q, e); err != nil {
		return nil, err
	}
	return sub, nil
}

// verifiedBy is the test run whose result decided e's state
// (queue.SubmittedPR.VerifiedByTestRun), or "". An active entry names its
// run; an ended one, the run named by its last event, the one that ended
// it. The run must have the result the state rests on: passed for
// tests_passed (unless vouched for) and a merge by the queue, failed for
// pending_failure, and failed with the entry's reason for failed.
func (r *Reads) verifiedBy(ctx context.Context, q *queue.Queue, e *queue.Entry) (string, error) {
	var want queue.RunStatus
	switch {
	case e.State == queue.StateTestsPassed && !e.Vouched,
		e.State == queue.StateMerged && e.StateReason == queue.ReasonMergedByQueue:
		want = queue.RunSucceeded
	case e.State == queue.StatePendingFailure, e.State == queue.StateFailed:
		want = queue.RunFailed
	default:
		return "", nil
	}
	runID := e.RunID
	if !e.Active() {
		ev, err := r.store.LastEvent(ctx, q.ID, e.ID)
		switch {
		case errors.Is(err, queue.ErrNotFound):
			return "", nil // past the event log's retention
		case err != nil:
			return "", fmt.Errorf("failed to load the last event of #%d: %w", e.PRNumber, err)
		case ev.To != e.State:
			return "", nil
		}
		runID = ev.RunID
	}
	if runID == "" {
		return "", nil
	}
	run, err := r.store.GetRun(ctx, runID)
	switch {
	case errors.Is(err, queue.ErrNotFound):
		return "", nil
	case err != nil:
		return "", fmt.Errorf("failed to load run %s of #%d: %w", runID, e.PRNumber, err)
	case run.Status != want, e.State == queue.StateFailed && run.FailureReason != e.StateReason:
		return "", nil
	}
	return run.ID, nil
}

// mergeability is how readiness shows GitHub's mergeability of a PR.
func mergeability(f queue.PRFacts) string {
	switch {
	case f.ReadAt.IsZero():
		return "unspecified"
	case f.MergeableState == "dirty" || (f.Mergeable != nil && !*f.Mergeable):
		return "not_mergeable"
	case f.Mergeable == nil && (f.MergeableState == "" || f.MergeableState == "unknown"):
		return "in_progress"
	default:
		return "mergeable"
	}
}
