package sim

import (
	"context"
	"fmt"

	"github.com/mergequeue/mq/queue"
)

var _ queue.AncestryChecker = (*World)(nil)

// MergeFault is a failure the World injects into a MergePullRequest call.
type MergeFault int

const (
	// FaultBaseModified is GitHub's 405 "Base branch was modified"; nothing lands.
	FaultBaseModified MergeFault = iota + 1
	// FaultTransient is a 502 before the merge; nothing lands.
	FaultTransient
	// FaultAppliedThenTransient means the merge lands, then a 502 hides it; the
	// queue must read the PR back to learn it merged.
	FaultAppliedThenTransient
)

func (f MergeFault) String() string {
	switch f {
	case FaultBaseModified:
		return "base modified"
	case FaultTransient:
		return "transient"
	case FaultAppliedThenTransient:
		return "applied then transient"
	}
	return fmt.Sprintf("MergeFault(%d)", int(f))
}

// FailNextMerges makes the next MergePullRequest calls fail with faults, in
// order (one per call).
func (w *World) FailNextMerges(faults ...MergeFault) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.faults = append(w.faults, faults...)
}

// PendingFaults is how many armed merge faults have not struck yet.
func (w *World) PendingFaults() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.faults)
}

// nextFault pops the fault for this MergePullRequest call (0 if none); the
// caller holds the lock.
func (w *World) nextFault() MergeFault {
	if len(w.faults) == 0 {
		return 0
	}
	f := w.faults[0]
	w.faults = w.faults[1:]
	return f
}

// Contains reports whether commit head contains commit ancestor (for direct
// merges: a PR head pushed on the current target contains it).
func (w *World) Contains(_ context.Context, repo queue.Repo, ancestor, head string) (bool, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.enter("Contains", repo); err != nil {
		return false, err
	}
	a, ok := w.commits[ancestor]
	if !ok {
		return false, fmt.Errorf("failed to compare: commit %s: %w", ancestor, errWorldNotFound)
	}
	h, ok := w.commits[head]
	if !ok {
		return false, fmt.Errorf("failed to compare: commit %s: %w", head, errWorldNotFound)
	}
	return isAncestor(a, h), nil
}
