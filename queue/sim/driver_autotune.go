package sim

import (
	"context"
	"encoding/binary"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"time"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/autotune"
)

// AutoTuneShare is the share of the randomized suite's seeds whose queue is
// tuned by autoTune (issue #20): an autotune.Tuner, fed by the queue's own
// events, retunes it after every third step with a cheap evaluator, and
// each change is a settings update while runs are in flight, as ours(auto)
// applies them. Drawn from its own stream of the seed, so the other seeds'
// steps do not change.
const AutoTuneShare = 4 // one seed in 4

// driverAuto is the autoTune of a driven queue.
type driverAuto struct {
	obs     *autotune.Observer
	tuner   *autotune.Tuner
	changes int
}

// startAutoTune draws whether the seed's queue is tuned and sets it up.
func (d *Driver) startAutoTune() {
	if rand.New(rand.NewPCG(d.seed, 0x6175746f74756e65)).IntN(AutoTuneShare) != 0 {
		return
	}
	obs := autotune.NewObserver(time.Hour)
	d.auto = &driverAuto{obs: obs, tuner: autotune.NewTuner(obs, hashEvaluator{seed: d.seed},
		autotune.Bounds{MaxRuns: d.bound}, autotune.FromSettings(d.settings))}
	d.auto.tuner.InFlight = func() (int, int) { return runsInFlight(d.ctx, d.store, d.q.ID) }
	d.logf("autoTune on, at most %d runs at once", d.bound)
}

// observeEvents feeds the tuner's observer the entries submitted, merged
// and rejected, and the impacted targets of those that have them, on
// submission or conclusion (a parallel queue's tuner waits for them, as
// the service's does).
func (d *Driver) observeEvents(evs []queue.Event) {
	if d.auto == nil {
		return
	}
	for _, ev := range evs {
		switch {
		case ev.From == "":
			d.auto.obs.Arrived(ev.At)
			d.observeTargets(ev.PRNumber)
		case ev.To == queue.StateMerged:
			d.auto.obs.Concluded(ev.At, ev.PRNumber, true)
			d.observeTargets(ev.PRNumber)
		case ev.To == queue.StateFailed:
			d.auto.obs.Concluded(ev.At, ev.PRNumber, false)
			d.observeTargets(ev.PRNumber)
		}
	}
}

// observeTargets reports PR n's impacted targets if it has some and the
// Observer does not have them yet.
func (d *Driver) observeTargets(n int) {
	if d.auto.obs.HasTargets(n) {
		return
	}
	if t, err := d.store.GetTargets(d.ctx, d.q.ID, n); err == nil {
		d.auto.obs.Targeted(n, t.All, t.List)
	}
}

// observeCI feeds the observer a CI result.
func (d *Driver) observeCI(job CIJob, pass bool) {
	if d.auto != nil {
		d.auto.obs.RunFinished(autotune.RunResult{Started: job.PublishedAt, Finished: d.now, Passed: pass, Tree: job.Contains})
	}
}

// retune lets the tuner choose and applies a change as a settings update.
func (d *Driver) retune(step int) {
	if d.auto == nil || step%3 != 0 {
		return
	}
	ch, ok, err := d.auto.tuner.Retune(d.now)
	if err != nil {
		d.fail("autoTune: %v", err)
		return
	}
	if !ok {
		return
	}
	if _, err := d.svc.UpdateQueue(d.ctx, d.queueKey(), ch.To.Update()); err != nil {
		d.fail("autoTune's update to %s: %v", ch.To, err)
		return
	}
	d.auto.changes++
	d.logf("autoTune: %s (%s)", ch.Reason, ch.To)
}

// hashEvaluator is a cheap, deterministic autotune.Evaluator for the
// randomized suite: a pseudo-random estimate per (seed, observation,
// tuning), so that the tuner changes settings often and arbitrarily.
type hashEvaluator struct{ seed uint64 }

func (h hashEvaluator) Evaluate(obs autotune.Observation, t autotune.Tuning) (autotune.Estimate, error) {
	f := fnv.New64a()
	for _, x := range []float64{obs.ArrivalsPerHour, obs.CIMedian.Minutes(), obs.CISigma, obs.FailRate, obs.FlakeRate} {
		_, _ = f.Write(binary.LittleEndian.AppendUint64(nil, math.Float64bits(x)))
	}
	_, _ = f.Write([]byte(t.String()))
	r := rand.New(rand.NewPCG(h.seed, f.Sum64()))
	return autotune.Estimate{KeptUp: r.IntN(10) != 0, P95: time.Duration(10+r.IntN(190)) * time.Minute,
		RunsPerMerge: 0.5 + 2.5*r.Float64()}, nil
}

// runsInFlight counts the queue's runs in progress in the chain and
// outside it (bisections, isolation runs), for autotune.Tuner.InFlight; a
// store error counts as no room at all (the tuner then waits).
func runsInFlight(ctx context.Context, store queue.Store, queueID int64) (chain, outside int) {
	runs, err := store.ListOpenRuns(ctx, queueID)
	if err != nil {
		return math.MaxInt32, math.MaxInt32
	}
	for _, r := range runs {
		switch {
		case r.Status != queue.RunInProgress:
		case r.Bisection || r.Isolation:
			outside++
		default:
			chain++
		}
	}
	return chain, outside
}
