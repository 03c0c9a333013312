package queue

import (
	"context"
	"time"
)

// CommandClaim names one PR-comment command — the comment, at one edit
// time — and the webhook delivery acting on it.
type CommandClaim struct {
	// Repo, CommentID and UpdatedAt (the comment's updated_at) identify the
	// command; Repo is compared case-insensitively, as GitHub does.
	Repo      Repo
	CommentID int64
	UpdatedAt time.Time
	// DeliveryID is the X-GitHub-Delivery of the webhook acting on it.
	DeliveryID string
	// ClaimedAt is when it was first claimed.
	ClaimedAt time.Time
}

// CommandClaims remembers, durably, which delivery acted on each comment
// command, so that a captured webhook replayed under a new delivery id
// runs nothing again.
type CommandClaims interface {
	// ClaimCommand claims c's command for c.DeliveryID. It reports true if
	// no delivery had claimed it (it is now c's) or c.DeliveryID had (a
	// retry of the same delivery), false if another delivery had: that
	// one acted on it and c must change nothing. The first claim is kept.
	ClaimCommand(ctx context.Context, c CommandClaim) (bool, error)
}
