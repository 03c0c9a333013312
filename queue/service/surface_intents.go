package service

import (
	"context"
	"fmt"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/readside"
	"github.com/mergequeue/mq/queue/textsafe"
)

// showChange records, in the transaction of an entry's change, what GitHub
// must show for it: the entry's surface (comment, check run, state label)
// is due again, and an entry that just ended owes its PR the one-off
// writes of SPEC §6: a fresh comment mentioning the submitter when it
// failed or was cancelled (an edit sends no notification), and the removal
// of the enqueue label when a label submitted it. ev is the event logged
// for the change (nil if none was). week is the queue's event log of the
// readside.FlakyWindow before ev, read before the transaction
// (flakyHistory), from which a failure comment says how flaky its check
// is: the transaction never scans the week itself.
func showChange(ctx context.Context, tx queue.Store, q *queue.Queue, e *queue.Entry, from queue.EntryState, ev *queue.Event,
	week []queue.Event) error {
	if err := tx.TouchSurface(ctx, q.ID, e.ID); err != nil {
		return fmt.Errorf("failed to mark the surfaces of #%d due: %w", e.PRNumber, err)
	}
	if ev == nil || from == e.State || !e.State.Terminal() {
		return nil
	}
	base := queue.Notice{Repo: q.Key.Repo, PRNumber: e.PRNumber, CreatedAt: ev.At}
	if q.Settings.CommentsEnabled && (e.State == queue.StateFailed || e.State == queue.StateCancelled) {
		n := base
		body := failureComment(q, e)
		if name, ok := queue.FailedCheckName(e.StateReasonDetail); ok && e.StateReason == queue.ReasonTestsFailed {
			checks := readside.FlakyChecksOf(append(week[:len(week):len(week)], *ev))
			if note := readside.FlakyNote(checks, name); note != "" {
				body += "\n\n" + textsafe.MarkdownCode(name) + " " + textsafe.Markdown(note) + "."
			}
		}
		n.Key, n.Kind, n.Body = fmt.Sprintf("mention:%d", ev.ID), queue.NoticeComment, body
		if _, err := tx.AddNotice(ctx, &n); err != nil {
			return err
		}
	}
	if q.Settings.LabelCommandsEnabled && q.Settings.EnqueueingLabel != "" && e.Source == "label" {
		n := base
		n.Key, n.Kind, n.Body = fmt.Sprintf("unlabel:%d", ev.ID), queue.NoticeRemoveLabel, q.Settings.EnqueueingLabel
		if _, err := tx.AddNotice(ctx, &n); err != nil {
			return err
		}
	}
	return nil
}

// flakyHistory is what showChange needs to name a failed check's flake
// rate in the failure comment of a change to state to for reason: the
// queue's event log of the readside.FlakyWindow before now, read outside
// any transaction (the caller holds the queue's lock, so no event of the
// queue is added meanwhile); nil when the change writes no such comment.
func (s *Service) flakyHistory(ctx context.Context, q *queue.Queue, from, to queue.EntryState, reason queue.Reason) ([]queue.Event, error) {
	if from == to || to != queue.StateFailed || reason != queue.ReasonTestsFailed || !q.Settings.CommentsEnabled {
		return nil, nil
	}
	events, err := s.store.ListEvents(ctx, q.ID, s.now().Add(-readside.FlakyWindow))
	if err != nil {
		return nil, fmt.Errorf("failed to list the events of %s: %w", q.Key, err)
	}
	return events, nil
}

// AddNotice records a one-off write to a PR (a reply to a command, a
// reaction) for the reconciler to deliver; a notice whose key exists
// changes nothing, so handling a webhook twice replies once.
func (s *Service) AddNotice(ctx context.Context, n queue.Notice) error {
	if n.CreatedAt.IsZero() {
		n.CreatedAt = s.now()
	}
	if _, err := s.store.AddNotice(ctx, &n); err != nil {
		return fmt.Errorf("failed to record notice %s: %w", n.Key, err)
	}
	s.rec.Wake()
	return nil
}

// recordBranches records branches the queue is about to create, before it
// creates them: from the record on, a crash at any moment leaves them
// findable by the reconciler, which deletes them once no live run owns
// them. A run's branches are recorded after the run (building) is saved,
// so that any replica's clean-up, reading the store alone, finds the run
// that owns a recorded branch (Reconciler.owner).
func (s *Service) recordBranches(ctx context.Context, q *queue.Queue, runID string, names ...string) error {
	for _, n := range names {
		if err := s.store.RecordRef(ctx, queue.Ref{Repo: q.Key.Repo, Name: n, QueueID: q.ID, RunID: runID, CreatedAt: s.now()}); err != nil {
			return fmt.Errorf("failed to record branch %s: %w", n, err)
		}
	}
	return nil
}
