package readside

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/mergequeue/mq/queue"
)

// FlakyWindow is the window flaky checks are measured over.
const FlakyWindow = 7 * 24 * time.Hour

// FlakyCheck is how a required check's failures in a queue turned out
// over FlakyWindow: how many there were, and how many were flakes (the
// run passed when tried again, or a later run vouched for it).
type FlakyCheck struct {
	Name                 string
	Failures             int
	PassedOnRetry        int
	Vouched              int
	FailedAgainOrCulprit int
}

// Flaky are the failures that turned out to be flakes.
func (f FlakyCheck) Flaky() int { return f.PassedOnRetry + f.Vouched }

// Percent is the share of the failures that were flakes, rounded.
func (f FlakyCheck) Percent() int {
	if f.Failures == 0 {
		return 0
	}
	return (100*f.Flaky() + f.Failures/2) / f.Failures
}

// FlakyChecks measures, from the event log, each required check's failures
// in q over the FlakyWindow before now, most failures first: a failure is
// a run of an entry that failed on the check (tried again, waiting as
// pending_failure, or failed); it was a flake when the entry's next
// decision was tests_passed (on the retry) or vouched.
func (r *Reads) FlakyChecks(ctx context.Context, q *queue.Queue) ([]FlakyCheck, error) {
	return LoadFlakyChecks(ctx, r.store, q, r.now())
}

// EventLister reads a queue's event log (queue.Store's method).
type EventLister interface {
	ListEvents(ctx context.Context, queueID int64, since time.Time) ([]queue.Event, error)
}

// LoadFlakyChecks is FlakyChecks over store, at now.
func LoadFlakyChecks(ctx context.Context, store EventLister, q *queue.Queue, now time.Time) ([]FlakyCheck, error) {
	events, err := store.ListEvents(ctx, q.ID, now.Add(-FlakyWindow))
	if err != nil {
		return nil, fmt.Errorf("failed to list the events of %s: %w", q.Key, err)
	}
	return flakyChecks(events), nil
}

// FlakyChecksOf is FlakyChecks over events, the queue's event log of the
// FlakyWindow (oldest first), as LoadFlakyChecks reads it.
func FlakyChecksOf(events []queue.Event) []FlakyCheck { return flakyChecks(events) }

// FlakyNote says how often check's failures were flakes this week, for a
// failure comment, after the check's name: "has passed on retry or been
// vouched for in 18 % of its failures this week: 2 of 11"; "" when it
// failed no other time.
func FlakyNote(checks []FlakyCheck, check string) string {
	for _, f := range checks {
		if f.Name == check && f.Failures > 1 {
			return fmt.Sprintf("has passed on retry or been vouched for in %d %% of its failures this week: %d of %d",
				f.Percent(), f.Flaky(), f.Failures)
		}
	}
	return ""
}

func flakyChecks(events []queue.Event) []FlakyCheck {
	byName := map[string]*FlakyCheck{}
	get := func(name string) *FlakyCheck {
		if byName[name] == nil {
			byName[name] = &FlakyCheck{Name: name}
		}
		return byName[name]
	}
	open := map[string]string{} // entry → the check its retried failure names
	for _, ev := range events {
		name, named := queue.FailedCheckName(ev.Detail)
		prev, retried := open[ev.EntryID]
		switch {
		case ev.Reason == queue.ReasonRetryingFailedCheck && named:
			if !retried {
				get(name).Failures++
				open[ev.EntryID] = name
			}
		case ev.Reason == queue.ReasonVouched && (named || retried):
			if !retried {
				prev = name
				get(prev).Failures++
			}
			get(prev).Vouched++
			delete(open, ev.EntryID)
		case ev.To == queue.StateTestsPassed && retried:
			get(prev).PassedOnRetry++
			delete(open, ev.EntryID)
		case ev.To == queue.StateFailed && ev.Reason == queue.ReasonTestsFailed && (named || retried):
			if !retried {
				prev = name
				get(prev).Failures++
			}
			get(prev).FailedAgainOrCulprit++
			delete(open, ev.EntryID)
		case ev.To.Terminal() || (ev.To == queue.StatePending && ev.Reason != queue.ReasonRetryingFailedCheck):
			delete(open, ev.EntryID) // it left, or was restarted: undecided
		}
	}
	var out []FlakyCheck
	for _, f := range byName {
		out = append(out, *f)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Failures != out[j].Failures {
			return out[i].Failures > out[j].Failures
		}
		return out[i].Name < out[j].Name
	})
	return out
}
