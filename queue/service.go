package queue

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/rs/zerolog"
)

// ErrNoQueue is returned by Sync for a queue that does not exist (any more):
// its worker can stop.
var ErrNoQueue = errors.New("no such queue")

// Options configure a Service.
type Options struct {
	// Now is the clock (default time.Now). All times are stored in UTC.
	Now func() time.Time
	// NewID makes IDs for entries and runs (default random UUIDs).
	NewID func() string
	// Wake asks the queue's worker to call Sync soon (default: no-op).
	Wake func(queueID int64)
	// ReconcileEvery is how often Sync re-reads GitHub for every active
	// entry and run, so a lost webhook delays the queue by at most this.
	ReconcileEvery time.Duration
	// PublicURL is the bot's base URL, used in links on GitHub.
	PublicURL string
	// OnTreeMismatch, when set, is told of every landed tree that differed
	// from its tested tree (the queue is paused; this feeds an alert metric).
	OnTreeMismatch func(QueueKey)
}

// Service runs the merge queues: it answers the API and the webhook
// handlers, and executes the engine's decisions through the ports. Every
// change to a queue's entries and runs happens under that queue's lock.
type Service struct {
	store Store
	gh    GitHub
	opts  Options

	mu            sync.Mutex
	locks         map[int64]*sync.Mutex
	lastReconcile map[int64]time.Time
	lastPolled    map[string]time.Time         // entry ID → last read of its PR
	directChecked map[string]string            // entry ID → target head it was found ineligible on
	protection    map[int64]protectionRead     // queue ID → required checks of its branch protection
	targets       map[int64]map[int]*TargetSet // queue → PR → indexed targets (nil = none uploaded)

	inflight *inflight
	rec      *Reconciler
}

// NewService returns a Service over a store and a GitHub port.
func NewService(store Store, gh GitHub, opts Options) *Service {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.NewID == nil {
		opts.NewID = func() string { return uuid.NewString() }
	}
	if opts.Wake == nil {
		opts.Wake = func(int64) {}
	}
	if opts.ReconcileEvery <= 0 {
		opts.ReconcileEvery = 30 * time.Second
	}
	fl := newInflight()
	return &Service{store: store, gh: gh, opts: opts,
		locks: map[int64]*sync.Mutex{}, lastReconcile: map[int64]time.Time{}, lastPolled: map[string]time.Time{}, directChecked: map[string]string{},
		protection: map[int64]protectionRead{}, targets: map[int64]map[int]*TargetSet{},
		inflight: fl, rec: newReconciler(store, gh, func() time.Time { return opts.Now().UTC() }, opts.ReconcileEvery, fl)}
}

// Reconciler returns the reconciler that writes the queue's surfaces on
// GitHub; run it (Run) beside the workers.
func (s *Service) Reconciler() *Reconciler { return s.rec }

// SetWake sets the function that wakes a queue's worker.
func (s *Service) SetWake(wake func(queueID int64)) { s.opts.Wake = wake }

// Wake asks the queue's worker to sync soon.
func (s *Service) Wake(queueID int64) { s.opts.Wake(queueID) }

func (s *Service) now() time.Time { return s.opts.Now().UTC() }

// lock takes the queue's lock and returns its release.
func (s *Service) lock(queueID int64) func() {
	s.mu.Lock()
	l, ok := s.locks[queueID]
	if !ok {
		l = &sync.Mutex{}
		s.locks[queueID] = l
	}
	s.mu.Unlock()
	l.Lock()
	return l.Unlock
}

// Sync brings one queue up to date: it reconciles with GitHub when due,
// then executes the engine's actions one at a time, re-planning from fresh
// state after each, until the queue is settled. It returns when the queue
// must be looked at again (zero = only when woken).
func (s *Service) Sync(ctx context.Context, queueID int64) (time.Time, error) {
	log := zerolog.Ctx(ctx).With().Int64("queue_id", queueID).Logger()
	ctx = log.WithContext(ctx)
	q, err := s.store.GetQueueByID(ctx, queueID)
	if errors.Is(err, ErrNotFound) {
		return time.Time{}, fmt.Errorf("queue %d: %w", queueID, ErrNoQueue)
	}
	if err != nil {
		return time.Time{}, fmt.Errorf("failed to load queue %d: %w", queueID, err)
	}
	if s.reconcileDue(queueID) {
		if err := s.reconcile(ctx, q); err != nil {
			return s.now().Add(5 * time.Second), fmt.Errorf("failed to reconcile queue %s: %w", q.Key, err)
		}
	}
	head, err := s.gh.BranchHead(ctx, q.Key.Repo, q.Key.Branch)
	if err != nil {
		return s.now().Add(5 * time.Second), fmt.Errorf("failed to read head of %s: %w", q.Key, err)
	}
	if err := s.refreshNotReady(ctx, q); err != nil {
		log.Warn().Err(err).Msg("failed to refresh not-ready pull requests")
	}
	for step := 0; step < 10000; step++ {
		wake, done, err := s.step(ctx, queueID, &head)
		if err != nil || done {
			if err != nil {
				wake = s.now().Add(5 * time.Second)
			}
			return wake, err
		}
	}
	return s.now(), fmt.Errorf("queue %s did not settle", q.Key)
}

// step plans and executes one action under the queue's lock.
func (s *Service) step(ctx context.Context, queueID int64, head *string) (time.Time, bool, error) {
	defer s.lock(queueID)()
	snap, err := s.snapshot(ctx, queueID, *head)
	if err != nil {
		return time.Time{}, true, err
	}
	action, wake := Next(snap, s.now())
	if action == nil {
		return wake, true, nil
	}
	zerolog.Ctx(ctx).Debug().Str("action", fmt.Sprintf("%T", action)).Interface("detail", action).Msg("engine decided")
	if err := s.execute(ctx, snap, action, head); err != nil {
		return time.Time{}, true, fmt.Errorf("failed to execute %T: %w", action, err)
	}
	return time.Time{}, false, nil
}

// snapshot loads what the engine needs for one queue.
func (s *Service) snapshot(ctx context.Context, queueID int64, head string) (*Snapshot, error) {
	q, err := s.store.GetQueueByID(ctx, queueID)
	if err != nil {
		return nil, fmt.Errorf("failed to load queue: %w", err)
	}
	entries, err := s.store.ListActiveEntries(ctx, queueID)
	if err != nil {
		return nil, fmt.Errorf("failed to list entries: %w", err)
	}
	runs, err := s.store.ListOpenRuns(ctx, queueID)
	if err != nil {
		return nil, fmt.Errorf("failed to list runs: %w", err)
	}
	checks := map[string][]CheckResult{}
	for _, r := range runs {
		if r.SHA == "" || r.Status != RunInProgress {
			continue
		}
		cs, err := s.store.ListChecks(ctx, q.Key.Repo, r.SHA)
		if err != nil {
			return nil, fmt.Errorf("failed to list checks: %w", err)
		}
		checks[r.SHA] = cs
	}
	merges, err := s.store.ListMerges(ctx, queueID, 500)
	if err != nil {
		return nil, fmt.Errorf("failed to list merges: %w", err)
	}
	snap := &Snapshot{Queue: q, TargetHead: head, Entries: entries, Runs: runs, Checks: checks, Merges: merges,
		DirectChecked: map[string]string{}}
	if q.Settings.DirectMergeMode == DirectMergeAlways {
		s.mu.Lock()
		for _, e := range entries {
			if h, ok := s.directChecked[e.ID]; ok {
				snap.DirectChecked[e.ID] = h
			}
		}
		s.mu.Unlock()
	}
	if snap.parallel() {
		if snap.Targets, err = s.loadTargets(ctx, q, entries, merges); err != nil {
			return nil, err
		}
	}
	return snap, nil
}

// forgetTargets drops a PR's cached targets (they were uploaded again).
func (s *Service) forgetTargets(queueID int64, pr int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.targets[queueID], pr)
}

// loadTargets reads (through a cache) the impacted targets of the active entries and of the
// PRs in the merge log (parallel mode).
func (s *Service) loadTargets(ctx context.Context, q *Queue, entries []*Entry, merges []MergeRecord) (map[int]*TargetSet, error) {
	out := map[int]*TargetSet{}
	s.mu.Lock()
	cache := s.targets[q.ID]
	if cache == nil {
		cache = map[int]*TargetSet{}
		s.targets[q.ID] = cache
	}
	s.mu.Unlock()
	load := func(pr int) error {
		if _, done := out[pr]; done {
			return nil
		}
		s.mu.Lock()
		ts, cached := cache[pr]
		s.mu.Unlock()
		if cached {
			out[pr] = ts
			return nil
		}
		t, err := s.store.GetTargets(ctx, q.ID, pr)
		switch {
		case errors.Is(err, ErrNotFound):
			ts = nil
		case err != nil:
			return fmt.Errorf("failed to load impacted targets of #%d: %w", pr, err)
		default:
			ts = NewTargetSet(t)
		}
		s.mu.Lock()
		cache[pr] = ts
		s.mu.Unlock()
		out[pr] = ts
		return nil
	}
	for _, e := range entries {
		if err := load(e.PRNumber); err != nil {
			return nil, err
		}
	}
	// Runs reach back only a few merges; a PR beyond this window counts as
	// a dependency (unknown targets), which can only cost a retest.
	for _, m := range merges[max(0, len(merges)-50):] {
		if err := load(m.PRNumber); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (s *Service) reconcileDue(queueID int64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	last := s.lastReconcile[queueID]
	return last.IsZero() || s.now().Sub(last) >= s.opts.ReconcileEvery
}

// reconcile re-reads from GitHub every active entry's PR and the checks of
// every run in progress, so missed webhooks heal.
func (s *Service) reconcile(ctx context.Context, q *Queue) error {
	entries, err := s.store.ListActiveEntries(ctx, q.ID)
	if err != nil {
		return fmt.Errorf("failed to list entries: %w", err)
	}
	for _, e := range entries {
		pr, err := s.gh.GetPullRequest(ctx, q.Key.Repo, e.PRNumber)
		if err != nil {
			if errors.Is(err, ErrPRNotFound) {
				pr = &PullRequest{Number: e.PRNumber, PRFacts: PRFacts{ReadAt: s.now()}}
			} else {
				return fmt.Errorf("failed to read #%d: %w", e.PRNumber, err)
			}
		}
		if err := s.applyFacts(ctx, q.ID, e.ID, pr.PRFacts); err != nil {
			return err
		}
	}
	runs, err := s.store.ListOpenRuns(ctx, q.ID)
	if err != nil {
		return fmt.Errorf("failed to list runs: %w", err)
	}
	for _, r := range runs {
		if r.Status != RunInProgress || r.SHA == "" {
			continue
		}
		checks, err := s.gh.Checks(ctx, q.Key.Repo, r.SHA)
		if err != nil {
			return fmt.Errorf("failed to read checks of run %s: %w", r.ID, err)
		}
		for _, c := range checks {
			if err := s.store.RecordCheck(ctx, q.Key.Repo, c); err != nil {
				return fmt.Errorf("failed to record check: %w", err)
			}
		}
	}
	s.mu.Lock()
	s.lastReconcile[q.ID] = s.now()
	s.mu.Unlock()
	return nil
}

// refreshNotReady re-reads the PRs of not_ready entries whose facts are
// older than NotReadyPoll or whose mergeability is still being computed.
func (s *Service) refreshNotReady(ctx context.Context, q *Queue) error {
	entries, err := s.store.ListActiveEntries(ctx, q.ID)
	if err != nil {
		return fmt.Errorf("failed to list entries: %w", err)
	}
	for _, e := range entries {
		if e.State != StateNotReady || !s.pollDue(e.ID) {
			continue
		}
		pr, err := s.gh.GetPullRequest(ctx, q.Key.Repo, e.PRNumber)
		if err != nil {
			return fmt.Errorf("failed to read #%d: %w", e.PRNumber, err)
		}
		if err := s.applyFacts(ctx, q.ID, e.ID, pr.PRFacts); err != nil {
			return err
		}
	}
	return nil
}

// pollDue reports whether a not_ready entry's PR is due for a re-read, and
// if so records the read.
func (s *Service) pollDue(entryID string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	if last, ok := s.lastPolled[entryID]; ok && now.Sub(last) < NotReadyPoll {
		return false
	}
	s.lastPolled[entryID] = now
	if len(s.lastPolled) > maxPolled {
		// Entries still not_ready are read every NotReadyPoll; the others
		// (admitted or ended) are forgotten.
		for id, at := range s.lastPolled {
			if now.Sub(at) > 10*NotReadyPoll {
				delete(s.lastPolled, id)
			}
		}
	}
	return true
}

// maxPolled is the number of remembered not_ready reads above which the
// stale ones are swept.
const maxPolled = 1024

// applyFacts stores newer facts about an entry's PR under the queue lock.
func (s *Service) applyFacts(ctx context.Context, queueID int64, entryID string, f PRFacts) error {
	defer s.lock(queueID)()
	return s.storeFacts(ctx, entryID, f)
}

// storeFacts stores newer facts about an entry's PR; the caller holds the
// queue lock.
func (s *Service) storeFacts(ctx context.Context, entryID string, f PRFacts) error {
	e, err := s.store.GetEntryByID(ctx, entryID)
	if err != nil {
		return fmt.Errorf("failed to load entry %s: %w", entryID, err)
	}
	if !e.Active() || (!f.ReadAt.IsZero() && f.ReadAt.Before(e.PR.ReadAt)) {
		return nil
	}
	e.PR = mergeFacts(e.PR, f)
	if err := s.store.SaveEntry(ctx, e); err != nil {
		return fmt.Errorf("failed to save facts of #%d: %w", e.PRNumber, err)
	}
	return nil
}

// mergeFacts takes the new facts, keeping the old mergeability when the new
// ones do not say (webhook payloads often carry mergeable: null) and the
// head did not move.
func mergeFacts(old, f PRFacts) PRFacts {
	if (f.MergeableState == "" || f.MergeableState == "unknown") && f.HeadSHA == old.HeadSHA {
		f.MergeableState, f.Mergeable = old.MergeableState, old.Mergeable
	}
	if f.HeadSHA == "" {
		f.HeadSHA = old.HeadSHA
	}
	if f.BaseBranch == "" {
		f.BaseBranch = old.BaseBranch
	}
	return f
}
