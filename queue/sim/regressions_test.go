package sim

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/memstore"
	"github.com/mergequeue/mq/queue/service"
)

// scenario is a hand-written event sequence against the real Service, for
// regression tests of the engine bugs the invariant suite found. Each test
// below failed on the engine of commit ddd2553 and passes with its fix.
type scenario struct {
	t     *testing.T
	ctx   context.Context
	now   time.Time
	world *World
	store *memstore.Store
	svc   *service.Service
	q     *queue.Queue
}

func newScenario(t *testing.T, settings queue.Settings) *scenario {
	t.Helper()
	sc := &scenario{t: t, ctx: context.Background(), now: driverEpoch}
	clock := func() time.Time { return sc.now }
	sc.world = NewWorld(WorldConfig{Now: clock})
	sc.world.SetMaxInFlight(settings.Concurrency + settings.EffectiveBisectionConcurrency())
	sc.store = memstore.New()
	ids := 0
	sc.svc = service.NewService(sc.store, sc.world, service.Options{Now: clock, ReconcileEvery: time.Minute,
		NewID: func() string { ids++; return fmt.Sprintf("id-%d", ids) }})
	cfg := sc.world.Config()
	q, err := sc.svc.CreateQueue(sc.ctx, queue.QueueKey{Repo: cfg.Repo, Branch: cfg.Branch}, settings)
	if err != nil {
		t.Fatal(err)
	}
	sc.q = q
	return sc
}

// open opens and submits a PR.
func (sc *scenario) open(spec PRSpec, priority string) int {
	sc.t.Helper()
	n := sc.world.OpenPR(spec)
	if _, err := sc.svc.Submit(sc.ctx, queue.SubmitRequest{Key: sc.q.Key, PRNumber: n, Priority: priority, Source: "api"}); err != nil {
		sc.t.Fatalf("Submit #%d: %v", n, err)
	}
	return n
}

// sync runs Sync and fails the test on an error.
func (sc *scenario) sync() {
	sc.t.Helper()
	if _, err := sc.svc.Sync(sc.ctx, sc.q.ID); err != nil {
		sc.t.Fatalf("Sync: %v", err)
	}
	if v := sc.world.Violations(); len(v) > 0 {
		sc.t.Fatalf("invariant violated: %s", v[0])
	}
}

// passAll reports every pending CI job with its intrinsic result, then syncs.
func (sc *scenario) passAll() {
	sc.t.Helper()
	for _, job := range sc.world.PendingCI() {
		for _, c := range sc.world.ReportCI(job.SHA, sc.world.Intrinsic(job.SHA)) {
			if err := sc.svc.OnCheck(sc.ctx, sc.q.Key.Repo, c); err != nil {
				sc.t.Fatal(err)
			}
		}
	}
	sc.sync()
}

func (sc *scenario) state(n int) (queue.EntryState, queue.Reason) {
	sc.t.Helper()
	e, err := sc.store.GetEntry(sc.ctx, sc.q.ID, n)
	if err != nil {
		sc.t.Fatal(err)
	}
	return e.State, e.StateReason
}

// TestRegressionBatchConflict: two conflicting PRs in one batch (found as
// seed 5). The batch's build conflicts on the second; onConflict looked for
// the blocker only among the entries ahead of the unit, found none, and
// every Sync failed with "conflict building #2 with nothing active ahead":
// the queue was stuck. Expected (SPEC §5.9): #2 waits for #1, and fails
// with merge_conflict once #1 merged.
func TestRegressionBatchConflict(t *testing.T) {
	s := queue.DefaultSettings()
	s.Batch, s.BatchingMinSize = true, 2
	sc := newScenario(t, s)
	a := sc.open(PRSpec{}, "")
	b := sc.open(PRSpec{Conflicts: []int{a}}, "")
	sc.sync()
	for range 4 {
		sc.now = sc.now.Add(time.Duration(s.BatchingMaxWaitTimeMinutes) * time.Minute) // #1 alone is a batch below the minimum
		sc.passAll()
	}
	if st, _ := sc.state(a); st != queue.StateMerged {
		t.Errorf("#%d is %s, want merged", a, st)
	}
	if st, reason := sc.state(b); st != queue.StateFailed || reason != queue.ReasonMergeConflict {
		t.Errorf("#%d is %s (%s), want failed (merge_conflict)", b, st, reason)
	}
}

// TestRegressionPreemptBlocked: an urgent PR that conflicts with the urgent
// PR ahead of it waits for it (BlockedBy) (found as seed 375). preempt
// picked the urgent entry from Ordered(), which keeps blocked entries, while
// start() skips them: the PR testing behind was pre-empted, restarted,
// pre-empted again, forever ("did not settle"). Expected: a blocked urgent
// entry pre-empts nobody.
func TestRegressionPreemptBlocked(t *testing.T) {
	s := queue.DefaultSettings()
	s.Concurrency = 2
	sc := newScenario(t, s)
	a := sc.open(PRSpec{}, "urgent")
	sc.sync()
	b := sc.open(PRSpec{}, "")
	sc.sync()
	c := sc.open(PRSpec{Conflicts: []int{a}}, "urgent")
	sc.sync()
	for range 4 {
		sc.passAll()
	}
	for _, n := range []int{a, b} {
		if st, _ := sc.state(n); st != queue.StateMerged {
			t.Errorf("#%d is %s, want merged", n, st)
		}
	}
	if st, reason := sc.state(c); st != queue.StateFailed || reason != queue.ReasonMergeConflict {
		t.Errorf("#%d is %s (%s), want failed (merge_conflict)", c, st, reason)
	}
}

// target uploads PR n's impacted targets for its head.
func (sc *scenario) target(n int, list ...string) {
	sc.t.Helper()
	err := sc.svc.SetImpactedTargets(sc.ctx, queue.TargetsUpdate{Key: sc.q.Key, PRNumber: n, SHA: sc.world.PR(n).HeadSHA, List: list})
	if err != nil {
		sc.t.Fatal(err)
	}
}

// report reports PR n's pending test run with its intrinsic result.
func (sc *scenario) report(n int) {
	sc.t.Helper()
	for _, job := range sc.world.PendingCI() {
		if job.Contains[len(job.Contains)-1] != n {
			continue
		}
		for _, c := range sc.world.ReportCI(job.SHA, sc.world.Intrinsic(job.SHA)) {
			if err := sc.svc.OnCheck(sc.ctx, sc.q.Key.Repo, c); err != nil {
				sc.t.Fatal(err)
			}
		}
	}
	sc.sync()
}

// TestRegressionParallelStaleBase: in parallel mode C depends on A (testing
// on an older base) and on B (merged since A's base) (found as seed 43).
// startRun built C incrementally on A's run whenever the merge log chained
// from its base, without checking the merges since were independent of C;
// unitValid rejected the run at once, and start built it the same way
// again ("did not settle"). Expected: C is built on the target head (with
// B) plus A.
func TestRegressionParallelStaleBase(t *testing.T) {
	s := queue.DefaultSettings()
	s.Mode, s.Concurrency = queue.ModeParallel, 3
	sc := newScenario(t, s)
	sc.world.SetParallel(true)
	b := sc.open(PRSpec{Targets: []string{"//c"}}, "")
	sc.target(b, "//c")
	sc.sync()
	a := sc.open(PRSpec{Targets: []string{"//a", "//f"}}, "")
	sc.target(a, "//a", "//f")
	sc.sync()
	sc.report(b) // B merges; A's run, on the base without B, stays valid (independent)
	c := sc.open(PRSpec{Targets: []string{"//c", "//f"}}, "")
	sc.target(c, "//c", "//f")
	sc.sync()
	for range 4 {
		sc.passAll()
	}
	for _, n := range []int{a, b, c} {
		if st, _ := sc.state(n); st != queue.StateMerged {
			t.Errorf("#%d is %s, want merged", n, st)
		}
	}
}

// TestRegressionStaleManualMerge: a PR merged by hand, whose webhook has
// not arrived, passes its tests (found as seed 21). The queue merged it
// anyway; the call failed with a 502, the queue read the PR back as merged
// and recorded its own merge (merged_by_queue, and a merge-log record that
// never happened, which later validity checks trust). Without the 502,
// GitHub refuses and the entry ended failed. Expected: merged_manually.
func TestRegressionStaleManualMerge(t *testing.T) {
	sc := newScenario(t, queue.DefaultSettings())
	a := sc.open(PRSpec{}, "")
	sc.sync()
	if _, err := sc.world.MergeManually(a); err != nil { // no webhook: the queue does not know
		t.Fatal(err)
	}
	sc.now = sc.now.Add(time.Minute) // the target head is read again once per reconcile interval
	sc.sync()                        // the target moved: #1 is tested again, on a target that holds it already
	sc.world.FailNextMerges(FaultTransient)
	sc.passAll()
	if st, reason := sc.state(a); st != queue.StateMerged || reason != queue.ReasonMergedManually {
		t.Errorf("#%d is %s (%s), want merged (merged_manually)", a, st, reason)
	}
}

// TestRegressionFailedAfterManualMerge: a PR merged by hand, whose webhook
// has not arrived, fails its tests (a flake on a tree that already holds
// it). The queue ended it failed (tests_failed) and told its author so.
// Expected: a failure is final, so the PR is read first: merged_manually.
func TestRegressionFailedAfterManualMerge(t *testing.T) {
	sc := newScenario(t, queue.DefaultSettings())
	a := sc.open(PRSpec{}, "")
	sc.sync()
	if _, err := sc.world.MergeManually(a); err != nil { // no webhook: the queue does not know
		t.Fatal(err)
	}
	sc.now = sc.now.Add(time.Minute) // the target head is read again once per reconcile interval
	sc.sync()                        // the target moved: #1 is tested again, on a target that holds it already
	jobs := sc.world.PendingCI()
	if len(jobs) == 0 {
		t.Fatal("no test run in progress")
	}
	for _, job := range jobs { // a flake
		for _, c := range sc.world.ReportCI(job.SHA, false) {
			if err := sc.svc.OnCheck(sc.ctx, sc.q.Key.Repo, c); err != nil {
				t.Fatal(err)
			}
		}
	}
	sc.sync()
	if st, reason := sc.state(a); st != queue.StateMerged || reason != queue.ReasonMergedManually {
		t.Errorf("#%d is %s (%s), want merged (merged_manually)", a, st, reason)
	}
}

// TestRegressionBisectWhileFrozen: a batch that fails while the queue is
// paused (found as seed 1140, switching modes). startBisection started
// bisection runs whatever the queue state. Expected (SPEC §4): a paused or
// switching_modes queue starts no run.
func TestRegressionBisectWhileFrozen(t *testing.T) {
	s := queue.DefaultSettings()
	s.Batch, s.BatchingMinSize = true, 2
	sc := newScenario(t, s)
	sc.open(PRSpec{Bad: true}, "")
	sc.open(PRSpec{}, "")
	sc.sync()
	paused := queue.QueuePaused
	if _, err := sc.svc.UpdateQueue(sc.ctx, sc.q.Key, queue.QueueUpdate{State: &paused}); err != nil {
		t.Fatal(err)
	}
	sc.passAll() // the batch fails
	if jobs := sc.world.PendingCI(); len(jobs) > 0 {
		t.Errorf("the paused queue started %d test run(s): %+v", len(jobs), jobs)
	}
}

// TestRegressionResolveBeforeParallel: in parallel mode, a merge whose
// response was lost (applied, then a 502) (found as seed 3287). It was
// resolved with Before = the run's landing base, which ignores the
// independent PR merged since: the merge log held two records from the
// same commit, walkToHead followed the wrong one, and seed 3287 went on to
// merge an untested tree. Expected: the record starts where the merge
// landed.
func TestRegressionResolveBeforeParallel(t *testing.T) {
	s := queue.DefaultSettings()
	s.Mode, s.Concurrency = queue.ModeParallel, 2
	sc := newScenario(t, s)
	sc.world.SetParallel(true)
	a := sc.open(PRSpec{Targets: []string{"//a"}}, "")
	sc.target(a, "//a")
	b := sc.open(PRSpec{Targets: []string{"//b"}}, "")
	sc.target(b, "//b")
	sc.sync()
	sc.report(a)
	sc.world.FailNextMerges(FaultAppliedThenTransient)
	sc.report(b)
	merges, err := sc.store.ListMerges(sc.ctx, sc.q.ID, 0)
	if err != nil || len(merges) != 2 {
		t.Fatalf("merges = %+v, %v", merges, err)
	}
	if merges[1].Before != merges[0].After {
		t.Errorf("#%d's merge is recorded from %s, but it landed on %s (after #%d)", b, shortSHA(merges[1].Before), shortSHA(merges[0].After), a)
	}
}

// TestRegressionConflictAhead: building a unit's branch conflicts on a head
// before the unit's own (an entry ahead, testing on an older base,
// conflicts with what landed since) (found as seed 6942, parallel mode,
// two conflicting PRs with disjoint targets). startRun only handled a
// conflict on the last head and returned any other as an error: every
// Sync failed and the queue was stuck. Expected: the queue goes on.
func TestRegressionConflictAhead(t *testing.T) {
	s := queue.DefaultSettings()
	s.Mode, s.Concurrency = queue.ModeParallel, 4
	sc := newScenario(t, s)
	sc.world.SetParallel(true)
	b := sc.open(PRSpec{Targets: []string{"//c"}}, "")
	sc.target(b, "//c")
	e := sc.open(PRSpec{Targets: []string{"//a"}}, "")
	sc.target(e, "//a")
	c := sc.open(PRSpec{Targets: []string{"//c"}, Conflicts: []int{e}}, "") // disjoint targets, yet a conflict
	sc.target(c, "//c")
	sc.sync()
	sc.report(e)
	sc.report(b)
	d := sc.open(PRSpec{Targets: []string{"//c"}}, "")
	sc.target(d, "//c")
	sc.sync()
	for range 4 {
		sc.passAll()
	}
	if st, _ := sc.state(d); st != queue.StateMerged {
		t.Errorf("#%d is %s, want merged", d, st)
	}
}

// reportAs reports PR n's pending test run as passing or failing.
func (sc *scenario) reportAs(n int, pass bool) {
	sc.t.Helper()
	for _, job := range sc.world.PendingCI() {
		if job.Contains[len(job.Contains)-1] != n {
			continue
		}
		for _, c := range sc.world.ReportCI(job.SHA, pass) {
			if err := sc.svc.OnCheck(sc.ctx, sc.q.Key.Repo, c); err != nil {
				sc.t.Fatal(err)
			}
		}
	}
	sc.sync()
}

// TestRegressionStaleVoucher: a vouch made in parallel mode survives a
// switch to single mode (found as seed 15509). A's own run (on the target
// with I) fails; V's run, which contains A, passed on an older base
// without I (independent of both in parallel mode). Once the queue is in
// single mode, A is vouched for by V's stale run and merged: the target
// then holds I + A, a tree no passing run tested. Expected: in single mode
// only a run still valid on the target head vouches.
func TestRegressionStaleVoucher(t *testing.T) {
	s := queue.DefaultSettings()
	s.Mode, s.Concurrency, s.CanOptimisticallyMerge = queue.ModeParallel, 3, true
	sc := newScenario(t, s)
	sc.world.SetParallelFunc(func() bool {
		q, err := sc.store.GetQueueByID(sc.ctx, sc.q.ID)
		return err == nil && q.Settings.Mode == queue.ModeParallel
	})
	a := sc.open(PRSpec{Targets: []string{"//f"}}, "")
	sc.target(a, "//f")
	v := sc.open(PRSpec{AllTargets: true}, "")
	if err := sc.svc.SetImpactedTargets(sc.ctx, queue.TargetsUpdate{Key: sc.q.Key, PRNumber: v, SHA: sc.world.PR(v).HeadSHA, All: true}); err != nil {
		t.Fatal(err)
	}
	i := sc.open(PRSpec{Targets: []string{}}, "")
	sc.target(i)
	sc.sync()
	sc.reportAs(i, true) // I merges; A's and V's runs stay valid (I impacts no target)
	if _, err := sc.svc.Restart(sc.ctx, sc.q.Key, a); err != nil {
		t.Fatal(err)
	}
	sc.sync()            // A is tested again, now on the target with I
	sc.reportAs(v, true) // V's run (A and V on the base without I) passes
	single := queue.ModeSingle
	if _, err := sc.svc.UpdateQueue(sc.ctx, sc.q.Key, queue.QueueUpdate{Mode: &single}); err != nil {
		t.Fatal(err)
	}
	sc.reportAs(a, false) // a flake: A is vouched for by V's stale run
	if st, reason := sc.state(a); st == queue.StateMerged {
		t.Errorf("#%d was merged (%s) on a vouch from a run without #%d", a, reason, i)
	}
}

// TestRegressionParallelLandingCheck: the queue's own landing check in
// parallel mode is over-strict (found as seed 89 once the World diffed
// files). U depends on D; J, independent of U, also touches D's target and
// lands first. U's landing is correct (its own target holds what it
// tested), but landedMismatch compares every file U's run changed, D's
// included, finds J's change there and pauses the queue. Expected (SPEC
// §5.10): only the paths the unit changed are compared.
func TestRegressionParallelLandingCheck(t *testing.T) {
	s := queue.DefaultSettings()
	s.Mode, s.Concurrency = queue.ModeParallel, 4
	sc := newScenario(t, s)
	sc.world.SetParallel(true)
	sc.world.SetFileDiffs(true)
	d := sc.open(PRSpec{Targets: []string{"//d", "//f"}}, "")
	sc.target(d, "//d", "//f")
	u := sc.open(PRSpec{Targets: []string{"//f"}}, "")
	sc.target(u, "//f")
	j := sc.open(PRSpec{Targets: []string{"//d"}}, "")
	sc.target(j, "//d")
	sc.sync()
	sc.reportAs(d, true)
	sc.reportAs(j, true)
	sc.reportAs(u, true)
	q, err := sc.store.GetQueueByID(sc.ctx, sc.q.ID)
	if err != nil {
		t.Fatal(err)
	}
	if q.State == queue.QueuePaused {
		t.Errorf("the queue paused itself: %s", q.PausedReason)
	}
	if st, _ := sc.state(u); st != queue.StateMerged {
		t.Errorf("#%d is %s, want merged", u, st)
	}
}
