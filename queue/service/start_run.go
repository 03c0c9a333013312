package service

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/rs/zerolog"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/crashpoint"
	"github.com/mergequeue/mq/queue/engine"
)

// startRun records a run's intent (the run, building, and its branches)
// under the lock, builds its test branch without it, then starts the run:
// its entries go testing. A run whose entries changed while it was being
// built is closed instead; a build that conflicted records the conflict on
// the entry that did not merge, for the engine to probe (SPEC §5.9).
func (s *Service) startRun(ctx context.Context, fx *effects, snap *engine.Snapshot, a engine.StartRun) error {
	q := snap.Queue
	unit := make([]*queue.Entry, len(a.Unit))
	for i, id := range a.Unit {
		if unit[i] = snap.Entry(id); unit[i] == nil {
			return fmt.Errorf("entry %s is not active", id)
		}
	}
	// A run must pass the required checks; a part of a failed batch, what
	// the batch had to pass.
	required := []string{}
	if snap.Required != nil {
		required = append(required, snap.Required.Names...)
	}
	if parent := snap.Run(a.Parent); a.Bisection && parent != nil {
		required = append([]string{}, parent.RequiredChecks...)
	}
	run := &queue.TestRun{ID: s.opts.NewID(), QueueID: q.ID, EntryIDs: a.Unit, Ahead: a.Ahead, BaseSHA: a.BaseSHA,
		RequiredChecks: required, Status: queue.RunBuilding, CreatedAt: s.now(), Bisection: a.Bisection, Parent: a.Parent,
		Isolation: a.Isolation}
	run.RequiredSource = queue.RequiredSourceFor(q.Settings, snap.Run(a.Parent)) // getMergeQueueTestingDetails' requiredStatusesSource
	for _, e := range unit {
		run.PRNumbers = append(run.PRNumbers, e.PRNumber)
		run.PRSHAs = append(run.PRSHAs, e.PRSHA)
	}
	run.Branch = queue.TestBranchName(q.Settings.EffectiveTestBranchPrefix(), unit[0].PRNumber, run.ID, run.Bisection)
	lane, err := s.lane(ctx, q)
	if err != nil {
		return err
	}
	dead, err := s.deadBranches(ctx, q.Key.Repo)
	if err != nil {
		return err
	}
	spec := queue.BranchSpec{From: a.From, Temp: lane, KeepTemp: true, TempAt: s.lanes.get(q.ID), Name: run.Branch,
		UnitSize: len(unit), Delete: dead, Publishing: s.recordRunSHA(q.ID, run.ID)}
	for _, id := range a.Merge {
		e := snap.Entry(id)
		if e == nil {
			return fmt.Errorf("entry %s is not active", id)
		}
		msg := fmt.Sprintf("Merge #%d (%s) into merge queue test branch", e.PRNumber, e.PR.Title)
		// A unit tried again (a check failed, or none started) gets a new
		// test commit, not the one whose checks are recorded: the attempt
		// is in its merge message.
		if n := e.CheckAttempts + e.ChecksMissing; n > 0 && slices.Contains(a.Unit, id) {
			msg += fmt.Sprintf(" (attempt %d)", n+1)
		}
		spec.Heads = append(spec.Heads, queue.MergeHead{PRNumber: e.PRNumber, SHA: e.PRSHA, Message: msg})
	}
	// The run (building) is saved before its branch is recorded: a
	// recorded branch always has its run, so the clean-up of any replica
	// leaves it alone while the run is building, and, meanwhile, leaves to
	// this build the dead branches it deletes (Reconciler.cleanRecorded). A
	// crash in between leaves a building run and no branch: the engine
	// closes the run.
	if err := s.store.SaveRun(ctx, run); err != nil {
		return fmt.Errorf("failed to record run intent: %w", err)
	}
	if err := s.recordBranches(ctx, q, run.ID, spec.Name); err != nil {
		return err
	}
	crashpoint.Hit(crashpoint.RunIntentRecorded)

	var built queue.Built
	var buildErr error
	messages := s.landingMessages(snap, a) // GitHub's messages, to land by fast-forward
	fx.later(func(ctx context.Context) {
		if messages != nil {
			if buildErr = messages(ctx, spec.Heads); buildErr != nil {
				return
			}
		}
		built, buildErr = s.gh.BuildBranch(ctx, q.Key.Repo, spec)
		s.lanes.set(q.ID, built.SHA) // "" (unknown) after a failure
	})
	fx.then(func(ctx context.Context) error {
		if buildErr != nil {
			return s.buildFailed(ctx, fx, q, run, a, buildErr)
		}
		if err := s.forgetDeleted(ctx, q.Key.Repo, built.Deleted); err != nil {
			zerolog.Ctx(ctx).Warn().Err(err).Msg("the reconciler will delete them again")
		}
		return s.attachRun(ctx, fx, q, run, a, built.SHA)
	})
	return nil
}

// recordRunSHA returns the hook that records a building run's commit
// before its branch is published: CI that starts on the push and asks
// getMergeQueueTestingDetails at once learns the commit it tests (issue
// #19). A run no longer building (closed meanwhile) is left alone.
func (s *Service) recordRunSHA(queueID int64, runID string) func(context.Context, string) error {
	return func(ctx context.Context, sha string) error {
		defer s.lock(queueID)()
		run, err := s.store.GetRun(ctx, runID)
		if err != nil {
			return fmt.Errorf("failed to load run %s: %w", runID, err)
		}
		if run.Closed || run.Status != queue.RunBuilding {
			return nil
		}
		run.SHA = sha
		if err := s.store.SaveRun(ctx, run); err != nil {
			return fmt.Errorf("failed to record the commit of run %s: %w", runID, err)
		}
		return nil
	}
}

// buildFailed closes a run whose branch did not build; a conflict is
// recorded on the entry whose PR did not merge, with what was merged
// before it, for the engine to probe.
func (s *Service) buildFailed(ctx context.Context, fx *effects, q *queue.Queue, run *queue.TestRun, a engine.StartRun, buildErr error) error {
	branch := run.Branch
	run.Branch = "" // BuildBranch publishes nothing on failure
	if err := s.closeRunRecord(ctx, run); err != nil {
		return err
	}
	var conflict *queue.ConflictError
	if !errors.As(buildErr, &conflict) || conflict.Index < 0 || conflict.Index >= len(a.Merge) {
		return fmt.Errorf("failed to build test branch: %w", buildErr)
	}
	// A conflict stops the build before it publishes: the branch recorded
	// for the run never existed. Its record goes, or the next publish would
	// ask GitHub to delete it with the ended branches, and GitHub refuses
	// an updateRefs that deletes a missing ref (deleting none of them).
	if err := s.store.ForgetRef(ctx, q.Key.Repo, branch); err != nil {
		return fmt.Errorf("failed to forget the branch %s, which never existed: %w", branch, err)
	}
	// Whatever merged before the conflicting head is what it may conflict
	// with: the entries ahead, then the unit's own before it.
	var before []string
	for _, id := range append(append([]string{}, a.Ahead...), a.Merge[:conflict.Index]...) {
		if !slices.Contains(before, id) {
			before = append(before, id)
		}
	}
	e, err := s.store.GetEntryByID(ctx, a.Merge[conflict.Index])
	if err != nil {
		return fmt.Errorf("failed to load entry %s: %w", a.Merge[conflict.Index], err)
	}
	if !e.Active() || e.PRSHA != conflict.SHA {
		return nil // it left or moved on meanwhile: nothing to settle
	}
	e.Conflict = &queue.Conflict{Base: a.BaseSHA, Before: before, At: s.now()}
	e.PRCheckedAt = time.Time{} // failing it is final: read the PR first
	if err := s.store.SaveEntry(ctx, e); err != nil {
		return fmt.Errorf("failed to record the conflict of #%d: %w", e.PRNumber, err)
	}
	zerolog.Ctx(ctx).Info().Int("pr", e.PRNumber).Msg("test branch did not build: merge conflict")
	return nil
}

// attachRun starts a built run: its entries move to it and go testing. If
// any of them left the queue, moved to another head or started another
// run while the branch was built, the run is closed instead (the engine
// then plans again from what is).
func (s *Service) attachRun(ctx context.Context, fx *effects, q *queue.Queue, run *queue.TestRun, a engine.StartRun, sha string) error {
	q, err := s.store.GetQueueByID(ctx, q.ID)
	if err != nil {
		return fmt.Errorf("failed to load queue: %w", err)
	}
	unit := make([]*queue.Entry, len(run.EntryIDs))
	for i, id := range run.EntryIDs {
		e, err := s.store.GetEntryByID(ctx, id)
		if err != nil {
			return fmt.Errorf("failed to load entry %s: %w", id, err)
		}
		if !e.Active() || e.PRSHA != run.PRSHAs[i] || e.MergeIntent {
			zerolog.Ctx(ctx).Info().Str("run", run.ID).Int("pr", e.PRNumber).Msg("entry changed while its test branch was built; dropping the run")
			run.SHA = sha
			if err := s.closeRunRecord(ctx, run); err != nil {
				return err
			}
			s.rec.Wake() // its branch is dead: deleted with the next publish, or by the reconciler
			return nil
		}
		unit[i] = e
	}
	run.SHA, run.Status, run.StartedAt = sha, queue.RunInProgress, s.now()
	if run.Isolation {
		return s.attachIsolation(ctx, run, unit[0])
	}
	var aheadNums []int
	for _, id := range a.Ahead {
		if e, err := s.store.GetEntryByID(ctx, id); err == nil {
			aheadNums = append(aheadNums, e.PRNumber)
		}
	}
	detail := fmt.Sprintf("testing on %s", q.Key.Branch)
	if run.Bisection {
		detail = fmt.Sprintf("bisecting a failed batch: testing %s", queue.PRList(run.PRNumbers))
	}
	if len(aheadNums) > 0 {
		detail += " with " + queue.PRList(aheadNums) + " ahead"
	}
	// The run goes in progress with its entries pointing at it, in one
	// transaction: a replica that stopped in between left a run in
	// progress no entry referred to, open for good.
	var previous []string
	err = s.store.WithTx(ctx, func(tx queue.Store) error {
		if err := tx.SaveRun(ctx, run); err != nil {
			return fmt.Errorf("failed to start run %s: %w", run.ID, err)
		}
		for _, e := range unit {
			if e.RunID != "" && !slices.Contains(previous, e.RunID) {
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
		if q.Settings.CreatePrsForTestingBranches {
			if err := tx.TouchRunSurface(ctx, q.ID, run.ID); err != nil { // its draft test PR
				return err
			}
		}
		return tx.UpdateQueue(ctx, q)
	})
	if err != nil {
		return fmt.Errorf("failed to attach run %s: %w", run.ID, err)
	}
	for _, e := range unit {
		if err := s.transition(ctx, fx, q, engine.Transition{EntryID: e.ID, To: queue.StateTesting, Reason: queue.ReasonTesting, Detail: detail}); err != nil {
			return err
		}
	}
	zerolog.Ctx(ctx).Info().Str("run", run.ID).Str("branch", run.Branch).Str("sha", sha).Ints("prs", run.PRNumbers).Msg("test run started")
	for _, id := range previous {
		if err := s.closeRunIfUnused(ctx, fx, q, id); err != nil {
			return err
		}
	}
	return nil
}

// attachIsolation starts a built isolation run: its entry refers to it
// (Entry.IsolationRunID) and stays in its state in the chain.
func (s *Service) attachIsolation(ctx context.Context, run *queue.TestRun, e *queue.Entry) error {
	e.IsolationRunID = run.ID
	err := s.store.WithTx(ctx, func(tx queue.Store) error {
		if err := tx.SaveRun(ctx, run); err != nil {
			return err
		}
		return tx.SaveEntry(ctx, e)
	})
	if err != nil {
		return fmt.Errorf("failed to start isolation run %s: %w", run.ID, err)
	}
	zerolog.Ctx(ctx).Info().Str("run", run.ID).Str("branch", run.Branch).Str("sha", run.SHA).Int("pr", e.PRNumber).Msg("isolation run started")
	return nil
}

func (s *Service) closeRunRecord(ctx context.Context, r *queue.TestRun) error {
	r.Status, r.Closed, r.FinishedAt = queue.RunCancelled, true, s.now()
	if err := s.store.SaveRun(ctx, r); err != nil {
		return fmt.Errorf("failed to close run %s: %w", r.ID, err)
	}
	return nil
}

// probeConflict finds out (no lock held) what an entry's PR conflicts
// with: the target head alone, then each entry it was built on by itself,
// nearest first, until one conflicts. Each probe builds a scratch branch,
// recorded before it is created and deleted after. The result is recorded
// on the entry unless its conflict changed meanwhile.
func (s *Service) probeConflict(fx *effects, snap *engine.Snapshot, a engine.ProbeConflict) {
	q := snap.Queue
	e := snap.Entry(a.EntryID)
	if e == nil {
		return
	}
	head := queue.MergeHead{PRNumber: e.PRNumber, SHA: e.PRSHA, Message: "conflict check"}
	var others []queue.MergeHead
	for _, id := range a.Before {
		if o := snap.Entry(id); o != nil {
			others = append(others, queue.MergeHead{PRNumber: o.PRNumber, SHA: o.PRSHA, Message: "conflict check"})
		} else {
			others = append(others, queue.MergeHead{})
		}
	}
	var alone bool
	var with string
	var probeErr error
	fx.later(func(ctx context.Context) {
		if alone, probeErr = s.conflicts(ctx, q, a.Base, head); probeErr != nil || alone {
			return
		}
		for i := len(others) - 1; i >= 0; i-- {
			if others[i].SHA == "" {
				continue // left the queue
			}
			c, err := s.conflicts(ctx, q, a.Base, others[i], head)
			if err != nil {
				probeErr = err
				return
			}
			if c {
				with = a.Before[i]
				return
			}
		}
	})
	fx.then(func(ctx context.Context) error {
		if probeErr != nil {
			return fmt.Errorf("failed to probe the conflict of #%d: %w", e.PRNumber, probeErr)
		}
		cur, err := s.store.GetEntryByID(ctx, e.ID)
		if err != nil {
			return fmt.Errorf("failed to load entry %s: %w", e.ID, err)
		}
		if !cur.Active() || cur.Conflict == nil || cur.Conflict.Base != a.Base || !slices.Equal(cur.Conflict.Before, a.Before) {
			return nil
		}
		cur.Conflict.Probed, cur.Conflict.Alone, cur.Conflict.With = true, alone, with
		if err := s.store.SaveEntry(ctx, cur); err != nil {
			return fmt.Errorf("failed to record the conflict probe of #%d: %w", e.PRNumber, err)
		}
		return nil
	})
}

// conflicts reports whether merging heads in order onto from conflicts at
// the last head: the heads are merged on the queue's lane, and nothing is
// published.
func (s *Service) conflicts(ctx context.Context, q *queue.Queue, from string, heads ...queue.MergeHead) (bool, error) {
	lane, err := s.lane(ctx, q)
	if err != nil {
		return false, err
	}
	spec := queue.BranchSpec{From: from, Heads: heads, Temp: lane, KeepTemp: true, TempAt: s.lanes.get(q.ID)}
	built, err := s.gh.BuildBranch(ctx, q.Key.Repo, spec)
	s.lanes.set(q.ID, built.SHA)
	var c *queue.ConflictError
	if errors.As(err, &c) {
		return c.Index == len(heads)-1, nil
	}
	if err != nil {
		return false, err
	}
	return false, nil
}
