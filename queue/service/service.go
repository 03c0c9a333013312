package service

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"text/template"
	"time"

	"github.com/google/uuid"
	"github.com/rs/zerolog"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/engine"
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
	// ReconcileEvery is how often Sync re-reads GitHub for every run in
	// progress (and the PRs due by PRRecheckEvery), so a lost CI webhook
	// delays the queue by at most this.
	ReconcileEvery time.Duration
	// PRRecheckEvery is how long the reconciler trusts what it last heard
	// of an active entry's PR (a read or a webhook) before it reads the PR
	// again (default ten reconcile intervals): a lost pull_request webhook
	// (closed, pushed, made a draft) goes unnoticed for a waiting entry
	// for at most this, and a queue's reads of its PRs grow with what
	// happens to them rather than with how long they wait. The PR is read
	// anyway before it merges and whenever the queue must decide on it,
	// and every PR at the first reconcile of a queue after the process
	// starts.
	PRRecheckEvery time.Duration
	// PublicURL is the bot's base URL, used in links on GitHub.
	PublicURL string
	// WebURL is GitHub's web URL (https://github.com, a GitHub Enterprise
	// host, or the fake's), for links to GitHub pages.
	WebURL string
	// TestPRTitle renders the titles of test PRs (ParseTestPRTitle; nil:
	// DefaultTestPRTitle).
	TestPRTitle *template.Template
	// OnTreeMismatch, when set, is told of every landed tree that differed
	// from its tested tree (the queue is paused; this feeds an alert metric).
	OnTreeMismatch func(queue.QueueKey)
	// OnChecksNotStarted, when set, is told of every test run whose
	// required checks never started (checksStartTimeoutMinutes); outage is
	// true when it paused the queue (this feeds the alert metrics).
	OnChecksNotStarted func(key queue.QueueKey, outage bool)
	// Tune configures autoTune (autotune_service.go).
	Tune TuneOptions
}

// Service runs the merge queues: it carries out the use cases of the API
// and the webhook handlers (what they show is queue/readside's), and
// executes the engine's decisions through the ports. Every
// change to a queue's entries and runs happens under that queue's lock;
// no GitHub call is made while it is held. Every engine input is in the
// store; the Service keeps only schedules and caches that are safe to lose.
type Service struct {
	store queue.Store
	gh    queue.GitHub
	opts  Options

	mu            sync.Mutex
	locks         map[int64]*sync.Mutex
	lastReconcile map[int64]time.Time // queue ID → last full re-read of GitHub (a schedule)

	polls      *readSchedule // not_ready entries, every NotReadyPoll
	rechecks   *readSchedule // the reconciler's re-reads, every PRRecheckEvery
	protection *protectionCache
	heads      *headCache
	targets    *targetCache
	lanes      *laneBook
	ffRefused  ffRefusals // runs whose fast-forward landing was refused (landing.go)
	prHeads    headBook   // PRs' head branches, for merge messages (landing_message.go)
	rec        *Reconciler
	tune       *tuneBook // autoTune's tuners (autotune_service.go)
}

// NewService returns a Service over a store and a GitHub port.
func NewService(store queue.Store, gh queue.GitHub, opts Options) *Service {
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
	if opts.PRRecheckEvery <= 0 {
		opts.PRRecheckEvery = 10 * opts.ReconcileEvery
	}
	return &Service{store: store, gh: gh, opts: opts,
		locks: map[int64]*sync.Mutex{}, lastReconcile: map[int64]time.Time{},
		polls: newReadSchedule(engine.NotReadyPoll), rechecks: newReadSchedule(opts.PRRecheckEvery), protection: newProtectionCache(opts.ReconcileEvery), heads: newHeadCache(opts.ReconcileEvery), targets: newTargetCache(),
		lanes: newLaneBook(), rec: newReconciler(store, gh, opts), tune: newTuneBook(opts.Tune)}
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
	res, err := s.SyncQueue(ctx, queueID)
	return res.Next, err
}

// SyncResult is what one SyncQueue found.
type SyncResult struct {
	// Next is when the queue must be looked at again (zero: only when
	// woken, or at the reconcile interval while it has work).
	Next time.Time
	// Idle is set when the queue has nothing for its engine to decide: no
	// active entry and no open run. Nothing about it changes until it is
	// woken (a submission, a command, a webhook or API call that gives it
	// work wakes it), so its worker need not sync it again until then.
	Idle bool
}

// SyncQueue is Sync, saying also whether the queue was found idle.
func (s *Service) SyncQueue(ctx context.Context, queueID int64) (SyncResult, error) {
	next, idle, err := s.sync(ctx, queueID)
	return SyncResult{Next: next, Idle: idle && err == nil}, err
}

func (s *Service) sync(ctx context.Context, queueID int64) (time.Time, bool, error) {
	log := zerolog.Ctx(ctx).With().Int64("queue_id", queueID).Logger()
	ctx = log.WithContext(ctx)
	q, err := s.store.GetQueueByID(ctx, queueID)
	if errors.Is(err, queue.ErrNotFound) {
		return time.Time{}, false, fmt.Errorf("queue %d: %w", queueID, ErrNoQueue)
	}
	if err != nil {
		return time.Time{}, false, fmt.Errorf("failed to load queue %d: %w", queueID, err)
	}
	// After the steps, on what they decided; it never waits: the choice
	// runs in its own goroutine.
	defer s.pokeTuner(ctx, q)
	if s.reconcileDue(queueID) {
		if err := s.reconcile(ctx, q); err != nil {
			return s.now().Add(5 * time.Second), false, fmt.Errorf("failed to reconcile queue %s: %w", q.Key, err)
		}
	}
	if idle, err := s.idle(ctx, q.ID); err != nil {
		return s.now().Add(5 * time.Second), false, err
	} else if idle {
		// Nothing to decide: no GitHub read (an organisation's idle queues
		// would otherwise cost two reads each per interval), only the
		// clean-up of the branches of runs that closed.
		if err := s.rec.cleanRecorded(ctx, q.Key.Repo); err != nil {
			log.Warn().Err(err).Msg("failed to delete the branches of closed runs; the reconciler will")
		}
		return time.Time{}, true, nil
	}
	head, ok := s.heads.get(q.ID, s.now())
	if !ok {
		if head, err = s.gh.BranchHead(ctx, q.Key.Repo, q.Key.Branch); err != nil {
			return s.now().Add(5 * time.Second), false, fmt.Errorf("failed to read head of %s: %w", q.Key, err)
		}
		s.heads.put(q.ID, head, s.now())
	}
	known := head
	defer func() {
		if head != known { // moved by our own merge, or read fresh before one
			s.heads.put(q.ID, head, s.now())
		}
	}()
	if err := s.refreshNotReady(ctx, q); err != nil {
		log.Warn().Err(err).Msg("failed to refresh not-ready pull requests")
	}
	required, err := s.required(ctx, q)
	if err != nil {
		log.Warn().Err(err).Msg("failed to read the required checks; no test run starts until they are known")
	}
	// Branches of runs closed since (a cancellation over the API leaves
	// its branch to be deleted here, not in the request) go before any new
	// run is published, so the CI in flight stays within concurrency.
	if err := s.rec.cleanRecorded(ctx, q.Key.Repo); err != nil {
		log.Warn().Err(err).Msg("failed to delete the branches of closed runs; the reconciler will")
	}
	for step := 0; step < 10000; step++ {
		wake, done, err := s.step(ctx, queueID, &head, required)
		if err != nil || done {
			if err != nil {
				wake = s.now().Add(5 * time.Second)
			}
			return wake, false, err
		}
	}
	return s.now(), false, fmt.Errorf("queue %s did not settle", q.Key)
}

// idle reports whether a queue has nothing for the engine to decide: no
// active entry and no open run.
func (s *Service) idle(ctx context.Context, queueID int64) (bool, error) {
	active, err := s.store.CountActiveEntries(ctx, queueID)
	if err != nil {
		return false, fmt.Errorf("failed to count entries: %w", err)
	}
	if active > 0 {
		return false, nil
	}
	runs, err := s.store.ListOpenRuns(ctx, queueID)
	if err != nil {
		return false, fmt.Errorf("failed to list runs: %w", err)
	}
	return len(runs) == 0, nil
}

// required resolves what a run must pass (SPEC §6): the queue's
// requiredStatuses when set, else its branch's protection (read through
// the protection cache, with no lock held); nil with an error when branch
// protection could not be read.
func (s *Service) required(ctx context.Context, q *queue.Queue) (*engine.RequiredChecks, error) {
	if q.Settings.RequiredStatuses != nil {
		return &engine.RequiredChecks{Names: append([]string{}, q.Settings.RequiredStatuses...)}, nil
	}
	now := s.now()
	names, ok := s.protection.get(q.ID, now)
	if !ok {
		var err error
		if names, err = s.gh.RequiredChecks(ctx, q.Key.Repo, q.Key.Branch); err != nil {
			return nil, fmt.Errorf("failed to read branch protection of %s: %w", q.Key.Branch, err)
		}
		s.protection.put(q.ID, names, now)
	}
	return &engine.RequiredChecks{Names: names, Unset: len(names) == 0}, nil
}

// snapshot loads what the engine needs for one queue; the caller holds
// its lock.
func (s *Service) snapshot(ctx context.Context, queueID int64, head string, required *engine.RequiredChecks) (*engine.Snapshot, error) {
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
	if q.Settings.RequiredStatuses != nil {
		// An override set since the Sync began applies at once.
		required = &engine.RequiredChecks{Names: append([]string{}, q.Settings.RequiredStatuses...)}
	}
	checks := map[string][]queue.CheckResult{}
	load := func(sha string) error {
		if _, done := checks[sha]; done || sha == "" {
			return nil
		}
		cs, err := s.store.ListChecks(ctx, q.Key.Repo, sha)
		if err != nil {
			return fmt.Errorf("failed to list checks: %w", err)
		}
		checks[sha] = cs
		return nil
	}
	for _, r := range runs {
		if r.Status == queue.RunInProgress {
			if err := load(r.SHA); err != nil {
				return nil, err
			}
			// A check re-run in place is pending until its new run reports.
			checks[r.SHA] = queue.ChecksOfAttempt(r, checks[r.SHA])
		}
	}
	for _, e := range entries {
		if e.DirectContains && e.DirectBase == head {
			if err := load(e.PRSHA); err != nil { // its own checks decide a direct merge
				return nil, err
			}
		}
	}
	merges, err := s.store.ListMergesFrom(ctx, queueID, runBases(runs, head))
	if err != nil {
		return nil, fmt.Errorf("failed to list merges: %w", err)
	}
	snap := &engine.Snapshot{Queue: q, TargetHead: head, Entries: entries, Runs: runs, Checks: checks, Merges: merges, Required: required}
	if q.Settings.CheckRetries > 0 && failingRun(snap) {
		if snap.RetryBudget, err = s.retryBudget(ctx, q); err != nil {
			return nil, err
		}
	}
	if q.Settings.TestingTimeoutFromHistory {
		if snap.Recent, err = s.store.RecentRuns(ctx, queueID, queue.HistoryTimeoutRuns); err != nil {
			return nil, fmt.Errorf("failed to list recent runs: %w", err)
		}
	}
	if snap.Parallel() {
		if snap.Targets, err = s.loadTargets(ctx, q, entries, merges); err != nil {
			return nil, err
		}
	}
	return snap, nil
}

// runBases are the bases of the open runs other than the target head: the
// engine follows the merge log from each of them to the head (whether a
// run is still valid, what a new run builds on), so the snapshot holds
// every merge since the oldest, however many landed meanwhile.
func runBases(runs []*queue.TestRun, head string) []string {
	seen := map[string]bool{head: true, "": true}
	var out []string
	for _, r := range runs {
		if !seen[r.BaseSHA] {
			seen[r.BaseSHA] = true
			out = append(out, r.BaseSHA)
		}
	}
	return out
}

// loadTargets reads (through the target cache) the impacted targets of the
// active entries and of the PRs in the merge log (parallel mode): the
// merges since the oldest base of a run, each of which the engine may have
// to tell independent of a unit.
func (s *Service) loadTargets(ctx context.Context, q *queue.Queue, entries []*queue.Entry, merges []queue.MergeRecord) (map[int]*engine.TargetSet, error) {
	out := map[int]*engine.TargetSet{}
	load := func(pr int) error {
		if _, done := out[pr]; done {
			return nil
		}
		if ts, cached := s.targets.lookup(q.ID, pr); cached {
			out[pr] = ts
			return nil
		}
		t, err := s.store.GetTargets(ctx, q.ID, pr)
		switch {
		case errors.Is(err, queue.ErrNotFound):
			out[pr] = nil
		case err != nil:
			return fmt.Errorf("failed to load impacted targets of #%d: %w", pr, err)
		default:
			out[pr] = engine.NewTargetSet(t)
		}
		return nil
	}
	for _, e := range entries {
		if err := load(e.PRNumber); err != nil {
			return nil, err
		}
	}
	for _, m := range merges {
		if err := load(m.PRNumber); err != nil {
			return nil, err
		}
	}
	s.targets.replace(q.ID, out)
	return out, nil
}

func (s *Service) reconcileDue(queueID int64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	last := s.lastReconcile[queueID]
	return last.IsZero() || s.now().Sub(last) >= s.opts.ReconcileEvery
}

// reconcile re-reads from GitHub the checks of every run in progress and
// the PR of every active entry not heard of for PRRecheckEvery, so missed
// webhooks heal.
func (s *Service) reconcile(ctx context.Context, q *queue.Queue) error {
	entries, err := s.store.ListActiveEntries(ctx, q.ID)
	if err != nil {
		return fmt.Errorf("failed to list entries: %w", err)
	}
	for _, e := range entries {
		if !s.rechecks.due(e.ID, s.now()) {
			continue
		}
		pr, err := s.gh.GetPullRequest(ctx, q.Key.Repo, e.PRNumber)
		if err != nil {
			if errors.Is(err, queue.ErrPRNotFound) {
				pr = &queue.PullRequest{Number: e.PRNumber, PRFacts: queue.PRFacts{ReadAt: s.now()}}
			} else {
				return fmt.Errorf("failed to read #%d: %w", e.PRNumber, err)
			}
		}
		if err := s.applyFacts(ctx, q.ID, e.ID, pr.PRFacts, true); err != nil {
			return err
		}
	}
	runs, err := s.store.ListOpenRuns(ctx, q.ID)
	if err != nil {
		return fmt.Errorf("failed to list runs: %w", err)
	}
	for _, r := range runs {
		if r.Status != queue.RunInProgress || r.SHA == "" {
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
func (s *Service) refreshNotReady(ctx context.Context, q *queue.Queue) error {
	entries, err := s.store.ListActiveEntries(ctx, q.ID)
	if err != nil {
		return fmt.Errorf("failed to list entries: %w", err)
	}
	for _, e := range entries {
		if e.State != queue.StateNotReady || !s.polls.take(e.ID, s.now()) {
			continue
		}
		pr, err := s.gh.GetPullRequest(ctx, q.Key.Repo, e.PRNumber)
		if err != nil {
			return fmt.Errorf("failed to read #%d: %w", e.PRNumber, err)
		}
		if err := s.applyFacts(ctx, q.ID, e.ID, pr.PRFacts, true); err != nil {
			return err
		}
	}
	return nil
}

// applyFacts stores newer facts about an entry's PR under the queue lock;
// checked says the queue read them from GitHub itself (not a webhook).
func (s *Service) applyFacts(ctx context.Context, queueID int64, entryID string, f queue.PRFacts, checked bool) error {
	defer s.lock(queueID)()
	return s.storeFacts(ctx, entryID, f, checked)
}

// storeFacts stores newer facts about an entry's PR and, with checked, the
// time of the queue's own read (Entry.PRCheckedAt) even when the facts are
// not newer; the caller holds the queue lock. A zero PRFacts stores only
// the read time (a PR GitHub no longer has: the engine's decision stands).
// A save that finds the entry changed since it was read (another replica
// saved it) is redone on fresh state.
func (s *Service) storeFacts(ctx context.Context, entryID string, f queue.PRFacts, checked bool) error {
	return retryOnConflict(ctx, func() error { return s.storeFactsOnce(ctx, entryID, f, checked) })
}

// storeFactsOnce is one try of storeFacts.
func (s *Service) storeFactsOnce(ctx context.Context, entryID string, f queue.PRFacts, checked bool) error {
	e, err := s.store.GetEntryByID(ctx, entryID)
	if err != nil {
		return fmt.Errorf("failed to load entry %s: %w", entryID, err)
	}
	if !e.Active() {
		return nil
	}
	if checked || f != (queue.PRFacts{}) {
		s.rechecks.heardOf(entryID, s.now())
	}
	newer := f != (queue.PRFacts{}) && (f.ReadAt.IsZero() || !f.ReadAt.Before(e.PR.ReadAt))
	if !newer && !checked {
		return nil
	}
	if newer {
		e.PR = mergeFacts(e.PR, f)
	}
	if checked {
		e.PRCheckedAt = s.now()
	}
	if err := s.store.SaveEntry(ctx, e); err != nil {
		return fmt.Errorf("failed to save facts of #%d: %w", e.PRNumber, err)
	}
	return nil
}

// mergeFacts takes the new facts, keeping the old mergeability when the new
// ones do not say (webhook payloads often carry mergeable: null) and the
// head did not move.
func mergeFacts(old, f queue.PRFacts) queue.PRFacts {
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
