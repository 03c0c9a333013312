package autotune

import (
	"fmt"
	"math"
	"strings"
	"time"
)

// Evidence below which the Tuner keeps the current tuning: too few runs
// or conclusions in the window to estimate rates. The first choice needs
// only FirstRuns runs and FirstArrivals arrivals: the defaults (one run at
// once) may be far too few for the traffic, and later choices correct a
// rough first one.
const (
	MinRuns       = 5
	MinConcluded  = 5
	FirstRuns     = 1
	FirstArrivals = 5
)

// SwitchMargin is how much lower the chosen tuning's estimated p95 must be
// than the tuning in force's, on the same observation, to replace it
// (unless the one in force falls behind or exceeds the bounds): estimates
// from short simulations are noisy, and a change of settings is not free.
const SwitchMargin = 0.10

// Change is a retuning: the new tuning, why, and what the choice cost.
type Change struct {
	At       time.Time
	From, To Tuning
	// Reason says what in the traffic moved and what changed, e.g.
	// "flake rate rose to 9 %: batches off, depth 2".
	Reason string
	// Observed is the observation the choice was made on.
	Observed Observation
	Choice   Choice
}

// Tuner retunes a queue from its Observer at the caller's intervals. It
// is not safe for concurrent use; Retune is slow (it runs the Evaluator),
// so call it outside any lock of the queue.
type Tuner struct {
	Observer  *Observer
	Evaluator Evaluator
	Bounds    Bounds
	// Now measures the chooser's time (nil: not measured).
	Now func() time.Time
	// Budget bounds the time of a choice (ChooseWithin; 0 = none, and
	// none without Now).
	Budget time.Duration
	// InFlight, when set, reports the queue's CI runs in progress: those of
	// the speculative chain and those outside it (bisections, isolation
	// runs). A change then never lets more than Bounds.MaxRuns runs be in
	// progress at once, counting those started before it: it is applied in
	// steps as they end (transition.go). Without it, runs started under
	// the previous tuning may exceed the bound until they end.
	InFlight func() (chain, outside int)
	// Queued, when set, reports the number of PRs in the queue now
	// (Observation.Queued): the estimates then start from that backlog,
	// and a backlog that doubled or halved is a move (Moved). On an error
	// the backlog of the last choice stands in for it.
	Queued func() (int, error)

	current Tuning
	// target is the last choice, which current reaches in steps (InFlight).
	target Tuning
	basis  Observation
	chosen bool
}

// NewTuner returns a tuner starting from the tuning in force.
func NewTuner(obs *Observer, ev Evaluator, b Bounds, current Tuning) *Tuner {
	return &Tuner{Observer: obs, Evaluator: ev, Bounds: b, current: current, target: current}
}

// Current is the tuning in force.
func (t *Tuner) Current() Tuning { return t.current }

// Soon reports whether the caller should look again soon rather than at
// its usual interval: no choice was made yet (it needs FirstRuns runs and
// FirstArrivals arrivals, and for a parallel queue the targets of
// MinTargeted PRs), or a change waits for the runs in progress to end
// (Pending).
func (t *Tuner) Soon() bool { return t.Pending() || !t.chosen }

// NextLook is when the caller should look again: soon while Soon, else
// every.
func (t *Tuner) NextLook(soon, every time.Duration) time.Duration {
	if t.Soon() {
		return soon
	}
	return every
}

// Pending reports whether a change is in force only in part (InFlight):
// the next Retune calls complete it as the runs in progress end.
func (t *Tuner) Pending() bool { return t.target != (Tuning{}) && t.target != t.current }

// Retune looks at the window ending at now. With enough evidence (MinRuns,
// MinConcluded; FirstRuns and FirstArrivals for the first choice) and the
// traffic moved since the last choice (Moved), it chooses again; it
// returns a Change when the choice differs from the tuning in force and
// is estimated SwitchMargin faster than it, and then takes it as in force.
// With InFlight, a change is in force as far as the runs in progress leave
// room for (Change.To), and the calls that follow complete it first.
// Batches or isolation runs draining a backlog are not left for plain
// speculation until it is drained (drainingBacklog), nor more runs at once
// for fewer in a rush (holdingRush). A parallel-mode
// queue chooses among GridFor's candidates, once the impacted targets of
// MinTargeted PRs were observed.
func (t *Tuner) Retune(now time.Time) (Change, bool, error) {
	obs := t.Observer.Observe(now)
	if t.Queued != nil {
		obs.Queued = t.basis.Queued
		if q, err := t.Queued(); err == nil {
			obs.Queued = max(q, 0)
		}
	}
	if c, ok := t.complete(obs); ok {
		c.At = now
		return c, true, nil
	}
	enough := obs.Runs >= MinRuns && obs.Concluded >= MinConcluded
	if !t.chosen {
		enough = obs.Runs >= FirstRuns && obs.Arrivals >= FirstArrivals
	}
	if !enough || (t.current.Parallel && obs.TargetedPRs < MinTargeted) {
		c, ok := t.headStart(obs)
		if ok {
			c.At = now
		}
		return c, ok, nil
	}
	if t.chosen && !Moved(t.basis, obs) {
		return Change{}, false, nil
	}
	fitted := obs.Fitted()
	if !t.chosen {
		fitted = obs.WithPrior().Fitted() // a few conclusions (PriorFailRate)
	}
	grid := GridFor(t.Bounds, t.current)
	if len(grid) == 0 {
		return Change{}, false, nil
	}
	ch, err := chooseAmong(t.Evaluator, fitted, t.Bounds, grid, t.Now, t.Budget)
	if err != nil {
		return Change{}, false, err
	}
	why := movement(t.basis, obs, t.chosen)
	prev := t.basis
	t.basis, t.chosen = obs, true
	if ch.Tuning == t.current {
		t.target = t.current
		return Change{}, false, nil
	}
	if t.drainingBacklog(prev, obs, ch.Tuning) || t.holdingRush(obs, ch.Tuning) {
		return Change{}, false, nil
	}
	keep, err := t.keepCurrent(fitted, ch)
	if err != nil || keep {
		return Change{}, false, err
	}
	c, ok := t.moveToward(ch.Tuning, why, obs)
	if ok {
		c.At, c.Choice = now, ch
	}
	return c, ok, nil
}

// moveToward makes target the tuning to reach and puts in force the first
// step toward it the runs in progress leave room for (stepToward), as a
// Change whose reason is why and what changes; none when there is no room
// yet (the next calls take the first step, complete).
func (t *Tuner) moveToward(target Tuning, why string, obs Observation) (Change, bool) {
	t.target = target
	step := t.stepToward(target)
	if step == t.current {
		return Change{}, false
	}
	reason := why + ": " + diff(t.current, step)
	if step != target {
		reason += fmt.Sprintf(" (on the way to %s, as the runs in progress end)", target)
	}
	c := Change{From: t.current, To: step, Observed: obs, Reason: reason}
	t.current = step
	return c, true
}

// headStart is a parallel-mode queue's first step before the evidence of
// its first choice is in (a finished run, the targets of MinTargeted PRs):
// once more than RushFactor times its runs at once are queued, it takes
// the fewest runs at once of GridFor's candidates, every one of which the
// first choice could keep. In parallel mode the candidates differ only in
// how many runs the lanes may have at once, a bound the engine fills only
// with PRs that are queued, so more room costs no runs per merge; the
// defaults' one run at once, kept until a run finishes, left 150 PRs of
// monorepo-like traffic waiting for half an hour (docs/performance.md).
// A single-mode queue waits for its first choice: its candidates differ in
// runs per merge, which a choice needs the CI and failure rates to weigh.
// The first choice is made as before, from the tuning the head start put
// in force.
func (t *Tuner) headStart(obs Observation) (Change, bool) {
	if t.chosen || !t.current.Parallel || !inRush(obs.Queued, t.current.Concurrency) {
		return Change{}, false
	}
	grid := GridFor(t.Bounds, t.current)
	if len(grid) == 0 || grid[0].Concurrency <= t.current.Concurrency {
		return Change{}, false
	}
	c, ok := t.moveToward(grid[0], fmt.Sprintf("backlog of %d PRs before the first choice's evidence is in", obs.Queued), obs)
	if ok {
		c.Reason += " until the first choice"
	}
	return c, ok
}

// drainingBacklog reports whether the tuning in force, with batches or
// isolation runs, keeps draining a backlog rather than give way to plain
// speculation (choice): more PRs are queued than the choice would test at
// once, fewer than at the last choice, and the tuning in force is within
// the bounds. Leaving batches mid-backlog restarts the runs in flight PR
// by PR, a cost no estimate counts (each simulates the backlog from no run
// in flight): on burst traffic, switches to speculation with 10-25 PRs
// still queued cost the tuner more runs per merge than the fixed setting
// it is measured against (docs/performance.md). A backlog that grows is
// not held: batches falling behind give way as before.
func (t *Tuner) drainingBacklog(last, now Observation, choice Tuning) bool {
	return (t.current.Batch || t.current.Isolation) && !choice.Batch && !choice.Isolation &&
		t.current.Runs() <= t.Bounds.MaxRuns &&
		now.Queued > choice.Concurrency && now.Queued < last.Queued
}

// holdingRush reports whether plain speculation in force keeps its runs at
// once through a rush rather than give way to plain speculation with fewer
// (choice): more than RushFactor times the choice's runs at once are
// queued, and the tuning in force is within the bounds. The chooser takes
// the leaner of two settings its estimates cannot tell apart (ChoiceMargin),
// and an estimate starts from a fitted backlog at the window's arrival
// rate, which lags a rush: on the drifting preset the tuner went from 18
// runs at once back to 12 with 41 PRs queued in a release rush, and the
// rush's PRs set the p95 (docs/performance.md, "holding the runs at once
// through a rush"). The backlog falling below the bound ends the hold, at
// the next choice (a backlog that halved is a move). Batches and isolation
// runs are drainingBacklog's.
func (t *Tuner) holdingRush(now Observation, choice Tuning) bool {
	plain := func(x Tuning) bool { return !x.Batch && !x.Isolation }
	return plain(t.current) && plain(choice) && t.current.Concurrency > choice.Concurrency &&
		t.current.Runs() <= t.Bounds.MaxRuns && inRush(now.Queued, choice.Concurrency)
}

// keepCurrent reports whether the tuning in force keeps up, respects the
// bounds and is within SwitchMargin of the choice's estimated p95. A
// choice ranked before it (rank: clearly fewer estimated runs per merge,
// else Leaner) replaces it unless it is estimated more than ChoiceMargin
// slower, when it is Leaner or in a rush (more than RushFactor times the
// runs at once of the tuning in force are queued); otherwise it is held to
// SwitchMargin too. A choice with fewer runs at once but clearly more runs
// per merge than the tuning in force is a costlier change, held to
// SwitchMargin.
//
// Batches taken for fewer runs per merge while estimated up to
// ChoiceMargin slower, without a rush, cost PR-head traffic its p95
// (docs/performance.md, "the estimates' horizon, and cheaper batches only
// in a rush").
func (t *Tuner) keepCurrent(fitted Observation, ch Choice) (bool, error) {
	if t.current.Runs() > t.Bounds.MaxRuns || t.current.Validate() != nil {
		return false, nil
	}
	// Only whether it is within SwitchMargin matters: a bounded
	// evaluator may give up beyond.
	limit := time.Duration(0)
	if ch.Estimate.KeptUp {
		limit = time.Duration(float64(ch.Estimate.P95) / (1 - SwitchMargin))
	}
	cur, err := estimate(t.Evaluator, fitted, t.current, limit)
	if err != nil {
		return false, fmt.Errorf("failed to estimate the tuning in force %s: %w", t.current, err)
	}
	if !cur.KeptUp || (t.Bounds.MaxRunsPerMerge > 0 && cur.RunsPerMerge > t.Bounds.MaxRunsPerMerge) {
		return false, nil
	}
	mayFlake := fitted.MayFlake()
	if rank(ch.Tuning, ch.Estimate, t.current, cur, mayFlake) < 0 &&
		(ch.Tuning.Leaner(t.current, mayFlake) || inRush(fitted.Queued, t.current.Concurrency)) {
		// Back to a leaner tuning as soon as the estimates cannot tell it
		// from the one in force (as the chooser would pick it); to a
		// costlier one spending fewer runs per merge only in a rush.
		return float64(ch.Estimate.P95) > (1+ChoiceMargin)*float64(cur.P95), nil
	}
	return float64(ch.Estimate.P95) > (1-SwitchMargin)*float64(cur.P95), nil
}

// Moved reports whether the traffic changed enough since basis to choose
// again: the arrival rate by 20 %, the CI median by 15 %, the failure
// or flake rate by 3 points and half, or the backlog (Queued) by half and
// QueuedStep PRs (a queue falling behind, or catching up).
func Moved(basis, now Observation) bool {
	return len(changes(basis, now)) > 0
}

func changes(a, b Observation) []string {
	var out []string
	rel := func(x, y float64) float64 { return math.Abs(y-x) / max(x, 1e-9) }
	dir := func(x, y float64) string {
		if y > x {
			return "rose"
		}
		return "fell"
	}
	if rel(a.ArrivalsPerHour, b.ArrivalsPerHour) >= 0.2 {
		out = append(out, fmt.Sprintf("arrivals %s to %.0f/h", dir(a.ArrivalsPerHour, b.ArrivalsPerHour), b.ArrivalsPerHour))
	}
	if rel(float64(a.CIMedian), float64(b.CIMedian)) >= 0.15 {
		out = append(out, fmt.Sprintf("CI median %s to %.0f min", dir(float64(a.CIMedian), float64(b.CIMedian)), b.CIMedian.Minutes()))
	}
	rate := func(name string, x, y float64) {
		if math.Abs(y-x) >= 0.03 && rel(x, y) >= 0.5 {
			out = append(out, fmt.Sprintf("%s %s to %.0f %%", name, dir(x, y), 100*y))
		}
	}
	rate("failure rate", a.FailRate, b.FailRate)
	rate("flake rate", a.FlakeRate, b.FlakeRate)
	if d := b.Queued - a.Queued; (d >= QueuedStep && d >= a.Queued/2) || (-d >= QueuedStep && -d >= b.Queued) {
		out = append(out, fmt.Sprintf("backlog %s to %d PRs", dir(float64(a.Queued), float64(b.Queued)), b.Queued))
	}
	return out
}

// RushFactor is how many times the runs at once of the tuning in force a
// backlog must exceed to be a rush, in which keepCurrent lets a choice
// spending clearly fewer runs per merge replace it within ChoiceMargin.
const RushFactor = 2

// inRush reports whether a backlog of queued PRs is a rush for a chain of
// concurrency runs at once: more than RushFactor times as many. The head
// start, keepCurrent and holdingRush all ask it.
func inRush(queued, concurrency int) bool { return queued > RushFactor*concurrency }

// QueuedStep is the least change of the backlog (Observation.Queued) that
// is a move: a few PRs come and go with every CI run.
const QueuedStep = 10

// movement explains a choice: what moved since the last one, or the
// traffic first observed.
func movement(basis, now Observation, chosen bool) string {
	if !chosen {
		return fmt.Sprintf("first observation (%.0f PR/h, CI %.0f min, %.0f %% of PRs failing, %.0f %% of runs flaky)",
			now.ArrivalsPerHour, now.CIMedian.Minutes(), 100*now.FailRate, 100*now.FlakeRate)
	}
	return strings.Join(changes(basis, now), ", ")
}

// PriorFailRate and PriorWeight shrink the failure rate the first choice
// is made on (Observation.WithPrior), measured on a few conclusions: a
// first choice made after three merges took "no PR fails" for the traffic
// and chose batches that fell behind once the first failures came
// (Chromium-like traffic, 8.5 % of PRs broken, three seeds of ten). 5 % is
// a common share of PRs a merge queue rejects (5 % Shopify-like, 8.5 %
// Chromium-like). Later choices, on a window's conclusions, take the
// observed rate.
const (
	PriorFailRate = 0.05
	PriorWeight   = 20
)

// WithPrior is the observation with its failure rate shrunk toward
// PriorFailRate as if PriorWeight more PRs had concluded at that rate:
// (failed + PriorWeight × PriorFailRate) / (concluded + PriorWeight). On
// a few conclusions it is about the prior; on hundreds, the observation.
// Without a failure seen it is PriorOnly: the estimates take the rate,
// the preference for flake absorption (MayFlake) does not.
func (o Observation) WithPrior() Observation {
	o.PriorOnly = o.FailRate == 0
	failed := o.FailRate * float64(o.Concluded)
	o.FailRate = (failed + PriorWeight*PriorFailRate) / (float64(o.Concluded) + PriorWeight)
	return o
}

// Fitted is the observation rounded to the precision a choice needs
// (arrival rate and CI median to about 8 %, σ to 0.1, failure and flake
// rates to the nearest step of RateSteps, the backlog to about 20 % and
// at most MaxFittedQueued; the share of ALL PRs to about 16 %, the
// targets per PR to a quarter, their overlap to about 10 %), with the
// counts dropped: nearby
// observations give the same fitted one, so an Evaluator may cache its
// estimates by it.
func (o Observation) Fitted() Observation {
	logRound := func(x, step float64) float64 {
		if x <= 0 {
			return 0
		}
		return math.Exp(math.Round(math.Log(x)/step) * step)
	}
	return Observation{
		ArrivalsPerHour: math.Round(100*logRound(o.ArrivalsPerHour, 0.15)) / 100,
		CIMedian:        time.Duration(logRound(o.CIMedian.Minutes(), 0.15) * float64(time.Minute)).Round(time.Second),
		CISigma:         math.Round(min(max(o.CISigma, 0), 1.5)*10) / 10,
		FailRate:        rateStep(o.FailRate),
		FlakeRate:       rateStep(o.FlakeRate),
		Queued:          fittedQueued(o.Queued),
		PriorOnly:       o.PriorOnly,
		AllShare:        logRound(o.AllShare, 0.3),
		TargetsPerPR:    math.Round(4*o.TargetsPerPR) / 4,
		Overlap:         logRound(o.Overlap, 0.2),
	}
}

// MaxFittedQueued caps the fitted backlog: an estimate simulates it on top
// of its arrivals, so a longer one costs more and ranks no differently (a
// setting that drains 120 PRs slowly drains 400 slowly too).
const MaxFittedQueued = 120

// fittedQueued rounds a backlog to about 20 % (none below 4: the PRs of
// the runs in progress), at most MaxFittedQueued.
func fittedQueued(q int) int {
	if q < 4 {
		return 0
	}
	r := int(math.Round(math.Exp(math.Round(math.Log(float64(q))/0.2) * 0.2)))
	return min(r, MaxFittedQueued)
}

// RateSteps are the values a fitted failure or flake rate takes: finer
// where a point matters (a 1 % and a 3 % flake rate call for different
// settings, 30 % and 32 % do not).
var RateSteps = []float64{0, 0.01, 0.02, 0.03, 0.05, 0.08, 0.12, 0.18, 0.25, 0.35, 0.5, 0.7, 0.9}

// rateStep is the step of RateSteps nearest to x.
func rateStep(x float64) float64 {
	best := RateSteps[0]
	for _, s := range RateSteps {
		if math.Abs(s-x) < math.Abs(best-x) {
			best = s
		}
	}
	return best
}
