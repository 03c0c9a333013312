package service_test

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/autotune"
	"github.com/mergequeue/mq/queue/memstore"
	"github.com/mergequeue/mq/queue/service"
	"github.com/mergequeue/mq/queue/sim"
)

// runsEvaluator is a small deterministic evaluator: more runs at once
// merge clearly faster (p95 = 10 h / runs², an hour more with batches),
// flake absorption costs runs per merge. Within 4 runs it prefers plain
// speculation at k=3, the longest chain of the candidates (autotune.Grid).
type runsEvaluator struct{ calls atomic.Int64 }

func (e *runsEvaluator) Evaluate(_ autotune.Observation, t autotune.Tuning) (autotune.Estimate, error) {
	e.calls.Add(1)
	r := time.Duration(max(t.Runs(), 1))
	p95 := 10 * time.Hour / (r * r)
	if t.Batch {
		p95 += time.Hour
	}
	return autotune.Estimate{KeptUp: true, P95: p95, RunsPerMerge: 1 + 0.1*float64(t.PendingFailureDepth)}, nil
}

// blockingEvaluator blocks every estimate until release is closed,
// saying on entered (once) that a choice started.
type blockingEvaluator struct {
	inner   autotune.Evaluator
	entered chan struct{}
	once    sync.Once
	release chan struct{}
}

func (e *blockingEvaluator) Evaluate(o autotune.Observation, t autotune.Tuning) (autotune.Estimate, error) {
	e.once.Do(func() { close(e.entered) })
	<-e.release
	return e.inner.Evaluate(o, t)
}

// tuneFixture is a queue with autoTune on (at most 4 runs at once) over
// the simulated GitHub, with a clock the test moves.
type tuneFixture struct {
	t      *testing.T
	ctx    context.Context
	mu     sync.Mutex
	now    time.Time
	store  *memstore.Store
	world  *sim.World
	svc    *service.Service
	q      *queue.Queue
	budget chan time.Time
}

func (f *tuneFixture) clock() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

func (f *tuneFixture) advance(d time.Duration) {
	f.mu.Lock()
	f.now = f.now.Add(d)
	f.mu.Unlock()
}

func newTuneFixture(t *testing.T, ev autotune.Evaluator) *tuneFixture {
	t.Helper()
	return newTuneFixtureWith(t, service.TuneOptions{Evaluator: ev})
}

// newTuneFixtureWith is newTuneFixture with the given autoTune options
// (their budget is the fixture's).
func newTuneFixtureWith(t *testing.T, opts service.TuneOptions) *tuneFixture {
	t.Helper()
	f := &tuneFixture{t: t, ctx: context.Background(), now: time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC),
		store: memstore.New(), budget: make(chan time.Time)}
	opts.After = func(time.Duration) <-chan time.Time { return f.budget }
	repo := queue.Repo{Host: "github.com", Owner: "acme", Name: "widgets"}
	f.world = sim.NewWorld(sim.WorldConfig{Repo: repo, Branch: "main", Checks: []string{sim.CICheck}, Now: f.clock})
	f.svc = service.NewService(f.store, f.world, service.Options{Now: f.clock, ReconcileEvery: 365 * 24 * time.Hour,
		Tune: opts})
	s := queue.DefaultSettings()
	s.CommentsEnabled, s.StatusCheckEnabled = false, false
	s.RequiredStatuses = []string{sim.CICheck}
	s.TestingTimeoutMinutes = 0
	s.AutoTune, s.AutoTuneMaxRuns = true, 4
	q, err := f.svc.CreateQueue(f.ctx, queue.QueueKey{Repo: repo, Branch: "main"}, s)
	if err != nil {
		t.Fatal(err)
	}
	f.q = q
	return f
}

func (f *tuneFixture) submit(n int) {
	f.t.Helper()
	for range n {
		pr := f.world.OpenPR(sim.PRSpec{Title: "a change"})
		if _, err := f.svc.Submit(f.ctx, queue.SubmitRequest{Key: f.q.Key, PRNumber: pr, Submitter: "dev", Source: "api"}); err != nil {
			f.t.Fatal(err)
		}
	}
}

func (f *tuneFixture) sync() {
	f.t.Helper()
	if _, err := f.svc.Sync(f.ctx, f.q.ID); err != nil {
		f.t.Fatalf("sync: %v", err)
	}
}

// passOldest reports a pass for the oldest test commit waiting for CI.
func (f *tuneFixture) passOldest() bool {
	f.t.Helper()
	jobs := f.world.PendingCI()
	if len(jobs) == 0 {
		return false
	}
	for _, c := range f.world.ReportCI(jobs[0].SHA, true) {
		if err := f.svc.OnCheck(f.ctx, f.q.Key.Repo, c); err != nil {
			f.t.Fatal(err)
		}
	}
	return true
}

func (f *tuneFixture) testing() map[int]string {
	f.t.Helper()
	es, err := f.store.ListActiveEntries(f.ctx, f.q.ID)
	if err != nil {
		f.t.Fatal(err)
	}
	out := map[int]string{}
	for _, e := range es {
		if e.State == queue.StateTesting {
			out[e.PRNumber] = e.RunID
		}
	}
	return out
}

func (f *tuneFixture) events(r queue.Reason) []queue.Event {
	f.t.Helper()
	evs, err := f.store.ListEvents(f.ctx, f.q.ID, time.Unix(0, 1))
	if err != nil {
		f.t.Fatal(err)
	}
	var out []queue.Event
	for _, ev := range evs {
		if ev.Reason == r {
			out = append(out, ev)
		}
	}
	return out
}

// A queue with autoTune on switches its settings after observing its
// traffic: the choice (k=4 within 4 runs) is stored apart from the
// configured settings, recorded as an event with its reason, the engine
// runs on it (four runs at once), the run in progress is not restarted,
// and turning autoTune off returns to the configured settings at once.
func TestAutoTuneSwitchesSettingsFromTraffic(t *testing.T) {
	ev := &runsEvaluator{}
	f := newTuneFixture(t, ev)
	f.submit(8)
	// At the defaults (k=1) the queue tests one PR at a time; its runs
	// pass, two minutes apart, and the tuner sees them: at the sync after
	// the FirstRuns-th, which starts the next run on the settings in
	// force, the evidence is in and the choice is made beside it.
	var before map[int]string
	for i := 0; i < autotune.FirstRuns; i++ {
		f.sync()
		f.svc.WaitTuning()
		if got := len(f.testing()); got != 1 {
			t.Fatalf("with the configured concurrency 1, %d entries test at once", got)
		}
		if n := len(f.events(queue.ReasonQueueAutoTuned)); n != 0 {
			t.Fatalf("a change before the evidence: %d events", n)
		}
		f.advance(2 * time.Minute)
		if !f.passOldest() {
			t.Fatal("no run to pass")
		}
		f.sync()
		f.svc.WaitTuning()
		before = f.testing()
	}
	if len(before) != 1 {
		t.Fatalf("testing %v, want one entry", before)
	}
	changes := f.events(queue.ReasonQueueAutoTuned)
	if len(changes) != 1 {
		t.Fatalf("autoTune events %v, want one change", changes)
	}
	if d := changes[0].Detail; !strings.Contains(d, "first observation") || !strings.Contains(d, "concurrency 3") {
		t.Errorf("the change's reason %q does not say what it saw and what changed", d)
	}
	tuning, err := f.store.QueueTuning(f.ctx, f.q.ID)
	if err != nil {
		t.Fatal(err)
	}
	if tuning.Values.Concurrency != 3 || tuning.From.Concurrency != 1 || tuning.Reason == "" || !tuning.At.Equal(f.clock()) {
		t.Errorf("tuning in force %+v, want concurrency 1 → 3 with its reason, now", tuning)
	}
	stored, err := f.store.GetQueueByID(f.ctx, f.q.ID)
	if err != nil {
		t.Fatal(err)
	}
	if stored.Settings.Concurrency != 1 {
		t.Errorf("the configured concurrency became %d; it stays 1", stored.Settings.Concurrency)
	}
	f.sync()
	after := f.testing()
	if len(after) != 3 {
		t.Errorf("after the change %d entries test at once, want 3 (%v)", len(after), after)
	}
	for pr, run := range before {
		if after[pr] != run {
			t.Errorf("#%d's run %s still valid was restarted (now %q)", pr, run, after[pr])
		}
	}
	// Off: the configured concurrency applies at once, and the event says so.
	off := false
	if _, err := f.svc.UpdateQueue(f.ctx, f.q.Key, queue.QueueUpdate{AutoTune: &off}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.store.QueueTuning(f.ctx, f.q.ID); err == nil {
		t.Error("the tuning is still stored after autoTune was turned off")
	}
	if got := f.events(queue.ReasonQueueAutoTuned); len(got) != 2 || !strings.Contains(got[1].Detail, "autoTune turned off") {
		t.Errorf("events after turning autoTune off: %v", got)
	}
	f.advance(2 * time.Minute)
	for f.passOldest() {
		f.sync()
	}
	f.sync()
	if got := len(f.testing()); got > 1 {
		t.Errorf("with autoTune off, %d entries test at once; the configured concurrency is 1", got)
	}
}

// The tuner never runs under the queue's lock: while a choice blocks in
// the evaluator, submissions and syncs of the queue go on; a choice that
// outlasts its budget is abandoned with an event, the tuning in force is
// kept, and no other choice starts in the process until it really ends
// (the evaluator here ignores the chooser's budget: the safety net).
func TestAutoTuneChoiceRunsOutsideTheQueueLock(t *testing.T) {
	ev := &blockingEvaluator{inner: &runsEvaluator{}, entered: make(chan struct{}), release: make(chan struct{})}
	f := newTuneFixture(t, ev)
	f.submit(6)
	for i := 0; i < autotune.FirstRuns; i++ {
		f.sync()
		f.svc.WaitTuning()
		f.advance(2 * time.Minute)
		f.passOldest()
	}
	f.sync() // the evidence is in: a choice starts and blocks
	select {
	case <-ev.entered:
	case <-time.After(30 * time.Second):
		t.Fatal("no choice started")
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		f.submit(1)
		f.sync()
		if _, err := f.svc.UpdateQueue(f.ctx, f.q.Key, queue.QueueUpdate{}); err != nil {
			t.Error(err)
		}
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("a submission and a sync waited for the tuner's choice")
	}
	// The safety net runs out: the choice is abandoned, the tuning in force kept.
	f.budget <- f.clock()
	deadline := time.Now().Add(30 * time.Second)
	for len(f.events(queue.ReasonQueueAutoTuneAbandoned)) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no event says the choice was abandoned")
		}
		time.Sleep(time.Millisecond)
	}
	if _, err := f.store.QueueTuning(f.ctx, f.q.ID); err == nil {
		t.Error("an abandoned choice changed the tuning")
	}
	// The abandoned choice still computes: no other starts meanwhile.
	f.advance(time.Hour)
	f.sync()
	close(ev.release)
	f.svc.WaitTuning()
	if got := f.events(queue.ReasonQueueAutoTuned); len(got) != 0 {
		t.Errorf("the abandoned choice was applied: %v", got)
	}
}

// A client echoing the configured values changes nothing; writing another
// configured tuned value, or lowering autoTuneMaxRuns below the tuning in
// force, returns to the configured values at once, with an event saying
// why; a write of another setting keeps the tuning.
func TestAutoTuneYieldsToConfiguredWrites(t *testing.T) {
	f := newTuneFixture(t, &runsEvaluator{})
	save := func() {
		t.Helper()
		v := queue.TunedValuesOf(f.q.Settings)
		v.Concurrency = 4
		if err := f.store.SaveQueueTuning(f.ctx, queue.QueueTuning{QueueID: f.q.ID, Values: v, Reason: "first observation: concurrency 4", At: f.clock()}); err != nil {
			t.Fatal(err)
		}
	}
	inForce := func() bool {
		t.Helper()
		_, err := f.store.QueueTuning(f.ctx, f.q.ID)
		return err == nil
	}
	update := func(u queue.QueueUpdate) {
		t.Helper()
		if _, err := f.svc.UpdateQueue(f.ctx, f.q.Key, u); err != nil {
			t.Fatal(err)
		}
	}
	save()
	one, two, three, label := 1, 2, 3, "ship-it"
	update(queue.QueueUpdate{Concurrency: &one, EnqueueingLabel: &label}) // the same concurrency, another setting
	if !inForce() {
		t.Fatal("an echo of the configured concurrency, or a write of another setting, removed the tuning")
	}
	update(queue.QueueUpdate{Concurrency: &two})
	if inForce() {
		t.Fatal("a configured concurrency written while autoTune is on did not apply at once")
	}
	evs := f.events(queue.ReasonQueueAutoTuned)
	if len(evs) != 1 || !strings.Contains(evs[0].Detail, "written while autoTune is on") {
		t.Fatalf("events %v, want one saying the configured settings apply", evs)
	}
	save()
	update(queue.QueueUpdate{AutoTuneMaxRuns: &three})
	if inForce() {
		t.Fatal("a tuning of 4 runs stayed in force under a bound of 3")
	}
	if evs := f.events(queue.ReasonQueueAutoTuned); len(evs) != 2 || !strings.Contains(evs[1].Detail, "autoTuneMaxRuns lowered to 3") {
		t.Fatalf("events %v, want the second saying the bound was lowered", evs)
	}
}

// With the application's evaluator (our engine simulated on a workload
// fitted to the observation, here on one seed of 30 PRs), the queue's
// own traffic leads to a change within the bound, recorded with its
// reason, and each choice is measured.
func TestAutoTuneChoosesWithTheSimulator(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates candidate settings")
	}
	var took []time.Duration
	var mu sync.Mutex
	f := newTuneFixtureWith(t, service.TuneOptions{Evaluator: sim.TuneEvaluator{Seeds: 1, MaxPRs: 30},
		OnChoice: func(_ queue.QueueKey, d time.Duration, abandoned bool) {
			mu.Lock()
			defer mu.Unlock()
			if !abandoned {
				took = append(took, d)
			}
		}})
	f.submit(10)
	f.rounds(3, 10*time.Minute)
	changes := f.events(queue.ReasonQueueAutoTuned)
	if len(changes) != 1 || !strings.Contains(changes[0].Detail, "first observation") {
		t.Fatalf("autoTune events %v, want one change on the first observation", changes)
	}
	tuning, err := f.store.QueueTuning(f.ctx, f.q.ID)
	if err != nil {
		t.Fatal(err)
	}
	s := tuning.Values.Apply(f.q.Settings)
	if runs := autotune.FromSettings(s).Runs(); runs > 4 || s.Concurrency <= 1 {
		t.Errorf("the tuning in force %+v has %d runs at once; want more than the default within the bound of 4", tuning.Values, runs)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(took) != 1 {
		t.Errorf("choices measured: %v; want the one choice (the looks without enough evidence are none)", took)
	}
	t.Logf("%s; choices took %v", changes[0].Detail, took)
}

// leaseFence is the fence of a lease the test holds.
type leaseFence struct{ queueID int64 }

func (f leaseFence) QueueID() int64       { return f.queueID }
func (f leaseFence) Holder() string       { return "replica-a" }
func (f leaseFence) Token() int64         { return 7 }
func (f leaseFence) HeldUntil() time.Time { return time.Now().Add(time.Hour) }

// fenceWatch is a store that notes whether the reads of the queue's
// events and the writes of events carry a lease's fence.
type fenceWatch struct {
	*memstore.Store
	mu               sync.Mutex
	unfenced, fenced int
}

func (w *fenceWatch) note(ctx context.Context) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, ok := queue.FenceOf(ctx); ok {
		w.fenced++
	} else {
		w.unfenced++
	}
}

func (w *fenceWatch) ListEvents(ctx context.Context, queueID int64, since time.Time) ([]queue.Event, error) {
	w.note(ctx)
	return w.Store.ListEvents(ctx, queueID, since)
}

// The tuner works under the lease of the Sync that started it: its reads
// and writes carry the Sync's fence (so a replica that lost the lease
// cannot store a change), even once the Sync returned and its context
// ended.
func TestAutoTuneWorksUnderTheSyncsLease(t *testing.T) {
	f := newTuneFixture(t, &runsEvaluator{})
	watch := &fenceWatch{Store: f.store}
	f.svc = service.NewService(watch, f.world, service.Options{Now: f.clock, ReconcileEvery: 365 * 24 * time.Hour,
		Tune: service.TuneOptions{Evaluator: &runsEvaluator{}}})
	f.submit(8)
	for i := 0; i < 3; i++ {
		ctx, cancel := context.WithCancel(queue.WithFence(context.Background(), leaseFence{f.q.ID}))
		if _, err := f.svc.Sync(ctx, f.q.ID); err != nil {
			t.Fatal(err)
		}
		cancel() // the Sync is over; the retune it started goes on
		f.svc.WaitTuning()
		f.advance(2 * time.Minute)
		f.passOldest()
	}
	if len(f.events(queue.ReasonQueueAutoTuned)) != 1 {
		t.Fatalf("no change after a cancelled Sync's context: %v", f.events(queue.ReasonQueueAutoTuned))
	}
	watch.mu.Lock()
	defer watch.mu.Unlock()
	if watch.fenced == 0 || watch.unfenced != 0 {
		t.Errorf("the tuner read the queue's events %d times with the lease's fence and %d without; want always with it", watch.fenced, watch.unfenced)
	}
}
