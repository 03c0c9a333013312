package service

import (
	"context"
	"fmt"
	"time"

	"github.com/rs/zerolog"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/crashpoint"
)

// noticeLookBack widens the search for a notice's comment beyond its
// creation time, for clock skew between us and GitHub.
const noticeLookBack = 10 * time.Minute

// deliverDue delivers one batch of due notices (those that failed
// transiently earlier in the pass left out) and reports how many it
// handled.
func (r *Reconciler) deliverDue(ctx context.Context) (int, error) {
	due, err := r.store.DueNotices(ctx, r.now(), r.batchSize())
	if err != nil {
		return 0, err
	}
	handled := 0
	for _, n := range due {
		key := fmt.Sprintf("notice:%d", n.ID)
		if r.skipped(key) || handled == reconcileBatch {
			continue
		}
		handled++
		if err := r.tried(key, r.notice(ctx, n)); err != nil {
			return 0, err
		}
	}
	return handled, nil
}

// notice delivers one notice and records it done, or backs it off.
func (r *Reconciler) notice(ctx context.Context, n queue.Notice) error {
	log := zerolog.Ctx(ctx).With().Str("notice", n.Key).Str("repo", n.Repo.FullName()).Int("pr", n.PRNumber).Logger()
	ctx = log.WithContext(ctx)
	if err := r.write(ctx, &n); err != nil {
		giveUp, err := r.failed(ctx, fmt.Sprintf("deliver notice %s", n.Key), &n.Attempts, &n.NextAttemptAt, &n.LastError, err)
		if err != nil {
			return err
		}
		if giveUp {
			n.DoneAt = r.now()
		}
		return r.store.SaveNotice(ctx, n)
	}
	n.DoneAt, n.LastError = r.now(), ""
	return r.store.SaveNotice(ctx, n)
}

// write makes the notice's change on GitHub. A comment whose earlier
// attempt may have reached GitHub is looked for by its marker first.
func (r *Reconciler) write(ctx context.Context, n *queue.Notice) error {
	switch n.Kind {
	case queue.NoticeComment:
		marker := queue.NoticeMarker(n.Key)
		if n.Attempted {
			id, err := r.gh.FindComment(ctx, n.Repo, n.PRNumber, marker, n.CreatedAt.Add(-noticeLookBack))
			if err != nil {
				return fmt.Errorf("failed to look for the comment: %w", err)
			}
			if id != 0 {
				return nil
			}
		}
		n.Attempted = true
		if err := r.store.SaveNotice(ctx, *n); err != nil {
			return err
		}
		if _, err := r.gh.UpsertComment(ctx, n.Repo, n.PRNumber, 0, n.Body+"\n\n"+marker); err != nil {
			return err
		}
		crashpoint.Hit(crashpoint.NoticePosted)
		return nil
	case queue.NoticeReaction:
		return r.gh.AddReaction(ctx, n.Repo, n.CommentID, n.Body)
	case queue.NoticeRemoveLabel:
		l, ok := r.gh.(queue.Labeler)
		if !ok {
			return nil
		}
		return l.RemoveLabel(ctx, n.Repo, n.PRNumber, n.Body)
	}
	return fmt.Errorf("unknown notice kind %q", n.Kind)
}
