package service

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"text/template"
	"time"

	"github.com/rs/zerolog"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/readside"
)

// Reconciler brings GitHub to the state the store asks for: each entry's
// sticky comment, check run and state label (Surface), the one-off writes
// of notices, and the deletion of branches no live run owns. It is the
// only writer of those surfaces. Every write is derived from durable state
// and made idempotent by looking before writing (a comment by its marker,
// a check run by name, head and external id, a branch by name), so a crash
// at any point, a restart or a GitHub outage delays GitHub's side but
// never duplicates or loses it. Failures are retried with backoff kept in
// the store, across restarts.
type Reconciler struct {
	store queue.Store
	gh    queue.GitHub
	now   func() time.Time
	every time.Duration
	// publicURL and webURL build the links shown on PRs: the PR's
	// dashboard page and GitHub's pages ("" leaves them out).
	publicURL, webURL string
	// titleTemplate renders test PR titles.
	titleTemplate *template.Template

	wake chan struct{}

	// sweeps is the schedule of the listings of repositories' branches
	// on GitHub (reconcile_sweeps.go).
	sweeps *sweepBook

	mu sync.Mutex
	// outage counts consecutive passes cut short by GitHub failing as a
	// whole (5xx, timeouts, rate limits).
	outage int
	// views caches, for one pass, each queue's positions and estimates.
	views map[int64]map[string]readside.Estimate
	// waits caches, for one pass, what each queue's entries wait for.
	waits map[int64]map[string]*queue.Waiting
	// cut holds, for one pass, the transient failures so far: the rows they
	// hit (not tried again in the pass; still due), and how many came in a
	// row without a success.
	cut passFailures
	obs ReconcileObserver // see observer.go
}

// passFailures are the transient failures of one pass.
type passFailures struct {
	rows    map[string]bool
	errs    []error
	running int
}

// maxTransientRun is how many transient failures in a row, with no
// success between them, end a pass: GitHub is failing as a whole, and
// trying every other row would only add to its load. Fewer do not: the
// other rows go on.
const maxTransientRun = 5

// Reconciliation bounds.
const (
	// reconcileBatch is how many rows one pass reads at a time.
	reconcileBatch = 50
	// maxSurfaceAttempts is how often a refused (non-transient) write of an
	// entry's surface or a notice is tried before it is given up and logged.
	maxSurfaceAttempts = 10
	// maxRetryDelay caps the backoff between attempts.
	maxRetryDelay = time.Minute
)

func newReconciler(store queue.Store, gh queue.GitHub, opts Options) *Reconciler {
	title := opts.TestPRTitle
	if title == nil {
		title = defaultTestPRTitle
	}
	return &Reconciler{store: store, gh: gh, now: func() time.Time { return opts.Now().UTC() }, every: opts.ReconcileEvery,
		publicURL: strings.TrimRight(opts.PublicURL, "/"), webURL: strings.TrimRight(opts.WebURL, "/"),
		titleTemplate: title, wake: make(chan struct{}, 1), sweeps: newSweepBook()}
}

// Wake asks the reconciler to run a pass soon. It never blocks.
func (r *Reconciler) Wake() {
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// Run runs passes until ctx ends: when woken, when a retry is due, and at
// least every reconcile interval. Its first pass owes every repository a
// sweep of its branches, as at start-up (Run is called each time the
// replica takes the reconciler's role): another replica may have crashed
// in the middle of creating some.
func (r *Reconciler) Run(ctx context.Context) {
	r.sweeps.restart()
	log := zerolog.Ctx(ctx).With().Str("component", "reconciler").Logger()
	ctx = log.WithContext(ctx)
	for {
		next, err := r.Pass(ctx)
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			log.Warn().Err(err).Msg("reconciliation pass cut short; will retry")
		}
		wait := r.every
		if !next.IsZero() {
			wait = min(wait, max(next.Sub(r.now()), 10*time.Millisecond))
		}
		timer := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			timer.Stop()
			return
		case <-r.wake:
		case <-timer.C:
		}
		timer.Stop()
	}
}

// Pass delivers every due notice, brings every due surface up to date and
// deletes dead branches. It returns when the next retry is due (zero: only
// when woken or at the next interval). A transient failure (GitHub failing:
// a 5xx, a timeout) leaves its row due and the pass goes on with the
// others; the pass reports every such failure (joined) and is run again
// after a backoff. Only maxTransientRun of them in a row, or a failure of
// the store, end it early.
func (r *Reconciler) Pass(ctx context.Context) (time.Time, error) {
	start := r.now()
	err := r.pass(ctx)
	r.observePass(start, err)
	r.mu.Lock()
	defer r.mu.Unlock()
	if errors.Is(err, queue.ErrTransient) {
		r.outage++
		return r.now().Add(retryDelay(r.outage)), err
	}
	r.outage = 0
	if err != nil {
		return r.now().Add(retryDelay(1)), err
	}
	return r.nextDue(ctx), nil
}

func (r *Reconciler) pass(ctx context.Context) error {
	r.views = map[int64]map[string]readside.Estimate{}
	r.waits = map[int64]map[string]*queue.Waiting{}
	r.cut = passFailures{rows: map[string]bool{}}
	err := r.passSteps(ctx)
	return errors.Join(append(r.cut.errs, err)...)
}

// passSteps runs the steps of a pass; an error ends it (transient failures
// gather in r.cut instead, until too many come in a row).
func (r *Reconciler) passSteps(ctx context.Context) error {
	if err := r.drain(ctx, r.deliverDue); err != nil {
		return err
	}
	if err := r.refreshStandings(ctx); err != nil {
		return err
	}
	if err := r.drain(ctx, r.surfacesDue); err != nil {
		return err
	}
	if err := r.drain(ctx, r.testPRsDue); err != nil {
		return err
	}
	return r.cleanBranches(ctx)
}

// drain runs batch until it handles nothing more.
func (r *Reconciler) drain(ctx context.Context, batch func(context.Context) (int, error)) error {
	for {
		n, err := batch(ctx)
		if err != nil || n < reconcileBatch {
			return err
		}
	}
}

// errTooManyTransient ends a pass after maxTransientRun transient failures
// in a row.
var errTooManyTransient = fmt.Errorf("%d GitHub failures in a row: %w", maxTransientRun, queue.ErrTransient)

// tried records the outcome of one row of a pass (key names it): a
// transient failure is kept for the pass's report and the row skipped for
// the rest of the pass; nil is returned unless the failure is not
// transient (the pass ends) or too many came in a row.
func (r *Reconciler) tried(key string, err error) error {
	if err == nil {
		r.cut.running = 0
		return nil
	}
	if !errors.Is(err, queue.ErrTransient) {
		return err
	}
	r.cut.rows[key] = true
	r.cut.errs = append(r.cut.errs, err)
	if r.cut.running++; r.cut.running >= maxTransientRun {
		return errTooManyTransient
	}
	return nil
}

// skipped reports whether a row failed transiently earlier in the pass.
func (r *Reconciler) skipped(key string) bool { return r.cut.rows[key] }

// batchSize is how many due rows to read for one batch: a batch's worth
// beyond those the pass skips.
func (r *Reconciler) batchSize() int { return reconcileBatch + len(r.cut.rows) }

// nextDue is the earliest retry among surfaces and notices waiting on a
// backoff (zero if none).
func (r *Reconciler) nextDue(ctx context.Context) time.Time {
	horizon := r.now().Add(maxRetryDelay)
	var next time.Time
	if ss, err := r.store.DueSurfaces(ctx, horizon, 1); err == nil && len(ss) > 0 {
		next = ss[0].NextAttemptAt
	}
	if ns, err := r.store.DueNotices(ctx, horizon, 1); err == nil && len(ns) > 0 {
		if at := ns[0].NextAttemptAt; next.IsZero() || at.Before(next) {
			next = at
		}
	}
	return next
}

// retryDelay is the wait after the n-th consecutive failure: 1 s, 2 s, 4 s
// … up to maxRetryDelay.
func retryDelay(n int) time.Duration {
	return min(time.Second<<min(max(n-1, 0), 6), maxRetryDelay)
}

// failed handles a failed attempt on a row. A transient failure (GitHub
// failing) is returned, for the pass to report; the row stays due and is
// tried again at the next pass, which backs off. Any other failure backs
// the row off and, after maxSurfaceAttempts, gives it up: failed reports
// whether it did.
func (r *Reconciler) failed(ctx context.Context, what string, attempts *int, next *time.Time, lastErr *string, err error) (bool, error) {
	if errors.Is(err, queue.ErrTransient) {
		return false, fmt.Errorf("failed to %s: %w", what, err)
	}
	*attempts++
	*lastErr = err.Error()
	*next = r.now().Add(retryDelay(*attempts))
	log := zerolog.Ctx(ctx)
	r.observeWriteFailed(*attempts >= maxSurfaceAttempts)
	if *attempts >= maxSurfaceAttempts {
		log.Error().Err(err).Int("attempts", *attempts).Msg("giving up: failed to " + what)
		return true, nil
	}
	log.Warn().Err(err).Int("attempts", *attempts).Msg("failed to " + what + "; will retry")
	return false, nil
}
