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
// Backoff times are kept in memory; after a restart a failing delivery is
// retried at once (its attempt count is durable, so the bound still holds).
type Processor struct {
	inbox    Store
	handlers map[string]githubapp.EventHandler
	log      zerolog.Logger
	wake     chan struct{}

	poll           time.Duration
	maxAttempts    int
	retryBase      time.Duration
	retryMax       time.Duration
	batch          int
	handlerTimeout time.Duration
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
		batch:          DefaultBatchSize,
		handlerTimeout: DefaultHandlerTimeout,
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
	for _, at := range p.retryAt {
		wait = min(wait, max(at.Sub(now), time.Millisecond))
	}
	return wait
}

// ProcessPending processes every delivery that is pending now and not
// waiting for a retry, including those stored while it runs, and returns
// how many it attempted. Handler failures are recorded in the inbox, not
// returned; the error is an inbox failure or ctx ending.
func (p *Processor) ProcessPending(ctx context.Context) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	seen := make(map[string]bool)
	n := 0
	for {
		ds, err := p.inbox.PendingDeliveries(ctx, p.batch)
		if err != nil {
			return n, fmt.Errorf("failed to read pending webhook deliveries: %w", err)
		}
		fresh := false
		for _, d := range ds {
			if seen[d.ID] {
				continue
			}
			seen[d.ID] = true
			fresh = true
			if at, ok := p.retryAt[d.ID]; ok && p.now().Before(at) {
				continue
			}
			if err := p.process(ctx, d); err != nil {
				return n, err
			}
			n++
		}
		if !fresh {
			return n, nil
		}
	}
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
		return p.finish(ctx, d.ID, true, "")
	}

	start := time.Now()
	herr := p.call(log.WithContext(ctx), h, d)
	took := time.Since(start)
	if herr == nil {
		delete(p.retryAt, d.ID)
		p.observe(d, OutcomeDone, took)
		return p.finish(ctx, d.ID, true, "")
	}
	if ctx.Err() != nil {
		// Shutting down: the attempt does not count; it runs again later.
		return ctx.Err()
	}
	attempt := d.Attempts + 1
	outage := p.transient(herr) && !IsPermanent(herr) && p.now().Sub(d.ReceivedAt) < p.transientFor
	if IsPermanent(herr) || (attempt >= p.maxAttempts && !outage) {
		delete(p.retryAt, d.ID)
		log.Error().Err(herr).Int("attempt", attempt).Msg("webhook delivery failed; giving up")
		p.observe(d, OutcomeGaveUp, took)
		return p.finish(ctx, d.ID, true, herr.Error())
	}
	delay := p.backoff(attempt)
	p.retryAt[d.ID] = p.now().Add(delay)
	log.Warn().Err(herr).Int("attempt", attempt).Dur("retry_in", delay).Msg("webhook delivery failed; will retry")
	p.observe(d, OutcomeRetry, took)
	return p.finish(ctx, d.ID, false, herr.Error())
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

func (p *Processor) finish(ctx context.Context, id string, done bool, errText string) error {
	if err := p.inbox.FinishDelivery(ctx, id, done, errText); err != nil {
		return fmt.Errorf("failed to record webhook delivery %s: %w", id, err)
	}
	return nil
}
