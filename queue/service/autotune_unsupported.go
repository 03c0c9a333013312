package service

import (
	"context"
	"errors"
	"fmt"

	"github.com/rs/zerolog"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/autotune"
)

// stopTuning stops autoTune on a queue whose settings it cannot tune
// (why, from autotune.Supported: a parallel-mode queue stored before
// such settings were refused): the tuning in force, if any, is removed so
// that the configured settings apply, and one event says why. The setting
// itself stays as configured; the tuner ignores the queue until autoTune
// is turned off or the queue returns to single mode.
func (s *Service) stopTuning(ctx context.Context, q *queue.Queue, why error) {
	log := zerolog.Ctx(ctx)
	tu := tunings(s.store)
	unlock := s.lock(q.ID)
	defer unlock()
	ev := queue.QueueTuningEvent(q.ID, queue.ReasonQueueAutoTuned, fmt.Sprintf(
		"autoTune stopped: %v; the configured settings apply (now %s)", why, autotune.FromSettings(q.Settings)), s.now())
	err := s.store.WithTx(ctx, func(tx queue.Store) error {
		if tu != nil {
			if err := tunings(tx).DeleteQueueTuning(ctx, q.ID); err != nil && !errors.Is(err, queue.ErrNotFound) {
				return err
			}
		}
		return tx.AddEvent(ctx, &ev)
	})
	if err != nil {
		log.Warn().Err(err).Str("queue", q.Key.String()).Msg("autoTune: failed to record that it stopped")
		return
	}
	log.Warn().Str("queue", q.Key.String()).Err(why).Msg("autoTune stopped on a queue it cannot tune")
}
