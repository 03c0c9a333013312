package service

import (
	"context"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/engine"
)

// recentRunsForETA is how many of a queue's latest successful runs set its
// typical CI duration.
const recentRunsForETA = 20

// Estimates returns where each admitted entry of a queue stands: its
// 1-based position and, once the queue has finished a run, when it is
// expected to merge (engine.Estimates; docs/eta.md).
func (s *Service) Estimates(ctx context.Context, q *queue.Queue) (map[string]engine.Estimate, error) {
	return estimates(ctx, s.store, q, s.now())
}
