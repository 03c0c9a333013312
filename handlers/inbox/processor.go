package inbox

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/palantir/go-githubapp/githubapp"
	"github.com/rs/zerolog"
)

// Processor drains the inbox. Deliveries are handled one at a time,
// oldest first, by the handler whose Handles() lists their event (the first
// such handler in the list). A delivery is marked done when its handler
// succeeds, when no handler wants its event, when its handler returns a
// Permanent error, or after MaxAttempts failed attempts (the last error is
// recorded). A failure the transient classifier recognises (GitHub failing
// as a whole) does not use up the attempts: such a delivery is retried for
// as long as the transient window since it was received, so an outage does
// not lose an acknowledged command. Between attempts a failing delivery waits with exponential
// backoff while newer deliveries go ahead: webhooks are hints and the queue
// is level-triggered, so strict ordering is not needed for correctness.
//
// Processes sharing the inbox (replicas on one database) share its
// deliveries: each is claimed by one process before its handler runs, and
// a failing one is held until its retry time, which the store keeps (a
// store kept for one process may keep it in memory: after a restart such a
// delivery is retried at once; its attempt count is durable, so the bound
// still holds). A process that dies while handling a delivery leaves it
// claimed for the handler timeout and a margin; then another takes it.
type Processor struct {
	inbox    Store
	handlers map[string]githubapp.EventHandler
	log      zerolog.Logger
	wake     chan struct{}

	poll           time.Duration
	maxAttempts    int
	retryBase      time.Duration
	retryMax       time.Duration
	handlerTimeout time.Duration
	claimHold      time.Duration
	now            func() time.Time
	transient      func(error) bool
	transientFor   time.Duration
	obs            Observer

	mu      sync.Mutex           // serialises processing
	retryAt map[string]time.Time // delivery id → earliest next attempt
}

// NewProcessor builds a Processor dispatching to handlers.
func NewProcessor(inbox Store, handlers []githubapp.EventHandler, logger zerolog.Logger, opts ...ProcessorOption) *Processor {
	p := &Processor{
		inbox:          inbox,
		handlers:       make(map[string]githubapp.EventHandler),
		log:            logger,
		wake:           make(chan struct{}, 1),
		poll:           DefaultPollInterval,
		maxAttempts:    DefaultMaxAttempts,
		retryBase:      DefaultRetryBase,
		retryMax:       DefaultRetryMax,
		handlerTimeout: DefaultHandlerTimeout,
		claimHold:      ClaimHold,
		now:            time.Now,
		transient:      func(error) bool { return false },
		transientFor:   DefaultTransientWindow,
		retryAt:        make(map[string]time.Time),
	}
	for _, h := range handlers {
		for _, ev := range h.Handles() {
			if _, taken := p.handlers[ev]; !taken {
				p.handlers[ev] = h
			}
		}
	}
	for _, o := range opts {
		o(p)
	}
	return p
}

// Handler returns the handler deliveries of event are dispatched to; ok is
// false when none is (such deliveries are marked done unread).
func (p *Processor) Handler(event string) (h githubapp.EventHandler, ok bool) {
	h, ok = p.handlers[event]
	return h, ok
}

// Wake asks Run to look at the inbox now. It never blocks; wake-ups that
// arrive while one is already pending are merged.
func (p *Processor) Wake() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// Run processes the inbox until ctx is done: at start, on every Wake, when a
// delivery's backoff expires, and at least every poll interval. Store
// failures are logged and retried on the next round. It returns nil once
// ctx is done.
func (p *Processor) Run(ctx context.Context) error {
	for {
		if _, err := p.ProcessPending(ctx); err != nil && ctx.Err() == nil {
			p.log.Error().Err(err).Msg("failed to process webhook inbox")
		}
		timer := time.NewTimer(p.nextWait())
		select {
		case <-ctx.Done():
			timer.Stop()
			return nil
		case <-p.wake:
		case <-timer.C:
		}
		timer.Stop()
	}
}

// nextWait is the time until the earliest retry is due, at most the poll
// interval.
func (p *Processor) nextWait() time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	wait := p.poll
	now := p.now()
	for id, at := range p.retryAt {
		if !at.After(now) {
			// Due: the next round claims it, unless another process
			// sharing the inbox did; either way it is no longer awaited.
			delete(p.retryAt, id)
		}
		wait = min(wait, max(at.Sub(now), time.Millisecond))
	}
	return wait
}

// bookkeepingTimeout bounds each of the processor's own writes to the
// inbox (a claim, a delivery's outcome, the release of a claim).
const bookkeepingTimeout = 5 * time.Second

// bookkeeping is the context of the processor's own writes to the inbox
// under ctx: not ended by ctx (a stopping process still records what it
// claimed and did), bounded by bookkeepingTimeout.
func bookkeeping(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), bookkeepingTimeout)
}

// ClaimHold is how long a claim of a delivery lasts unless renewed: while
// its handler runs, the claim is renewed every ClaimHold/3, so a delivery
// whose process died is claimed by another within ClaimHold.
const ClaimHold = 15 * time.Second

// ProcessPending processes every delivery that is pending now and that no
// claim holds (a delivery waiting for its retry is held until then),
// including those stored while it runs, and returns how many it attempted.
// Each delivery is claimed before its handler runs (one at a time, for
// ClaimHold, renewed while the handler runs): processes sharing the inbox
// never run the same delivery at once. Handler failures are recorded in the inbox, not
// returned; the error is an inbox failure or ctx ending.
func (p *Processor) ProcessPending(ctx context.Context) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for ctx.Err() == nil {
		// The claim is not cut short by ctx ending: a claim the database
		// made while its caller gave up would hold the delivery for
		// ClaimHold with nobody to run it. Claimed, it is run or released.
		cctx, cancel := bookkeeping(ctx)
		ds, err := p.inbox.ClaimDeliveries(cctx, p.now(), p.claimHold, 1)
		cancel()
		if err != nil {
			return n, fmt.Errorf("failed to claim pending webhook deliveries: %w", err)
		}
		if len(ds) == 0 {
			return n, nil
		}
		if err := p.process(ctx, ds[0]); err != nil {
			return n, err
		}
		n++
	}
	return n, ctx.Err()
}

// process runs one delivery through its handler and records the outcome.
func (p *Processor) process(ctx context.Context, d Delivery) error {
	log := p.log.With().
		Str(githubapp.LogKeyDeliveryID, d.ID).
		Str(githubapp.LogKeyEventType, d.Event).
		Logger()
	h, ok := p.handlers[d.Event]
	if !ok {
		log.Debug().Msg("no handler for webhook event; marking done")
		p.observe(d, OutcomeUnhandled, 0)
		return p.finish(ctx, d.ID, true, "", time.Time{})
	}

	start := time.Now()
	stopRenewing := p.keepClaimed(ctx, d.ID, log)
	herr := p.call(log.WithContext(ctx), h, d)
	stopRenewing()
	took := time.Since(start)
	if herr == nil {
		delete(p.retryAt, d.ID)
		p.observe(d, OutcomeDone, took)
		return p.finish(ctx, d.ID, true, "", time.Time{})
	}
	if ctx.Err() != nil {
		// Shutting down: the attempt does not count, and the claim ends
		// now, so that another process sharing the inbox (or this one's
		// last pass before it exits) runs it again at once, not ClaimHold
		// later, when every replica may have stopped.
		rctx, cancel := bookkeeping(ctx)
		defer cancel()
		if err := p.inbox.RenewClaim(rctx, d.ID, p.now()); err != nil {
			log.Warn().Err(err).Msg("failed to end the claim of a webhook delivery while stopping; it is taken again when the claim lapses")
		}
		return ctx.Err()
	}
	attempt := d.Attempts + 1
	outage := p.transient(herr) && !IsPermanent(herr) && p.now().Sub(d.ReceivedAt) < p.transientFor
	if IsPermanent(herr) || (attempt >= p.maxAttempts && !outage) {
		delete(p.retryAt, d.ID)
		log.Error().Err(herr).Int("attempt", attempt).Msg("webhook delivery failed; giving up")
		p.observe(d, OutcomeGaveUp, took)
		return p.finish(ctx, d.ID, true, herr.Error(), time.Time{})
	}
	delay := p.backoff(attempt)
	retryAt := p.now().Add(delay)
	p.retryAt[d.ID] = retryAt
	log.Warn().Err(herr).Int("attempt", attempt).Dur("retry_in", delay).Msg("webhook delivery failed; will retry")
	p.observe(d, OutcomeRetry, took)
	return p.finish(ctx, d.ID, false, herr.Error(), retryAt)
}

// keepClaimed renews the claim of delivery id every ClaimHold/3 until the
// returned stop is called (and returns once renewing stopped).
func (p *Processor) keepClaimed(ctx context.Context, id string, log zerolog.Logger) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(p.claimHold / 3)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			if err := p.inbox.RenewClaim(ctx, id, p.now().Add(p.claimHold)); err != nil && ctx.Err() == nil {
				log.Warn().Err(err).Msg("failed to renew the claim of a webhook delivery")
			}
		}
	}()
	return func() {
		cancel()
		<-done
	}
}

// call runs the handler with a bounded context, turning a panic into an error.
func (p *Processor) call(ctx context.Context, h githubapp.EventHandler, d Delivery) (err error) {
	ctx, cancel := context.WithTimeout(ctx, p.handlerTimeout)
	defer cancel()
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("handler for %s panicked: %v", d.Event, r)
		}
	}()
	return h.Handle(ctx, d.Event, d.ID, d.Payload)
}

// finish records the attempt and releases the delivery's claim; one not
// done is claimed again from retryAt on.
func (p *Processor) finish(ctx context.Context, id string, done bool, errText string, retryAt time.Time) error {
	ctx, cancel := bookkeeping(ctx) // a delivery handled is recorded so even if ctx ended meanwhile
	defer cancel()
	if err := p.inbox.ReleaseDelivery(ctx, id, done, errText, retryAt); err != nil {
		return fmt.Errorf("failed to record webhook delivery %s: %w", id, err)
	}
	return nil
}
