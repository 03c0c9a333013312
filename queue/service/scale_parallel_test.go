package service_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path"
	"strings"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/memstore"
	"github.com/mergequeue/mq/queue/service"
	"github.com/mergequeue/mq/queue/sim"
)

// TestParallelQueueAt300PerHourTestsEachPROnce is the regression test of
// issue #11's scale limit: the snapshot read the impacted targets of only
// the last 50 merges, so once more than 50 PRs landed during one CI run,
// the merges behind a run's base counted as dependencies and every run
// restarted as "base moved" (939 restarts for 400 PRs). With nothing
// broken and no flakes, every PR must be tested exactly once and merged.
// 200 PRs at 300 PR/h with 30-minute CI land about 150 merges per CI run.
// It also guards the merge order: in parallel mode independent PRs land in
// any order, and a run built on a run ahead stays valid when PRs of its
// sequence that are independent of each other land out of order.
func TestParallelQueueAt300PerHourTestsEachPROnce(t *testing.T) {
	w := sim.Workload{PRs: 200, RatePerHour: 300, CIMedian: 30 * time.Minute, CISigma: 0.32,
		Targets: 64, ZipfS: 1.1, TargetsPerPR: 2, AllShare: 0.079}
	settings := queue.DefaultSettings()
	settings.Mode = queue.ModeParallel
	settings.Concurrency = 200
	settings.TestingTimeoutMinutes = 0
	settings.RequiredStatuses = []string{sim.CICheck}
	settings.CommentsEnabled, settings.StatusCheckEnabled = false, false

	h := newSimHarness(t, w, settings, 7)
	h.run(72 * time.Hour)

	if v := h.world.Violations(); len(v) > 0 {
		t.Fatalf("invariant violations: %v", v)
	}
	if h.errs != nil {
		t.Fatalf("engine errors: %v", h.errs)
	}
	if got := len(h.world.MergedByQueue()); got != w.PRs {
		t.Errorf("merged %d of %d PRs", got, w.PRs)
	}
	evs, err := h.store.ListEvents(h.ctx, h.q.ID, sim.Epoch)
	if err != nil {
		t.Fatal(err)
	}
	restarts := map[queue.Reason]int{}
	for _, ev := range evs {
		if strings.HasPrefix(string(ev.Reason), "restarted_") {
			restarts[ev.Reason]++
		}
	}
	if len(restarts) > 0 {
		t.Errorf("restarts with nothing broken: %v", restarts)
	}
	if h.runs != w.PRs {
		t.Errorf("%d CI runs for %d PRs, want one each", h.runs, w.PRs)
	}
}

// simHarness drives the real Service over a memstore against a simulated
// GitHub (sim.World) on a virtual clock: PRs arrive as the workload says,
// each published test branch gets its CI result after a sampled duration
// (pass unless the tree holds a broken PR or the run flakes).
type simHarness struct {
	t     *testing.T
	ctx   context.Context
	w     sim.Workload
	prs   []sim.PR
	clock *sim.Sim
	world *sim.World
	store queue.Store
	svc   *service.Service
	q     *queue.Queue
	ci    *rand.Rand

	number        []int
	runs, arrived int
	isolationRuns int // of runs
	active        int
	soon, timed   *sim.Event
	errs          []string
}

func newSimHarness(t *testing.T, w sim.Workload, settings queue.Settings, seed uint64) *simHarness {
	t.Helper()
	ctx := context.Background()
	h := &simHarness{t: t, ctx: ctx, w: w, prs: w.Generate(seed), clock: sim.NewSim(),
		ci: rand.New(rand.NewPCG(seed, 99)), store: memstore.New()}
	h.number = make([]int, len(h.prs))
	repo := queue.Repo{Host: "github.com", Owner: "sim", Name: "repo"}
	h.world = sim.NewWorld(sim.WorldConfig{Repo: repo, Branch: "main", Checks: []string{sim.CICheck}, Now: h.clock.Now})
	h.world.SetMaxInFlight(settings.Concurrency + settings.EffectiveBisectionConcurrency())
	h.world.SetParallel(settings.Mode == queue.ModeParallel)
	h.world.SetOnPublish(h.published)
	ids := 0
	h.svc = service.NewService(h.store, h.world, service.Options{
		Now:            h.clock.Now,
		NewID:          func() string { ids++; return fmt.Sprintf("00000000-0000-4000-8000-%012d", ids) },
		Wake:           func(int64) { h.wake() },
		ReconcileEvery: 365 * 24 * time.Hour, // the World loses no events
	})
	q, err := h.svc.CreateQueue(ctx, queue.QueueKey{Repo: repo, Branch: "main"}, settings)
	if err != nil {
		t.Fatalf("failed to create the queue: %v", err)
	}
	h.q = q
	for _, pr := range h.prs {
		h.clock.At(pr.Arrival, func() { h.arrive(pr) })
	}
	return h
}

// run simulates until every PR ended or limit of virtual time passed.
func (h *simHarness) run(limit time.Duration) {
	h.clock.RunUntil(limit, func() bool {
		return h.arrived == len(h.prs) && h.active == 0 && h.soon == nil
	})
	if h.active > 0 {
		h.t.Errorf("%d entries still active after %v", h.active, limit)
	}
}

func (h *simHarness) arrive(pr sim.PR) {
	h.arrived++
	n := h.world.OpenPR(sim.PRSpec{Title: fmt.Sprintf("change %d", pr.Index), Bad: pr.Bad,
		Targets: append([]string{}, pr.Targets...), AllTargets: pr.All})
	h.number[pr.Index] = n
	if h.w.Targets > 0 {
		head := h.world.PR(n).HeadSHA
		u := queue.TargetsUpdate{Key: h.q.Key, PRNumber: n, SHA: head, All: pr.All, List: append([]string{}, pr.Targets...)}
		if err := h.svc.SetImpactedTargets(h.ctx, u); err != nil {
			h.fail(fmt.Errorf("failed to set targets of #%d: %w", n, err))
		}
	}
	if _, err := h.svc.Submit(h.ctx, queue.SubmitRequest{Key: h.q.Key, PRNumber: n, Submitter: "sim", Source: "api"}); err != nil {
		h.fail(fmt.Errorf("failed to submit #%d: %w", n, err))
	}
	h.wake()
}

// published schedules the CI of a test branch (called inside BuildBranch).
func (h *simHarness) published(job sim.CIJob) {
	h.runs++
	if r, err := h.store.GetRun(h.ctx, strings.TrimSuffix(path.Base(job.Branch), "-bisection")); err == nil && r.Isolation {
		h.isolationRuns++
	}
	pass := h.world.Intrinsic(job.SHA) && h.ci.Float64() >= h.w.FlakeRate
	h.clock.AtTime(job.PublishedAt.Add(h.w.SampleCI(h.ci)), func() {
		if r, err := h.store.GetRun(h.ctx, strings.TrimSuffix(path.Base(job.Branch), "-bisection")); err == nil && r.Status == queue.RunCancelled {
			return
		}
		for _, c := range h.world.ReportCI(job.SHA, pass) {
			if err := h.svc.OnCheck(h.ctx, h.q.Key.Repo, c); err != nil {
				h.fail(fmt.Errorf("failed to report CI of %s: %w", job.Branch, err))
			}
		}
		h.wake()
	})
}

func (h *simHarness) wake() {
	if h.soon == nil {
		h.soon = h.clock.After(0, h.sync)
	}
}

func (h *simHarness) sync() {
	h.soon = nil
	next, err := h.svc.Sync(h.ctx, h.q.ID)
	if err != nil {
		h.fail(fmt.Errorf("sync at %v: %w", h.clock.Elapsed(), err))
	}
	if active, err := h.store.ListActiveEntries(h.ctx, h.q.ID); err == nil {
		h.active = len(active)
	}
	if next.IsZero() {
		return
	}
	if h.timed != nil {
		if !next.Before(sim.Epoch.Add(h.timed.At())) {
			return
		}
		h.clock.Cancel(h.timed)
	}
	h.timed = h.clock.AtTime(next, func() {
		h.timed = nil
		h.sync()
	})
}

func (h *simHarness) fail(err error) {
	if len(h.errs) < 20 {
		h.errs = append(h.errs, err.Error())
	}
}
