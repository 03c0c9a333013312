package service

import (
	"context"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/readside"
)

// Estimates returns where each admitted entry of a queue stands: its
// 1-based position and, once the queue has finished a run, when it is
// expected to merge (readside.LoadEstimates; docs/eta.md).
func (s *Service) Estimates(ctx context.Context, q *queue.Queue) (map[string]readside.Estimate, error) {
	return readside.LoadEstimates(ctx, s.store, q, s.now())
}
