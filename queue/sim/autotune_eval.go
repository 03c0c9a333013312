package sim

import (
	"fmt"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/autotune"
)

// TuneEvaluator estimates a tuning (autotune.Evaluator) by running our
// engine on a workload fitted to the observation: the observed backlog,
// then Poisson arrivals at the observed rate, the observed log-normal CI,
// failure and flake rates, over EvalPRs(rate) PRs on each of its Seeds.
// The estimate is the p95 of the seeds' times-to-merge pooled (the median
// of their p95s when some gave up, EvaluateWithin) and the mean runs per
// merge; it keeps up when every seed did. A good PR the engine rejects (a
// flake) comes back ResubmitAfter later (RunOptions.Resubmit), so its
// extra wait and runs count, and every candidate sees the same CI for the
// same run of a PR on a seed (RunOptions.CommonRandom), so their
// differences are less noisy. Estimates are a pure function of
// (observation, tuning), cached by them for the life of the process (the
// Tuner passes fitted observations, so nearby ones share an entry).
type TuneEvaluator struct {
	// Seeds is the number of seeds (1, 2, …) a tuning is simulated on
	// (0 = 3).
	Seeds int
	// MaxPRs caps the PRs simulated per seed (0 = MinEvalPRs).
	MaxPRs int
}

// EvalPRs is the number of PRs simulated per seed: about six hours of
// arrivals, at least MinEvalPRs (or MaxPRs if smaller) and at most MaxPRs.
// With the default MaxPRs that is MinEvalPRs whatever the rate; six hours
// count only under a MaxPRs above it.
func (e TuneEvaluator) EvalPRs(perHour float64) int {
	hi := e.MaxPRs
	if hi <= 0 {
		hi = MinEvalPRs
	}
	return min(max(int(6*perHour), MinEvalPRs), hi)
}

// MinEvalPRs is the fewest PRs an estimate simulates per seed (unless
// MaxPRs is lower): about nine and a half hours at 17 PR/h. Six hours
// (102 PRs at 17 PR/h, the floor was 100) is too short to see the tail of
// batches: on PR-head traffic (1 % of PRs failing, 2 % of runs flaky),
// from a backlog of 10, it put batches of 2..8 16 % above plain
// speculation's p95 (within ChoiceMargin, so the tuner took them for their
// runs per merge), where 160 PRs put them 106 % above and ten seeds of 500
// PRs measure 29 % (docs/performance.md, "the estimates' horizon").
const MinEvalPRs = 160

func (e TuneEvaluator) seeds() []uint64 {
	if e.Seeds <= 0 {
		return Seeds(1, 3)
	}
	return Seeds(1, e.Seeds)
}

type evalKey struct {
	ev  TuneEvaluator
	obs autotune.Observation
	t   autotune.Tuning
	// limit is EvaluateWithin's (0: Evaluate, or a run that did not give
	// up, which answers every limit).
	limit time.Duration
}

var evalCache sync.Map // evalKey → autotune.Estimate

// Evaluate implements autotune.Evaluator.
func (e TuneEvaluator) Evaluate(obs autotune.Observation, t autotune.Tuning) (autotune.Estimate, error) {
	return e.EvaluateWithin(obs, t, 0)
}

// EvaluateWithin implements autotune.BoundedEvaluator: each simulation
// gives up once its p95 is sure to exceed limit (RunOptions.GiveUpBeyond),
// and the estimate does once the median's is (a majority of the seeds
// gave up). The simulations are lean (RunOptions.Lean): the engine
// decides as with the reconciler, in less time.
func (e TuneEvaluator) EvaluateWithin(obs autotune.Observation, t autotune.Tuning, limit time.Duration) (autotune.Estimate, error) {
	key := evalKey{ev: e, obs: obs, t: t}
	if e, ok := evalCache.Load(key); ok {
		return e.(autotune.Estimate), nil
	}
	key.limit = limit
	if e, ok := evalCache.Load(key); ok {
		return e.(autotune.Estimate), nil
	}
	if obs.ArrivalsPerHour <= 0 || obs.CIMedian <= 0 {
		return autotune.Estimate{}, fmt.Errorf("cannot fit a workload without arrivals and CI durations")
	}
	w := e.workload(obs, t)
	est := autotune.Estimate{KeptUp: true}
	seeds := e.seeds()
	p95 := make([]float64, 0, len(seeds))
	gaveUp := 0
	var pooled []time.Duration
	for _, seed := range seeds {
		res, err := Run(w, PolicySpec{Kind: KindOurs, Ours: OursFromTuning(t)}, seed, estimateOptions(limit))
		if err != nil {
			return autotune.Estimate{}, fmt.Errorf("failed to simulate %s: %w", t, err)
		}
		switch {
		case res.Beyond:
			gaveUp++
			p95 = append(p95, math.Inf(1))
		case res.Stopped != "" || res.Unfinished > 0:
			est.KeptUp = false
			p95 = append(p95, float64(res.P95.D))
		default:
			p95 = append(p95, float64(res.P95.D))
		}
		pooled = append(pooled, res.Waits...)
		est.RunsPerMerge += res.RunsPerMerge / float64(len(seeds))
		if 2*gaveUp > len(seeds) {
			break
		}
	}
	median := SpreadOf(p95).Median
	if math.IsInf(median, 1) {
		est = autotune.Estimate{Beyond: true, P95: time.Duration(math.MaxInt64), RunsPerMerge: est.RunsPerMerge}
		evalCache.Store(key, est)
		return est, nil
	}
	if gaveUp == 0 {
		key.limit = 0 // a full estimate answers every limit
	}
	est.P95 = time.Duration(median)
	if gaveUp == 0 && len(pooled) > 0 {
		est.P95 = pooledP95(pooled)
	}
	if !est.KeptUp {
		est.P95 = time.Duration(math.MaxInt64)
	}
	evalCache.Store(key, est)
	return est, nil
}

// OursFromTuning is the simulated engine's configuration for a tuning.
func OursFromTuning(t autotune.Tuning) OursConfig {
	c := OursConfig{Concurrency: t.Concurrency, PendingFailureDepth: t.PendingFailureDepth,
		CanOptimisticallyMerge: t.Optimistic, Isolation: t.Isolation}
	if t.Parallel {
		c.Mode = queue.ModeParallel
	}
	if t.Batch {
		c.Batch, c.BatchingMinSize, c.BatchingMaxSize, c.BatchingMaxWaitMinutes = true, t.BatchMin, t.BatchMax, 5
		c.BisectionConcurrency, c.BisectionParts = t.BisectionConcurrency, t.BisectionParts
	}
	if t.Isolation {
		c.BisectionConcurrency = t.BisectionConcurrency
	}
	return c
}

// workload is the workload fitted to obs that the estimates of t simulate:
// the observed backlog (Observation.Queued) at time 0, then EvalPRs
// arrivals. With a backlog no PR is left out as warm-up: the queue does
// not start empty, and the backlog's waits are what tells settings apart
// after a rush. For a parallel-mode tuning the PRs get impacted targets
// fitted to the observed ones (fitTargets).
func (e TuneEvaluator) workload(obs autotune.Observation, t autotune.Tuning) Workload {
	w := Workload{PRs: e.EvalPRs(obs.ArrivalsPerHour), RatePerHour: obs.ArrivalsPerHour, CIMedian: obs.CIMedian,
		CISigma: obs.CISigma, FailRate: min(obs.FailRate, 0.9), FlakeRate: min(obs.FlakeRate, 0.9), Warmup: 0.1}
	if t.Parallel {
		w.Targets, w.TargetsPerPR, w.AllShare = fitTargets(obs)
	}
	if q := max(obs.Queued, 0); q > 0 {
		w.PRs += q
		w.Queued, w.Warmup = q, 0
	}
	return w
}

// estimateOptions are the options of an estimate's runs, given up beyond
// limit (0: never): lean, resubmitting falsely rejected PRs, with common
// random numbers.
func estimateOptions(limit time.Duration) RunOptions {
	return RunOptions{Lean: true, GiveUpBeyond: limit, Resubmit: true, CommonRandom: true}
}

// pooledP95 is the 95th percentile of the times-to-merge of every seed
// together: the tail of a few hundred PRs, less noisy than the median of
// each seed's p95 (about the 5th longest wait of a hundred).
func pooledP95(waits []time.Duration) time.Duration {
	slices.Sort(waits)
	return waits[max(int(math.Ceil(0.95*float64(len(waits))))-1, 0)]
}

// MaxFittedTargets bounds the targets of a fitted workload: PRs that
// never overlap are as independent among 100,000 targets as among more.
const MaxFittedTargets = 100000

// fitTargets is the target structure of a fitted workload: n targets of
// equal popularity, 1 + Poisson(perPR − 1) per PR as observed
// (Observation.TargetsPerPR), each PR impacting every target with the
// observed share of ALL PRs, and n chosen so that two PRs of perPR
// targets overlap as often as the observed pairs did
// (Observation.Overlap): 1 − (1 − perPR/n)^perPR = overlap. Skewed
// popularity (a few hot targets) is folded into that one figure: what
// parallel mode sees of targets is which PRs depend on which.
func fitTargets(obs autotune.Observation) (n int, perPR, allShare float64) {
	perPR = max(obs.TargetsPerPR, 1)
	switch {
	case obs.Overlap <= 0:
		n = MaxFittedTargets
	case obs.Overlap >= 1:
		n = int(math.Ceil(perPR))
	default:
		n = int(math.Round(perPR / (1 - math.Pow(1-obs.Overlap, 1/perPR))))
	}
	return min(max(n, int(math.Ceil(perPR))), MaxFittedTargets), perPR, min(max(obs.AllShare, 0), 1)
}
