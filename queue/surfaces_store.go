package queue

import (
	"context"
	"time"
)

// SurfaceStore is the part of the Store that drives GitHub's side of the
// queue from durable state: entry surfaces, notices and the refs the queue
// creates. Writes made inside WithTx commit with the state change that
// caused them.
type SurfaceStore interface {
	// TouchSurface bumps the Want of an entry's surface (creating it), so
	// the reconciler brings GitHub up to the entry's current state.
	TouchSurface(ctx context.Context, queueID int64, entryID string) error
	// GetSurface returns an entry's surface (ErrNotFound if never touched).
	GetSurface(ctx context.Context, entryID string) (*Surface, error)
	// DueSurfaces returns up to limit surfaces with Want > Done whose
	// NextAttemptAt is at or before now, least recently attempted first.
	DueSurfaces(ctx context.Context, now time.Time, limit int) ([]Surface, error)
	// SaveSurface stores everything of s but Want (which only
	// TouchSurface changes); ErrNotFound if the surface does not exist.
	SaveSurface(ctx context.Context, s Surface) error

	// TouchRunSurface bumps the Want of a run's test-PR surface (creating
	// it).
	TouchRunSurface(ctx context.Context, queueID int64, runID string) error
	// GetRunSurface returns a run's test-PR surface (ErrNotFound if never
	// touched).
	GetRunSurface(ctx context.Context, runID string) (*RunSurface, error)
	// DueRunSurfaces returns up to limit run surfaces with Want > Done whose
	// NextAttemptAt is at or before now, least recently attempted first.
	DueRunSurfaces(ctx context.Context, now time.Time, limit int) ([]RunSurface, error)
	// SaveRunSurface stores everything of s but Want; ErrNotFound if absent.
	SaveRunSurface(ctx context.Context, s RunSurface) error

	// AddNotice stores n and sets n.ID, unless a notice with n.Key exists:
	// then it changes nothing and reports false.
	AddNotice(ctx context.Context, n *Notice) (bool, error)
	// DueNotices returns up to limit notices not done whose NextAttemptAt
	// is at or before now, oldest first.
	DueNotices(ctx context.Context, now time.Time, limit int) ([]Notice, error)
	// SaveNotice stores the delivery bookkeeping of n (Attempted,
	// Attempts, NextAttemptAt, LastError, DoneAt); ErrNotFound if absent.
	SaveNotice(ctx context.Context, n Notice) error

	// RecordRef records a branch before it is created (recording it again
	// is not an error).
	RecordRef(ctx context.Context, r Ref) error
	// ListRefs returns the recorded branches of a repository, every queue's.
	ListRefs(ctx context.Context, repo Repo) ([]Ref, error)
	// ForgetRef removes a branch's record (once it is gone from GitHub);
	// forgetting an unknown one is not an error.
	ForgetRef(ctx context.Context, repo Repo, name string) error
	// ListQueuesWithRunRefs returns, ordered by ID, the queues with a
	// recorded branch made for a run (Ref.RunID set): those whose
	// branches the clean-up may still have to delete. A lane (recorded
	// without a run) does not count: it lives as long as its queue. The
	// store's work is that of the recorded run branches, not of every
	// queue.
	ListQueuesWithRunRefs(ctx context.Context) ([]*Queue, error)
}
