package queue_test

import (
	"slices"
	"testing"

	"github.com/mergequeue/mq/queue"
)

// The queue order of SPEC §5.1: entries whose tests started keep their
// frozen positions ahead of the rest; the rest go by priority, then
// admission sequence, then PR number; entries not admitted (not ready or
// ended) have no place.
func TestInQueueOrder(t *testing.T) {
	t.Parallel()
	entry := func(n int, st queue.EntryState, prio int, seq, pos int64) *queue.Entry {
		return &queue.Entry{ID: "e", PRNumber: n, State: st, PriorityValue: prio, Seq: seq, Position: pos}
	}
	entries := []*queue.Entry{
		entry(1, queue.StatePending, queue.DefaultPriority, 1, 0),
		entry(2, queue.StateNotReady, 0, 2, 0),                        // not admitted
		entry(3, queue.StateTesting, queue.DefaultPriority, 9, 2),     // frozen second
		entry(4, queue.StatePending, 0, 8, 0),                         // urgent: first of the rest
		entry(5, queue.StateMerged, 0, 3, 1),                          // ended
		entry(6, queue.StateTestsPassed, queue.DefaultPriority, 7, 1), // frozen first
		entry(7, queue.StatePending, queue.DefaultPriority, 1, 0),     // same sequence as #1: PR number decides
	}
	given := slices.Clone(entries)
	var got []int
	for _, e := range queue.InQueueOrder(entries) {
		got = append(got, e.PRNumber)
	}
	if want := []int{6, 3, 4, 1, 7}; !slices.Equal(got, want) {
		t.Errorf("queue order %v, want %v", got, want)
	}
	if !slices.Equal(entries, given) {
		t.Error("InQueueOrder reordered its argument")
	}
	if queue.AheadOf(entries[0], entries[0]) {
		t.Error("an entry is ahead of itself")
	}
}
