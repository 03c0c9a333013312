package sim

import (
	"strings"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
)

// TestTracePhases: the phases split a merged PR's time into the wait
// before the run that passed, that run and the wait to merge, and say how
// long a culprit took to be decided and waited in pending_failure.
func TestTracePhases(t *testing.T) {
	t.Parallel()
	ev := func(min float64, pr int, to queue.EntryState) queue.Event {
		return queue.Event{PRNumber: pr, At: Epoch.Add(time.Duration(min * float64(time.Minute))), To: to}
	}
	evs := []queue.Event{
		ev(0, 1, queue.StateNotReady), ev(0, 1, queue.StatePending), ev(0, 1, queue.StateTesting),
		ev(1, 2, queue.StateNotReady), ev(1, 2, queue.StatePending), ev(1, 2, queue.StateTesting),
		// #2 fails with #1 ahead, waits for it, is restarted when #1 left, passes.
		ev(25, 2, queue.StatePendingFailure),
		ev(30, 1, queue.StateFailed),
		ev(30, 2, queue.StatePending), ev(40, 2, queue.StateTesting),
		ev(70, 2, queue.StateTestsPassed), ev(75, 2, queue.StateMerged),
		// #3 fails, waits 10 minutes, is decided.
		ev(2, 3, queue.StateNotReady), ev(2, 3, queue.StatePending), ev(2, 3, queue.StateTesting),
		ev(20, 3, queue.StatePendingFailure), ev(22, 3, queue.StatePendingFailure), ev(30, 3, queue.StateFailed),
		// #4 is still queued: in neither phase.
		ev(3, 4, queue.StateNotReady), ev(3, 4, queue.StatePending),
	}
	ph := tracePhases(evs)
	m := func(x float64) time.Duration { return time.Duration(x * float64(time.Minute)) }
	if ph.Merged != 1 || ph.BeforeLastRun != [2]time.Duration{m(39), m(39)} || ph.LastRun != [2]time.Duration{m(30), m(30)} ||
		ph.AfterPass != [2]time.Duration{m(5), m(5)} {
		t.Errorf("merged phases %+v", ph)
	}
	if ph.Culprits != 2 || ph.CulpritRuns[1] != 2 || ph.CulpritDecided != [2]time.Duration{m(28), m(30)} ||
		ph.CulpritPendingFail != [2]time.Duration{0, m(10)} {
		t.Errorf("culprit phases %+v", ph)
	}
	if text := ph.Text(); !strings.Contains(text, "before the run that passed p50 39, p95 39") || !strings.Contains(text, "by runs {1: 2}") {
		t.Errorf("Text() =\n%s", text)
	}
}

// TestP50P95 uses nearest ranks.
func TestP50P95(t *testing.T) {
	t.Parallel()
	var ds []time.Duration
	for i := 1; i <= 20; i++ {
		ds = append(ds, time.Duration(i))
	}
	if got := p50p95(ds); got != [2]time.Duration{10, 19} {
		t.Errorf("p50p95(1..20) = %v", got)
	}
	if got := p50p95(nil); got != [2]time.Duration{} {
		t.Errorf("p50p95(nil) = %v", got)
	}
}
