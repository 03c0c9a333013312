package memstore

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"time"

	"github.com/mergequeue/mq/queue"
)

// refKey identifies a recorded branch (repository folded, as GitHub
// compares names).
type refKey struct {
	repo queue.Repo
	name string
}

// TouchSurface bumps the Want of an entry's surface, creating it.
func (o *ops) TouchSurface(ctx context.Context, queueID int64, entryID string) error {
	unlock, err := o.begin(ctx)
	if err != nil {
		return fmt.Errorf("failed to touch the surface of entry %s: %w", entryID, err)
	}
	defer unlock()
	d := o.d
	if err := d.queueExists(queueID); err != nil {
		return fmt.Errorf("failed to touch the surface of entry %s: %w", entryID, err)
	}
	old, existed := d.surfaces[entryID]
	s := old
	if !existed {
		s = queue.Surface{EntryID: entryID, QueueID: queueID}
	}
	s.Want++
	d.surfaces[entryID] = s
	o.tx.add(func() {
		if existed {
			d.surfaces[entryID] = old
		} else {
			delete(d.surfaces, entryID)
		}
	})
	return nil
}

// GetSurface returns an entry's surface.
func (o *ops) GetSurface(ctx context.Context, entryID string) (*queue.Surface, error) {
	unlock, err := o.begin(ctx)
	if err != nil {
		return nil, fmt.Errorf("failed to read the surface of entry %s: %w", entryID, err)
	}
	defer unlock()
	s, ok := o.d.surfaces[entryID]
	if !ok {
		return nil, fmt.Errorf("surface of entry %s: %w", entryID, queue.ErrNotFound)
	}
	return &s, nil
}

// DueSurfaces returns due surfaces, least recently attempted first.
func (o *ops) DueSurfaces(ctx context.Context, now time.Time, limit int) ([]queue.Surface, error) {
	unlock, err := o.begin(ctx)
	if err != nil {
		return nil, fmt.Errorf("failed to list due surfaces: %w", err)
	}
	defer unlock()
	var out []queue.Surface
	for _, s := range o.d.surfaces {
		if s.Due() && !s.NextAttemptAt.After(now) {
			out = append(out, s)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].NextAttemptAt.Equal(out[j].NextAttemptAt) {
			return out[i].NextAttemptAt.Before(out[j].NextAttemptAt)
		}
		return out[i].EntryID < out[j].EntryID
	})
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

// SaveSurface stores everything of s but Want.
func (o *ops) SaveSurface(ctx context.Context, s queue.Surface) error {
	unlock, err := o.begin(ctx)
	if err != nil {
		return fmt.Errorf("failed to save the surface of entry %s: %w", s.EntryID, err)
	}
	defer unlock()
	d := o.d
	old, ok := d.surfaces[s.EntryID]
	if !ok {
		return fmt.Errorf("surface of entry %s: %w", s.EntryID, queue.ErrNotFound)
	}
	if err := normTimes(&s.NextAttemptAt, &s.WrittenAt); err != nil {
		return fmt.Errorf("failed to save the surface of entry %s: %w", s.EntryID, err)
	}
	s.Want, s.QueueID = old.Want, old.QueueID
	d.surfaces[s.EntryID] = s
	o.tx.add(func() { d.surfaces[s.EntryID] = old })
	return nil
}

// AddNotice stores n unless its key exists.
func (o *ops) AddNotice(ctx context.Context, n *queue.Notice) (bool, error) {
	unlock, err := o.begin(ctx)
	if err != nil {
		return false, fmt.Errorf("failed to add notice %s: %w", n.Key, err)
	}
	defer unlock()
	d := o.d
	if _, dup := d.noticeKeys[n.Key]; dup {
		return false, nil
	}
	c := *n
	if err := normTimes(&c.CreatedAt, &c.NextAttemptAt, &c.DoneAt); err != nil {
		return false, fmt.Errorf("failed to add notice %s: %w", n.Key, err)
	}
	d.nextNoticeID++
	c.ID = d.nextNoticeID
	d.notices[c.ID] = c
	d.noticeKeys[c.Key] = c.ID
	o.tx.add(func() {
		delete(d.notices, c.ID)
		delete(d.noticeKeys, c.Key)
	})
	n.ID = c.ID
	return true, nil
}

// DueNotices returns undelivered due notices, oldest first.
func (o *ops) DueNotices(ctx context.Context, now time.Time, limit int) ([]queue.Notice, error) {
	unlock, err := o.begin(ctx)
	if err != nil {
		return nil, fmt.Errorf("failed to list due notices: %w", err)
	}
	defer unlock()
	var out []queue.Notice
	for _, n := range o.d.notices {
		if n.DoneAt.IsZero() && !n.NextAttemptAt.After(now) {
			out = append(out, n)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

// SaveNotice stores the delivery bookkeeping of n.
func (o *ops) SaveNotice(ctx context.Context, n queue.Notice) error {
	unlock, err := o.begin(ctx)
	if err != nil {
		return fmt.Errorf("failed to save notice %d: %w", n.ID, err)
	}
	defer unlock()
	d := o.d
	old, ok := d.notices[n.ID]
	if !ok {
		return fmt.Errorf("notice %d: %w", n.ID, queue.ErrNotFound)
	}
	c := old
	c.Attempted, c.Attempts, c.NextAttemptAt, c.LastError, c.DoneAt = n.Attempted, n.Attempts, n.NextAttemptAt, n.LastError, n.DoneAt
	if err := normTimes(&c.NextAttemptAt, &c.DoneAt); err != nil {
		return fmt.Errorf("failed to save notice %d: %w", n.ID, err)
	}
	d.notices[n.ID] = c
	o.tx.add(func() { d.notices[n.ID] = old })
	return nil
}

// RecordRef records a branch before it is created.
func (o *ops) RecordRef(ctx context.Context, r queue.Ref) error {
	unlock, err := o.begin(ctx)
	if err != nil {
		return fmt.Errorf("failed to record branch %s: %w", r.Name, err)
	}
	defer unlock()
	d := o.d
	if err := normTimes(&r.CreatedAt); err != nil {
		return fmt.Errorf("failed to record branch %s: %w", r.Name, err)
	}
	k := refKey{r.Repo.Fold(), r.Name}
	old, existed := d.refs[k]
	d.refs[k] = r
	o.tx.add(func() {
		if existed {
			d.refs[k] = old
		} else {
			delete(d.refs, k)
		}
	})
	return nil
}

// ListRefs returns the recorded branches of a repository, by name.
func (o *ops) ListRefs(ctx context.Context, repo queue.Repo) ([]queue.Ref, error) {
	unlock, err := o.begin(ctx)
	if err != nil {
		return nil, fmt.Errorf("failed to list the branches of %s: %w", repo, err)
	}
	defer unlock()
	var out []queue.Ref
	folded := repo.Fold()
	for k, r := range o.d.refs {
		if k.repo == folded {
			out = append(out, r)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// ForgetRef removes a branch's record.
func (o *ops) ForgetRef(ctx context.Context, repo queue.Repo, name string) error {
	unlock, err := o.begin(ctx)
	if err != nil {
		return fmt.Errorf("failed to forget branch %s: %w", name, err)
	}
	defer unlock()
	d := o.d
	k := refKey{repo.Fold(), name}
	old, existed := d.refs[k]
	if !existed {
		return nil
	}
	delete(d.refs, k)
	o.tx.add(func() { d.refs[k] = old })
	return nil
}

// ListQueuesWithRunRefs returns the queues with a recorded branch made for
// a run, ordered by ID.
func (o *ops) ListQueuesWithRunRefs(ctx context.Context) ([]*queue.Queue, error) {
	unlock, err := o.begin(ctx)
	if err != nil {
		return nil, fmt.Errorf("failed to list the queues with recorded run branches: %w", err)
	}
	defer unlock()
	ids := map[int64]bool{}
	for _, r := range o.d.refs {
		if r.RunID != "" {
			ids[r.QueueID] = true
		}
	}
	var out []*queue.Queue
	for _, id := range slices.Sorted(maps.Keys(ids)) {
		if q, ok := o.d.queues[id]; ok {
			out = append(out, copyQueue(q))
		}
	}
	return out, nil
}
