package memstore

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/mergequeue/mq/queue"
)

// Unix nanoseconds cover 1677-09-21 to 2262-04-11, as in the SQLite store.
var (
	minTime = time.Unix(0, math.MinInt64)
	maxTime = time.Unix(0, math.MaxInt64)
)

// normTimes rewrites each time as the SQLite store returns it: UTC, no
// monotonic reading, nanosecond precision; the zero time stays zero. It
// refuses a time outside the storable range.
func normTimes(ts ...*time.Time) error {
	for _, t := range ts {
		if t.IsZero() {
			*t = time.Time{}
			continue
		}
		if t.Before(minTime) || t.After(maxTime) {
			return fmt.Errorf("time %s is outside the storable range (years 1678 to 2262)", t.UTC().Format(time.RFC3339))
		}
		*t = time.Unix(0, t.UnixNano()).UTC()
	}
	return nil
}

func copyQueue(q *queue.Queue) *queue.Queue {
	c := *q
	c.Settings = q.Settings.Clone()
	return &c
}

// storedQueue is a normalised deep copy of q for storing.
func storedQueue(q *queue.Queue) (*queue.Queue, error) {
	c := copyQueue(q)
	if err := normTimes(&c.CreatedAt, &c.UpdatedAt); err != nil {
		return nil, err
	}
	return c, nil
}

func copyEntry(e *queue.Entry) *queue.Entry {
	c := new(queue.Entry)
	copyEntryInto(c, e)
	return c
}

// copyEntryInto makes *dst a deep copy of e.
func copyEntryInto(dst, e *queue.Entry) {
	*dst = *e
	if e.PR.Mergeable != nil {
		m := *e.PR.Mergeable
		dst.PR.Mergeable = &m
	}
	if e.Conflict != nil {
		k := *e.Conflict
		k.Before = slices.Clone(e.Conflict.Before)
		dst.Conflict = &k
	}
}

// copyEntries deep-copies es in order, into one allocation: the listing
// of a snapshot copies every active entry, and one allocation for all of
// them costs a fraction of one each.
func copyEntries(es []*queue.Entry) []*queue.Entry { return copyAll(es, copyEntryInto) }

// copyAll deep-copies each of src with into, in order, into one backing
// array (nil when src is empty).
func copyAll[T any](src []*T, into func(dst, src *T)) []*T {
	if len(src) == 0 {
		return nil
	}
	backing := make([]T, len(src))
	out := make([]*T, len(src))
	for i, v := range src {
		into(&backing[i], v)
		out[i] = &backing[i]
	}
	return out
}

// storedEntry is a normalised deep copy of e for storing.
func storedEntry(e *queue.Entry) (*queue.Entry, error) {
	c := copyEntry(e)
	if err := normTimes(&c.PR.ReadAt, &c.StateChangedAt, &c.SubmittedAt, &c.AdmittedAt, &c.ConcludedAt, &c.NextAttemptAt, &c.PRCheckedAt); err != nil {
		return nil, err
	}
	if c.Conflict != nil {
		if err := normTimes(&c.Conflict.At); err != nil {
			return nil, err
		}
	}
	return c, nil
}

func copyRun(r *queue.TestRun) *queue.TestRun {
	c := new(queue.TestRun)
	copyRunInto(c, r)
	return c
}

// copyRunInto makes *dst a deep copy of r. Its string lists share one
// allocation, each capped at its length, so appending to one never
// writes into another.
func copyRunInto(dst, r *queue.TestRun) {
	*dst = *r
	dst.PRNumbers = slices.Clone(r.PRNumbers)
	dst.RerunChecks = slices.Clone(r.RerunChecks)
	lists := [...]*[]string{&dst.EntryIDs, &dst.PRSHAs, &dst.Ahead, &dst.RequiredChecks}
	n := 0
	for _, l := range lists {
		n += len(*l)
	}
	strs := make([]string, 0, n)
	for _, l := range lists {
		if *l == nil {
			continue // nil stays nil, as slices.Clone keeps it
		}
		from := len(strs)
		strs = append(strs, *l...)
		*l = strs[from:len(strs):len(strs)]
	}
}

// copyRuns deep-copies rs in order, into one allocation for the runs.
func copyRuns(rs []*queue.TestRun) []*queue.TestRun { return copyAll(rs, copyRunInto) }

// storedRun is a normalised deep copy of r for storing.
func storedRun(r *queue.TestRun) (*queue.TestRun, error) {
	c := copyRun(r)
	if err := normTimes(&c.CreatedAt, &c.StartedAt, &c.FinishedAt); err != nil {
		return nil, err
	}
	return c, nil
}

func copyTargets(t queue.Targets) queue.Targets {
	t.List = slices.Clone(t.List)
	return t
}
