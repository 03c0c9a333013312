package memstore

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/mergequeue/mq/queue"
)

// SetTargets stores a PR's impacted targets in a queue, replacing earlier
// ones; a nil List is stored as empty.
func (o *ops) SetTargets(ctx context.Context, t queue.Targets) error {
	unlock, err := o.begin(ctx)
	if err != nil {
		return fmt.Errorf("failed to store impacted targets of #%d in queue %d: %w", t.PRNumber, t.QueueID, err)
	}
	defer unlock()
	d := o.d
	if err := d.queueExists(t.QueueID); err != nil {
		return fmt.Errorf("failed to store impacted targets of #%d: %w", t.PRNumber, err)
	}
	c := copyTargets(t)
	if c.List == nil {
		c.List = []string{}
	}
	if err := normTimes(&c.UpdatedAt); err != nil {
		return fmt.Errorf("failed to store impacted targets of #%d in queue %d: %w", t.PRNumber, t.QueueID, err)
	}
	k := prKey{t.QueueID, t.PRNumber}
	old, existed := d.targets[k]
	d.targets[k] = c
	o.tx.add(func() {
		if existed {
			d.targets[k] = old
		} else {
			delete(d.targets, k)
		}
	})
	d.versions.Changed(t.QueueID)
	return nil
}

// GetTargets returns a PR's impacted targets in a queue; queue.ErrNotFound
// if none were stored.
func (o *ops) GetTargets(ctx context.Context, queueID int64, prNumber int) (*queue.Targets, error) {
	unlock, err := o.begin(ctx)
	if err != nil {
		return nil, fmt.Errorf("failed to read impacted targets of #%d in queue %d: %w", prNumber, queueID, err)
	}
	defer unlock()
	t, ok := o.d.targets[prKey{queueID, prNumber}]
	if !ok {
		return nil, fmt.Errorf("impacted targets of #%d in queue %d: %w", prNumber, queueID, queue.ErrNotFound)
	}
	c := copyTargets(t)
	return &c, nil
}

// AddEvent appends ev to its queue's event log and sets ev.ID (increasing
// across the store).
func (o *ops) AddEvent(ctx context.Context, ev *queue.Event) error {
	unlock, err := o.begin(ctx)
	if err != nil {
		return fmt.Errorf("failed to record event of entry %s: %w", ev.EntryID, err)
	}
	defer unlock()
	d := o.d
	if err := d.queueExists(ev.QueueID); err != nil {
		return fmt.Errorf("failed to record event of entry %s: %w", ev.EntryID, err)
	}
	c := *ev
	if err := normTimes(&c.At); err != nil {
		return fmt.Errorf("failed to record event of entry %s: %w", ev.EntryID, err)
	}
	prevID := d.nextEventID
	d.nextEventID++
	c.ID = d.nextEventID
	// The log stays sorted by (At, ID): the new ID is the largest, so the
	// event goes after every event at or before its time (usually last).
	evs := d.events[c.QueueID]
	i := sort.Search(len(evs), func(i int) bool { return evs[i].At.After(c.At) })
	d.events[c.QueueID] = slices.Insert(evs, i, c)
	o.tx.add(func() {
		d.events[c.QueueID] = slices.Delete(d.events[c.QueueID], i, i+1)
		d.nextEventID = prevID
	})
	d.versions.Changed(c.QueueID)
	ev.ID = c.ID
	return nil
}

// ListEvents returns the queue's events at or after since, ordered by (At,
// ID). As in SQL, where the zero time is NULL, a zero since matches nothing
// and an event with a zero At is never listed.
func (o *ops) ListEvents(ctx context.Context, queueID int64, since time.Time) ([]queue.Event, error) {
	unlock, err := o.begin(ctx)
	if err != nil {
		return nil, fmt.Errorf("failed to list events of queue %d: %w", queueID, err)
	}
	defer unlock()
	if err := normTimes(&since); err != nil {
		return nil, fmt.Errorf("failed to list events of queue %d: %w", queueID, err)
	}
	if since.IsZero() {
		return nil, nil
	}
	evs := o.d.events[queueID] // sorted by (At, ID)
	i := sort.Search(len(evs), func(i int) bool { return !evs[i].At.Before(since) })
	if i == len(evs) {
		return nil, nil
	}
	return slices.Clone(evs[i:]), nil
}

// LastEvent returns the entry's event with the highest ID in the queue's
// log; queue.ErrNotFound if there is none.
func (o *ops) LastEvent(ctx context.Context, queueID int64, entryID string) (*queue.Event, error) {
	unlock, err := o.begin(ctx)
	if err != nil {
		return nil, fmt.Errorf("failed to read the last event of entry %s: %w", entryID, err)
	}
	defer unlock()
	var last *queue.Event
	for i, ev := range o.d.events[queueID] {
		if ev.EntryID == entryID && (last == nil || ev.ID > last.ID) {
			last = &o.d.events[queueID][i]
		}
	}
	if last == nil {
		return nil, fmt.Errorf("no event of entry %s: %w", entryID, queue.ErrNotFound)
	}
	c := *last
	return &c, nil
}

// AddMerge appends m to its queue's merge log; a merge of a PR the log
// has (PRNumber > 0) is not appended again.
func (o *ops) AddMerge(ctx context.Context, m queue.MergeRecord) error {
	unlock, err := o.begin(ctx)
	if err != nil {
		return fmt.Errorf("failed to record merge of PR #%d in queue %d: %w", m.PRNumber, m.QueueID, err)
	}
	defer unlock()
	d := o.d
	if err := d.queueExists(m.QueueID); err != nil {
		return fmt.Errorf("failed to record merge of PR #%d: %w", m.PRNumber, err)
	}
	if err := normTimes(&m.At); err != nil {
		return fmt.Errorf("failed to record merge of PR #%d in queue %d: %w", m.PRNumber, m.QueueID, err)
	}
	if m.PRNumber > 0 && slices.ContainsFunc(d.merges[m.QueueID], func(r queue.MergeRecord) bool { return r.PRNumber == m.PRNumber }) {
		return nil // recorded once
	}
	n := len(d.merges[m.QueueID])
	d.merges[m.QueueID] = append(d.merges[m.QueueID], m)
	_, known := d.mergeAt[m.QueueID][m.Before]
	if !known {
		put(d.mergeAt, m.QueueID, m.Before, n)
	}
	o.tx.add(func() {
		d.merges[m.QueueID] = d.merges[m.QueueID][:n]
		if !known {
			drop(d.mergeAt, m.QueueID, m.Before)
		}
	})
	return nil
}

// ListMergesFrom returns the queue's merge log from its oldest record
// whose Before is one of befores through its last, oldest first (nil when
// none is a recorded Before).
func (o *ops) ListMergesFrom(ctx context.Context, queueID int64, befores []string) ([]queue.MergeRecord, error) {
	unlock, err := o.begin(ctx)
	if err != nil {
		return nil, fmt.Errorf("failed to list merges of queue %d: %w", queueID, err)
	}
	defer unlock()
	from := -1
	for _, b := range befores {
		if i, ok := o.d.mergeAt[queueID][b]; ok && (from < 0 || i < from) {
			from = i
		}
	}
	if from < 0 {
		return nil, nil
	}
	return slices.Clone(o.d.merges[queueID][from:]), nil
}

// ListMerges returns the queue's merge log in the order it was appended,
// limited to the last limit records (0 or less = all).
func (o *ops) ListMerges(ctx context.Context, queueID int64, limit int) ([]queue.MergeRecord, error) {
	unlock, err := o.begin(ctx)
	if err != nil {
		return nil, fmt.Errorf("failed to list merges of queue %d: %w", queueID, err)
	}
	defer unlock()
	all := o.d.merges[queueID]
	if limit > 0 && len(all) > limit {
		all = all[len(all)-limit:]
	}
	if len(all) == 0 {
		return nil, nil
	}
	return slices.Clone(all), nil
}
