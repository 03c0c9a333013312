package readside

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/mergequeue/mq/queue"
)

// Bounds of the read model: spellings of queue keys remembered, and PRs
// described per view (beyond them reads still work, uncached).
const (
	maxViewKeys    = 1024
	maxDescribedPR = 4096
)

// views is the read model: per queue, what GetQueue, QueueSnapshot and
// GetSubmitted read, as of a version of the store. A view is served while
// the queue's version is the one read before the view was loaded, so a
// read never shows a state older than a write that returned before the
// read began (read-your-writes): the store moves the version before the
// write returns, and a view loaded before that write is not served after
// it. Views are copies of the store's state and are never modified once
// built; what they hand out must not be modified either.
type views struct {
	versions QueueVersions

	mu   sync.RWMutex
	byID map[int64]*queueView
	// ids maps each spelling of a key asked for to its queue: spellings
	// are resolved by the store (which decides what case folds), once.
	ids map[queue.QueueKey]int64
	// loading holds the load in progress of each queue's view, so that
	// readers who find a view stale at once (after a write) wait for one
	// load instead of each loading the queue.
	loading map[int64]*viewLoad
}

// viewLoad is a load of a queue's view from the store, begun at version.
type viewLoad struct {
	version uint64
	done    chan struct{} // closed when v and err are set
	v       *queueView
	err     error
	joined  int // readers waiting for this load (under views.mu)
}

func newViews(store Store) *views {
	v, ok := store.(QueueVersions)
	if !ok {
		return nil
	}
	return &views{versions: v, byID: map[int64]*queueView{}, ids: map[queue.QueueKey]int64{}, loading: map[int64]*viewLoad{}}
}

// queueView is one queue as of version: the queue, its active entries
// (store order, and the admitted ones in queue order), its open runs and
// its typical CI duration, plus what was described of its PRs since.
type queueView struct {
	version uint64
	q       *queue.Queue
	entries []*queue.Entry       // every active entry, as the store lists them
	ordered []*queue.Entry       // the admitted ones, in queue order
	active  map[int]*queue.Entry // by PR number
	runs    []*queue.TestRun     // open runs
	typical time.Duration        // TypicalDuration of the recent runs
	timeout queue.TestingTimeout // the queue's testing timeout (from the recent runs)
	snap    *QueueSnapshot       // q and ordered, handed out by QueueSnapshot
	eff     *queue.Queue         // q with the settings in force (autoTune's)

	mu        sync.Mutex
	described map[int]*queue.SubmittedPR // PR → description without position and ETA; nil = never submitted
	estAt     time.Time                  // when ests was computed
	ests      map[string]Estimate
}

// idOf returns the queue a key spelling resolved to.
func (vs *views) idOf(key queue.QueueKey) (int64, bool) {
	vs.mu.RLock()
	defer vs.mu.RUnlock()
	id, ok := vs.ids[key]
	return id, ok
}

// remember records the queue a key spelling resolves to.
func (vs *views) remember(key queue.QueueKey, id int64) {
	vs.mu.Lock()
	defer vs.mu.Unlock()
	if len(vs.ids) >= maxViewKeys {
		clear(vs.ids)
	}
	vs.ids[key] = id
}

// forget drops a queue that is gone, and every spelling of its key.
func (vs *views) forget(id int64) {
	vs.mu.Lock()
	defer vs.mu.Unlock()
	delete(vs.byID, id)
	for k, qid := range vs.ids {
		if qid == id {
			delete(vs.ids, k)
		}
	}
}

// current returns the queue's view if it is at the queue's version now.
func (vs *views) current(id int64) *queueView {
	vs.mu.RLock()
	v := vs.byID[id]
	vs.mu.RUnlock()
	if v != nil && v.version == vs.versions.QueueVersion(id) {
		return v
	}
	return nil
}

// load returns queue id's view loaded at version want or later: it joins
// a load in progress that began at such a version, or loads (with load,
// at want) and keeps the view.
func (vs *views) load(id int64, want uint64, load func(version uint64) (*queueView, error)) (*queueView, error) {
	vs.mu.Lock()
	if l := vs.loading[id]; l != nil && l.version >= want {
		l.joined++
		vs.mu.Unlock()
		<-l.done
		return l.v, l.err
	}
	l := &viewLoad{version: want, done: make(chan struct{})}
	vs.loading[id] = l
	vs.mu.Unlock()
	defer close(l.done)
	l.v, l.err = load(want)
	vs.mu.Lock()
	defer vs.mu.Unlock()
	if vs.loading[id] == l {
		delete(vs.loading, id)
	}
	if l.err == nil {
		if old := vs.byID[id]; old == nil || old.version < l.v.version {
			vs.byID[id] = l.v
		}
	}
	return l.v, l.err
}

// view returns the queue of key with its active entries and runs, as of
// the store's current version or later: from memory when nothing was
// written to the queue since it was loaded, else loaded now (and kept).
// queue.ErrNotFound (wrapped) if the queue does not exist.
func (r *Reads) view(ctx context.Context, key queue.QueueKey) (*queueView, error) {
	if r.views == nil {
		q, err := r.store.GetQueue(ctx, key)
		if err != nil {
			return nil, err
		}
		return r.loadView(ctx, q.ID, 0)
	}
	for {
		id, known := r.views.idOf(key)
		if !known {
			q, err := r.store.GetQueue(ctx, key)
			if err != nil {
				return nil, err
			}
			id = q.ID
			r.views.remember(key, id)
		}
		if v := r.views.current(id); v != nil {
			return v, nil
		}
		// The version is read before anything is loaded: a write that
		// commits meanwhile makes the view stale at once. A load that
		// began at this version or later is as fresh as this read needs.
		v, err := r.views.load(id, r.views.versions.QueueVersion(id), func(version uint64) (*queueView, error) {
			return r.loadView(context.WithoutCancel(ctx), id, version)
		})
		if errors.Is(err, queue.ErrNotFound) && known {
			r.views.forget(id) // deleted (and perhaps created again): resolve the key again
			continue
		}
		if err != nil {
			return nil, err
		}
		return v, nil
	}
}

// loadView reads queue id's view from the store.
func (r *Reads) loadView(ctx context.Context, id int64, version uint64) (*queueView, error) {
	q, err := r.store.GetQueueByID(ctx, id)
	if err != nil {
		return nil, err
	}
	entries, err := r.store.ListActiveEntries(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("failed to list entries of %s: %w", q.Key, err)
	}
	runs, err := r.store.ListOpenRuns(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("failed to list runs of %s: %w", q.Key, err)
	}
	recent, err := r.store.RecentRuns(ctx, id, RecentRunsForETA)
	if err != nil {
		return nil, fmt.Errorf("failed to list recent runs of %s: %w", q.Key, err)
	}
	v := &queueView{version: version, q: q, entries: entries, runs: runs, typical: TypicalDuration(recent),
		timeout: queue.TestingTimeoutFor(q.Settings, recent),
		ordered: queue.InQueueOrder(entries), active: make(map[int]*queue.Entry, len(entries)),
		described: map[int]*queue.SubmittedPR{}}
	for _, e := range entries {
		v.active[e.PRNumber] = e
	}
	tuning, err := r.QueueTuning(ctx, q)
	if err != nil {
		return nil, err
	}
	v.snap = &QueueSnapshot{Queue: q, Entries: v.ordered, Tuning: tuning}
	v.eff = withEffective(q, tuning)
	return v, nil
}

// QueueSnapshot is a queue and its admitted active entries in queue order
// as GetQueue returns them, at one version of the store. While nothing is
// written to the queue every caller gets the same snapshot, so what a
// caller derives from it can be kept with it (Encoded). Nothing in it may
// be modified.
type QueueSnapshot struct {
	Queue   *queue.Queue
	Entries []*queue.Entry
	// Tuning is autoTune's tuning in force (nil: none, or autoTune off).
	Tuning *queue.QueueTuning

	mu      sync.Mutex
	encoded []byte
}

// Encoded returns encode's result for this snapshot, computing it once: the
// first successful result is kept and returned to every later caller (who
// must not modify it). A failure is returned and not kept.
func (qs *QueueSnapshot) Encoded(encode func(*QueueSnapshot) ([]byte, error)) ([]byte, error) {
	qs.mu.Lock()
	defer qs.mu.Unlock()
	if qs.encoded != nil {
		return qs.encoded, nil
	}
	b, err := encode(qs)
	if err != nil {
		return nil, err
	}
	qs.encoded = b
	return b, nil
}

// submitted describes PR pr of the view's queue as getSubmittedPullRequest
// shows it, without its position and ETA; nil if the PR was never
// submitted to the queue. Descriptions are kept with the view.
func (r *Reads) submitted(ctx context.Context, v *queueView, pr int) (*queue.SubmittedPR, error) {
	v.mu.Lock()
	sub, ok := v.described[pr]
	v.mu.Unlock()
	if ok {
		return sub, nil
	}
	e := v.active[pr]
	if e == nil {
		var err error
		e, err = r.store.GetEntry(ctx, v.q.ID, pr)
		switch {
		case errors.Is(err, queue.ErrNotFound):
			e = nil
		case err != nil:
			return nil, fmt.Errorf("failed to load #%d in %s: %w", pr, v.q.Key, err)
		}
	}
	if e != nil {
		var err error
		if sub, err = r.describeEntry(ctx, v.q, e, 0); err != nil {
			return nil, err
		}
	}
	if r.views != nil {
		v.mu.Lock()
		if len(v.described) < maxDescribedPR {
			v.described[pr] = sub
		}
		v.mu.Unlock()
	}
	return sub, nil
}

// estimateReuse is how long the view's estimates, computed at one instant,
// answer for the instants after it: below the millisecond the API shows
// times in, so a burst of reads computes them once.
const estimateReuse = time.Millisecond

// estimates returns the view's estimates at now (Estimates), or at
// an instant at most estimateReuse before it.
func (v *queueView) estimates(now time.Time) map[string]Estimate {
	v.mu.Lock()
	if d := now.Sub(v.estAt); v.ests != nil && d >= 0 && d < estimateReuse {
		ests := v.ests
		v.mu.Unlock()
		return ests
	}
	v.mu.Unlock()
	ests := Estimates(v.eff, v.entries, v.runs, v.typical, now)
	WithTimeouts(ests, v.entries, v.runs, v.timeout)
	v.mu.Lock()
	v.estAt, v.ests = now, ests
	v.mu.Unlock()
	return ests
}
