package sqlstore

import (
	"context"
	"fmt"
	"time"

	"github.com/mergequeue/mq/queue"
)

// ClaimCommand claims a comment command for c.DeliveryID (see
// queue.CommandClaims): the first claim of (repository, comment,
// updated_at) is kept for good, and only its delivery may act again.
func (o *ops) ClaimCommand(ctx context.Context, c queue.CommandClaim) (bool, error) {
	what := fmt.Sprintf("comment %d of %s", c.CommentID, c.Repo.FullName())
	if c.DeliveryID == "" {
		return false, fmt.Errorf("failed to claim the command of %s: empty delivery ID", what)
	}
	r := c.Repo.Fold()
	edited, err := claimTime(c.UpdatedAt)
	if err != nil {
		return false, fmt.Errorf("failed to claim the command of %s: %w", what, err)
	}
	claimed, err := claimTime(c.ClaimedAt)
	if err != nil {
		return false, fmt.Errorf("failed to claim the command of %s: %w", what, err)
	}
	if _, err := o.wr.ExecContext(ctx, `INSERT INTO command_claims (host, owner, name, comment_id, updated_at, delivery_id, claimed_at)
		VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
		r.Host, r.Owner, r.Name, c.CommentID, edited, c.DeliveryID, claimed); err != nil {
		return false, fmt.Errorf("failed to claim the command of %s: %w", what, err)
	}
	var owner string
	if err := o.wr.QueryRowContext(ctx, `SELECT delivery_id FROM command_claims
		WHERE host = ? AND owner = ? AND name = ? AND comment_id = ? AND updated_at = ?`,
		r.Host, r.Owner, r.Name, c.CommentID, edited).Scan(&owner); err != nil {
		return false, fmt.Errorf("failed to read the claim on the command of %s: %w", what, err)
	}
	return owner == c.DeliveryID, nil
}

// claimTime is t in Unix nanoseconds (as timeVal), but 0 for the zero
// time (a payload without updated_at): a key column is never NULL.
func claimTime(t time.Time) (int64, error) {
	v, err := timeVal(t).Value()
	if err != nil || v == nil {
		return 0, err
	}
	return v.(int64), nil
}
