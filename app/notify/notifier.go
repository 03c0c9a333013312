package notify

import (
	"context"
	"crypto/rand"
	"errors"
	"net/http"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/mergequeue/mq/queue"
)

// Options configure a Notifier; zero values take the defaults.
type Options struct {
	Targets []Target
	// DetailsURL is where a reader learns more (the dashboard).
	DetailsURL string
	Client     *http.Client     // default: 10 s timeout
	Now        func() time.Time // default: time.Now
	// Poll is how often the event log is read when idle (default 1 s).
	Poll time.Duration
	// MaxBackoff caps the wait between retries (default 10 min).
	MaxBackoff time.Duration
	// Observer, if set, is told about every delivery attempt.
	Observer Observer
	// Holder names this process among those sharing the store (replicas):
	// one of them at a time delivers to a target. Default: a random name.
	Holder string
}

// batchSize bounds the events read per step.
const batchSize = 100

// cursorHold is how long a step's claim of a target lasts, and stepFor how
// long a step delivers before it ends (and the next one renews the claim):
// a step outlasts stepFor by at most one event's delivery, whose requests
// the client's timeout bounds, well within cursorHold. A process that dies
// holding a target leaves it to another after cursorHold.
const (
	cursorHold = 2 * time.Minute
	stepFor    = 30 * time.Second
)

// Notifier delivers the event log to the targets.
type Notifier struct {
	store Store
	opts  Options
	wg    sync.WaitGroup
}

// New returns a Notifier; Start runs it.
func New(store Store, opts Options) *Notifier {
	if opts.Client == nil {
		opts.Client = &http.Client{Timeout: 10 * time.Second}
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Poll <= 0 {
		opts.Poll = time.Second
	}
	if opts.MaxBackoff <= 0 {
		opts.MaxBackoff = 10 * time.Minute
	}
	if opts.Holder == "" {
		opts.Holder = "notifier-" + rand.Text()
	}
	return &Notifier{store: store, opts: opts}
}

// Start delivers to every target, one goroutine each, until ctx ends.
func (n *Notifier) Start(ctx context.Context) {
	for _, t := range n.opts.Targets {
		n.wg.Add(1)
		go func() {
			defer n.wg.Done()
			n.run(ctx, t)
		}()
	}
}

// Targets returns the cursor keys of the configured targets.
func (n *Notifier) Targets() []string {
	var out []string
	for _, t := range n.opts.Targets {
		out = append(out, t.key())
	}
	return out
}

// Wait returns once the goroutines started by Start have ended.
func (n *Notifier) Wait() { n.wg.Wait() }

func (n *Notifier) run(ctx context.Context, t Target) {
	log := zerolog.Ctx(ctx).With().Str("notify", RedactURL(t.URL)).Str("kind", string(t.Kind)).Logger()
	ctx = log.WithContext(ctx)
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
		}
		wait, err := n.Step(ctx, t)
		if err != nil && ctx.Err() == nil {
			log.Warn().Err(err).Msg("notification delivery")
		}
		timer.Reset(wait)
	}
}

// Step delivers the target's due events, in order, and returns how long to
// wait before the next step: zero when more events are waiting, the poll
// interval when it caught up or when another process sharing the store
// delivers to the target (holds its cursor), the backoff after a failed
// delivery (whose error it returns; the event is tried again next time).
func (n *Notifier) Step(ctx context.Context, t Target) (time.Duration, error) {
	now := n.opts.Now()
	c, ok, err := n.store.ClaimCursor(ctx, t.key(), n.opts.Holder, now, cursorHold)
	if err != nil {
		return n.opts.Poll, err
	}
	if !ok {
		return n.opts.Poll, nil
	}
	if wait := c.NextAttemptAt.Sub(now); wait > 0 {
		return wait, nil
	}
	events, err := n.store.EventsAfter(ctx, c.LastEventID, batchSize)
	if err != nil {
		return n.opts.Poll, err
	}
	for _, ev := range events {
		if n.opts.Now().Sub(now) >= stepFor {
			return 0, nil // the next step renews the claim
		}
		if err := n.deliver(ctx, t, ev, now); err != nil {
			var de *deliveryError
			if errors.As(err, &de) && de.Permanent {
				zerolog.Ctx(ctx).Error().Err(err).Int64("event", ev.ID).Msg("notification refused; skipped")
				n.observe(t, OutcomeSkipped)
			} else {
				n.observe(t, OutcomeFailed)
				c.Attempts++
				c.NextAttemptAt, c.LastError = now.Add(n.backoff(c.Attempts)), err.Error()
				if serr := n.store.SaveCursor(ctx, c); serr != nil {
					return n.opts.Poll, serr
				}
				return n.backoff(c.Attempts), err
			}
		} else {
			n.observe(t, OutcomeDelivered)
		}
		c.LastEventID, c.Attempts, c.NextAttemptAt, c.LastError = ev.ID, 0, time.Time{}, ""
		if err := n.store.SaveCursor(ctx, c); err != nil {
			return n.opts.Poll, err
		}
	}
	if len(events) == batchSize {
		return 0, nil
	}
	return n.opts.Poll, nil
}

// deliver sends an event's messages to the target. Slack targets get only
// the decisions a channel cares about: an entry or a batch ended, a batch
// failed, a queue alert was raised or cleared, or autoTune changed the
// queue's settings.
func (n *Notifier) deliver(ctx context.Context, t Target, ev queue.Event, now time.Time) error {
	msgs, err := messages(ctx, n.store, ev, n.opts.DetailsURL)
	if errors.Is(err, queue.ErrNotFound) {
		return &deliveryError{Permanent: true, Err: err} // its queue was deleted since
	}
	if err != nil {
		return err
	}
	for _, m := range msgs {
		if t.Kind == Slack && m.Type != "queue_alert" && m.Type != "queue_autotune" && m.Action != "merged" && m.Action != "failed" && m.Action != "canceled" {
			continue
		}
		if err := send(ctx, n.opts.Client, t, m, now); err != nil {
			return err
		}
	}
	return nil
}

// backoff is the wait after the n-th failed attempt: 1 s, 2 s, 4 s, …
// capped at MaxBackoff.
func (n *Notifier) backoff(attempts int) time.Duration {
	d := time.Second
	for i := 1; i < attempts && d < n.opts.MaxBackoff; i++ {
		d *= 2
	}
	return min(d, n.opts.MaxBackoff)
}
