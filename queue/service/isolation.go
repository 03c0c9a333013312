package service

import (
	"context"
	"fmt"

	"github.com/rs/zerolog"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/engine"
)

// isolationResult records a decided isolation run on its entry (passed,
// or one more failure) and closes the run, deleting its branch.
func (s *Service) isolationResult(ctx context.Context, fx *effects, q *queue.Queue, a engine.IsolationResult) error {
	e, err := s.store.GetEntryByID(ctx, a.EntryID)
	if err != nil {
		return fmt.Errorf("failed to load entry %s: %w", a.EntryID, err)
	}
	if e.IsolationRunID == a.RunID {
		e.IsolationRunID = ""
		if a.Passed {
			e.IsolationPassed = true
		} else {
			e.IsolationFailures++
		}
		if err := s.store.SaveEntry(ctx, e); err != nil {
			return fmt.Errorf("failed to record the isolation run of #%d: %w", e.PRNumber, err)
		}
		zerolog.Ctx(ctx).Info().Int("pr", e.PRNumber).Bool("passed", a.Passed).Int("failures", e.IsolationFailures).
			Msg("isolation run decided")
	}
	return s.closeRun(ctx, fx, q, a.RunID)
}
