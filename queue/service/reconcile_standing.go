package service

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/readside"
)

// view is what the PR of entry e is shown beyond the entry: its position
// and estimates (computed once per queue per pass), its run's link, and
// its dashboard page.
func (r *Reconciler) view(ctx context.Context, q *queue.Queue, e *queue.Entry) (entryView, error) {
	ests, ok := r.views[q.ID]
	if !ok {
		var err error
		if ests, err = readside.LoadEstimates(ctx, r.store, q, r.now()); err != nil {
			return entryView{}, err
		}
		r.views[q.ID] = ests
	}
	waits, ok := r.waits[q.ID]
	if !ok {
		var err error
		budget, _ := r.gh.(queue.WriteBudget)
		if waits, err = readside.LoadWaiting(ctx, r.store, q, r.now(), budget); err != nil {
			return entryView{}, err
		}
		r.waits[q.ID] = waits
	}
	v := entryView{est: ests[e.ID], waiting: waits[e.ID]}
	if r.publicURL != "" {
		v.pageURL = r.publicURL + readside.PRPagePath(q.Key.Repo, e.PRNumber)
	}
	if e.RunID != "" && e.State == queue.StateTesting && r.webURL != "" {
		run, err := r.store.GetRun(ctx, e.RunID)
		if err != nil && !errors.Is(err, queue.ErrNotFound) {
			return entryView{}, fmt.Errorf("failed to load run %s: %w", e.RunID, err)
		}
		if run != nil && run.SHA != "" {
			v.runURL = r.runURL(ctx, q, run)
		}
	}
	return v, nil
}

// runURL links to a run: its test PR when it has one, else the checks of
// its commit on GitHub.
func (r *Reconciler) runURL(ctx context.Context, q *queue.Queue, run *queue.TestRun) string {
	repo := r.webURL + "/" + q.Key.Repo.FullName()
	if rs, err := r.store.GetRunSurface(ctx, run.ID); err == nil && rs.PRNumber != 0 {
		return fmt.Sprintf("%s/pull/%d", repo, rs.PRNumber)
	}
	return fmt.Sprintf("%s/commit/%s/checks", repo, run.SHA)
}

// refreshEvery is how often a PR whose position or ETA alone changed is
// updated: at least every five minutes, less often in long queues, so the
// edits stay within GitHub's content-creation limits.
func refreshEvery(queued int) time.Duration {
	return max(5*time.Minute, time.Duration(queued)*10*time.Second)
}

// refreshStandings makes due the surfaces of admitted entries whose shown
// position or ETA is out of date (no state change moved them), at most once
// per refresh interval each. It reads the queues with work only (an idle
// queue has no entry to show): its cost follows the active entries, not
// the number of queues.
func (r *Reconciler) refreshStandings(ctx context.Context) error {
	queues, err := r.store.ListActiveQueues(ctx)
	if err != nil {
		return fmt.Errorf("failed to list the active queues: %w", err)
	}
	now := r.now()
	for _, q := range queues {
		if !q.Settings.CommentsEnabled && !q.Settings.StatusCheckEnabled || !r.roomForInformation(q.Key.Repo) {
			continue
		}
		entries, err := r.store.ListActiveEntries(ctx, q.ID)
		if err != nil {
			return fmt.Errorf("failed to list entries of %s: %w", q.Key, err)
		}
		interval := refreshEvery(len(entries))
		for _, e := range entries {
			sf, err := r.store.GetSurface(ctx, e.ID)
			if errors.Is(err, queue.ErrNotFound) {
				continue
			}
			if err != nil {
				return err
			}
			if !e.Admitted() {
				// One not ready past the grace gets its explaining comment
				// and its check run.
				unshown := q.Settings.CommentsEnabled && sf.CommentID == 0 && !sf.CommentCreating ||
					q.Settings.StatusCheckEnabled && sf.CheckRunID == 0 && !sf.CheckRunCreating
				if unshown && !sf.Due() && needsExplaining(e, now, r.every) {
					if err := r.store.TouchSurface(ctx, q.ID, e.ID); err != nil {
						return err
					}
				}
				continue
			}
			if sf.Due() || now.Sub(sf.WrittenAt) < interval {
				continue
			}
			v, err := r.view(ctx, q, e)
			if err != nil {
				return err
			}
			stale := q.Settings.CommentsEnabled && sf.CommentID != 0 && stamp(commentEssence(e), statusComment(q, e, v, now)) != sf.CommentHash ||
				q.Settings.StatusCheckEnabled && e.PRSHA != "" && checkRunStamp(checkRun(q, e, v, now), e.State) != sf.CheckRunHash
			if !stale {
				continue
			}
			if err := r.store.TouchSurface(ctx, q.ID, e.ID); err != nil {
				return err
			}
		}
	}
	return nil
}
