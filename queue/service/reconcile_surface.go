package service

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/rs/zerolog"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/crashpoint"
)

// surfacesDue reconciles one batch of due surfaces (those that failed
// transiently earlier in the pass left out) and reports how many it
// handled.
func (r *Reconciler) surfacesDue(ctx context.Context) (int, error) {
	due, err := r.store.DueSurfaces(ctx, r.now(), r.batchSize())
	if err != nil {
		return 0, err
	}
	n := 0
	for _, sf := range due {
		key := "surface:" + sf.EntryID
		if r.skipped(key) || n == reconcileBatch {
			continue
		}
		n++
		if err := r.tried(key, r.surface(ctx, sf)); err != nil {
			return 0, err
		}
	}
	return n, nil
}

// surface brings one entry's sticky comment, check run and state label up
// to the entry's current state, then records the change count it served.
func (r *Reconciler) surface(ctx context.Context, sf queue.Surface) error {
	e, err := r.store.GetEntryByID(ctx, sf.EntryID)
	if errors.Is(err, queue.ErrNotFound) {
		return nil // deleted with its queue, surface and all
	}
	if err != nil {
		return fmt.Errorf("failed to load entry %s: %w", sf.EntryID, err)
	}
	q, err := r.store.GetQueueByID(ctx, e.QueueID)
	if err != nil {
		return fmt.Errorf("failed to load queue %d: %w", e.QueueID, err)
	}
	log := zerolog.Ctx(ctx).With().Str("queue", q.Key.String()).Int("pr", e.PRNumber).Logger()
	ctx = log.WithContext(ctx)
	v, err := r.view(ctx, q, e)
	if err != nil {
		return err
	}
	wctx, release, err := r.waitToWrite(ctx, &q, &e, &v, &sf)
	if err != nil {
		return err
	}
	defer release()
	if e == nil {
		return nil // deleted while waiting, or the wait failed (recorded)
	}
	serving, wrote := sf.Want, sf
	if err := r.writeSurface(wctx, q, e, v, &sf); err != nil {
		giveUp, err := r.failed(ctx, fmt.Sprintf("update the PR surfaces of #%d", e.PRNumber),
			&sf.Attempts, &sf.NextAttemptAt, &sf.LastError, err)
		if err != nil {
			return err
		}
		if giveUp {
			sf.Done = serving
		}
		return r.store.SaveSurface(ctx, sf)
	}
	sf.Done, sf.Attempts, sf.LastError, sf.NextAttemptAt = serving, 0, "", time.Time{}
	if sf.CommentHash != wrote.CommentHash || sf.CheckRunHash != wrote.CheckRunHash || sf.StateLabel != wrote.StateLabel {
		sf.WrittenAt = r.now() // something was written
	}
	return r.store.SaveSurface(ctx, sf)
}

// writeSurface writes what differs from what was last written, saving
// progress after each write so a crash repeats at most the write it cut.
// The comment, the check run and the label are tried independently: one
// GitHub refuses does not hold back the others.
func (r *Reconciler) writeSurface(ctx context.Context, q *queue.Queue, e *queue.Entry, v entryView, sf *queue.Surface) error {
	save := func() error { return r.store.SaveSurface(ctx, *sf) }
	var errs []error
	info := r.informational(q.Key.Repo, sf)
	if q.Settings.CommentsEnabled {
		errs = append(errs, r.writeComment(ctx, q, e, v, sf, save, info))
	}
	if q.Settings.StatusCheckEnabled && e.PRSHA != "" {
		errs = append(errs, r.writeCheckRun(ctx, q, e, v, sf, save, info))
	}
	errs = append(errs, r.writeStateLabel(ctx, q, e, sf, save))
	return errors.Join(errs...)
}

// writeComment brings the sticky status comment up to date. A create whose
// outcome was not recorded (CommentCreating) is looked for by its marker
// first, so a crash between posting and recording never yields a second
// sticky comment.
func (r *Reconciler) writeComment(ctx context.Context, q *queue.Queue, e *queue.Entry, v entryView, sf *queue.Surface, save func() error, info bool) error {
	body, h, due := r.commentDue(q, e, v, sf, info)
	if !due {
		return nil
	}
	repo := q.Key.Repo
	id := sf.CommentID
	if sf.CommentCreating {
		found, err := r.gh.FindComment(ctx, repo, e.PRNumber, StatusMarker(q), time.Time{})
		if err != nil {
			return fmt.Errorf("failed to look for the status comment: %w", err)
		}
		if found != 0 {
			id = found
		}
	}
	sf.CommentCreating = true
	if err := save(); err != nil {
		return err
	}
	got, err := r.gh.UpsertComment(ctx, repo, e.PRNumber, id, body)
	if err != nil {
		return fmt.Errorf("failed to write the status comment: %w", err)
	}
	crashpoint.Hit(crashpoint.CommentPosted)
	sf.CommentID, sf.CommentHash, sf.CommentCreating = got, h, false
	return save()
}

// writeCheckRun brings the check run on the entry's head up to date. A
// check run left open on an older head (the PR was pushed and submitted
// again before the first was completed) is completed first, so no check
// run of an ended entry stays queued or in progress.
func (r *Reconciler) writeCheckRun(ctx context.Context, q *queue.Queue, e *queue.Entry, v entryView, sf *queue.Surface, save func() error, info bool) error {
	repo := q.Key.Repo
	if sf.CheckRunID != 0 && sf.CheckRunSHA != e.PRSHA {
		if sf.CheckRunOpen {
			old := queue.CheckRun{Name: queue.CheckRunName(q.Key.Branch), HeadSHA: sf.CheckRunSHA, ExternalID: e.ID, Status: "completed",
				Conclusion: "cancelled", Title: "Superseded",
				Summary: fmt.Sprintf("The pull request was submitted again with head %s.", queue.ShortSHA(e.PRSHA))}
			if _, err := r.gh.UpsertCheckRun(ctx, repo, sf.CheckRunID, old); err != nil {
				return fmt.Errorf("failed to complete the check run on %s: %w", queue.ShortSHA(sf.CheckRunSHA), err)
			}
		}
		sf.CheckRunID, sf.CheckRunSHA, sf.CheckRunHash, sf.CheckRunOpen = 0, "", "", false
		if err := save(); err != nil {
			return err
		}
	}
	cr, h, due := r.checkRunDue(q, e, v, sf, info)
	if !due {
		return nil
	}
	id := sf.CheckRunID
	if sf.CheckRunCreating {
		found, err := r.gh.FindCheckRun(ctx, repo, e.PRSHA, cr.Name, cr.ExternalID)
		if err != nil {
			return fmt.Errorf("failed to look for the check run: %w", err)
		}
		if found != 0 {
			id = found
		}
	}
	sf.CheckRunCreating = true
	if err := save(); err != nil {
		return err
	}
	got, err := r.gh.UpsertCheckRun(ctx, repo, id, cr)
	if err != nil {
		return fmt.Errorf("failed to write the check run: %w", err)
	}
	sf.CheckRunID, sf.CheckRunSHA, sf.CheckRunHash = got, e.PRSHA, h
	sf.CheckRunOpen, sf.CheckRunCreating = cr.Status != "completed", false
	return save()
}

// writeStateLabel keeps one state label on the PR (stateLabelsEnabled):
// the one for the entry's state. When it changes, the PR's labels are read
// first (a label added just before a crash is not recorded) and every other
// state label removed; adding and removing labels are idempotent on GitHub.
func (r *Reconciler) writeStateLabel(ctx context.Context, q *queue.Queue, e *queue.Entry, sf *queue.Surface, save func() error) error {
	l, ok := r.gh.(queue.Labeler)
	want := ""
	if q.Settings.StateLabelsEnabled {
		want = queue.StateLabel(e.State)
	}
	if !ok || want == sf.StateLabel {
		return nil
	}
	repo := q.Key.Repo
	labels, err := l.ListLabels(ctx, repo, e.PRNumber)
	if err != nil {
		return fmt.Errorf("failed to read the labels: %w", err)
	}
	has := false
	for _, name := range labels {
		switch {
		case name == want:
			has = true
		case queue.IsStateLabel(name):
			if err := l.RemoveLabel(ctx, repo, e.PRNumber, name); err != nil {
				return fmt.Errorf("failed to remove label %s: %w", name, err)
			}
		}
	}
	if want != "" && !has {
		if err := l.AddLabel(ctx, repo, e.PRNumber, want); err != nil {
			return fmt.Errorf("failed to add label %s: %w", want, err)
		}
	}
	sf.StateLabel = want
	return save()
}

// informationalGap is the least time between an entry's surface writes
// for an informational one (a position, an ETA, testing having started):
// a PR's page is edited for information at most every five minutes.
const informationalGap = 5 * time.Minute

// informational reports whether an informational write of the surface sf
// may be made now: its last write is informationalGap old, and the
// installation of repo has room in its write budget (always, for a port
// that does not say).
func (r *Reconciler) informational(repo queue.Repo, sf *queue.Surface) bool {
	if r.now().Sub(sf.WrittenAt) < informationalGap {
		return false
	}
	return r.roomForInformation(repo)
}

// roomForInformation reports whether the installation of repo has room in
// its write budget for informational writes (always, for a port that does
// not say).
func (r *Reconciler) roomForInformation(repo queue.Repo) bool {
	wh, ok := r.gh.(queue.WriteHeadroom)
	return !ok || wh.WriteHeadroom(repo) >= queue.InformationalHeadroom
}

// digest identifies a written text by a short hash.
func digest(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:12])
}
