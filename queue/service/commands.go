package service

import (
	"context"
	"fmt"

	"github.com/mergequeue/mq/queue"
)

// ClaimCommand claims a PR-comment command for the webhook delivery acting
// on it (queue.CommandClaims), durably: true if the delivery may act (the
// first to claim it, or a retry of that delivery), false if another
// delivery did — a replayed webhook, which must change nothing. A zero
// ClaimedAt is now.
func (s *Service) ClaimCommand(ctx context.Context, c queue.CommandClaim) (bool, error) {
	if c.ClaimedAt.IsZero() {
		c.ClaimedAt = s.now()
	}
	ok, err := s.store.ClaimCommand(ctx, c)
	if err != nil {
		return false, fmt.Errorf("failed to claim the command of comment %d in %s: %w", c.CommentID, c.Repo.FullName(), err)
	}
	return ok, nil
}
