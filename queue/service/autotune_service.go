package service

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/autotune"
)

// autoTune in the service (issue #20): a queue with Settings.AutoTune on
// has a tuner fed from the queue's own events in the store, read by
// cursor. Sync, which only the queue's lease holder runs, starts a
// retune when one is due; the retune runs in its own goroutine, outside
// any lock of the queue, at most one choice at a time in the process, and
// within a time budget. A change is stored as the queue's tuning in force
// (Tunings), apart from the configured settings, with an event giving its
// reason; the engine runs on the effective settings (engineView). The
// chooser stops at the budget with the best candidate estimated so far
// (the change then says it was partial), so it never keeps computing and
// holding the process's one choice at a time past it; a choice still
// running at twice the budget (an evaluator whose one estimate outlasts
// the budget) is abandoned as a safety net.

// Tunings is the store's port for autoTune's tuning in force (implemented
// by queue/sqlstore and queue/memstore, inside transactions too).
type Tunings interface {
	// QueueTuning returns the queue's tuning in force (queue.ErrNotFound:
	// none).
	QueueTuning(ctx context.Context, queueID int64) (*queue.QueueTuning, error)
	// SaveQueueTuning stores t as the tuning in force of t.QueueID.
	SaveQueueTuning(ctx context.Context, t queue.QueueTuning) error
	// DeleteQueueTuning removes a queue's tuning (none: no error).
	DeleteQueueTuning(ctx context.Context, queueID int64) error
}

// TuneOptions configure autoTune.
type TuneOptions struct {
	// Evaluator estimates candidate tunings (the application gives
	// queue/sim's TuneEvaluator). Nil: queues with autoTune on keep their
	// configured settings, and each Sync logs why.
	Evaluator autotune.Evaluator
	// Every is how often a queue is retuned once a first choice was made
	// (default 15 minutes); First how often it looks for the evidence of a
	// first choice until then (default 1 minute).
	Every, First time.Duration
	// Window is the sliding window of the observation (default 4 hours).
	Window time.Duration
	// Budget bounds one choice (default 2 minutes): the chooser stops
	// estimating candidates once it is spent and keeps the best so far
	// (autotune.Choice.Partial, said in the change's reason). A choice
	// still running at twice the budget (one estimate outlasting it) is
	// abandoned, the tuning in force kept, and an event says so.
	Budget time.Duration
	// After waits for the safety net of twice the budget (default
	// time.After; tests inject one).
	After func(time.Duration) <-chan time.Time
	// Clock is the wall clock a choice is measured and bounded on (default
	// time.Now; tests inject one). The queue's own clock (Options.Now) may
	// stand still or jump; the time a choice takes is real.
	Clock func() time.Time
	// OnChoice, when set, is told how long each choice took (the safety
	// net when abandoned) and whether it was abandoned.
	OnChoice func(key queue.QueueKey, took time.Duration, abandoned bool)
}

// errStaleChoice is a choice made on settings changed since.
var errStaleChoice = errors.New("the queue's autoTune settings changed during the choice; it is made again")

// Defaults of TuneOptions.
const (
	DefaultTuneEvery  = 15 * time.Minute
	DefaultTuneFirst  = time.Minute
	DefaultTuneWindow = 4 * time.Hour
	DefaultTuneBudget = 2 * time.Minute
)

// tuneBook holds the tuners of the queues this process tunes.
type tuneBook struct {
	opts TuneOptions
	// sem lets one choice compute at a time in the process.
	sem chan struct{}

	mu      sync.Mutex
	queues  map[int64]*queueTuner
	slowest time.Duration
	// wg counts the retunes in progress (Service.WaitTuning).
	wg sync.WaitGroup
	// stopping is set at shutdown (StopTuning): no retune starts, and
	// those in progress stop choosing and apply nothing.
	stopping atomic.Bool
}

func newTuneBook(o TuneOptions) *tuneBook {
	if o.Every <= 0 {
		o.Every = DefaultTuneEvery
	}
	if o.First <= 0 {
		o.First = DefaultTuneFirst
	}
	if o.Window <= 0 {
		o.Window = DefaultTuneWindow
	}
	if o.Budget <= 0 {
		o.Budget = DefaultTuneBudget
	}
	if o.After == nil {
		o.After = time.After
	}
	if o.Clock == nil {
		o.Clock = time.Now
	}
	return &tuneBook{opts: o, sem: make(chan struct{}, 1), queues: map[int64]*queueTuner{}}
}

// queueTuner is one queue's tuning state: its observer, fed from the
// queue's events since the cursor, and its tuner.
type queueTuner struct {
	obs    *autotune.Observer
	tuner  *autotune.Tuner // nil: made at the next retune
	bounds autotune.Bounds
	// busy, next and reset are guarded by the book's mutex: a retune in
	// progress, when the next is due, and a tuner to make again (the
	// configured settings changed). The rest is the retune's alone.
	busy  bool
	next  time.Time
	reset bool
	// cursorAt is the latest moment of an event read; seen are the IDs of
	// the events read at or after cursorAt less feedLookback, with their
	// moments (the store lists events by moment, and IDs need not follow
	// moments: one that commits late, or was stamped earlier, has a lower
	// ID than events already read).
	cursorAt time.Time
	seen     map[int64]time.Time
	// prs maps the entries seen to their PRs; runs are the runs named by
	// events whose result is not known yet.
	prs  map[string]int
	runs map[string]bool
	// reported are the runs reported to the observer, with when they
	// finished.
	reported map[string]time.Time
}

// newQueueTuner is a queue's tuner state at now, observing over window.
// Its feed first reads the events of the last autotune.RateMaxAge (or of
// the window, if longer): the observer measures its rates on that much
// evidence, so a process that just started chooses on what one that ran
// all along would.
func newQueueTuner(window time.Duration, now time.Time) *queueTuner {
	return &queueTuner{obs: autotune.NewObserver(window), cursorAt: now.Add(-max(window, autotune.RateMaxAge)),
		seen: map[int64]time.Time{}, prs: map[string]int{}, runs: map[string]bool{}, reported: map[string]time.Time{}, next: now}
}

// BoundsOf are the bounds of autoTune a queue's settings set.
func BoundsOf(s queue.Settings) autotune.Bounds {
	return autotune.Bounds{MaxRuns: s.AutoTuneMaxRuns, MaxRunsPerMerge: float64(s.AutoTuneMaxRunsPerHundredMerges) / 100}
}

// tunings is the store's Tunings port (nil when it has none).
func tunings(st queue.Store) Tunings {
	t, _ := st.(Tunings)
	return t
}

// QueueTuning returns the tuning in force of a queue (nil: none, or
// autoTune off).
func (s *Service) QueueTuning(ctx context.Context, q *queue.Queue) (*queue.QueueTuning, error) {
	tu := tunings(s.store)
	if !q.Settings.AutoTune || tu == nil {
		return nil, nil
	}
	t, err := tu.QueueTuning(ctx, q.ID)
	if errors.Is(err, queue.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("failed to read the tuning of %s: %w", q.Key, err)
	}
	return t, nil
}

// pokeTuner starts a retune of q when autoTune is on and one is due, a
// choice may start (none computing in the process) and none of q's is in
// progress. It never waits: the caller, Sync, holds the queue's lease.
func (s *Service) pokeTuner(ctx context.Context, q *queue.Queue) {
	b := s.tune
	if !q.Settings.AutoTune {
		b.mu.Lock()
		delete(b.queues, q.ID)
		b.mu.Unlock()
		return
	}
	if b.stopping.Load() {
		return
	}
	if b.opts.Evaluator == nil || tunings(s.store) == nil {
		zerolog.Ctx(ctx).Warn().Str("queue", q.Key.String()).Msg("autoTune is on, but this process has no evaluator or its store keeps no tunings: the configured settings apply")
		return
	}
	now := s.now()
	b.mu.Lock()
	defer b.mu.Unlock()
	qt := b.queues[q.ID]
	if qt == nil {
		qt = newQueueTuner(b.opts.Window, now)
		b.queues[q.ID] = qt
	}
	if qt.busy || now.Before(qt.next) {
		return
	}
	select {
	case b.sem <- struct{}{}:
	default:
		return // another queue's choice is computing: the next Sync tries again
	}
	qt.busy = true
	b.wg.Add(1)
	go func() {
		defer b.wg.Done()
		s.retune(context.WithoutCancel(ctx), q.ID, qt)
	}()
}

// WaitTuning returns once the retunes in progress have ended, abandoned
// choices included (tests, shutdown).
func (s *Service) WaitTuning() { s.tune.wg.Wait() }

// StopTuning stops autoTune in this process (shutdown): no retune starts
// any more, and a choice in progress stops once the estimate it is making
// ends and applies nothing (the next holder of the queue's lease chooses
// again). It does not wait: WaitTuningFor does.
func (s *Service) StopTuning() { s.tune.stopping.Store(true) }

// errStopping is an estimate refused because the process stops.
var errStopping = errors.New("the process stops")

// stoppable is the evaluator of the service's tuners: it refuses every
// estimate once the process stops (StopTuning), so that a choice in
// progress ends after the estimate it is making.
type stoppable struct {
	ev       autotune.Evaluator
	stopping *atomic.Bool
}

func (e stoppable) Evaluate(o autotune.Observation, t autotune.Tuning) (autotune.Estimate, error) {
	if e.stopping.Load() {
		return autotune.Estimate{}, errStopping
	}
	return e.ev.Evaluate(o, t)
}

// EvaluateWithin is the inner evaluator's when it can give up early, and
// its Evaluate otherwise (a whole estimate is a valid bounded one).
func (e stoppable) EvaluateWithin(o autotune.Observation, t autotune.Tuning, limit time.Duration) (autotune.Estimate, error) {
	if e.stopping.Load() {
		return autotune.Estimate{}, errStopping
	}
	if be, ok := e.ev.(autotune.BoundedEvaluator); ok {
		return be.EvaluateWithin(o, t, limit)
	}
	return e.ev.Evaluate(o, t)
}

// WaitTuningFor waits at most d for the retunes in progress to end and
// reports whether they did.
func (s *Service) WaitTuningFor(d time.Duration) bool {
	done := make(chan struct{})
	go func() {
		s.tune.wg.Wait()
		close(done)
	}()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-done:
		return true
	case <-t.C:
		return false
	}
}

// retune feeds qt's observer from the store, lets its tuner choose within
// the time budget, and applies a change. It holds the process's semaphore
// (taken by pokeTuner) until the choice ends, even when abandoned.
func (s *Service) retune(ctx context.Context, queueID int64, qt *queueTuner) {
	b := s.tune
	log := zerolog.Ctx(ctx).With().Int64("queue_id", queueID).Logger()
	released := false
	release := func(next time.Duration) {
		b.mu.Lock()
		qt.busy, qt.next = false, s.now().Add(next)
		b.mu.Unlock()
		<-b.sem
	}
	finish := func(next time.Duration) {
		released = true
		release(next)
	}
	defer func() {
		if !released {
			release(b.opts.First)
		}
	}()
	b.mu.Lock()
	if qt.reset {
		qt.tuner, qt.reset = nil, false
	}
	b.mu.Unlock()
	q, err := s.store.GetQueueByID(ctx, queueID)
	if err != nil {
		log.Warn().Err(err).Msg("autoTune: failed to load the queue")
		return
	}
	if !q.Settings.AutoTune {
		return
	}
	if err := s.feedObserver(ctx, q, qt); err != nil {
		log.Warn().Err(err).Msg("autoTune: failed to read the queue's events")
		return
	}
	tuning, err := s.QueueTuning(ctx, q)
	if err != nil {
		log.Warn().Err(err).Msg("autoTune")
		return
	}
	effective := queue.EffectiveSettings(q.Settings, tuning)
	bounds := BoundsOf(q.Settings)
	// A tuner made again: none yet, new bounds, or a tuning in force it did
	// not choose (another replica's, while it held the lease).
	if qt.tuner == nil || qt.bounds != bounds || qt.tuner.Current() != autotune.FromSettings(effective) {
		qt.tuner = autotune.NewTuner(qt.obs, stoppable{b.opts.Evaluator, &b.stopping}, bounds, autotune.FromSettings(effective))
		qt.bounds = bounds
	}
	// A change moving room into the chain (or out of it) is applied as far
	// as the runs in progress leave room within the bound, the rest at the
	// next retunes.
	qt.tuner.InFlight = func() (int, int) { return runsInFlight(ctx, s.store, queueID) }
	// The backlog the estimates start from: the queue's active entries
	// (waiting or being tested), counted without reading them.
	qt.tuner.Queued = func() (int, error) { return s.store.CountActiveEntries(ctx, queueID) }
	type result struct {
		ch   autotune.Change
		ok   bool
		err  error
		took time.Duration
	}
	done := make(chan result, 1)
	clock := b.opts.Clock
	tuner, started, now := qt.tuner, clock(), s.now()
	// The chooser reads the clock when it runs: a retune without enough
	// evidence, or on traffic that did not move, is no choice to measure.
	var chose atomic.Bool
	tuner.Now = func() time.Time { chose.Store(true); return clock() }
	tuner.Budget = b.opts.Budget
	go func() {
		ch, ok, err := tuner.Retune(now)
		done <- result{ch, ok, err, clock().Sub(started)}
	}()
	var r result
	safety := 2 * b.opts.Budget
	select {
	case r = <-done:
	case <-b.opts.After(safety):
		// Abandoned: the tuning in force stays; the tuner, whose state
		// the abandoned choice still changes, is made again next time.
		qt.tuner = nil
		s.observeChoice(ctx, q.Key, safety, true)
		ev := queue.QueueTuningEvent(q.ID, queue.ReasonQueueAutoTuneAbandoned, fmt.Sprintf(
			"autoTune's choice was still running at twice its budget of %s (one estimate outlasted the budget) and was abandoned; the tuning in force is kept (%s)",
			b.opts.Budget, autotune.FromSettings(effective)), s.now())
		if err := s.store.AddEvent(ctx, &ev); err != nil {
			log.Warn().Err(err).Msg("autoTune: failed to record the abandoned choice")
		}
		released = true
		b.wg.Add(1)
		go func() {
			defer b.wg.Done()
			<-done // the semaphore stays taken until the choice really ends
			release(b.opts.Every)
		}()
		return
	}
	if b.stopping.Load() {
		qt.tuner = nil
		log.Info().Msg("autoTune: the process stops; the choice in progress is not applied")
		return
	}
	if chose.Load() {
		s.observeChoice(ctx, q.Key, r.took, false)
	}
	if r.err != nil {
		qt.tuner = nil
		log.Warn().Err(r.err).Msg("autoTune: the choice failed; the tuning in force is kept")
		finish(b.opts.Every) // a failing evaluator is not asked again every minute
		return
	}
	if r.ok {
		if err := s.applyTuning(ctx, queueID, bounds, queue.TunedValuesOf(q.Settings), r.ch); err != nil {
			qt.tuner = nil
			log.Warn().Err(err).Msg("autoTune: failed to apply the change")
			return
		}
	}
	// Until the first choice's evidence is in (a parallel queue's targets
	// included), or while a change waits for the runs in progress to end,
	// look again soon.
	finish(tuner.NextLook(b.opts.First, b.opts.Every))
}

// observeChoice measures a choice: OnChoice, and a log line for the
// slowest so far.
func (s *Service) observeChoice(ctx context.Context, key queue.QueueKey, took time.Duration, abandoned bool) {
	if s.opts.Tune.OnChoice != nil {
		s.opts.Tune.OnChoice(key, took, abandoned)
	}
	b := s.tune
	b.mu.Lock()
	slowest := took > b.slowest
	b.slowest = max(b.slowest, took)
	b.mu.Unlock()
	if slowest {
		zerolog.Ctx(ctx).Info().Str("queue", key.String()).Dur("took", took).Bool("abandoned", abandoned).
			Msg("autoTune: the slowest choice so far")
	}
}

// applyTuning stores a change as the queue's tuning in force, with its
// event, under the queue's lock: unless autoTune was turned off, or its
// bounds or the configured tuned values changed meanwhile (the choice is
// then stale: the tuner starts again). Like UpdateQueue,
// it changes only settings: the engine keeps the runs still valid.
func (s *Service) applyTuning(ctx context.Context, queueID int64, bounds autotune.Bounds, configured queue.TunedValues, ch autotune.Change) error {
	unlock := s.lock(queueID)
	defer unlock()
	q, err := s.store.GetQueueByID(ctx, queueID)
	if err != nil {
		return fmt.Errorf("failed to reload the queue: %w", err)
	}
	if !q.Settings.AutoTune || BoundsOf(q.Settings) != bounds || queue.TunedValuesOf(q.Settings) != configured {
		return errStaleChoice
	}
	cur, err := s.QueueTuning(ctx, q)
	if err != nil {
		return err
	}
	from := queue.TunedValuesOf(queue.EffectiveSettings(q.Settings, cur))
	t := queue.QueueTuning{QueueID: q.ID, Values: queue.TunedValuesOf(ch.To.Apply(q.Settings)), From: from,
		Reason: ch.Reason, At: s.now()}
	detail := fmt.Sprintf("%s (now %s)", ch.Reason, ch.To)
	if ch.Choice.Partial {
		detail += fmt.Sprintf("; partial choice: the budget of %s ran out after %d candidates, the best of them was kept",
			s.tune.opts.Budget, ch.Choice.Candidates)
	}
	ev := queue.QueueTuningEvent(q.ID, queue.ReasonQueueAutoTuned, detail, t.At)
	err = s.store.WithTx(ctx, func(tx queue.Store) error {
		tu := tunings(tx)
		if tu == nil {
			return errors.New("the store keeps no tunings")
		}
		if err := tu.SaveQueueTuning(ctx, t); err != nil {
			return err
		}
		return tx.AddEvent(ctx, &ev)
	})
	if err != nil {
		return fmt.Errorf("failed to store the tuning of %s: %w", q.Key, err)
	}
	zerolog.Ctx(ctx).Info().Str("queue", q.Key.String()).Str("reason", ch.Reason).Str("tuning", ch.To.String()).
		Dur("took", ch.Choice.Took).Bool("partial", ch.Choice.Partial).Msg("autoTune changed the queue's settings")
	s.opts.Wake(q.ID)
	return nil
}
