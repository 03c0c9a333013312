package memstore

import (
	"context"
	"fmt"

	"github.com/mergequeue/mq/queue"
)

// claimKey identifies a comment command: the folded repository, the
// comment and its updated_at in Unix nanoseconds (0 for the zero time).
type claimKey struct {
	repo      queue.Repo
	commentID int64
	updatedAt int64
}

// ClaimCommand claims a comment command for c.DeliveryID (see
// queue.CommandClaims); the first claim is kept.
func (o *ops) ClaimCommand(ctx context.Context, c queue.CommandClaim) (bool, error) {
	what := fmt.Sprintf("comment %d of %s", c.CommentID, c.Repo.FullName())
	if c.DeliveryID == "" {
		return false, fmt.Errorf("failed to claim the command of %s: empty delivery ID", what)
	}
	unlock, err := o.begin(ctx)
	if err != nil {
		return false, fmt.Errorf("failed to claim the command of %s: %w", what, err)
	}
	defer unlock()
	edited := c.UpdatedAt
	if err := normTimes(&edited); err != nil {
		return false, fmt.Errorf("failed to claim the command of %s: %w", what, err)
	}
	k := claimKey{repo: c.Repo.Fold(), commentID: c.CommentID}
	if !edited.IsZero() {
		k.updatedAt = edited.UnixNano()
	}
	d := o.d
	if owner, ok := d.claims[k]; ok {
		return owner == c.DeliveryID, nil
	}
	d.claims[k] = c.DeliveryID
	o.tx.add(func() { delete(d.claims, k) })
	return true, nil
}
