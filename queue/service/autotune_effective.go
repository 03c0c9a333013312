package service

import (
	"context"
	"errors"
	"fmt"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/autotune"
	"github.com/mergequeue/mq/queue/engine"
)

// engineView is the snapshot the engine decides on: snap itself, or, for
// a queue with autoTune on and a tuning in force, a copy whose queue has
// the effective settings. snap keeps the configured ones: the service
// writes its queue back (NextSeq, state) and must never store the
// effective settings as configured.
func (s *Service) engineView(ctx context.Context, snap *engine.Snapshot) (*engine.Snapshot, error) {
	t, err := s.QueueTuning(ctx, snap.Queue)
	if err != nil || t == nil {
		return snap, err
	}
	q := *snap.Queue
	q.Settings = queue.EffectiveSettings(q.Settings, t)
	view := *snap
	view.Queue = &q
	return &view, nil
}

// settleTuning keeps the tuning in force consistent with a settings
// update of the queue (before → q), in the update's transaction: turning
// autoTune off, changing a configured tuned value, or lowering the bound
// below the tuning in force removes it, so the configured settings apply
// at once (and, with autoTune on, the tuner starts again from them); each
// removal is an event. It returns whether the tuner must start again.
func (s *Service) settleTuning(ctx context.Context, tx queue.Store, before queue.Settings, q *queue.Queue) (bool, error) {
	tu := tunings(tx)
	if tu == nil || !before.AutoTune {
		return false, nil
	}
	cur, err := tu.QueueTuning(ctx, q.ID)
	if errors.Is(err, queue.ErrNotFound) {
		cur, err = nil, nil
	}
	if err != nil {
		return false, err
	}
	configuredChanged := queue.TunedValuesOf(before) != queue.TunedValuesOf(q.Settings)
	var why string
	switch {
	case cur == nil && configuredChanged:
		return true, nil
	case cur == nil:
		return BoundsOf(before) != BoundsOf(q.Settings), nil
	case !q.Settings.AutoTune:
		why = "autoTune turned off: the configured settings apply again"
	case configuredChanged:
		why = "tuned settings written while autoTune is on: the configured settings apply until autoTune's next choice"
	case autotune.FromSettings(cur.Values.Apply(q.Settings)).Runs() > q.Settings.AutoTuneMaxRuns:
		why = fmt.Sprintf("autoTuneMaxRuns lowered to %d, below the tuning in force: the configured settings apply until autoTune's next choice",
			q.Settings.AutoTuneMaxRuns)
	default:
		return BoundsOf(before) != BoundsOf(q.Settings), nil
	}
	if err := tu.DeleteQueueTuning(ctx, q.ID); err != nil {
		return false, err
	}
	ev := queue.QueueTuningEvent(q.ID, queue.ReasonQueueAutoTuned,
		fmt.Sprintf("%s (now %s)", why, autotune.FromSettings(q.Settings)), s.now())
	if err := tx.AddEvent(ctx, &ev); err != nil {
		return false, err
	}
	return true, nil
}

// forgetTuner drops a queue's tuner (its observations stay): the next
// retune makes it again from the effective settings.
func (s *Service) forgetTuner(queueID int64) {
	b := s.tune
	b.mu.Lock()
	defer b.mu.Unlock()
	if qt := b.queues[queueID]; qt != nil {
		qt.reset = true // the retune, which alone touches the tuner, sees it
	}
}
