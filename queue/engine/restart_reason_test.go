package engine

import (
	"reflect"
	"testing"

	"github.com/mergequeue/mq/queue"
)

// TestRestartReasonWhenAnEntryLeft: a run whose sequence holds an entry
// that left the queue restarts as restarted_dependency_removed, even when a
// later entry of the sequence merged out of order first (parallel mode). It
// used to say "the target branch moved outside the queue": in the monorepo
// simulation (issue #20) 1,006 restarts said so while nothing was ever
// pushed outside the queue.
func TestRestartReasonWhenAnEntryLeft(t *testing.T) {
	b := parallelSnap()
	b.mergedE9("b") // e9, independent of e1, merged first
	// e1 (target a) was a culprit and left; e3 (ALL) was built on e1, e9.
	e3 := b.entry(3, queue.StateTesting)
	b.targets(e3, true)
	b.run(e3, queue.RunInProgress, "H0", "e1", "e9")
	got, _ := Next(b.s, t0)
	want := Transition{EntryID: "e3", To: queue.StatePending, Reason: queue.ReasonRestartedDependencyRemoved,
		Detail: "the pull requests tested with or ahead of it changed; testing again", ClearRun: true}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Next() =\n  %#v\nwant\n  %#v", got, want)
	}
}
