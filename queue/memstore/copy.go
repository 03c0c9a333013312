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
	c := *e
	if e.PR.Mergeable != nil {
		m := *e.PR.Mergeable
		c.PR.Mergeable = &m
	}
	if e.Conflict != nil {
		k := *e.Conflict
		k.Before = slices.Clone(e.Conflict.Before)
		c.Conflict = &k
	}
	return &c
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
	c := *r
	c.EntryIDs = slices.Clone(r.EntryIDs)
	c.PRNumbers = slices.Clone(r.PRNumbers)
	c.PRSHAs = slices.Clone(r.PRSHAs)
	c.Ahead = slices.Clone(r.Ahead)
	c.RequiredChecks = slices.Clone(r.RequiredChecks)
	c.RerunChecks = slices.Clone(r.RerunChecks)
	return &c
}

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
