package service

import (
	"context"
	"errors"
	"fmt"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/engine"
)

// CreateQueue creates a queue with the given settings and the defaults
// fixed at creation (queue.Settings.WithCreationDefaults) (ErrExists if the
// queue exists; *InputError if the key breaks the naming rules or the
// settings are invalid). Every stored queue has a valid key, so the
// workers only ever put valid names into GitHub paths.
func (s *Service) CreateQueue(ctx context.Context, key queue.QueueKey, settings queue.Settings) (*queue.Queue, error) {
	if err := key.Validate(); err != nil {
		return nil, &queue.InputError{Msg: err.Error()}
	}
	settings = settings.WithCreationDefaults()
	if err := settings.Validate(); err != nil {
		return nil, err
	}
	now := s.now()
	q := &queue.Queue{Key: key, State: queue.QueueRunning, Settings: settings, CreatedAt: now, UpdatedAt: now, NextSeq: 1}
	if err := s.store.CreateQueue(ctx, q); err != nil {
		return nil, fmt.Errorf("failed to create queue %s: %w", key, err)
	}
	s.opts.Wake(q.ID)
	return q, nil
}

// Submit puts a PR into a queue as not_ready (it is admitted once ready),
// reading the queue and then the PR from GitHub. Resubmitting an active
// entry only updates its priority and noBatch. A PR that ended keeps its
// entry ID. It refuses (*queue.Refusal) an unknown queue (RefusedNoQueue,
// wrapping queue.ErrNotFound), an unknown priority (RefusedInvalid, an
// *InputError), a PR GitHub does not know (RefusedUnknownPR, wrapping
// queue.ErrPRNotFound) and one of the queue's own test PRs (RefusedTestPR,
// an *InputError).
func (s *Service) Submit(ctx context.Context, req queue.SubmitRequest) (*queue.Entry, error) {
	q, err := s.store.GetQueue(ctx, req.Key)
	if err != nil {
		return nil, queueRefusal(req.Key, err)
	}
	prio, err := parsePriority(req.Priority)
	if err != nil {
		return nil, err
	}
	pr, err := s.gh.GetPullRequest(ctx, q.Key.Repo, req.PRNumber)
	if err != nil {
		return nil, prRefusal(req.PRNumber, err)
	}
	if err := testPRRefusal(q.Settings, req.PRNumber, pr.HeadRef); err != nil {
		return nil, err
	}
	return s.submit(ctx, q, pr, req, prio)
}

// priority is a parsed SubmitRequest.Priority.
type priority struct {
	value       int
	name        string
	usedDefault bool
}

// parsePriority parses a requested priority; an unknown one is refused.
func parsePriority(raw string) (priority, error) {
	value, name, usedDefault, err := queue.ParsePriority(raw)
	if err != nil {
		return priority{}, &queue.Refusal{Reason: queue.RefusedInvalid, Msg: err.Error(), Err: err}
	}
	return priority{value, name, usedDefault}, nil
}

// queueRefusal is the error for a failed lookup of the queue for key: a
// refusal when there is none.
func queueRefusal(key queue.QueueKey, err error) error {
	err = fmt.Errorf("failed to load queue %s: %w", key, err)
	if errors.Is(err, queue.ErrNotFound) {
		return &queue.Refusal{Reason: queue.RefusedNoQueue, Msg: fmt.Sprintf("there is no merge queue for branch %s", key.Branch), Err: err}
	}
	return err
}

// prRefusal is the error for a failed read of PR number: a refusal when
// GitHub does not know it.
func prRefusal(number int, err error) error {
	err = fmt.Errorf("failed to read pull request #%d: %w", number, err)
	if errors.Is(err, queue.ErrPRNotFound) {
		return &queue.Refusal{Reason: queue.RefusedUnknownPR, Msg: "GitHub does not know this pull request", Err: err}
	}
	return err
}

// testPRRefusal refuses PR number, whose head branch is headRef, when it
// is one of the own test PRs of the queue with settings qs
// (queue.IsOwnTestPR): the one place the service applies that rule.
func testPRRefusal(qs queue.Settings, number int, headRef string) error {
	if !queue.IsOwnTestPR(&qs, headRef) {
		return nil
	}
	input := queue.Inputf("#%d is one of the queue's own test PRs (branch %s): it cannot be queued", number, headRef)
	return &queue.Refusal{Reason: queue.RefusedTestPR, Msg: input.Error(), Err: input}
}

// submit puts PR req.PRNumber, as pr says GitHub reports it, into q:
// Submit without the reads.
// A save that finds the entry changed since it was read (another replica
// saved it) is redone on fresh state.
func (s *Service) submit(ctx context.Context, q *queue.Queue, pr *queue.PullRequest, req queue.SubmitRequest, prio priority) (*queue.Entry, error) {
	defer s.lock(q.ID)()
	var e *queue.Entry
	err := retryOnConflict(ctx, func() error {
		var err error
		e, err = s.submitOnce(ctx, q, pr, req, prio)
		return err
	})
	return e, err
}

// submitOnce is one try of submit; the caller holds the queue lock.
func (s *Service) submitOnce(ctx context.Context, q *queue.Queue, pr *queue.PullRequest, req queue.SubmitRequest, prio priority) (*queue.Entry, error) {
	value, name, usedDefault := prio.value, prio.name, prio.usedDefault
	e, err := s.store.GetEntry(ctx, q.ID, req.PRNumber)
	switch {
	case errors.Is(err, queue.ErrNotFound):
		e = &queue.Entry{ID: s.opts.NewID(), QueueID: q.ID, PRNumber: req.PRNumber}
	case err != nil:
		return nil, fmt.Errorf("failed to load entry for #%d: %w", req.PRNumber, err)
	}
	if e.Active() && e.State != "" {
		if req.Priority != "" {
			e.PriorityValue, e.PriorityName, e.UsedDefaultPriorityName = value, name, usedDefault
		}
		e.NoBatch = req.NoBatch
		e.Direct = e.Direct || req.Direct
		if err := s.store.SaveEntry(ctx, e); err != nil {
			return nil, fmt.Errorf("failed to update entry for #%d: %w", req.PRNumber, err)
		}
		s.opts.Wake(q.ID)
		return e, nil
	}
	now := s.now()
	submitter := req.Submitter
	if submitter == "" {
		submitter = pr.Author
	}
	from := e.State
	*e = queue.Entry{
		ID: e.ID, Version: e.Version, QueueID: q.ID, PRNumber: req.PRNumber, PRSHA: pr.HeadSHA, PR: pr.PRFacts,
		State: queue.StateNotReady, StateReason: queue.ReasonSubmitted, StateChangedAt: now,
		PriorityValue: value, PriorityName: name, UsedDefaultPriorityName: usedDefault,
		NoBatch: req.NoBatch, Direct: req.Direct, Submitter: submitter, Source: req.Source,
		SubmittedAt: now,
	}
	if ok, why := engine.Ready(q, e); !ok {
		e.StateReasonDetail = why
	}
	isNew := e.Version == 0
	err = s.store.WithTx(ctx, func(tx queue.Store) error {
		if err := tx.SaveEntry(ctx, e); err != nil {
			if isNew && errors.Is(err, queue.ErrExists) {
				// Another replica submitted the PR meanwhile: decide again
				// on its entry.
				return fmt.Errorf("%w: %w", queue.ErrConflict, err)
			}
			return err
		}
		ev := &queue.Event{QueueID: q.ID, EntryID: e.ID, PRNumber: e.PRNumber, At: now,
			From: from, To: queue.StateNotReady, Reason: queue.ReasonSubmitted, Detail: "submitted by @" + submitter + " (" + req.Source + ")"}
		if err := tx.AddEvent(ctx, ev); err != nil {
			return err
		}
		return showChange(ctx, tx, q, e, from, ev, nil)
	})
	if err != nil {
		return nil, fmt.Errorf("failed to save entry for #%d: %w", req.PRNumber, err)
	}
	s.rec.Wake()
	s.opts.Wake(q.ID)
	return e, nil
}

// Cancel removes a PR's active entry from a queue (ErrNotActive if none).
func (s *Service) Cancel(ctx context.Context, key queue.QueueKey, prNumber int, reason queue.Reason, detail string) (*queue.Entry, error) {
	q, err := s.store.GetQueue(ctx, key)
	if err != nil {
		return nil, fmt.Errorf("failed to load queue %s: %w", key, err)
	}
	return s.cancel(ctx, q, prNumber, reason, detail)
}

// cancel is Cancel on a loaded queue. A save that finds the entry changed
// since it was read (another replica saved it) is redone on fresh state.
func (s *Service) cancel(ctx context.Context, q *queue.Queue, prNumber int, reason queue.Reason, detail string) (*queue.Entry, error) {
	defer s.lock(q.ID)()
	var e *queue.Entry
	err := retryOnConflict(ctx, func() error {
		var err error
		e, err = s.cancelOnce(ctx, q, prNumber, reason, detail)
		return err
	})
	return e, err
}

// cancelOnce is one try of cancel; the caller holds the queue lock.
func (s *Service) cancelOnce(ctx context.Context, q *queue.Queue, prNumber int, reason queue.Reason, detail string) (*queue.Entry, error) {
	e, err := s.store.GetEntry(ctx, q.ID, prNumber)
	if errors.Is(err, queue.ErrNotFound) || (err == nil && !e.Active()) {
		return nil, fmt.Errorf("#%d in %s: %w", prNumber, q.Key, queue.ErrNotActive)
	}
	if err != nil {
		return nil, fmt.Errorf("failed to load entry for #%d: %w", prNumber, err)
	}
	if e.MergeIntent {
		// A merge is in flight: it may land. The cancellation applies once
		// it is settled, if the PR did not merge.
		e.CancelReason, e.CancelDetail = reason, detail
		if err := s.store.SaveEntry(ctx, e); err != nil {
			return nil, fmt.Errorf("failed to record the cancellation of #%d: %w", prNumber, err)
		}
		s.opts.Wake(q.ID)
		return e, nil
	}
	var fx effects
	if err := s.transition(ctx, &fx, q, engine.Transition{EntryID: e.ID, To: queue.StateCancelled, Reason: reason, Detail: detail, ClearRun: true}); err != nil {
		return nil, err
	}
	s.leaveToReconciler(&fx)
	s.opts.Wake(q.ID)
	return s.store.GetEntryByID(ctx, e.ID)
}

// leaveToReconciler drops the GitHub side of a change made for an API
// request or a webhook (the branch of a run it closed): no GitHub write
// happens there; the reconciler deletes branches no live run owns.
func (s *Service) leaveToReconciler(fx *effects) {
	if len(fx.io) > 0 || len(fx.commit) > 0 {
		s.rec.Wake()
	}
}

// CancelPR cancels a PR's active entries in every queue of the repository.
func (s *Service) CancelPR(ctx context.Context, repo queue.Repo, prNumber int, reason queue.Reason, detail string) ([]*queue.Entry, error) {
	active, err := s.store.FindActiveEntries(ctx, repo, prNumber)
	if err != nil {
		return nil, fmt.Errorf("failed to find entries of #%d: %w", prNumber, err)
	}
	out := []*queue.Entry{}
	for _, e := range active {
		q, err := s.store.GetQueueByID(ctx, e.QueueID)
		if err != nil {
			return out, fmt.Errorf("failed to load queue %d: %w", e.QueueID, err)
		}
		c, err := s.cancel(ctx, q, prNumber, reason, detail)
		if errors.Is(err, queue.ErrNotActive) {
			continue
		}
		if err != nil {
			return out, err
		}
		out = append(out, c)
	}
	return out, nil
}

// OnPullRequest records new facts about a PR in every queue where it is
// active, and wakes those queues.
func (s *Service) OnPullRequest(ctx context.Context, repo queue.Repo, pr queue.PullRequest) error {
	active, err := s.store.FindActiveEntries(ctx, repo, pr.Number)
	if err != nil {
		return fmt.Errorf("failed to find entries of #%d: %w", pr.Number, err)
	}
	if pr.ReadAt.IsZero() {
		pr.ReadAt = s.now()
	}
	for _, e := range active {
		if err := s.applyFacts(ctx, e.QueueID, e.ID, pr.PRFacts, false); err != nil {
			return err
		}
		s.opts.Wake(e.QueueID)
	}
	return nil
}

// OnCheck records a status or check run and wakes the queues testing that
// commit.
func (s *Service) OnCheck(ctx context.Context, repo queue.Repo, c queue.CheckResult) error {
	if c.UpdatedAt.IsZero() {
		c.UpdatedAt = s.now()
	}
	if err := s.store.RecordCheck(ctx, repo, c); err != nil {
		return fmt.Errorf("failed to record check %s on %s: %w", c.Name, queue.ShortSHA(c.SHA), err)
	}
	runs, err := s.store.FindRunsBySHA(ctx, repo, c.SHA)
	if err != nil {
		return fmt.Errorf("failed to find runs of %s: %w", queue.ShortSHA(c.SHA), err)
	}
	for _, r := range runs {
		s.opts.Wake(r.QueueID)
	}
	return nil
}

// OnPush wakes the queue whose target branch moved from before to sha,
// which then knows the new head without reading it (when before is the
// head it knew; else it reads the head again).
func (s *Service) OnPush(ctx context.Context, repo queue.Repo, branch, before, sha string) error {
	q, err := s.store.GetQueue(ctx, queue.QueueKey{Repo: repo, Branch: branch})
	if errors.Is(err, queue.ErrNotFound) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("failed to look up queue for %s: %w", branch, err)
	}
	s.heads.pushed(q.ID, before, sha, s.now())
	s.opts.Wake(q.ID)
	return nil
}

// Restart tests an active, admitted entry again: its run is dropped and a
// new one starts on the same predicted base; its position is unchanged and
// no other run restarts (SPEC §5.6). ErrNotActive if the PR is not active
// in the queue; *InputError if it is not admitted yet.
func (s *Service) Restart(ctx context.Context, key queue.QueueKey, prNumber int) (*queue.Entry, error) {
	q, err := s.store.GetQueue(ctx, key)
	if err != nil {
		return nil, fmt.Errorf("failed to load queue %s: %w", key, err)
	}
	defer s.lock(q.ID)()
	e, err := s.store.GetEntry(ctx, q.ID, prNumber)
	if errors.Is(err, queue.ErrNotFound) || (err == nil && !e.Active()) {
		return nil, fmt.Errorf("#%d in %s: %w", prNumber, q.Key, queue.ErrNotActive)
	}
	if err != nil {
		return nil, fmt.Errorf("failed to load entry for #%d: %w", prNumber, err)
	}
	if e.State == queue.StateNotReady {
		return nil, queue.Inputf("#%d is not admitted to the queue yet: %s", prNumber, e.StateReasonDetail)
	}
	if e.MergeIntent {
		return nil, queue.Inputf("#%d is being merged", prNumber)
	}
	if e.RunID != "" {
		var fx effects
		if err := s.transition(ctx, &fx, q, engine.Transition{EntryID: e.ID, To: queue.StatePending, Reason: queue.ReasonRestartedByUser,
			Detail: "tests restarted on request", ClearRun: true}); err != nil {
			return nil, err
		}
		s.leaveToReconciler(&fx)
	}
	s.opts.Wake(q.ID)
	return s.store.GetEntryByID(ctx, e.ID)
}
