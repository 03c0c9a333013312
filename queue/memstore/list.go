package memstore

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mergequeue/mq/queue"
)

// ListEntries lists a queue's entries newest first by ActivityAt, then ID
// descending, filtered by state, author and time range, continuing after a keyset
// position (see queue.EntryQuery). As in SQL, an entry whose ActivityAt is
// the zero time (NULL) fails every time bound and is listed last.
func (o *ops) ListEntries(ctx context.Context, q queue.EntryQuery) ([]*queue.Entry, error) {
	unlock, err := o.begin(ctx)
	if err != nil {
		return nil, fmt.Errorf("failed to list entries of queue %d: %w", q.QueueID, err)
	}
	defer unlock()
	since, until, afterAt := q.Since, q.Until, q.AfterAt
	if err := normTimes(&since, &until, &afterAt); err != nil {
		return nil, fmt.Errorf("failed to list entries of queue %d: %w", q.QueueID, err)
	}
	var out []*queue.Entry
	for _, e := range o.d.queueEntries[q.QueueID] {
		if len(q.States) > 0 && !slices.Contains(q.States, e.State) {
			continue
		}
		if q.Author != "" && !strings.EqualFold(e.PR.Author, q.Author) {
			continue
		}
		at := e.ActivityAt()
		if !since.IsZero() && !sqlGE(at, since) {
			continue
		}
		if !until.IsZero() && !sqlLT(at, until) {
			continue
		}
		if q.AfterID != "" && !(sqlLT(at, afterAt) || (sqlEQ(at, afterAt) && e.ID < q.AfterID)) {
			continue
		}
		out = append(out, e)
	}
	slices.SortFunc(out, func(a, b *queue.Entry) int {
		return cmp.Or(-nullTimeCompare(a.ActivityAt(), b.ActivityAt()), -cmp.Compare(a.ID, b.ID))
	})
	if q.Limit > 0 && len(out) > q.Limit {
		out = out[:q.Limit]
	}
	for i, e := range out {
		out[i] = copyEntry(e)
	}
	return out, nil
}

// SQL comparisons where the zero time is NULL: any comparison with NULL is
// false.
func sqlGE(a, b time.Time) bool { return !a.IsZero() && !b.IsZero() && !a.Before(b) }
func sqlLT(a, b time.Time) bool { return !a.IsZero() && !b.IsZero() && a.Before(b) }
func sqlEQ(a, b time.Time) bool { return !a.IsZero() && !b.IsZero() && a.Equal(b) }
