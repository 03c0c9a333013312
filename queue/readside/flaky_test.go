package readside

import (
	"reflect"
	"testing"

	"github.com/mergequeue/mq/queue"
)

// Failures of a check count once per episode; a retry that passed and a
// failure vouched for are flakes; a PR that failed again is not (issue #19
// item 4).
func TestFlakyChecks(t *testing.T) {
	t.Parallel()
	fail := func(name string) string { return `required check "` + name + `" failed (failure): https://ci/x` }
	ev := func(entry string, to queue.EntryState, reason queue.Reason, detail string) queue.Event {
		return queue.Event{EntryID: entry, To: to, Reason: reason, Detail: detail}
	}
	events := []queue.Event{
		// a: fails on e2e, passes on the retry.
		ev("a", queue.StateTesting, queue.ReasonTesting, "testing on main"),
		ev("a", queue.StatePending, queue.ReasonRetryingFailedCheck, fail("e2e")+"; trying again: attempt 2 of 2"),
		ev("a", queue.StateTesting, queue.ReasonTesting, "testing on main"),
		ev("a", queue.StateTestsPassed, queue.ReasonTestsPassed, "all required checks passed (attempt 2 of 2; earlier …)"),
		// b: fails on e2e twice.
		ev("b", queue.StatePending, queue.ReasonRetryingFailedCheck, fail("e2e")+"; trying again: attempt 2 of 2"),
		ev("b", queue.StateFailed, queue.ReasonTestsFailed, fail("e2e")+" (attempt 2 of 2; earlier attempt 1: "+fail("e2e")+")"),
		// c: fails on unit, vouched for by a later run.
		ev("c", queue.StatePendingFailure, queue.ReasonTestsFailed, "tests failed; waiting for #1 ahead"),
		ev("c", queue.StateTestsPassed, queue.ReasonVouched, "its own run failed ("+fail("unit")+"), but a later run containing it passed (#4): treated as a flake"),
		// d: fails on unit, the culprit.
		ev("d", queue.StateFailed, queue.ReasonTestsFailed, fail("unit")),
		// e: a timeout is no check's failure.
		ev("e", queue.StateFailed, queue.ReasonTestTimeout, "tests did not finish within 60 minutes"),
	}
	got := flakyChecks(events)
	want := []FlakyCheck{
		{Name: "e2e", Failures: 2, PassedOnRetry: 1, FailedAgainOrCulprit: 1},
		{Name: "unit", Failures: 2, Vouched: 1, FailedAgainOrCulprit: 1},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("flakyChecks() = %+v, want %+v", got, want)
	}
	if note := FlakyNote(got, "e2e"); note != `has passed on retry or been vouched for in 50 % of its failures this week: 1 of 2` {
		t.Errorf("FlakyNote() = %q", note)
	}
	if note := FlakyNote(got, "lint"); note != "" {
		t.Errorf("FlakyNote() of a check that never failed = %q, want none", note)
	}
}
