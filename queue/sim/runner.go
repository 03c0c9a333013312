package sim

import (
	"fmt"
	"strings"
	"time"

	"github.com/mergequeue/mq/queue"
)

// Kind names a policy.
type Kind string

// The policies compared (background note §C3).
const (
	KindSerial Kind = "serial" // FIFO, one run at a time
	KindBors   Kind = "bors"   // batch everything waiting, sequential bisection
	KindGitHub Kind = "github" // prefix speculation with fixed concurrency
	KindZuul   Kind = "zuul"   // prefix speculation with an AIMD window
	KindOracle Kind = "oracle" // knows outcomes: one run per merge, no waiting
	KindOurs   Kind = "ours"   // the real engine behind the simulated GitHub
)

// Kinds lists every policy kind in table order.
var Kinds = []Kind{KindOracle, KindSerial, KindBors, KindGitHub, KindZuul, KindOurs}

// PolicySpec is one policy with its parameters.
type PolicySpec struct {
	// Name labels the row; empty = Label().
	Name string
	Kind Kind
	// Concurrency is GitHub's build concurrency and Zuul's initial window.
	Concurrency int
	// Floor is Zuul's minimum window (default 3).
	Floor int
	// BatchMax caps a bors batch (default 8).
	BatchMax int
	// Rounds runs GitHub-style speculation in synchronous rounds
	// (validation of the closed form only).
	Rounds bool
	// Ours are the queue settings of the engine (KindOurs only).
	Ours OursConfig
}

// Label describes the policy and its parameters, e.g. "github(k=8)".
func (p PolicySpec) Label() string {
	if p.Name != "" {
		return p.Name
	}
	switch p.Kind {
	case KindBors:
		return fmt.Sprintf("bors(b≤%d)", p.batchMax())
	case KindGitHub:
		if p.Rounds {
			return fmt.Sprintf("github(k=%d,rounds)", p.Concurrency)
		}
		return fmt.Sprintf("github(k=%d)", p.Concurrency)
	case KindZuul:
		return fmt.Sprintf("zuul(w=%d,floor=%d)", p.Concurrency, p.floor())
	case KindOurs:
		return p.Ours.Label()
	}
	return string(p.Kind)
}

func (p PolicySpec) batchMax() int {
	if p.BatchMax > 0 {
		return p.BatchMax
	}
	return 8
}

func (p PolicySpec) floor() int {
	if p.Floor > 0 {
		return p.Floor
	}
	return 3
}

// OursConfig are the queue settings the engine runs with in a simulation;
// everything else is queue.DefaultSettings, with no test timeout (simulated
// CI never hangs) and one required check.
type OursConfig struct {
	Mode                   queue.Mode // "" = single
	Concurrency            int
	Batch                  bool
	BatchingMinSize        int
	BatchingMaxSize        int
	BatchingMaxWaitMinutes int
	BisectionConcurrency   int
	PendingFailureDepth    int
	CanOptimisticallyMerge bool
	SkipRedundantTests     bool
	BisectionParts         int  // 0 = halves
	Isolation              bool // isolationRuns (runner_isolation.go)
	// CheckRetries tries a run that failed on its check again, on a new
	// test commit (checkRetries, within the default budget): its CI draws
	// a flake afresh.
	CheckRetries int
	// GitBuilds charges test branches as the git builder builds them
	// (github.test_branches: git; World.SetGitBuilds), not with the
	// merges API. Costs only: the runs are the same.
	GitBuilds bool
	// AutoTune starts from the default settings (with Mode) and lets
	// autoTune choose them, with at most AutoMaxRuns CI runs at once
	// (runner_auto.go); the fields above but Mode are then ignored.
	AutoTune    bool
	AutoMaxRuns int
	// AutoEval sizes the simulations autoTune estimates with (zero = the
	// default TuneEvaluator).
	AutoEval TuneEvaluator
	// FastForwardLanding lands each passed unit by one fast-forward of the
	// target branch (fastForwardLanding, with mergeMethod merge_commit)
	// instead of one PR merge per PR.
	FastForwardLanding bool
}

// Settings are the engine settings for c.
func (c OursConfig) Settings() queue.Settings {
	if c.AutoTune {
		c = OursConfig{Mode: c.Mode}
	}
	s := queue.DefaultSettings()
	if c.Mode != "" {
		s.Mode = c.Mode
	}
	s.Concurrency = max(c.Concurrency, 1)
	s.TestingTimeoutMinutes = 0
	s.Batch = c.Batch
	if c.BatchingMinSize > 0 {
		s.BatchingMinSize = c.BatchingMinSize
	}
	s.BatchingMaxSize = c.BatchingMaxSize
	if c.BatchingMaxWaitMinutes > 0 {
		s.BatchingMaxWaitTimeMinutes = c.BatchingMaxWaitMinutes
	}
	s.BisectionConcurrency = c.BisectionConcurrency
	s.BisectionParts = c.BisectionParts
	s.PendingFailureDepth = c.PendingFailureDepth
	s.CanOptimisticallyMerge = c.CanOptimisticallyMerge
	if c.SkipRedundantTests {
		s.OptimizationMode = queue.OptimizationBisectionSkipTests
	}
	s.RequiredStatuses = []string{CICheck}
	s.IsolationRuns = c.Isolation
	s.CheckRetries = c.CheckRetries
	if c.FastForwardLanding {
		s.MergeMethod, s.FastForwardLanding = queue.MergeCommit, true
	}
	return s
}

// Label is a compact description, e.g. "ours(k=8,b=4..8,d=1,opt)".
func (c OursConfig) Label() string {
	if c.AutoTune {
		mode := ""
		if c.Mode == queue.ModeParallel {
			mode = "parallel,"
		}
		return fmt.Sprintf("ours(%sauto,≤%d runs)", mode, c.AutoMaxRuns)
	}
	s := c.Settings()
	parts := []string{fmt.Sprintf("k=%d", s.Concurrency)}
	if s.Mode == queue.ModeParallel {
		parts = append([]string{"parallel"}, parts...)
	}
	if s.Batch {
		b := fmt.Sprintf("b=%d", s.BatchingMinSize)
		if m := s.EffectiveBatchingMaxSize(); m != s.BatchingMinSize {
			b += fmt.Sprintf("..%d", m)
		}
		parts = append(parts, b)
		if c.BisectionConcurrency > 0 {
			parts = append(parts, fmt.Sprintf("bis=%d", c.BisectionConcurrency))
		}
		if c.BisectionParts > 2 {
			parts = append(parts, fmt.Sprintf("split=%d", c.BisectionParts))
		}
		if c.SkipRedundantTests {
			parts = append(parts, "skip")
		}
	}
	if s.PendingFailureDepth > 0 {
		parts = append(parts, fmt.Sprintf("d=%d", s.PendingFailureDepth))
	}
	if s.CanOptimisticallyMerge {
		parts = append(parts, "opt")
	}
	if s.FastForwardLanding {
		parts = append(parts, "ff")
	}
	if s.CheckRetries > 0 {
		parts = append(parts, fmt.Sprintf("retry=%d", s.CheckRetries))
	}
	return "ours(" + strings.Join(isolationLabel(c, parts), ",") + ")"
}

// CICheck is the one required check the simulated CI reports.
const CICheck = "ci"

// RunOptions bound a simulation.
type RunOptions struct {
	// MaxDrain is how long the simulation may run after the last arrival
	// before the PRs still open are reported unfinished (default 30 days).
	MaxDrain time.Duration
	// MaxQueue stops a simulation early, as unstable, once more PRs than
	// this are in the queue at once (0 = Workload.QueueCap()). The PRs
	// still open count as waiting until then, so the percentiles they
	// reach are lower bounds.
	MaxQueue int
	// Trace records, for a run of our engine, what it did over time
	// (Result.Trace).
	Trace bool
	// Lean leaves the reconciler out of a run of our engine: no surfaces,
	// notices or clean-up of ended branches are written, which the
	// engine's decisions do not depend on (TestLeanRunsDecideAlike), in
	// about two thirds of the time. For estimates (TuneEvaluator), not for
	// reports: the GitHub cost and the World's surface checks then miss
	// the reconciler's share.
	Lean bool
	// GiveUpBeyond stops a run of our engine, with Result.Beyond set, as
	// soon as its p95 time-to-merge is sure to exceed it: more than 5 %
	// of the measured PRs (after the warm-up) merged later than that
	// after their arrival or are still open that long after it (0 = never;
	// checked every tenth of it, at least every minute of simulated time).
	// For estimates whose only question is "faster than this?".
	GiveUpBeyond time.Duration
	// Resubmit submits every good PR a policy rejects (a flake) again,
	// ResubmitAfter later, as its author would: its time-to-merge then
	// runs from its first arrival to its merge and its runs count in runs
	// per merge, so a setting that rejects good PRs is not priced as if
	// they had vanished (Result.FalseRejections still counts every such
	// rejection). Our engine and the baselines alike; the reports and the
	// estimates (TuneEvaluator) use it, the closed-form validations do not.
	Resubmit bool
	// CommonRandom draws each CI run's duration and flake from the seed,
	// the PR it tests and how many runs of that PR came before, instead of
	// in the order the runs start: settings simulated on one seed then see
	// the same CI for the same run of a PR, so their differences are less
	// noisy (common random numbers). Our engine and the baselines alike
	// (commonCI); the estimates (TuneEvaluator) and the reports use it.
	CommonRandom bool
}

func (o RunOptions) maxDrain() time.Duration {
	if o.MaxDrain > 0 {
		return o.MaxDrain
	}
	return 30 * 24 * time.Hour
}

// Run simulates policy p on workload w with the given seed. The PRs
// depend only on (w, seed), so every policy sees the same ones; the result
// is a deterministic function of (w, p, seed).
func Run(w Workload, p PolicySpec, seed uint64, opts RunOptions) (Result, error) {
	if err := w.Validate(); err != nil {
		return Result{}, err
	}
	started := time.Now()
	prs := w.Generate(seed)
	limit := prs[len(prs)-1].Arrival + opts.maxDrain()
	var (
		res Result
		err error
	)
	maxQueue := opts.MaxQueue
	if maxQueue <= 0 {
		maxQueue = w.QueueCap()
	}
	if w.Backlog {
		maxQueue = len(prs) + 1 // a backlog is never stopped
	}
	if p.Kind == KindOurs {
		res, err = runOurs(w, p, prs, seed, limit, maxQueue, opts)
	} else {
		res, err = runBaseline(w, p, prs, seed, limit, maxQueue, opts)
	}
	res.Wall = time.Since(started)
	return res, err
}

func runBaseline(w Workload, p PolicySpec, prs []PR, seed uint64, limit time.Duration, maxQueue int, opts RunOptions) (Result, error) {
	s := NewSim()
	rec := NewRecorder(prs)
	h := newHarness(s, w, prs, rec, seed)
	if opts.CommonRandom {
		h.common = newCommonCI(seed)
	}
	var pol baseline
	switch p.Kind {
	case KindOracle:
		pol = &oracle{h: h}
	case KindSerial:
		pol = newBatchQueue(h, 1)
	case KindBors:
		pol = newBatchQueue(h, p.batchMax())
	case KindGitHub:
		pol = newSpeculative(h, p.Concurrency, 1, false, p.Rounds)
	case KindZuul:
		window := p.Concurrency
		if window <= 0 {
			window = 20
		}
		pol = newSpeculative(h, window, p.floor(), true, false)
	default:
		return Result{}, fmt.Errorf("unknown policy %q", p.Kind)
	}
	h.pol, h.resubmit = pol, opts.Resubmit
	arrived := 0
	for _, pr := range prs {
		s.At(pr.Arrival, func() {
			arrived++
			pol.arrive(pr.Index)
		})
	}
	var stopped string
	s.RunUntil(limit, func() bool {
		depth := arrived - (len(prs) - rec.OpenCount())
		if depth > maxQueue {
			stopped = overflow(s, depth)
			return true
		}
		return arrived == len(prs) && rec.OpenCount() == 0
	})
	end := stopTime(s, rec, limit)
	if stopped != "" {
		end = s.Elapsed()
	}
	res := Summarize(p.Label(), w, rec, end)
	res.Stopped = stopped
	return res, nil
}

// overflow explains an early stop.
func overflow(s *Sim, depth int) string {
	return fmt.Sprintf("stopped at %.1f h with %d PRs in the queue: it cannot keep up", s.Elapsed().Hours(), depth)
}

// QueueCap is the default RunOptions.MaxQueue: four times the PRs the
// Oracle has in flight on average (λ × mean CI), three bursts, and at
// least 200.
func (w Workload) QueueCap() int {
	return max(200, int(4*w.RatePerHour*w.MeanCI().Hours()), 3*w.Burst.Count)
}

// stopTime is when the simulation is considered to have stopped: the last
// event, or the limit when PRs are still open (they waited until then).
func stopTime(s *Sim, rec *Recorder, limit time.Duration) time.Duration {
	if rec.OpenCount() > 0 {
		return max(limit, s.Elapsed())
	}
	return s.Elapsed()
}
