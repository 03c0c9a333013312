package sim

import (
	"fmt"
	"time"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/autotune"
	"github.com/mergequeue/mq/queue/service"
)

// ours(auto): the engine starts from the default settings and an
// autotune.Tuner retunes it from an Observer fed by the simulated queue's
// own events (submissions, finished runs, conclusions, and the PRs'
// impacted targets), choosing with TuneEvaluator within
// OursConfig.AutoMaxRuns runs at once. It looks at the service's
// intervals (service.DefaultTuneFirst while Tuner.Soon, else
// service.DefaultTuneEvery) over the service's window
// (service.DefaultTuneWindow), so a simulated start-up is the service's. A
// change is a settings update (Service.UpdateQueue), which keeps the runs
// still valid.

// autoRun is the tuning state of a run of ours(auto).
type autoRun struct {
	obs    *autotune.Observer
	tuner  *autotune.Tuner
	lastEv int64
	// finished are the CI jobs that reported and whose run the engine has
	// not decided yet (it does at the next Sync).
	finished []finishedJob
	changes  []string
	slowest  time.Duration
}

// AutoConfig is ours(auto) with at most maxRuns CI runs at once, in mode
// ("" = single).
func AutoConfig(mode queue.Mode, maxRuns int) OursConfig {
	return OursConfig{Mode: mode, AutoTune: true, AutoMaxRuns: maxRuns}
}

// maxInFlight is the most CI runs c may have at once (the World's
// invariant): concurrency + bisectionConcurrency, or ours(auto)'s bound.
func (c OursConfig) maxInFlight() int {
	if c.AutoTune {
		return c.AutoMaxRuns
	}
	s := c.Settings()
	return s.Concurrency + s.EffectiveBisectionConcurrency()
}

// tuneEvaluator is the evaluator of ours(auto): the default one, or a
// smaller one for tests (OursConfig.AutoEval).
func tuneEvaluator(c OursConfig) TuneEvaluator { return c.AutoEval }

// startTuning sets up the observer and the tuner and schedules the first look.
func (r *oursRun) startTuning(c OursConfig, settings queue.Settings) {
	obs := autotune.NewObserver(service.DefaultTuneWindow)
	r.auto = &autoRun{obs: obs, tuner: autotune.NewTuner(obs, tuneEvaluator(c),
		autotune.Bounds{MaxRuns: c.AutoMaxRuns}, autotune.FromSettings(settings))}
	r.auto.tuner.InFlight = func() (int, int) { return runsInFlight(r.ctx, r.store, r.q.ID) }
	r.auto.tuner.Queued = func() (int, error) { return r.active, nil }
	r.sim.After(service.DefaultTuneFirst, r.retune)
}

// retune feeds the conclusions since the last look, lets the tuner choose
// and applies a change as a settings update.
func (r *oursRun) retune() {
	if r.drained() {
		return
	}
	started := time.Now()
	ch, ok, err := r.auto.tuner.Retune(r.sim.Now())
	r.auto.slowest = max(r.auto.slowest, time.Since(started))
	r.sim.After(r.auto.tuner.NextLook(service.DefaultTuneFirst, service.DefaultTuneEvery), r.retune)
	if err != nil {
		r.fail(fmt.Errorf("failed to retune at %v: %w", r.sim.Elapsed(), err))
		return
	}
	if !ok {
		return
	}
	r.auto.changes = append(r.auto.changes, fmt.Sprintf("%.1f h: %s (%s)", r.sim.Elapsed().Hours(), ch.Reason, ch.To))
	if _, err := r.svc.UpdateQueue(r.ctx, r.q.Key, ch.To.Update()); err != nil {
		r.fail(fmt.Errorf("failed to apply the tuning at %v: %w", r.sim.Elapsed(), err))
	}
	r.wake()
}

// observeArrival reports a submission and, with targets, the PR's
// impacted targets (the service reads them on submission).
func (r *oursRun) observeArrival(n int, pr PR) {
	if r.auto != nil {
		r.auto.obs.Arrived(r.sim.Now())
		if r.w.Targets > 0 {
			r.auto.obs.Targeted(n, pr.All, pr.Targets)
		}
	}
}

type finishedJob struct {
	job CIJob
	at  time.Time
}

// observeRun notes a CI job that just reported; observeConclusions
// reports its run once the engine decided it.
func (r *oursRun) observeRun(job CIJob) {
	if r.auto != nil {
		r.auto.finished = append(r.auto.finished, finishedJob{job: job, at: r.sim.Now()})
	}
}

// observeRuns reports the runs the engine decided (passed or failed; a
// cancelled run says nothing about CI) and keeps the others for later.
func (r *oursRun) observeRuns() {
	keep := r.auto.finished[:0]
	for _, f := range r.auto.finished {
		run, err := r.store.GetRun(r.ctx, runID(f.job.Branch))
		switch {
		case err != nil || run.Status == queue.RunCancelled:
		case run.Status == queue.RunSucceeded || run.Status == queue.RunFailed:
			r.auto.obs.RunFinished(autotune.RunResult{Started: f.job.PublishedAt, Finished: f.at,
				Passed: run.Status == queue.RunSucceeded, Tree: f.job.Contains})
		default:
			keep = append(keep, f)
		}
	}
	r.auto.finished = keep
}

// observeConclusions reports the entries merged or rejected since the last
// call, from the queue's event log, with the PR's head as the service does
// (ConcludedHead): a simulated PR keeps its head, so one rejected and
// merged after it was submitted again was rejected by a flake.
func (r *oursRun) observeConclusions() {
	if r.auto == nil {
		return
	}
	r.observeRuns()
	for _, ev := range r.newEvents(&r.auto.lastEv) {
		if ev.To == queue.StateMerged || ev.To == queue.StateFailed {
			r.auto.obs.ConcludedHead(ev.At, ev.PRNumber, r.world.PR(ev.PRNumber).HeadSHA, ev.To == queue.StateMerged)

		}
	}
}
