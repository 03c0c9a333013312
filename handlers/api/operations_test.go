package api

import (
	"slices"
	"testing"
)

func TestOperationsListsEveryRoute(t *testing.T) {
	t.Parallel()
	ops := Operations()
	for _, want := range []string{"submitPullRequest", "getQueue", "getMergeQueueMetrics"} {
		if !slices.Contains(ops, want) {
			t.Errorf("Operations() = %v lacks %s", ops, want)
		}
	}
	if !slices.IsSorted(ops) {
		t.Errorf("Operations() = %v is not sorted", ops)
	}
}
