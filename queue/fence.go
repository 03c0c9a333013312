package queue

import (
	"context"
	"errors"
	"time"
)

// ErrLeaseLost is returned by a write made for a queue whose lease its
// writer no longer holds (another replica took the queue, or the lease
// expired before it was renewed): nothing was written, nothing was sent to
// GitHub.
var ErrLeaseLost = errors.New("the queue's lease is no longer held: this replica does not decide for it")

// Fence is a replica's proof that it decides for one queue: the queue's
// lease, as held. A context carrying one (WithFence) marks the writes made
// under it as the decision-maker's: the store makes each such write only
// while Token is still the queue's fencing token (a stale token changes
// nothing and fails with ErrLeaseLost), and no GitHub write is sent unless
// HeldUntil leaves it time to finish. Implementations are safe for
// concurrent use.
type Fence interface {
	// QueueID is the queue the lease is of.
	QueueID() int64
	// Holder names the replica holding it.
	Holder() string
	// Token is the lease's fencing token.
	Token() int64
	// HeldUntil is the earliest time the lease may pass to another replica
	// (its expiry as last renewed, counted from before the renewal was
	// asked); the zero time once it is known lost.
	HeldUntil() time.Time
}

type fenceKey struct{}

// WithFence returns ctx carrying f.
func WithFence(ctx context.Context, f Fence) context.Context {
	return context.WithValue(ctx, fenceKey{}, f)
}

// FenceOf returns the fence ctx carries, if any.
func FenceOf(ctx context.Context) (Fence, bool) {
	f, ok := ctx.Value(fenceKey{}).(Fence)
	return f, ok && f != nil
}
