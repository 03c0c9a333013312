package service

import (
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/memstore"
)

// TestTheObserverSeesAFlakeThatRejectedAPR: at depth 0 a flaky run
// rejects its PR; submitted again unchanged, the PR merges at the head its
// failed run tested. The feed gives the observer the heads the deciding
// runs tested, so the rejection is no failure of a PR and the failed run
// counts as a flake. PR 2, rejected at one head and merged at another
// (fixed in between), stays a failure.
func TestTheObserverSeesAFlakeThatRejectedAPR(t *testing.T) {
	ctx := context.Background()
	st, q := feedQueue(t)
	t0 := time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)
	s, qt := &Service{store: st}, feedTuner(t0)
	at := func(m int) time.Time { return t0.Add(time.Duration(m) * time.Minute) }
	run := func(id string, pr int, head string, passed bool, start, end int) {
		t.Helper()
		status := queue.RunFailed
		if passed {
			status = queue.RunSucceeded
		}
		r := &queue.TestRun{ID: id, QueueID: q.ID, EntryIDs: []string{"e" + id}, PRNumbers: []int{pr}, PRSHAs: []string{head},
			Status: status, StartedAt: at(start), FinishedAt: at(end)}
		if err := st.SaveRun(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	event := func(entry string, pr int, from, to queue.EntryState, runID string, m int) {
		t.Helper()
		if err := st.AddEvent(ctx, &queue.Event{QueueID: q.ID, EntryID: entry, PRNumber: pr, At: at(m), From: from, To: to, RunID: runID}); err != nil {
			t.Fatal(err)
		}
	}
	// PR 1: a flake rejects it at head a1; back unchanged, it merges at
	// a1. PR 2: broken at b1, fixed as b2, merged. Events in time order.
	run("1", 1, "a1", false, 1, 21)
	run("2", 1, "a1", true, 31, 51)
	run("3", 2, "b1", false, 3, 23)
	run("4", 2, "b2", true, 52, 72)
	event("e1", 1, "", queue.StatePending, "", 0)
	event("e2", 2, "", queue.StatePending, "", 2)
	event("e1", 1, queue.StateTesting, queue.StateFailed, "1", 21)
	event("e2", 2, queue.StateTesting, queue.StateFailed, "3", 23)
	event("e1", 1, "", queue.StatePending, "", 30)
	event("e2", 2, "", queue.StatePending, "", 40)
	event("e1", 1, queue.StateTesting, queue.StateMerged, "2", 51)
	event("e2", 2, queue.StateTesting, queue.StateMerged, "4", 72)

	if err := s.feedObserver(ctx, q, qt); err != nil {
		t.Fatal(err)
	}
	obs := qt.obs.Observe(at(80))
	// Conclusions: PR 1 merged (its rejection withdrawn), PR 2 failed and
	// merged. Runs of good trees: PR 1's flake and pass, PR 2's pass.
	if obs.FailRate != 1.0/3 {
		t.Errorf("failure rate %.3f, want 1/3 (PR 2's rejection only; PR 1's was a flake)", obs.FailRate)
	}
	if obs.FlakeRuns != 3 || obs.FlakeRate != 1.0/3 {
		t.Errorf("flake rate %.3f over %d runs of good trees, want 1/3 over 3", obs.FlakeRate, obs.FlakeRuns)
	}
}

// TestTheObserverReadsEventsWhoseIDsDoNotFollowTheirMoments: the store
// lists events by moment, and an event stamped earlier may get a higher ID
// (it committed later, on another connection or replica). Each is fed to
// the observer once, whatever the order of IDs, also when it commits
// after a pass that read the events around it.
func TestTheObserverReadsEventsWhoseIDsDoNotFollowTheirMoments(t *testing.T) {
	ctx := context.Background()
	st, q := feedQueue(t)
	t0 := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	s, qt := &Service{store: st}, feedTuner(t0)
	arrive := func(pr int, at time.Time) {
		t.Helper()
		if err := st.AddEvent(ctx, &queue.Event{QueueID: q.ID, EntryID: fmt.Sprintf("e%d", pr), PRNumber: pr, At: at,
			To: queue.StatePending}); err != nil {
			t.Fatal(err)
		}
	}
	feed := func() {
		t.Helper()
		if err := s.feedObserver(ctx, q, qt); err != nil {
			t.Fatal(err)
		}
	}
	// PR 1 stamped at 9:05 is stored before PR 2 stamped at 9:04: listed
	// by moment, PR 2 (the higher ID) comes first.
	arrive(1, t0.Add(5*time.Minute))
	arrive(2, t0.Add(4*time.Minute))
	feed()
	// PR 3 stamped at 9:04:30 commits after that pass read 9:05.
	arrive(3, t0.Add(4*time.Minute+30*time.Second))
	feed()
	feed() // nothing new: nothing counted twice
	if got := qt.obs.Observe(t0.Add(10 * time.Minute)).Arrivals; got != 3 {
		t.Errorf("the observer saw %d arrivals, want 3 (each event once)", got)
	}
}

// TestANewTunerReadsTheEvidenceOfItsRates: a process that starts (or a
// queue whose autoTune was just turned on) reads the events of the last
// autotune.RateMaxAge, not only of its window, so the failure rate it
// chooses on counts a failure ten hours old, as the observer of a process
// that ran all along would.
func TestANewTunerReadsTheEvidenceOfItsRates(t *testing.T) {
	ctx := context.Background()
	st, q := feedQueue(t)
	now := time.Date(2026, 11, 27, 20, 0, 0, 0, time.UTC)
	conclude := func(pr int, ago time.Duration, to queue.EntryState) {
		t.Helper()
		entry := fmt.Sprintf("e%d", pr)
		for _, ev := range []*queue.Event{
			{QueueID: q.ID, EntryID: entry, PRNumber: pr, At: now.Add(-ago - 20*time.Minute), To: queue.StatePending},
			{QueueID: q.ID, EntryID: entry, PRNumber: pr, At: now.Add(-ago), From: queue.StateTesting, To: to},
		} {
			if err := st.AddEvent(ctx, ev); err != nil {
				t.Fatal(err)
			}
		}
	}
	// 30 PRs, one every 20 minutes over ten hours; PR 3 (ten hours ago)
	// failed; none failed in the four-hour window. One more, 30 hours
	// ago, failed: older than RateMaxAge.
	conclude(100, 30*time.Hour, queue.StateFailed)
	for pr := 1; pr <= 30; pr++ {
		to := queue.StateMerged
		if pr == 3 {
			to = queue.StateFailed
		}
		conclude(pr, time.Duration(30-pr)*20*time.Minute, to)
	}
	s, qt := &Service{store: st}, newQueueTuner(4*time.Hour, now)
	if err := s.feedObserver(ctx, q, qt); err != nil {
		t.Fatal(err)
	}
	if obs := qt.obs.Observe(now); obs.Concluded != 30 || math.Abs(obs.FailRate-1.0/30) > 1e-9 {
		t.Errorf("failure rate %.4f over %d conclusions, want 1/30: the last ten hours' conclusions, PR 3's failure among them", obs.FailRate, obs.Concluded)
	}
}

// feedQueue is a memory store holding one queue with default settings.
func feedQueue(t *testing.T) (*memstore.Store, *queue.Queue) {
	t.Helper()
	st := memstore.New()
	q := &queue.Queue{Key: queue.QueueKey{Repo: queue.Repo{Host: "github.com", Owner: "acme", Name: "widgets"}, Branch: "main"},
		Settings: queue.DefaultSettings()}
	if err := st.CreateQueue(context.Background(), q); err != nil {
		t.Fatal(err)
	}
	return st, q
}

// feedTuner is a queue's tuner state made at t0, with a four-hour window.
func feedTuner(t0 time.Time) *queueTuner { return newQueueTuner(4*time.Hour, t0) }
