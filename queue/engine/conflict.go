package engine

import (
	"fmt"

	"github.com/mergequeue/mq/queue"
)

// conflicts settles entries whose test branch did not build (SPEC §5.9):
// first their PR is probed, then a PR that conflicts with the target branch
// alone fails, and one that conflicts only with an entry ahead waits for it
// (it is nobody's base meanwhile); if nothing it was built with is still
// in the queue, it is simply tested again.
func (p *planner) conflicts() Action {
	for _, e := range p.s.Entries {
		c := e.Conflict
		if c == nil {
			continue
		}
		if !c.Probed {
			return ProbeConflict{EntryID: e.ID, Base: c.Base, Before: c.Before}
		}
		if c.Alone {
			return p.fail(e, queue.ReasonMergeConflict,
				fmt.Sprintf("the pull request conflicts with %s; rebase it and submit again", p.q.Key.Branch), c.At)
		}
		blocker := p.s.Entry(c.With)
		for i := len(c.Before) - 1; i >= 0 && blocker == nil; i-- {
			blocker = p.s.Entry(c.Before[i]) // nearest active entry it was built on
		}
		if blocker == nil {
			return Transition{EntryID: e.ID, To: queue.StatePending, Reason: e.StateReason,
				Detail: "the pull requests it conflicted with left the queue; testing again", ClearRun: e.RunID != "", ClearConflict: true}
		}
		return Transition{EntryID: e.ID, To: queue.StatePending, Reason: e.StateReason, BlockedBy: blocker.ID, ClearConflict: true,
			Detail:   fmt.Sprintf("conflicts with #%d ahead in the queue; waiting for it to merge or leave", blocker.PRNumber),
			ClearRun: e.RunID != ""}
	}
	return nil
}
