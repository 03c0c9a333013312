package inbox

import (
	"time"
)

// Processor defaults.
const (
	DefaultPollInterval   = 30 * time.Second
	DefaultMaxAttempts    = 5
	DefaultRetryBase      = 2 * time.Second
	DefaultRetryMax       = 2 * time.Minute
	DefaultHandlerTimeout = 2 * time.Minute
	// DefaultTransientWindow is how long a delivery failing transiently
	// (GitHub unavailable) is retried: longer than any outage worth riding
	// out, within GitHub's own redelivery window.
	DefaultTransientWindow = 24 * time.Hour
)

// ProcessorOption configures a Processor.
type ProcessorOption func(*Processor)

// WithPollInterval sets how often Run looks at the inbox without a wake-up
// (deliveries stored while the process was down, or by another replica).
func WithPollInterval(d time.Duration) ProcessorOption {
	return func(p *Processor) {
		if d > 0 {
			p.poll = d
		}
	}
}

// WithMaxAttempts sets how many times a failing delivery is attempted before
// it is marked done with its error recorded.
func WithMaxAttempts(n int) ProcessorOption {
	return func(p *Processor) {
		if n > 0 {
			p.maxAttempts = n
		}
	}
}

// WithRetryBackoff sets the delay before the second attempt (base) and its
// cap; the delay doubles with each failed attempt.
func WithRetryBackoff(base, maxDelay time.Duration) ProcessorOption {
	return func(p *Processor) {
		if base > 0 {
			p.retryBase = base
		}
		if maxDelay > 0 {
			p.retryMax = maxDelay
		}
	}
}

// WithProcessorClock sets the clock used for retry backoff.
func WithProcessorClock(now func() time.Time) ProcessorOption {
	return func(p *Processor) {
		if now != nil {
			p.now = now
		}
	}
}

// WithClaimHold sets how long a claim of a delivery lasts unless renewed
// (default ClaimHold; renewed every third of it while the handler runs).
func WithClaimHold(d time.Duration) ProcessorOption {
	return func(p *Processor) {
		if d > 0 {
			p.claimHold = d
		}
	}
}

// WithHandlerTimeout bounds one handler call.
func WithHandlerTimeout(d time.Duration) ProcessorOption {
	return func(p *Processor) {
		if d > 0 {
			p.handlerTimeout = d
		}
	}
}

// backoff is the delay after the attempt-th failed attempt (1-based).
func (p *Processor) backoff(attempt int) time.Duration {
	d := p.retryBase
	for i := 1; i < attempt && d < p.retryMax; i++ {
		d *= 2
	}
	return min(d, p.retryMax)
}

// WithTransient classifies handler errors as transient (GitHub failing as a
// whole: 5xx, timeouts, rate limits): those are retried, with backoff, for
// window since the delivery was received, whatever MaxAttempts says
// (window 0 keeps DefaultTransientWindow).
func WithTransient(isTransient func(error) bool, window time.Duration) ProcessorOption {
	return func(p *Processor) {
		if isTransient != nil {
			p.transient = isTransient
		}
		if window > 0 {
			p.transientFor = window
		}
	}
}
