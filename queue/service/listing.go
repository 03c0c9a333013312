package service

import (
	"context"
	"errors"
	"fmt"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/engine"
)

// MaxListTake is the largest page ListPullRequests serves.
const MaxListTake = 100

// ListPullRequests lists a queue's entries, active or ended, newest first
// by ActivityAt (see EntryQuery; its QueueID is set here), each as
// getSubmittedPullRequest shows it. ErrNotFound if the queue is unknown; an
// *InputError if the limit is outside 1..MaxListTake+1 (a caller paging
// asks for one more entry than its page to learn whether more follow).
func (s *Service) ListPullRequests(ctx context.Context, key queue.QueueKey, query queue.EntryQuery) ([]*queue.SubmittedPR, error) {
	if query.Limit < 1 || query.Limit > MaxListTake+1 {
		return nil, queue.Inputf("take must be between 1 and %d, got %d", MaxListTake, query.Limit)
	}
	q, err := s.store.GetQueue(ctx, key)
	if err != nil {
		return nil, fmt.Errorf("failed to load queue %s: %w", key, err)
	}
	query.QueueID = q.ID
	entries, err := s.store.ListEntries(ctx, query)
	if err != nil {
		return nil, fmt.Errorf("failed to list entries of %s: %w", key, err)
	}
	active, err := s.store.ListActiveEntries(ctx, q.ID)
	if err != nil {
		return nil, fmt.Errorf("failed to list active entries of %s: %w", key, err)
	}
	position := map[string]int{}
	for i, e := range (&engine.Snapshot{Entries: active}).Ordered() {
		position[e.ID] = i + 1
	}
	out := make([]*queue.SubmittedPR, 0, len(entries))
	for _, e := range entries {
		sub, err := s.describeEntry(ctx, q, e, position[e.ID])
		if err != nil {
			return nil, err
		}
		out = append(out, sub)
	}
	return out, nil
}

// describeEntry builds the getSubmittedPullRequest view of an entry whose
// 1-based position among admitted entries is pos (0 if none).
func (s *Service) describeEntry(ctx context.Context, q *queue.Queue, e *queue.Entry, pos int) (*queue.SubmittedPR, error) {
	sub := &queue.SubmittedPR{Entry: e, TestRunID: e.RunID, IsCurrentlySubmitted: e.Active(), QueuePosition: pos}
	sub.Readiness = queue.Readiness{
		RequiresImpactedTargets: q.Settings.Mode == queue.ModeParallel,
		DoesBaseBranchMatch:     e.PR.BaseBranch == q.Key.Branch,
		GitHubMergeability:      mergeability(e.PR),
	}
	t, err := s.store.GetTargets(ctx, q.ID, e.PRNumber)
	switch {
	case err == nil:
		sub.Readiness.HasImpactedTargets = t.SHA == e.PRSHA || (e.PR.HeadSHA != "" && t.SHA == e.PR.HeadSHA)
	case !errors.Is(err, queue.ErrNotFound):
		return nil, fmt.Errorf("failed to load impacted targets of #%d: %w", e.PRNumber, err)
	}
	return sub, nil
}
