package service

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/mergequeue/mq/queue"
)

// buildHold bounds how long a run being built keeps the clean-up of its
// repository's dead branches away (cleanRecorded): a run still building
// past it is taken for one left behind by a crash (which the engine
// closes), not for a build that will delete them.
const buildHold = 10 * time.Minute

// cleanBranches deletes the recorded branches no live run owns, in the
// repositories where a queue is active or a run's branch is recorded (the
// only branches that die are runs': a lane lives as long as its queue, and
// a queue's records go with it), and sweeps the repositories owed a sweep
// (sweepBook): every mq-temp/ or mq-merge/ branch on GitHub that is not
// recorded is deleted. Every repository with a queue is swept at start-up,
// and then those where a queue did something, so a branch left behind by
// a crash, whatever its moment, is found one way or the other. Besides, a
// patrol sweeps one repository per interval in turn, whatever the number
// of repositories (sweepBook.nextPatrol): idle repositories cost the pass
// no statement or GitHub call each, only that one listing in all.
func (r *Reconciler) cleanBranches(ctx context.Context) error {
	busy, err := r.busyRepos(ctx)
	if err != nil {
		return err
	}
	if r.sweeps.startingUp() {
		all, err := r.store.ListQueues(ctx)
		if err != nil {
			return fmt.Errorf("failed to list queues: %w", err)
		}
		r.sweeps.started(all)
	}
	isBusy := map[queue.Repo]bool{}
	for folded, b := range busy {
		isBusy[folded] = true
		for _, p := range b.prefixes {
			r.sweeps.owe(b.repo, p)
		}
	}
	// A transient failure in one repository does not keep the others
	// waiting: it is reported with the rest.
	var errs []error
	for _, folded := range slices.SortedFunc(maps.Keys(busy), compareRepos) {
		if err := r.cleanRecorded(ctx, busy[folded].repo); err != nil {
			if errs = append(errs, err); !errors.Is(err, queue.ErrTransient) {
				return errors.Join(errs...)
			}
		}
	}
	sweeps := r.sweeps.due(r.now(), r.every, isBusy)
	if s, ok, err := r.patrol(ctx); err != nil {
		return errors.Join(append(errs, err)...)
	} else if ok {
		sweeps = append(sweeps, s)
	}
	for _, s := range sweeps {
		// A repository swept while not busy (at start-up, once it went
		// quiet) has its dead records deleted too, whatever recorded
		// them (older versions recorded scratch branches without a run).
		if !s.busy {
			if err := r.cleanRecorded(ctx, s.repo); err != nil {
				if errs = append(errs, err); !errors.Is(err, queue.ErrTransient) {
					return errors.Join(errs...)
				}
				continue // still owed: cleaned and swept at the next pass
			}
		}
		if err := r.sweep(ctx, s.repo, s.prefixes); err != nil {
			if errs = append(errs, err); !errors.Is(err, queue.ErrTransient) {
				return errors.Join(errs...)
			}
			continue // swept again at the next pass
		}
		r.sweeps.done(s, r.now())
	}
	return errors.Join(errs...)
}

// patrol returns the patrol's sweep due now, if any (sweepBook.nextPatrol),
// listing the queues when a new round begins (once per round).
func (r *Reconciler) patrol(ctx context.Context) (owedSweep, bool, error) {
	due, needRound := r.sweeps.patrolDue(r.now(), r.every)
	if !due {
		return owedSweep{}, false, nil
	}
	if needRound {
		all, err := r.store.ListQueues(ctx)
		if err != nil {
			return owedSweep{}, false, fmt.Errorf("failed to list queues: %w", err)
		}
		r.sweeps.patrolFrom(all)
	}
	s, ok := r.sweeps.nextPatrol(r.now(), r.every)
	return s, ok, nil
}

// busyRepos returns the repositories (keys folded) with an active queue or
// a recorded run branch, each with its prefixes: the scratch one and those
// queues' test branch prefixes. Two statements, however many queues are
// idle.
func (r *Reconciler) busyRepos(ctx context.Context) (map[queue.Repo]*owedSweep, error) {
	active, err := r.store.ListActiveQueues(ctx)
	if err != nil {
		return nil, fmt.Errorf("failed to list the active queues: %w", err)
	}
	withRefs, err := r.store.ListQueuesWithRunRefs(ctx)
	if err != nil {
		return nil, fmt.Errorf("failed to list the queues with recorded run branches: %w", err)
	}
	return sweepsByRepo(append(active, withRefs...)), nil
}

// compareRepos orders repositories by full name.
func compareRepos(a, b queue.Repo) int { return strings.Compare(a.FullName(), b.FullName()) }

// deletions deletes branches one after the other; a transient failure
// does not stop the others (up to maxTransientRun in a row), and is
// reported with them. Any other error stops them.
func (r *Reconciler) deletions(ctx context.Context, repo queue.Repo, names []string) error {
	var errs []error
	run := 0
	for _, name := range names {
		err := r.deleteBranch(ctx, repo, name)
		if err == nil {
			run = 0
			continue
		}
		if errs = append(errs, err); !errors.Is(err, queue.ErrTransient) {
			break
		}
		if run++; run >= maxTransientRun {
			break
		}
	}
	return errors.Join(errs...)
}

// cleanRecorded deletes the recorded branches of a repository that no live
// run owns, then forgets them. A branch that died moments ago is left for
// a while (deadGrace): the next test branch published in the repository
// deletes it in the same request. Once one is due, every dead branch goes
// in one batch (queue.BranchBatchDeleter) when the port can; but none
// while a run of the repository is being built, whichever replica builds
// it: its build deletes them in the request that publishes its branch, and
// GitHub refuses that request if one of them is already gone. Everything is
// judged from the store, so every replica judges alike.
func (r *Reconciler) cleanRecorded(ctx context.Context, repo queue.Repo) error {
	refs, err := r.store.ListRefs(ctx, repo)
	if err != nil {
		return err
	}
	var dead []string
	due, building := false, false
	for _, ref := range refs {
		live, run, err := r.owner(ctx, ref)
		if err != nil {
			return err
		}
		building = building || r.building(run)
		if live {
			continue
		}
		dead = append(dead, ref.Name)
		if !r.now().Before(diedAt(ref, run).Add(r.deadGrace())) {
			due = true
		}
	}
	if !due || building {
		return nil
	}
	return r.deleteAll(ctx, repo, dead)
}

// deleteAll deletes branches and forgets their records: in one batch when
// the port can (queue.BranchBatchDeleter), else one after the other
// (deletions). A refusal other than a transient failure is logged and the
// records kept, to try again at the next pass.
func (r *Reconciler) deleteAll(ctx context.Context, repo queue.Repo, names []string) error {
	if len(names) == 0 {
		return nil
	}
	bd, ok := r.gh.(queue.BranchBatchDeleter)
	if !ok {
		return r.deletions(ctx, repo, names)
	}
	deleted, err := bd.DeleteBranches(ctx, repo, names)
	for _, name := range deleted {
		if ferr := r.store.ForgetRef(ctx, repo, name); ferr != nil {
			return ferr
		}
	}
	if err != nil {
		if errors.Is(err, queue.ErrTransient) {
			return fmt.Errorf("failed to delete %d branches: %w", len(names), err)
		}
		zerolog.Ctx(ctx).Warn().Err(err).Msg("failed to delete branches; will retry")
	}
	return nil
}

// deadGrace is how long a dead branch waits to be deleted with a publish
// before the reconciler deletes it: one reconcile interval.
func (r *Reconciler) deadGrace() time.Duration { return r.every }

// diedAt is when a recorded branch stopped being needed: when its run
// (nil: none) finished, or, without that, when it was recorded.
func diedAt(ref queue.Ref, run *queue.TestRun) time.Time {
	if run == nil || run.FinishedAt.IsZero() {
		return ref.CreatedAt
	}
	return run.FinishedAt
}

// building reports whether run (nil: none) is being built: building, not
// closed, and started less than buildHold ago.
func (r *Reconciler) building(run *queue.TestRun) bool {
	return run != nil && !run.Closed && run.Status == queue.RunBuilding && r.now().Sub(run.CreatedAt) < buildHold
}

// owner reports whether a recorded branch is still needed, with the run it
// is recorded for (nil if none or not found). It is needed as a queue's
// lane, or as the published branch of a run that is not closed (a run
// being built counts, and so does one left building by a crash until the
// engine closes it). It reads the store alone: a run is saved before its
// branch is recorded (Service.startRun), so the branch of a run any
// replica is building is live on every replica.
func (r *Reconciler) owner(ctx context.Context, ref queue.Ref) (bool, *queue.TestRun, error) {
	if qid, ok := laneQueue(ref.Name); ok && ref.RunID == "" {
		_, err := r.store.GetQueueByID(ctx, qid)
		if errors.Is(err, queue.ErrNotFound) {
			return false, nil, nil
		}
		if err != nil {
			return false, nil, fmt.Errorf("failed to load queue %d: %w", qid, err)
		}
		return true, nil, nil
	}
	if ref.RunID == "" {
		return false, nil, nil
	}
	run, err := r.store.GetRun(ctx, ref.RunID)
	if errors.Is(err, queue.ErrNotFound) {
		return false, nil, nil
	}
	if err != nil {
		return false, nil, fmt.Errorf("failed to load run %s: %w", ref.RunID, err)
	}
	return !run.Closed && run.Branch == ref.Name, run, nil
}

// sweep deletes the branches on GitHub under the queue's prefixes that
// nothing recorded: any under the scratch prefix (the queue's own), and
// under each queue's test prefix those shaped like test branches
// (queue.IsTestBranch), so a user's branch sharing a chosen prefix is never
// touched.
// The records are read after GitHub's lists: a branch is recorded before it
// is created, so any branch in the lists that is being created is in them.
func (r *Reconciler) sweep(ctx context.Context, repo queue.Repo, prefixes []string) error {
	var names []string
	for _, p := range prefixes {
		found, err := r.gh.ListBranches(ctx, repo, p)
		if err != nil {
			return fmt.Errorf("failed to list the branches %s* of %s: %w", p, repo.FullName(), err)
		}
		for _, name := range found {
			if p == queue.ScratchPrefix && strings.HasPrefix(name, p) || queue.IsTestBranch(p, name) {
				names = append(names, name)
			}
		}
	}
	refs, err := r.store.ListRefs(ctx, repo)
	if err != nil {
		return err
	}
	recorded := map[string]bool{}
	for _, ref := range refs {
		recorded[ref.Name] = true
	}
	var orphans []string
	for _, name := range names {
		if recorded[name] {
			continue
		}
		zerolog.Ctx(ctx).Info().Str("branch", name).Msg("deleting a branch no run owns")
		orphans = append(orphans, name)
	}
	return r.deleteAll(ctx, repo, orphans)
}

// deleteBranch deletes a branch (a missing one is no error) and forgets its
// record. A refusal other than a transient failure is logged and the
// record kept, to try again at the next pass.
func (r *Reconciler) deleteBranch(ctx context.Context, repo queue.Repo, name string) error {
	if err := r.gh.DeleteBranch(ctx, repo, name); err != nil {
		if errors.Is(err, queue.ErrTransient) {
			return fmt.Errorf("failed to delete branch %s: %w", name, err)
		}
		zerolog.Ctx(ctx).Warn().Err(err).Str("branch", name).Msg("failed to delete a branch; will retry")
		return nil
	}
	return r.store.ForgetRef(ctx, repo, name)
}
