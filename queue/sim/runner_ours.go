package sim

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"path"
	"strings"
	"time"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/memstore"
	"github.com/mergequeue/mq/queue/service"
)

// productionReconcileEvery is the reconcile interval of a production
// process (app.DefaultReconcileInterval).
const productionReconcileEvery = 30 * time.Second

// simRepo and simBranch name the simulated repository and its target branch.
var simRepo = queue.Repo{Host: queue.DefaultHost, Owner: "sim", Name: "repo"}

const simBranch = "main"

// oursRun drives the real engine (queue.Service over an in-memory store)
// against the simulated GitHub (World) on the virtual clock:
//   - a PR arrival opens the PR in the World, uploads its impacted targets
//     (when the workload has targets) and submits it through Service.Submit;
//   - the World tells us when a test branch is published; its CI finishes
//     after a sampled duration with outcome "the tree contains no broken
//     PR and the run did not flake", reported through World.ReportCI and
//     Service.OnCheck;
//   - Service.Sync runs whenever the engine is woken (after every input)
//     and at the time it asks to be looked at again;
//   - the reconciler writes the PRs' surfaces (check runs, status comments,
//     notices) and deletes ended branches as in production: a pass after
//     every Sync that left something to show (the process wakes it on
//     every shown change), and one reconcile interval after such a pass or
//     at the retry it asks for, so that what waits for an interval (the
//     deletion of ended branches not folded into a publish) happens. It
//     runs at the production interval (service's default), while the
//     engine's own periodic re-reads of GitHub stay off: the World loses no
//     events, so they would only add reads per hour, not per merge.
//
// The World charges every call with the GitHub requests it stands for
// (world_cost.go) and tells the queue its write headroom, so informational
// surface writes are skipped when the installation's budget is half spent.
type oursRun struct {
	ctx    context.Context
	sim    *Sim
	w      Workload
	prs    []PR
	rec    *Recorder
	ci     *rand.Rand
	world  *World
	store  queue.Store
	svc    *service.Service
	surf   *service.Reconciler // writes the surfaces (reconcile)
	q      *queue.Queue
	number []int       // PR index → World PR number
	index  map[int]int // World PR number → PR index

	arrived int
	active  int // active entries after the last Sync
	soon    *Event
	timed   *Event
	recNext *Event // the reconciler's next timed pass
	errs    []string
	auto    *autoRun // ours(auto) only (runner_auto.go)
	lean    bool     // no reconciler passes (RunOptions.Lean)
	beyond  bool     // the p95 exceeds RunOptions.GiveUpBeyond (runner_giveup.go)

	// RunOptions.Resubmit (runner_resubmit.go) and CommonRandom (common_random.go).
	resubmit     bool
	resubmitEv   int64     // the last event looked at for rejections
	resubmitting int       // rejected good PRs waiting to be submitted again
	common       *commonCI // nil: CI draws in the order runs start (r.ci)
}

// drained reports whether every PR arrived and none is in the queue or
// about to be submitted again.
func (r *oursRun) drained() bool {
	return r.arrived == len(r.prs) && r.active == 0 && r.resubmitting == 0
}

func runOurs(w Workload, p PolicySpec, prs []PR, seed uint64, limit time.Duration, maxQueue int, opts RunOptions) (Result, error) {
	ctx := context.Background()
	s := NewSim()
	r := &oursRun{ctx: ctx, sim: s, w: w, prs: prs, rec: NewRecorder(prs), number: make([]int, len(prs)),
		index: map[int]int{}, ci: rand.New(rand.NewPCG(seed, 0xc1c1c1c1)), lean: opts.Lean,
		resubmit: opts.Resubmit}
	if opts.CommonRandom {
		r.common = newCommonCI(seed)
	}
	settings := p.Ours.Settings()
	r.world = NewWorld(WorldConfig{Repo: simRepo, Branch: simBranch, Checks: []string{CICheck}, Now: s.Now})
	r.world.SetMaxInFlight(p.Ours.maxInFlight())
	r.world.SetOnPublish(r.published)
	r.world.SetParallel(settings.Mode == queue.ModeParallel)
	r.world.SetGitBuilds(p.Ours.GitBuilds)
	r.store = memstore.New()
	ids := 0
	r.svc = service.NewService(r.store, r.world, service.Options{
		Now:   s.Now,
		NewID: func() string { ids++; return fmt.Sprintf("00000000-0000-4000-8000-%012d", ids) },
		Wake:  func(int64) { r.wake() },
		// The World loses no events: reconciling is pure overhead here.
		ReconcileEvery: 365 * 24 * time.Hour,
	})
	// The reconciler of a Service at the production reconcile interval,
	// over the same store and World: its passes, grace periods and sweeps
	// follow that interval, as they do in production.
	r.surf = service.NewService(r.store, r.world, service.Options{Now: s.Now, ReconcileEvery: productionReconcileEvery}).Reconciler()
	q, err := r.svc.CreateQueue(ctx, queue.QueueKey{Repo: simRepo, Branch: simBranch}, settings)
	if err != nil {
		return Result{}, fmt.Errorf("failed to create the simulated queue: %w", err)
	}
	r.q = q
	if p.Ours.AutoTune {
		r.startTuning(p.Ours, settings)
	}
	for _, pr := range prs {
		s.At(pr.Arrival, func() { r.arrive(pr) })
	}
	if opts.GiveUpBeyond > 0 {
		r.watchWaits(opts.GiveUpBeyond)
	}
	var stopped string
	s.RunUntil(limit, func() bool {
		if r.beyond {
			stopped = fmt.Sprintf("gave up at %.1f h: p95 above %v", s.Elapsed().Hours(), opts.GiveUpBeyond)
			return true
		}
		if r.active > maxQueue {
			stopped = overflow(s, r.active)
			return true
		}
		return r.drained() && r.soon == nil
	})
	if err := r.collect(); err != nil {
		return Result{}, err
	}
	end := stopTime(s, r.rec, limit)
	if stopped != "" {
		end = s.Elapsed()
	}
	res := Summarize(p.Label(), w, r.rec, end)
	res.setGitHubCost(r.world)
	res.Stopped, res.Beyond = stopped, r.beyond
	if opts.Trace {
		if res.Trace, err = r.trace(); err != nil {
			return Result{}, err
		}
	}
	if r.auto != nil {
		res.Retunes, res.SlowestRetune = r.auto.changes, r.auto.slowest
		r.observeConclusions()
		res.Observed = r.auto.obs.Observe(r.sim.Now())
	}
	res.Violations = append(r.world.Violations(), r.errs...)
	return res, nil
}

// arrive opens and submits one PR.
func (r *oursRun) arrive(pr PR) {
	r.arrived++
	spec := PRSpec{Title: fmt.Sprintf("change %d", pr.Index), Bad: pr.Bad,
		Targets: append([]string{}, pr.Targets...), AllTargets: pr.All}
	for _, c := range pr.Conflicts {
		spec.Conflicts = append(spec.Conflicts, r.number[c])
	}
	n := r.world.OpenPR(spec)
	r.number[pr.Index], r.index[n] = n, pr.Index
	if r.w.Targets > 0 {
		head, err := r.world.GetPullRequest(r.ctx, simRepo, n)
		if err != nil {
			r.fail(fmt.Errorf("failed to read #%d: %w", n, err))
			return
		}
		t := queue.Targets{QueueID: r.q.ID, PRNumber: n, SHA: head.HeadSHA, All: pr.All,
			List: append([]string{}, pr.Targets...), UpdatedAt: r.sim.Now()}
		if err := r.store.SetTargets(r.ctx, t); err != nil {
			r.fail(fmt.Errorf("failed to set targets of #%d: %w", n, err))
		}
	}
	_, err := r.svc.Submit(r.ctx, queue.SubmitRequest{Key: r.q.Key, PRNumber: n, Submitter: "sim", Source: "api"})
	if err != nil {
		r.fail(fmt.Errorf("failed to submit #%d: %w", n, err))
	}
	r.observeArrival(n, pr)
	r.wake()
}

// published starts the CI of a test branch (called by the World while the
// engine builds it, so it only schedules).
func (r *oursRun) published(job CIJob) {
	rng := r.ciRand(job)
	dur := r.w.SampleCI(rng)
	flaked := rng.Float64() < r.w.FlakeRateAt(job.PublishedAt.Sub(Epoch))
	pass := r.world.Intrinsic(job.SHA) && !flaked
	r.rec.Runs++
	r.sim.AtTime(job.PublishedAt.Add(dur), func() { r.finishCI(job, pass) })
}

// finishCI reports a CI result, unless the engine cancelled the run
// first: then the run only consumed CI time until it was cancelled.
func (r *oursRun) finishCI(job CIJob, pass bool) {
	now := r.sim.Now()
	if run, err := r.store.GetRun(r.ctx, runID(job.Branch)); err == nil && run.Status == queue.RunCancelled &&
		!run.FinishedAt.IsZero() && run.FinishedAt.Before(now) {
		r.rec.CITime += max(run.FinishedAt.Sub(job.PublishedAt), 0)
		return
	}
	r.rec.CITime += now.Sub(job.PublishedAt)
	for _, c := range r.world.ReportCI(job.SHA, pass) {
		if err := r.svc.OnCheck(r.ctx, simRepo, c); err != nil {
			r.fail(fmt.Errorf("failed to report CI of %s: %w", job.Branch, err))
		}
	}
	r.observeRun(job)
	r.wake()
}

// runID extracts the test run ID from a test branch name
// (mq-merge/pr-<N>/<runID>[-bisection]).
func runID(branch string) string {
	return strings.TrimSuffix(path.Base(branch), "-bisection")
}

// wake schedules one Sync at the current instant.
func (r *oursRun) wake() {
	if r.soon == nil {
		r.soon = r.sim.After(0, r.sync)
	}
}

// sync runs the engine until it settles and schedules the next look.
func (r *oursRun) sync() {
	r.soon = nil
	next, err := r.svc.Sync(r.ctx, r.q.ID)
	if err != nil {
		r.fail(fmt.Errorf("sync at %v: %w", r.sim.Elapsed(), err))
	}
	if active, err := r.store.CountActiveEntries(r.ctx, r.q.ID); err == nil {
		r.active = active
	}
	r.observeConclusions()
	if r.resubmit {
		r.resubmitRejected()
	}
	if !r.lean && r.showing() {
		r.reconcile(true)
	}
	if next.IsZero() {
		return
	}
	if r.timed != nil {
		if !next.Before(Epoch.Add(r.timed.At())) {
			return
		}
		r.sim.Cancel(r.timed)
	}
	r.timed = r.sim.AtTime(next, func() {
		r.timed = nil
		r.sync()
	})
}

// showing reports whether a surface or a notice waits to be written: what
// wakes the reconciler in production.
func (r *oursRun) showing() bool {
	now := r.sim.Now()
	if sf, err := r.store.DueSurfaces(r.ctx, now, 1); err != nil || len(sf) > 0 {
		return true
	}
	ns, err := r.store.DueNotices(r.ctx, now, 1)
	return err != nil || len(ns) > 0
}

// reconcile runs a reconciler pass. After a woken pass (woken), the next
// one comes a reconcile interval later, as the production loop's does, or
// at the retry the pass asks for if that is sooner; a timed pass schedules
// only a retry.
func (r *oursRun) reconcile(woken bool) {
	next, err := r.surf.Pass(r.ctx)
	if err != nil {
		r.fail(fmt.Errorf("reconciler pass at %v: %w", r.sim.Elapsed(), err))
	}
	at := next
	if woken {
		if every := r.sim.Now().Add(productionReconcileEvery); at.IsZero() || every.Before(at) {
			at = every
		}
	}
	if at.IsZero() {
		return
	}
	if r.recNext != nil {
		r.sim.Cancel(r.recNext)
	}
	r.recNext = r.sim.AtTime(at, func() {
		r.recNext = nil
		r.reconcile(false)
	})
}

// fail records an engine or harness error (reported with the violations);
// the first 20 are kept.
func (r *oursRun) fail(err error) {
	if len(r.errs) < 20 {
		r.errs = append(r.errs, "engine error: "+err.Error())
	}
}

// collect reads every PR's outcome from the store.
func (r *oursRun) collect() error {
	for i := range r.arrived {
		e, err := r.store.GetEntry(r.ctx, r.q.ID, r.number[i])
		if errors.Is(err, queue.ErrNotFound) {
			continue
		}
		if err != nil {
			return fmt.Errorf("failed to read the outcome of #%d: %w", r.number[i], err)
		}
		at := e.ConcludedAt.Sub(Epoch)
		switch e.State {
		case queue.StateMerged:
			r.rec.Conclude(i, Merged, at)
		case queue.StateFailed:
			r.rec.Conclude(i, Rejected, at)
		case queue.StateCancelled:
			r.rec.Conclude(i, Rejected, at)
			r.fail(fmt.Errorf("#%d was cancelled (%s: %s)", e.PRNumber, e.StateReason, e.StateReasonDetail))
		}
	}
	return nil
}
