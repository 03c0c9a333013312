package service

import (
	"context"
	"errors"
	"fmt"

	"github.com/mergequeue/mq/queue"
)

// waitToWrite, when the GitHub port budgets its writes
// (queue.WriteReserver) and the entry's surface has something to write,
// waits for the budget of a surface write first, then reloads the queue,
// the entry, its surface and its view: whatever changed while it waited is
// written at once, and the states in between never are. It returns the
// context to write with and the reservation's release (call it in every
// case); *e is nil when nothing is left to do (the entry was deleted
// meanwhile, or the reservation failed and was recorded). A reservation
// that failed (GitHub's installation could not be resolved) is a failure
// of the write, with its retries; the context ending is the pass ending.
func (r *Reconciler) waitToWrite(ctx context.Context, q **queue.Queue, e **queue.Entry, v *entryView, sf *queue.Surface) (context.Context, func(), error) {
	none := func() {}
	res, ok := r.gh.(queue.WriteReserver)
	if !ok || !r.surfaceStale(*q, *e, *v, sf) {
		return ctx, none, nil
	}
	wctx, release, err := res.ReserveSurfaceWrite(ctx, (*q).Key.Repo)
	if err != nil {
		if ctx.Err() != nil {
			return ctx, none, ctx.Err()
		}
		if err := r.reserveFailed(ctx, *e, sf, err); err != nil {
			return ctx, none, err
		}
		*e = nil // the failure is recorded; retried after its backoff
		return ctx, none, nil
	}
	// The surface first, then the entry: a change of the entry saved
	// between the two reads (by the queue's holder, maybe on another
	// replica) counts in the surface's Want only if it was read after it,
	// and a change the write does not show must not count as served
	// (surfacesDue reads in this order too).
	cur, err := r.store.GetSurface(ctx, sf.EntryID)
	if errors.Is(err, queue.ErrNotFound) {
		release()
		*e = nil
		return ctx, none, nil
	}
	if err != nil {
		release()
		return ctx, none, fmt.Errorf("failed to load the surface of entry %s: %w", sf.EntryID, err)
	}
	fresh, err := r.store.GetEntryByID(ctx, sf.EntryID)
	if errors.Is(err, queue.ErrNotFound) {
		release()
		*e = nil
		return ctx, none, nil
	}
	if err != nil {
		release()
		return ctx, none, fmt.Errorf("failed to load entry %s: %w", sf.EntryID, err)
	}
	fq, err := r.store.GetQueueByID(ctx, fresh.QueueID)
	if err != nil {
		release()
		return ctx, none, fmt.Errorf("failed to load queue %d: %w", fresh.QueueID, err)
	}
	delete(r.views, fq.ID) // positions and estimates as they are now
	delete(r.waits, fq.ID)
	fv, err := r.view(ctx, fq, fresh)
	if err != nil {
		release()
		return ctx, none, err
	}
	*q, *e, *v, *sf = fq, fresh, fv, *cur
	return wctx, release, nil
}

// reserveFailed backs the surface off after a reservation GitHub refused,
// as after a failed write.
func (r *Reconciler) reserveFailed(ctx context.Context, e *queue.Entry, sf *queue.Surface, cause error) error {
	_, err := r.failed(ctx, fmt.Sprintf("reserve a write for the PR surfaces of #%d", e.PRNumber),
		&sf.Attempts, &sf.NextAttemptAt, &sf.LastError, cause)
	if err != nil {
		return err
	}
	return r.store.SaveSurface(ctx, *sf)
}

// surfaceStale reports whether writeSurface would write anything: the
// comment or the check run is due (commentDue, checkRunDue), or the state
// label changed.
func (r *Reconciler) surfaceStale(q *queue.Queue, e *queue.Entry, v entryView, sf *queue.Surface) bool {
	info := r.informational(q.Key.Repo, sf)
	if _, _, due := r.commentDue(q, e, v, sf, info); q.Settings.CommentsEnabled && due {
		return true
	}
	if _, _, due := r.checkRunDue(q, e, v, sf, info); q.Settings.StatusCheckEnabled && e.PRSHA != "" && due {
		return true
	}
	want := ""
	if q.Settings.StateLabelsEnabled {
		want = queue.StateLabel(e.State)
	}
	_, labels := r.gh.(queue.Labeler)
	return labels && want != sf.StateLabel
}
