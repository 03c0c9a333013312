package queue

import (
	"context"
	"errors"
	"time"
)

// ErrNotFound is returned by Store lookups that match nothing.
var ErrNotFound = errors.New("not found")

// ErrExists is returned when creating something that already exists.
var ErrExists = errors.New("already exists")

// ErrConflict is returned by a compare-and-set write made from a stale
// read (see Entry.Version): the row changed since it was read, nothing was
// written; read it again and retry.
var ErrConflict = errors.New("changed since it was read")

// Store is the durable state of every queue. Each method is atomic; WithTx
// runs several in one transaction. Implementations must be safe for
// concurrent use. Timestamps are stored with at least millisecond precision
// and returned in UTC.
type Store interface {
	// WithTx runs fn in one write transaction; fn's store sees its own writes.
	// If fn returns an error, nothing it wrote is kept.
	WithTx(ctx context.Context, fn func(tx Store) error) error

	// CreateQueue stores q and sets q.ID; ErrExists if the key is taken.
	CreateQueue(ctx context.Context, q *Queue) error
	// GetQueue finds a queue by key; ErrNotFound if absent.
	GetQueue(ctx context.Context, key QueueKey) (*Queue, error)
	GetQueueByID(ctx context.Context, id int64) (*Queue, error)
	// ListQueues returns every queue, ordered by ID.
	ListQueues(ctx context.Context) ([]*Queue, error)
	// ListActiveQueues returns the queues that have work, ordered by ID:
	// an active entry (queued, testing or waiting) or an open run. A
	// queue it leaves out has nothing for its engine to decide; the
	// store's work is that of the active entries and open runs, not of
	// every queue.
	ListActiveQueues(ctx context.Context) ([]*Queue, error)
	// UpdateQueue saves q's state, settings, NextSeq and PausedReason.
	UpdateQueue(ctx context.Context, q *Queue) error
	// DeleteQueue removes a queue with its entries, runs and merge records.
	// Deleting an absent queue is not an error.
	DeleteQueue(ctx context.Context, id int64) error

	// SaveEntry inserts or replaces an entry by ID. (QueueID, PRNumber) is
	// unique: saving a second entry with another ID for them is an error.
	// It is compare-and-set on e.Version: an entry with Version 0 is
	// inserted only if its ID is new, any other replaces the stored entry
	// only if that is still at e.Version; else it fails with ErrConflict
	// and changes nothing. On success e.Version is the new version.
	SaveEntry(ctx context.Context, e *Entry) error
	// GetEntry returns the entry of a PR in a queue, active or not.
	GetEntry(ctx context.Context, queueID int64, prNumber int) (*Entry, error)
	GetEntryByID(ctx context.Context, id string) (*Entry, error)
	// ListActiveEntries returns the queue's non-terminal entries, ordered by
	// (PriorityValue, Seq, SubmittedAt).
	ListActiveEntries(ctx context.Context, queueID int64) ([]*Entry, error)
	// CountActiveEntries returns how many entries ListActiveEntries would
	// return, without reading them.
	CountActiveEntries(ctx context.Context, queueID int64) (int, error)
	// FindActiveEntries returns the active entries of a PR in every queue of
	// the repository.
	FindActiveEntries(ctx context.Context, repo Repo, prNumber int) ([]*Entry, error)

	// SaveRun inserts or replaces a test run by ID.
	SaveRun(ctx context.Context, r *TestRun) error
	GetRun(ctx context.Context, id string) (*TestRun, error)
	// ListOpenRuns returns the queue's runs that are not Closed, oldest first.
	ListOpenRuns(ctx context.Context, queueID int64) ([]*TestRun, error)
	// RecentRuns returns up to limit of the queue's runs that succeeded,
	// the most recently finished first (typical CI durations, for ETAs).
	RecentRuns(ctx context.Context, queueID int64, limit int) ([]*TestRun, error)
	// FindRunsBySHA returns the open runs, in any queue of repo, whose test
	// commit is sha.
	FindRunsBySHA(ctx context.Context, repo Repo, sha string) ([]*TestRun, error)

	// RecordCheck inserts or replaces the result for (repo, SHA, Kind, Name);
	// a result older (UpdatedAt) than the stored one is ignored.
	RecordCheck(ctx context.Context, repo Repo, c CheckResult) error
	// ListChecks returns every recorded result on a commit of repo.
	ListChecks(ctx context.Context, repo Repo, sha string) ([]CheckResult, error)

	// ListEntries lists a queue's entries, active or not (see EntryQuery).
	ListEntries(ctx context.Context, q EntryQuery) ([]*Entry, error)

	// SetTargets stores a PR's impacted targets in a queue, replacing
	// earlier ones.
	SetTargets(ctx context.Context, t Targets) error
	// GetTargets returns a PR's impacted targets in a queue (ErrNotFound if
	// none were uploaded).
	GetTargets(ctx context.Context, queueID int64, prNumber int) (*Targets, error)

	// AddEvent appends to the queue's event log and sets ev.ID.
	AddEvent(ctx context.Context, ev *Event) error
	// ListEvents returns the queue's events at or after since, oldest first.
	ListEvents(ctx context.Context, queueID int64, since time.Time) ([]Event, error)
	// LastEvent returns the latest of an entry's events still kept (the
	// highest ID); ErrNotFound if none is. An ended entry's last event is
	// the one that ended it.
	LastEvent(ctx context.Context, queueID int64, entryID string) (*Event, error)

	// AddMerge appends to the queue's merge log. A PR's merge is recorded
	// once: a record for a PR (PRNumber > 0) the queue's log has already is
	// a no-op.
	AddMerge(ctx context.Context, m MergeRecord) error
	// ListMerges returns the queue's merge log, oldest first, limited to the
	// last `limit` records (0 = all).
	ListMerges(ctx context.Context, queueID int64, limit int) ([]MergeRecord, error)
	// ListMergesFrom returns the queue's merge log from its oldest record
	// whose Before is one of befores through its last record, oldest
	// first: every merge since the first of those commits was the target
	// head (nil when none of them is a recorded Before). It reads what a
	// decision about runs built on those commits needs, however many
	// merges landed since, and no more.
	ListMergesFrom(ctx context.Context, queueID int64, befores []string) ([]MergeRecord, error)

	// SurfaceStore keeps what the reconciler must bring GitHub to.
	SurfaceStore
	// CommandClaims remembers which delivery acted on each comment command.
	CommandClaims
}
