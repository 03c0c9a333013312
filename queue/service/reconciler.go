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
	"github.com/mergequeue/mq/queue/engine"
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
	store    queue.Store
	gh       queue.GitHub
	now      func() time.Time
	every    time.Duration
	inflight *inflight
	// publicURL and webURL build the links shown on PRs: the PR's
	// dashboard page and GitHub's pages ("" leaves them out).
	publicURL, webURL string
	// titleTemplate renders test PR titles.
	titleTemplate *template.Template

	wake chan struct{}

	mu sync.Mutex
	// swept is when each repository's branches were last listed on
	// GitHub: a schedule, safe to lose (a restart sweeps at once).
	swept map[queue.Repo]time.Time
	// outage counts consecutive passes cut short by GitHub failing as a
	// whole (5xx, timeouts, rate limits).
	outage int
	// views caches, for one pass, each queue's positions and estimates.
	views map[int64]map[string]engine.Estimate
	obs   ReconcileObserver // see observer.go
}

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

func newReconciler(store queue.Store, gh queue.GitHub, opts Options, fl *inflight) *Reconciler {
	title := opts.TestPRTitle
	if title == nil {
		title = defaultTestPRTitle
	}
	return &Reconciler{store: store, gh: gh, now: func() time.Time { return opts.Now().UTC() }, every: opts.ReconcileEvery,
		inflight: fl, publicURL: strings.TrimRight(opts.PublicURL, "/"), webURL: strings.TrimRight(opts.WebURL, "/"),
		titleTemplate: title, wake: make(chan struct{}, 1), swept: map[queue.Repo]time.Time{}}
}

// Wake asks the reconciler to run a pass soon. It never blocks.
func (r *Reconciler) Wake() {
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// Run runs passes until ctx ends: when woken, when a retry is due, and at
// least every reconcile interval.
func (r *Reconciler) Run(ctx context.Context) {
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
// when woken or at the next interval). A GitHub-wide failure ends the pass
// early with an error; the work left stays due.
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
	r.views = map[int64]map[string]engine.Estimate{}
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
// failing as a whole) is returned, to end the pass; the row stays due and
// the pass backs off. Any other failure backs the row off and, after
// maxSurfaceAttempts, gives it up: failed reports whether it did.
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
