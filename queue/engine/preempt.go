package engine

import (
	"fmt"

	"github.com/mergequeue/mq/queue"
)

// preempt restarts, behind a waiting urgent entry, every lower-priority
// entry whose tests are in progress (SPEC §5.1: only urgent pre-empts).
// Entries whose tests already passed keep their place.
func (p *planner) preempt() Action {
	var urgent *queue.Entry
	ordered, chain, _ := p.layout()
	for _, e := range chain { // an urgent entry waiting on a conflict pre-empts nobody
		// One still tested alone (isolation runs) is not in the chain yet:
		// it pre-empts once it passed alone.
		if e.Position == 0 && e.PriorityValue == queue.PriorityUrgent && e.State == queue.StatePending && !awaitsIsolation(p.q.Settings, e) {
			urgent = e
			break
		}
	}
	if urgent == nil || !p.q.StartsRuns() {
		return nil
	}
	for _, e := range ordered {
		if p.s.Parallel() && !p.s.targetsOf(urgent).Overlaps(p.s.targetsOf(e)) {
			continue // independent of the urgent entry: it is not in its way
		}
		if e.Position > 0 && e.PriorityValue > queue.PriorityUrgent && (e.State == queue.StateTesting || e.State == queue.StatePendingFailure) {
			return Transition{EntryID: e.ID, To: queue.StatePending, Reason: queue.ReasonRestartedPreempted,
				Detail: fmt.Sprintf("the urgent #%d goes first; testing again behind it", urgent.PRNumber), ClearRun: true}
		}
	}
	return nil
}
