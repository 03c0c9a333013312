package notify

import (
	"context"
	"time"

	"github.com/mergequeue/mq/queue"
)

// Cursor is one notification target's position in the event log and its
// retry state. Target holds the target's key (TargetKey): its kind and the
// SHA-256 of its URL, never the URL, which may carry a credential (a chat
// webhook).
type Cursor struct {
	Target      string
	LastEventID int64
	// Attempts counts the failed deliveries of the event after LastEventID.
	Attempts      int
	NextAttemptAt time.Time // zero = due now
	LastError     string
}

// Store is what a Notifier reads and keeps its cursors in. It is declared
// here, with its own Cursor type, so that this package imports no storage:
// the application adapts its store to it.
type Store interface {
	Lookup
	// EventsAfter returns up to limit events of every queue with an ID
	// above afterID, oldest first.
	EventsAfter(ctx context.Context, afterID int64, limit int) ([]queue.Event, error)
	// ClaimCursor makes holder the only deliverer to target until now+hold
	// and returns target's cursor, unless another holder's claim is live at
	// now (ok false, nothing changed); a holder claiming again extends its
	// claim. The claim holds across every process sharing the store. A
	// target seen for the first time starts at the newest event: it is told
	// about what happens from now on, not about the whole history.
	ClaimCursor(ctx context.Context, target, holder string, now time.Time, hold time.Duration) (c Cursor, ok bool, err error)
	// SaveCursor stores c as the cursor of c.Target.
	SaveCursor(ctx context.Context, c Cursor) error
}
