package sim

import (
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
)

// Branch protection's required checks are read once per reconcile
// interval, not once per test run: a queue starting several runs in a
// burst asks GitHub once, and a change applies within the interval.
func TestRequiredChecksReadOncePerInterval(t *testing.T) {
	s := queue.DefaultSettings()
	s.Concurrency, s.RequiredStatuses = 4, nil // branch protection decides
	sc := newScenario(t, s)
	for range 3 {
		sc.open(PRSpec{}, "")
	}
	sc.sync()
	if got := len(sc.world.PendingCI()); got != 3 {
		t.Fatalf("%d runs started, want 3", got)
	}
	if n := sc.world.Calls()["RequiredChecks"]; n != 1 {
		t.Errorf("branch protection read %d times for 3 runs, want 1", n)
	}
	sc.now = sc.now.Add(2 * time.Minute) // past the interval (1 minute here)
	sc.open(PRSpec{}, "")
	sc.sync()
	if n := sc.world.Calls()["RequiredChecks"]; n != 2 {
		t.Errorf("branch protection read %d times after the interval, want 2", n)
	}
}
