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

// syncer is what a worker runs: one queue's sync, saying whether the queue
// was found idle (service.Service.SyncQueue).
type syncer interface {
	SyncQueue(ctx context.Context, queueID int64) (service.SyncResult, error)
}

// Workers runs one goroutine per queue with work, each calling Sync when
// woken, when the engine asked to be looked at again, and at least every
// interval. One worker per queue serialises its engine; queues progress
// independently. A queue found idle (no active entry, no open run) costs
// nothing: its worker releases its lease and ends, and the next Wake
// starts it again, so that an idle queue is neither synced, nor renewed,
// nor contended for by the replicas until something gives it work.
type Workers struct {
	svc      syncer
	interval time.Duration
	now      func() time.Time
	// timer waits d (tests record the waits); jitter is in [0, 1).
	timer  func(d time.Duration) (<-chan time.Time, func() bool)
	jitter func() float64

	// leases, when set, make a worker sync its queue only while this
	// replica (holder) holds the queue's lease (UseLeases).
	leases   leaser
	holder   string
	leaseTTL time.Duration
	takeOver func(queueID int64)
	keeper   *leaseKeeper
	// spread: the live replicas divide the queues (SpreadOver).
	spread bool

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

// UseLeases makes each worker sync its queue only while holder holds the
// queue's lease in l, for ttl from each renewal (renewed every ttl/3, tried
// for every ttl/3 while another replica holds it), with every sync's
// context carrying the lease as a queue.Fence. takeOver, if set, is called
// each time the lease is acquired, before the first sync under it. Call it
// before Start.
func (w *Workers) UseLeases(l leaser, holder string, ttl time.Duration, takeOver func(queueID int64)) {
	w.leases, w.holder, w.leaseTTL, w.takeOver = l, holder, ttl, takeOver
	w.keeper = &leaseKeeper{leases: l, holder: holder, ttl: ttl, now: w.now, timer: func(d time.Duration) (<-chan time.Time, func() bool) {
		t := time.NewTimer(d)
		return t.C, t.Stop
	}, held: map[*heldLease]context.CancelFunc{}}
}

// SpreadOver makes the replicas divide the queues (with UseLeases): a
// worker starts only for a queue this replica is preferred for among the
// live ones (preferredReplica), so that a wake-up of a queue another
// replica decides for costs nothing here, not even a statement. A queue
// keeps its holder while it has work, preferred or not (no hand-over in
// the middle of a merge); once idle it is released, and the next wake-up
// goes to the preferred replica. changed is called when the live replicas
// changed (one started, or stopped beating: its leases expire with its
// heartbeat): it should wake every queue with work, so that the replicas
// now preferred for the queues of one gone take them. Call it before
// Start.
func (w *Workers) SpreadOver(changed func(ctx context.Context)) {
	w.keeper.changed, w.keeper.spread, w.spread = changed, true, true
}

// preferred tells whether this replica decides for queueID: always
// without leases, or before the live replicas are known.
func (w *Workers) preferred(queueID int64) bool {
	if w.keeper == nil || !w.spread {
		return true
	}
	live := w.keeper.liveReplicas()
	return len(live) == 0 || preferredReplica(live, queueID) == w.holder
}

// Backoff after a failed sync. A transient failure (GitHub answered a 5xx,
// timed out, or could not be reached) is retried soon, so that one 502 does
// not cost a merge the whole reconcile interval: 100 ms doubling to at most
// 5 s, jittered into [d/2, d) so that the workers of many queues do not
// retry in step; so is a sync whose save found an entry changed since it
// was read (queue.ErrConflict: another replica saved it), which decides
// again on fresh state. Any other failure (the store) backs off 2 s doubling up to
// the interval. Waiting for GitHub's budget or a rate-limit pause happens
// inside the sync and is no failure.
const (
	transientRetryBase = 100 * time.Millisecond
	transientRetryMax  = 5 * time.Second
)

// retryWait is the wait after the failures-th failure in a row, err the
// last one.
func (w *Workers) retryWait(err error, failures int) time.Duration {
	if errors.Is(err, queue.ErrTransient) || errors.Is(err, queue.ErrConflict) {
		d := min(transientRetryBase<<min(failures-1, 16), transientRetryMax)
		return d/2 + time.Duration(w.jitter()*float64(d/2))
	}
	return min(time.Second<<min(failures, 6), w.interval)
}

// Start sets the context the workers run under; queues woken before Start
// begin then.
func (w *Workers) Start(ctx context.Context) {
	if w.keeper != nil && w.spread {
		// Learn the live replicas first: the queues are divided by them.
		if _, err := w.keeper.beat(ctx); err != nil {
			zerolog.Ctx(ctx).Warn().Err(err).Msg("failed to record this replica's heartbeat")
		}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.ctx = ctx
	if w.keeper != nil {
		w.wg.Add(1)
		go func() {
			defer w.wg.Done()
			w.keeper.run(ctx)
		}()
	}
	for id := range w.wakes {
		if !w.preferred(id) {
			delete(w.wakes, id) // the replica preferred for it was woken too
			continue
		}
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
		if w.ctx != nil && !w.preferred(queueID) {
			return // another replica decides for it (it is woken too)
		}
		ch = make(chan struct{}, 1)
		w.wakes[queueID] = ch
	}
	select {
	case ch <- struct{}{}:
	default:
	}
	// Signalled before it starts, a new worker's first sync serves this
	// wake-up (run drains it): started first, it could sync before the
	// signal and then sync again for it.
	if !ok && w.ctx != nil {
		w.spawn(queueID)
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

// runEnd says why a worker's sync loop ended.
type runEnd int

const (
	endStopped runEnd = iota // the context ended
	endDeleted               // the queue is gone
	endLost                  // the queue's lease is lost
	endIdle                  // the queue has nothing to do
)

func (w *Workers) loop(ctx context.Context, queueID int64, wake chan struct{}) {
	log := zerolog.Ctx(ctx).With().Int64("queue_id", queueID).Logger()
	if w.leases == nil {
		for w.run(ctx, queueID, wake, log) == endIdle && !w.retire(queueID, wake) {
		}
		return
	}
	for {
		asked := w.now()
		l, ok, err := w.leases.AcquireLease(ctx, queueID, w.holder, asked, w.leaseTTL)
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			log.Warn().Err(err).Msg("failed to acquire the queue's lease")
		}
		if err == nil && !ok && !w.preferred(queueID) && w.retire(queueID, wake) {
			// Another replica holds it and another is preferred for it:
			// they are woken too (a replica that stops beating is
			// replaced by the one preferred after it, see SpreadOver).
			return
		}
		if err != nil || !ok {
			// The preferred replica tries again every third of the TTL
			// while another holds it (after the replicas changed, until
			// the holder finds it idle and releases it).
			if !w.pause(ctx, wake, w.leaseTTL/3) {
				return
			}
			continue
		}
		log.Info().Int64("token", l.Token).Msg("this replica now decides for the queue")
		if w.takeOver != nil {
			w.takeOver(queueID) // re-read GitHub before acting
		}
		switch w.hold(ctx, queueID, wake, newHeldLease(l, asked, w.leaseTTL), log) {
		case endLost:
			log.Warn().Msg("the queue's lease is lost; this replica stops deciding for it")
		case endIdle:
			if w.retire(queueID, wake) {
				return
			}

		default:
			return
		}
	}
}

// retire ends the worker of a queue found idle unless it was woken since
// (false: it syncs again). Wake holds w.mu while it signals, so a wake-up
// either reaches this worker before it retires or starts a new one.
func (w *Workers) retire(queueID int64, wake chan struct{}) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	select {
	case <-wake:
		return false
	default:
	}
	delete(w.wakes, queueID)
	return true
}

// pause waits d, or until woken or ctx ends (false).
func (w *Workers) pause(ctx context.Context, wake chan struct{}, d time.Duration) bool {
	fired, stop := w.timer(d)
	defer stop()
	select {
	case <-ctx.Done():
		return false
	case <-wake:
	case <-fired:
	}
	return true
}

// hold runs the queue's syncs under its lease h, renewing it, until the
// context ends, the queue is deleted or found idle (then it releases the
// lease), or the lease is lost: a renewal finds it changed hands, a fenced write finds its
// token stale, or it could not be renewed before it may pass on. Then the
// syncs stop at once: their context ends.
func (w *Workers) hold(ctx context.Context, queueID int64, wake chan struct{}, h *heldLease, log zerolog.Logger) runEnd {
	hctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w.keeper.add(h, cancel)
	end := w.run(queue.WithFence(hctx, h), queueID, wake, log)
	cancel()
	w.keeper.drop(h)
	if ctx.Err() != nil || end == endDeleted || end == endIdle {
		rctx, rcancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer rcancel()
		if err := w.leases.ReleaseLease(rctx, h.lease()); err != nil {
			log.Warn().Err(err).Msg("failed to release the queue's lease; it expires")
		}
		if ctx.Err() != nil {
			return endStopped
		}
		return end
	}
	return endLost
}

// run calls Sync when woken, when the engine asked to be looked at again,
// and at least every interval, until ctx ends, the queue is deleted, a
// sync finds the lease lost or finds the queue idle.
func (w *Workers) run(ctx context.Context, queueID int64, wake chan struct{}, log zerolog.Logger) runEnd {
	failures := 0
	for {
		select {
		case <-wake: // a wake-up that came before this sync is served by it
		default:
		}
		res, err := w.svc.SyncQueue(ctx, queueID)
		next := res.Next
		if ctx.Err() != nil {
			return endStopped
		}
		if errors.Is(err, service.ErrNoQueue) {
			log.Info().Msg("queue deleted; its worker stops")
			w.mu.Lock()
			delete(w.wakes, queueID)
			w.mu.Unlock()
			return endDeleted
		}
		if errors.Is(err, queue.ErrLeaseLost) {
			return endLost
		}
		if err == nil && res.Idle {
			return endIdle
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
		if !w.pause(ctx, wake, wait) {
			return endStopped
		}
	}
}

// Wait blocks until every worker returned (after the Start context ended).
func (w *Workers) Wait() {
	w.mu.Lock()
	w.stopped = true
	w.mu.Unlock()
	w.wg.Wait()
}
