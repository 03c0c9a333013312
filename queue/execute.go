package queue

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/mergequeue/mq/queue/crashpoint"
)

// execute carries out one action. head is the target head the Sync works
// with; merges update it.
func (s *Service) execute(ctx context.Context, snap *Snapshot, a Action, head *string) error {
	switch a := a.(type) {
	case Transition:
		if a.To == StateFailed {
			// Like a merge, a failure is final: read the PR first, so that
			// one merged, closed or pushed while its webhook is missing ends
			// for that reason instead.
			if stale, err := s.prMovedOn(ctx, snap, a.EntryID); stale || err != nil {
				return err
			}
		}
		return s.transition(ctx, snap.Queue, a)
	case FinishRun:
		return s.finishRun(ctx, snap, a)
	case CloseRun:
		return s.closeRun(ctx, snap.Queue, a.RunID)
	case StartRun:
		return s.startRun(ctx, snap, a)
	case Merge:
		return s.merge(ctx, snap, a, head)
	case ResolveMerge:
		return s.resolveMerge(ctx, snap, a, head)
	case ApplyMode:
		return s.applyMode(ctx, snap.Queue)
	case DirectMerge:
		return s.directMerge(ctx, snap, a, head)
	default:
		return fmt.Errorf("unknown action %T", a)
	}
}

// prMovedOn reads the entry's PR fresh and reports whether it was merged,
// closed or pushed since the queue last heard; if so it stores the facts
// (the engine then ends the entry for that reason). A PR GitHub no longer
// has counts as unchanged: the engine's own decision stands.
func (s *Service) prMovedOn(ctx context.Context, snap *Snapshot, entryID string) (bool, error) {
	e := snap.entry(entryID)
	if e == nil {
		return false, nil
	}
	pr, err := s.gh.GetPullRequest(ctx, snap.Queue.Key.Repo, e.PRNumber)
	if errors.Is(err, ErrPRNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("failed to read #%d before failing it: %w", e.PRNumber, err)
	}
	if pr.Merged || !pr.Open || pr.HeadSHA != e.PRSHA {
		return true, s.storeFacts(ctx, e.ID, pr.PRFacts)
	}
	return false, nil
}

// transition applies a state change, closes a run nobody uses any more,
// and tells the PR.
func (s *Service) transition(ctx context.Context, q *Queue, t Transition) error {
	e, err := s.store.GetEntryByID(ctx, t.EntryID)
	if err != nil {
		return fmt.Errorf("failed to load entry %s: %w", t.EntryID, err)
	}
	from, oldDetail := e.State, e.StateReasonDetail
	shown := from != t.To || (oldDetail != t.Detail && !t.Quiet)
	var orphan string
	err = s.store.WithTx(ctx, func(tx Store) error {
		now := s.now()
		if from != t.To {
			e.StateChangedAt = now
		}
		e.State, e.StateReason, e.StateReasonDetail = t.To, t.Reason, t.Detail
		if from == StateNotReady && t.To == StatePending {
			e.AdmittedAt = now
			e.Seq = q.NextSeq
			q.NextSeq++
			if err := tx.UpdateQueue(ctx, q); err != nil {
				return err
			}
		}
		if t.To == StatePending && (from == StateTesting || from == StateTestsPassed || from == StatePendingFailure) {
			e.Restarts++
		}
		e.Vouched = t.Reason == ReasonVouched || (e.Vouched && t.To == StateTestsPassed)
		if (t.ClearRun && t.Reason != ReasonRestartedByUser) || t.To.Terminal() {
			e.Position = 0 // its place is no longer frozen
		}
		if t.To.Terminal() {
			e.ConcludedAt = now
			e.MergeIntent = false
			e.BlockedBy = ""
		}
		runID := e.RunID
		if t.ClearRun && e.RunID != "" {
			orphan = e.RunID
			e.RunID = ""
		}
		if err := tx.SaveEntry(ctx, e); err != nil {
			return err
		}
		// The log holds state changes, and a new test run of an entry
		// already testing (a bisection, a restart in place).
		var ev *Event
		if from != t.To || (t.To == StateTesting && oldDetail != t.Detail) {
			ev = &Event{QueueID: q.ID, EntryID: e.ID, PRNumber: e.PRNumber, At: now,
				From: from, To: t.To, Reason: t.Reason, Detail: t.Detail, RunID: runID}
			if err := tx.AddEvent(ctx, ev); err != nil {
				return err
			}
		}
		if !shown {
			return nil
		}
		return showChange(ctx, tx, q, e, from, ev)
	})
	if err != nil {
		return fmt.Errorf("failed to move #%d to %s: %w", e.PRNumber, t.To, err)
	}
	zerolog.Ctx(ctx).Info().Int("pr", e.PRNumber).Str("from", string(from)).Str("to", string(t.To)).
		Str("reason", string(t.Reason)).Str("detail", t.Detail).Msg("entry state changed")
	if t.To.Terminal() {
		s.mu.Lock()
		delete(s.directChecked, e.ID)
		delete(s.lastPolled, e.ID)
		s.mu.Unlock()
	}
	if orphan != "" {
		if err := s.closeRunIfUnused(ctx, q, orphan); err != nil {
			return err
		}
	}
	if shown {
		s.rec.Wake()
	}
	return nil
}

// finishRun records a run's result.
func (s *Service) finishRun(ctx context.Context, snap *Snapshot, f FinishRun) error {
	r := snap.run(f.RunID)
	if r == nil {
		return fmt.Errorf("run %s is not open", f.RunID)
	}
	r.Status, r.FailureReason, r.FailureDetail, r.FinishedAt = f.Status, f.Reason, f.Detail, s.now()
	if err := s.store.SaveRun(ctx, r); err != nil {
		return fmt.Errorf("failed to save result of run %s: %w", r.ID, err)
	}
	zerolog.Ctx(ctx).Info().Str("run", r.ID).Str("status", string(f.Status)).Str("detail", f.Detail).Msg("test run finished")
	return nil
}

// closeRunIfUnused closes a run once no active entry refers to it.
func (s *Service) closeRunIfUnused(ctx context.Context, q *Queue, runID string) error {
	entries, err := s.store.ListActiveEntries(ctx, q.ID)
	if err != nil {
		return fmt.Errorf("failed to list entries: %w", err)
	}
	for _, e := range entries {
		if e.RunID == runID {
			return nil
		}
	}
	return s.closeRun(ctx, q, runID)
}

// closeRun marks a run closed (cancelled if undecided) and deletes its
// branch at once, so its CI stops counting against the queue's
// concurrency; a delete that fails is left to the reconciler, which deletes
// every recorded branch no live run owns.
func (s *Service) closeRun(ctx context.Context, q *Queue, runID string) error {
	r, err := s.store.GetRun(ctx, runID)
	if err != nil {
		return fmt.Errorf("failed to load run %s: %w", runID, err)
	}
	if r.Closed {
		return nil
	}
	if !r.Status.Decided() {
		r.Status = RunCancelled
		r.FinishedAt = s.now()
	}
	r.Closed = true
	if err := s.store.SaveRun(ctx, r); err != nil {
		return fmt.Errorf("failed to close run %s: %w", runID, err)
	}
	if r.Branch != "" {
		if err := s.gh.DeleteBranch(ctx, q.Key.Repo, r.Branch); err != nil {
			zerolog.Ctx(ctx).Warn().Err(err).Str("branch", r.Branch).Msg("failed to delete test branch; the reconciler will")
			s.rec.Wake()
			return nil
		}
		if err := s.store.ForgetRef(ctx, q.Key.Repo, r.Branch); err != nil {
			return fmt.Errorf("failed to forget branch %s: %w", r.Branch, err)
		}
	}
	return nil
}

// requiredChecks resolves what a run must pass: the queue's override, else
// branch protection. ok is false when nothing is required by either.
func (s *Service) requiredChecks(ctx context.Context, q *Queue) ([]string, bool, error) {
	if q.Settings.RequiredStatuses != nil {
		return append([]string{}, q.Settings.RequiredStatuses...), true, nil
	}
	now := s.now()
	s.mu.Lock()
	c, ok := s.protection[q.ID]
	s.mu.Unlock()
	if ok && now.Sub(c.at) < s.opts.ReconcileEvery {
		return append([]string{}, c.checks...), len(c.checks) > 0, nil
	}
	req, err := s.gh.RequiredChecks(ctx, q.Key.Repo, q.Key.Branch)
	if err != nil {
		return nil, false, fmt.Errorf("failed to read branch protection of %s: %w", q.Key.Branch, err)
	}
	s.mu.Lock()
	s.protection[q.ID] = protectionRead{checks: req, at: now}
	s.mu.Unlock()
	return req, len(req) > 0, nil
}

// protectionRead is a branch protection's required checks as read at a
// time; it is reused for one reconcile interval, so a burst of test runs
// reads it once and a change made on GitHub applies within the interval.
type protectionRead struct {
	checks []string
	at     time.Time
}

// startRun builds the test branch and starts the run (intent first: a run
// left "building" by a crash is closed by the engine).
func (s *Service) startRun(ctx context.Context, snap *Snapshot, a StartRun) error {
	q := snap.Queue
	unit := make([]*Entry, len(a.Unit))
	for i, id := range a.Unit {
		if unit[i] = snap.entry(id); unit[i] == nil {
			return fmt.Errorf("entry %s is not active", id)
		}
	}
	required, ok, err := s.requiredChecks(ctx, q)
	if err != nil {
		return err
	}
	if !ok {
		for _, e := range unit {
			if err := s.transition(ctx, q, Transition{EntryID: e.ID, To: StateFailed, Reason: ReasonNoRequiredStatuses,
				Detail: fmt.Sprintf("branch protection of %s requires no status checks and the queue sets no requiredStatuses: refusing to merge untested code", q.Key.Branch)}); err != nil {
				return err
			}
		}
		return nil
	}
	run := &TestRun{ID: s.opts.NewID(), QueueID: q.ID, EntryIDs: a.Unit, Ahead: a.Ahead, BaseSHA: a.BaseSHA,
		RequiredChecks: required, Status: RunBuilding, CreatedAt: s.now(), Bisection: a.Bisection, Parent: a.Parent}
	for _, e := range unit {
		run.PRNumbers = append(run.PRNumbers, e.PRNumber)
		run.PRSHAs = append(run.PRSHAs, e.PRSHA)
	}
	run.Branch = fmt.Sprintf("mq-merge/pr-%d/%s", unit[0].PRNumber, run.ID)
	if run.Bisection {
		run.Branch += "-bisection"
	}
	spec := BranchSpec{From: a.From, Temp: ScratchPrefix + s.opts.NewID(), Name: run.Branch, UnitSize: len(unit)}
	done, err := s.recordBranches(ctx, q, run.ID, spec.Temp, spec.Name)
	if err != nil {
		return err
	}
	defer done()
	if err := s.store.SaveRun(ctx, run); err != nil {
		return fmt.Errorf("failed to record run intent: %w", err)
	}
	crashpoint.Hit("run-intent-recorded")
	for _, id := range a.Merge {
		e := snap.entry(id)
		if e == nil {
			return fmt.Errorf("entry %s is not active", id)
		}
		spec.Heads = append(spec.Heads, MergeHead{PRNumber: e.PRNumber, SHA: e.PRSHA,
			Message: fmt.Sprintf("Merge #%d (%s) into merge queue test branch", e.PRNumber, e.PR.Title)})
	}
	sha, buildErr := s.gh.BuildBranch(ctx, q.Key.Repo, spec)
	s.forgetScratch(ctx, q.Key.Repo, spec.Temp)
	if buildErr != nil {
		run.Branch = "" // BuildBranch publishes nothing on failure
		if err := s.closeRunRecord(ctx, run); err != nil {
			return err
		}
		var conflict *ConflictError
		if errors.As(buildErr, &conflict) && conflict.Index >= 0 && conflict.Index < len(a.Merge) {
			// Whatever merged before the conflicting head is what it may
			// conflict with: the entries ahead, then the unit's own before it.
			var before []string
			for _, id := range append(append([]string{}, a.Ahead...), a.Merge[:conflict.Index]...) {
				if !contains(before, id) {
					before = append(before, id)
				}
			}
			if e := snap.entry(a.Merge[conflict.Index]); e != nil {
				return s.onConflict(ctx, snap, e, before)
			}
		}
		return fmt.Errorf("failed to build test branch: %w", buildErr)
	}
	run.SHA, run.Status, run.StartedAt = sha, RunInProgress, s.now()
	if err := s.store.SaveRun(ctx, run); err != nil {
		return fmt.Errorf("failed to start run %s: %w", run.ID, err)
	}
	var aheadNums []int
	for _, id := range a.Ahead {
		if e := snap.entry(id); e != nil {
			aheadNums = append(aheadNums, e.PRNumber)
		}
	}
	detail := fmt.Sprintf("testing on %s", q.Key.Branch)
	if len(aheadNums) > 0 {
		detail += " with " + prList(aheadNums) + " ahead"
	}
	if run.Bisection {
		detail = fmt.Sprintf("bisecting a failed batch: testing %s", prList(run.PRNumbers))
		if len(aheadNums) > 0 {
			detail += " with " + prList(aheadNums) + " ahead"
		}
	}
	var previous []string
	err = s.store.WithTx(ctx, func(tx Store) error {
		for _, e := range unit {
			if e.RunID != "" && !contains(previous, e.RunID) {
				previous = append(previous, e.RunID)
			}
			e.RunID, e.BlockedBy = run.ID, ""
			if e.Position == 0 {
				e.Position = q.NextSeq
				q.NextSeq++
			}
			if err := tx.SaveEntry(ctx, e); err != nil {
				return err
			}
		}
		return tx.UpdateQueue(ctx, q)
	})
	if err != nil {
		return fmt.Errorf("failed to attach run %s: %w", run.ID, err)
	}
	for _, e := range unit {
		if err := s.transition(ctx, q, Transition{EntryID: e.ID, To: StateTesting, Reason: ReasonTesting, Detail: detail}); err != nil {
			return err
		}
	}
	zerolog.Ctx(ctx).Info().Str("run", run.ID).Str("branch", run.Branch).Str("sha", sha).Ints("prs", run.PRNumbers).Msg("test run started")
	for _, id := range previous {
		if err := s.closeRunIfUnused(ctx, q, id); err != nil {
			return err
		}
	}
	return nil
}

func (s *Service) closeRunRecord(ctx context.Context, r *TestRun) error {
	r.Status, r.Closed, r.FinishedAt = RunCancelled, true, s.now()
	if err := s.store.SaveRun(ctx, r); err != nil {
		return fmt.Errorf("failed to close run %s: %w", r.ID, err)
	}
	return nil
}

// onConflict handles an entry whose PR did not merge cleanly onto its
// predicted base (SPEC §5.9): a conflict with the target branch alone fails
// it; a conflict with a unit ahead makes it wait for that unit.
func (s *Service) onConflict(ctx context.Context, snap *Snapshot, e *Entry, before []string) error {
	q := snap.Queue
	head := MergeHead{PRNumber: e.PRNumber, SHA: e.PRSHA, Message: "conflict check"}
	conflicts := func(from string, heads ...MergeHead) (bool, error) {
		spec := BranchSpec{From: from, Heads: heads, Temp: ScratchPrefix + s.opts.NewID(), Name: ScratchPrefix + "check-" + s.opts.NewID()}
		done, err := s.recordBranches(ctx, q, "", spec.Temp, spec.Name)
		if err != nil {
			return false, err
		}
		defer done()
		_, err = s.gh.BuildBranch(ctx, q.Key.Repo, spec)
		s.forgetScratch(ctx, q.Key.Repo, spec.Temp)
		var c *ConflictError
		if errors.As(err, &c) {
			return c.Index == len(heads)-1, nil
		}
		if err != nil {
			return false, err
		}
		s.rec.Wake() // the probe's branch is dead: the reconciler deletes it
		return false, nil
	}
	alone, err := conflicts(snap.TargetHead, head)
	if err != nil {
		return fmt.Errorf("failed to check #%d against %s: %w", e.PRNumber, q.Key.Branch, err)
	}
	if alone {
		return s.transition(ctx, q, Transition{EntryID: e.ID, To: StateFailed, Reason: ReasonMergeConflict,
			Detail: fmt.Sprintf("the pull request conflicts with %s; rebase it and submit again", q.Key.Branch)})
	}
	// Find the nearest entry before it that it conflicts with on its own.
	var blocker *Entry
	for i := len(before) - 1; i >= 0 && blocker == nil; i-- {
		other := snap.entry(before[i])
		if other == nil || !other.Active() {
			continue
		}
		c, err := conflicts(snap.TargetHead, MergeHead{PRNumber: other.PRNumber, SHA: other.PRSHA, Message: "conflict check"}, head)
		if err != nil {
			return fmt.Errorf("failed to check #%d against #%d: %w", e.PRNumber, other.PRNumber, err)
		}
		if c {
			blocker = other
		}
	}
	if blocker == nil {
		for i := len(before) - 1; i >= 0 && blocker == nil; i-- {
			if o := snap.entry(before[i]); o != nil && o.Active() {
				blocker = o
			}
		}
	}
	if blocker == nil {
		return fmt.Errorf("conflict building #%d with nothing active ahead", e.PRNumber)
	}
	e.BlockedBy = blocker.ID
	if err := s.store.SaveEntry(ctx, e); err != nil {
		return fmt.Errorf("failed to save conflict wait: %w", err)
	}
	return s.transition(ctx, q, Transition{EntryID: e.ID, To: StatePending, Reason: e.StateReason,
		Detail:   fmt.Sprintf("conflicts with #%d ahead in the queue; waiting for it to merge or leave", blocker.PRNumber),
		ClearRun: e.RunID != ""})
}

// mergeTitle finds a "merge-commit-title: <title>" line in a PR body.
func mergeTitle(body string) string {
	for _, line := range strings.Split(body, "\n") {
		line = strings.TrimSpace(line)
		if len(line) > len("merge-commit-title:") && strings.EqualFold(line[:len("merge-commit-title:")], "merge-commit-title:") {
			return strings.TrimSpace(line[len("merge-commit-title:"):])
		}
	}
	return ""
}

// backoff is the wait before merge attempt n+1 after a transient refusal.
func backoff(n int) time.Duration {
	d := time.Second << min(n, 5)
	return min(d, 30*time.Second)
}

// applyMode ends switching_modes (SPEC §4).
func (s *Service) applyMode(ctx context.Context, q *Queue) error {
	if q.PendingMode != "" {
		q.Settings.Mode = q.PendingMode
	}
	q.PendingMode = ""
	q.State, q.ResumeState = q.ResumeState, ""
	if q.State == "" || q.State == QueueSwitchingModes {
		q.State = QueueRunning
	}
	q.UpdatedAt = s.now()
	if err := s.store.UpdateQueue(ctx, q); err != nil {
		return fmt.Errorf("failed to apply mode %s: %w", q.Settings.Mode, err)
	}
	zerolog.Ctx(ctx).Info().Str("mode", string(q.Settings.Mode)).Str("state", string(q.State)).Msg("queue switched modes")
	return nil
}
