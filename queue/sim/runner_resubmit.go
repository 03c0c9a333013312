package sim

import (
	"fmt"
	"time"

	"github.com/mergequeue/mq/queue"
)

// newEvents returns the queue's events of the last minute after *cursor
// (an event ID) and moves *cursor past them; nil after a failure (r.fail).
// Each reader (the tuner's observer, the resubmissions) keeps its own
// cursor.
func (r *oursRun) newEvents(cursor *int64) []queue.Event {
	evs, err := r.store.ListEvents(r.ctx, r.q.ID, r.sim.Now().Add(-time.Minute))
	if err != nil {
		r.fail(fmt.Errorf("failed to list events: %w", err))
		return nil
	}
	var out []queue.Event
	for _, ev := range evs {
		if ev.ID > *cursor {
			out = append(out, ev)
			*cursor = ev.ID
		}
	}
	return out
}

// ResubmitAfter is how long after a false rejection a good PR is submitted
// again in a run with RunOptions.Resubmit: its author sees the flaky
// failure and puts it back.
const ResubmitAfter = 10 * time.Minute

// resubmitRejected submits again, ResubmitAfter later, every good PR the
// engine rejected since the last call (RunOptions.Resubmit). The PR keeps
// its arrival: its time-to-merge counts the rejection, the wait and its
// second pass through the queue, and its runs count in runs per merge.
func (r *oursRun) resubmitRejected() {
	for _, ev := range r.newEvents(&r.resubmitEv) {
		i, ok := r.index[ev.PRNumber]
		if ev.To != queue.StateFailed || !ok || r.prs[i].Bad {
			continue
		}
		n := ev.PRNumber
		r.resubmitting++
		r.rec.Resubmitted++
		r.sim.After(ResubmitAfter, func() {
			r.resubmitting--
			if _, err := r.svc.Submit(r.ctx, queue.SubmitRequest{Key: r.q.Key, PRNumber: n, Submitter: "sim", Source: "api"}); err != nil {
				r.fail(fmt.Errorf("failed to resubmit #%d: %w", n, err))
			}
			r.observeArrival(n, r.prs[i])
			r.wake()
		})
	}
}
