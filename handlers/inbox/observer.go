package inbox

import (
	"context"
	"time"

	"github.com/mergequeue/mq/queue/record"
)

// Outcomes of one processing attempt, as reported to an Observer.
const (
	// OutcomeDone: the handler succeeded.
	OutcomeDone = "done"
	// OutcomeUnhandled: no handler wants the event; marked done unread.
	OutcomeUnhandled = "unhandled"
	// OutcomeRetry: the handler failed; the delivery will be tried again.
	OutcomeRetry = "retry"
	// OutcomeGaveUp: the handler failed for good; the delivery is done
	// with its error recorded.
	OutcomeGaveUp = "gave_up"
)

// Observer is told about every processing attempt (not about attempts cut
// short by shutdown). It runs on the processor's goroutine: it must be
// quick and safe for concurrent use.
type Observer interface {
	// DeliveryProcessed reports one attempt: the delivery's event (as
	// sent by GitHub; an event no handler takes may be anything), the
	// outcome, how long the handler ran, and how long after its receipt
	// the attempt ended.
	DeliveryProcessed(event, outcome string, handling, sinceReceived time.Duration)
}

// WithObserver reports every processing attempt to o.
func WithObserver(o Observer) ProcessorOption {
	return func(p *Processor) { p.obs = o }
}

// Stats is the inbox's backlog.
type Stats = record.InboxStats

// StatsReader is a Store that can count its backlog without reading the
// payloads.
type StatsReader interface {
	InboxStats(ctx context.Context) (Stats, error)
}

// observe reports an attempt to the observer, if any.
func (p *Processor) observe(d Delivery, outcome string, handling time.Duration) {
	if p.obs == nil {
		return
	}
	p.obs.DeliveryProcessed(d.Event, outcome, handling, max(p.now().Sub(d.ReceivedAt), 0))
}
