package app

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/service"
)

// syncer is what a worker runs: one queue's Sync.
type syncer interface {
	Sync(ctx context.Context, queueID int64) (time.Time, error)
}

// Workers runs one goroutine per queue, each calling Sync when woken, when
// the engine asked to be looked at again, and at least every interval. One
// worker per queue serialises its engine; queues progress independently.
type Workers struct {
	svc      syncer
	interval time.Duration
	now      func() time.Time
	// timer waits d (tests record the waits); jitter is in [0, 1).
	timer  func(d time.Duration) (<-chan time.Time, func() bool)
	jitter func() float64

	mu      sync.Mutex
	ctx     context.Context
	wakes   map[int64]chan struct{}
	wg      sync.WaitGroup
	stopped bool
}

// NewWorkers returns a pool; Start begins it.
func NewWorkers(svc syncer, interval time.Duration, now func() time.Time) *Workers {
	if now == nil {
		now = time.Now
	}
	return &Workers{svc: svc, interval: interval, now: now, wakes: map[int64]chan struct{}{},
		timer: func(d time.Duration) (<-chan time.Time, func() bool) {
			t := time.NewTimer(d)
			return t.C, t.Stop
		},
		jitter: rand.Float64}
}

// Backoff after a failed sync. A transient failure (GitHub answered a 5xx,
// timed out, or could not be reached) is retried soon, so that one 502 does
// not cost a merge the whole reconcile interval: 100 ms doubling to at most
// 5 s, jittered into [d/2, d) so that the workers of many queues do not
// retry in step. Any other failure (the store) backs off 2 s doubling up to
// the interval. Waiting for GitHub's budget or a rate-limit pause happens
// inside the sync and is no failure.
const (
	transientRetryBase = 100 * time.Millisecond
	transientRetryMax  = 5 * time.Second
)

// retryWait is the wait after the failures-th failure in a row, err the
// last one.
func (w *Workers) retryWait(err error, failures int) time.Duration {
	if errors.Is(err, queue.ErrTransient) {
		d := min(transientRetryBase<<min(failures-1, 16), transientRetryMax)
		return d/2 + time.Duration(w.jitter()*float64(d/2))
	}
	return min(time.Second<<min(failures, 6), w.interval)
}

// Start sets the context the workers run under; queues woken before Start
// begin then.
func (w *Workers) Start(ctx context.Context) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.ctx = ctx
	for id := range w.wakes {
		w.spawn(id)
	}
}

// Wake asks the queue's worker to sync soon, starting the worker if needed.
// It never blocks.
func (w *Workers) Wake(queueID int64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stopped {
		return
	}
	ch, ok := w.wakes[queueID]
	if !ok {
		ch = make(chan struct{}, 1)
		w.wakes[queueID] = ch
		if w.ctx != nil {
			w.spawn(queueID)
		}
	}
	select {
	case ch <- struct{}{}:
	default:
	}
}

// spawn starts a queue's worker; w.mu must be held.
func (w *Workers) spawn(queueID int64) {
	ch := w.wakes[queueID]
	ctx := w.ctx
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		w.loop(ctx, queueID, ch)
	}()
}

func (w *Workers) loop(ctx context.Context, queueID int64, wake chan struct{}) {
	log := zerolog.Ctx(ctx).With().Int64("queue_id", queueID).Logger()
	failures := 0
	for {
		next, err := w.svc.Sync(ctx, queueID)
		if ctx.Err() != nil {
			return
		}
		if errors.Is(err, service.ErrNoQueue) {
			log.Info().Msg("queue deleted; its worker stops")
			w.mu.Lock()
			delete(w.wakes, queueID)
			w.mu.Unlock()
			return
		}
		wait := w.interval
		if err != nil {
			failures++
			log.Error().Err(err).Int("failures", failures).Msg("queue sync failed")
			wait = w.retryWait(err, failures)
		} else {
			failures = 0
			if !next.IsZero() {
				wait = min(wait, max(next.Sub(w.now()), 10*time.Millisecond))
			}
		}
		fired, stop := w.timer(wait)
		select {
		case <-ctx.Done():
			stop()
			return
		case <-wake:
		case <-fired:
		}
		stop()
	}
}

// Wait blocks until every worker returned (after the Start context ended).
func (w *Workers) Wait() {
	w.mu.Lock()
	w.stopped = true
	w.mu.Unlock()
	w.wg.Wait()
}
