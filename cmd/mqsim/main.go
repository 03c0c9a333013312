// Command mqsim runs the merge-queue simulator (package queue/sim): it
// compares the baseline policies and our engine on a preset workload and
// prints Markdown tables.
//
//	go run ./cmd/mqsim -preset shopify
//	go run ./cmd/mqsim -preset shopify -policy github,ours -ours-concurrency 8 -ours-batch 4
//	go run ./cmd/mqsim -preset shopify -seeds 10   # medians and spreads over seeds 1..10
//	go run ./cmd/mqsim -all -svg docs/performance-p95-vs-runs.svg   # docs/performance.md
//	go run ./cmd/mqsim -validate
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/sim"
)

func main() {
	// The simulations allocate many short-lived snapshots; collecting less
	// often saves a quarter of the CPU time at a few hundred MB of heap.
	debug.SetGCPercent(400)
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// options are the parsed flags.
type options struct {
	preset   string
	all      bool
	validate bool
	policy   string
	seed     uint64
	seeds    int
	prs      int
	svg      string
	workers  int
	scale    float64
	maxDrain time.Duration
	verbose  bool
	trace    bool
	maxQueue int
	cpuProf  string
	ours     sim.OursConfig
	oursSet  bool // some -ours-* flag was given: run only that setting of ours
	// gitBuilds charges ours' test branches as the git builder builds them.
	gitBuilds    bool
	noAuto       bool // leave ours(auto) out
	commonRandom bool // RunOptions.CommonRandom for every policy
	// autoMaxRuns > 0 runs ours(auto) alone, bounded by that many runs.
	autoMaxRuns int
	// fastForward lands ours' passed units by fast-forward.
	fastForward bool
	floor       bool // print the preset's in-order floors (floor.go)
}

// run parses args, runs the simulations and returns the exit code.
func run(args []string, stdout, stderr io.Writer) int {
	o, err := parse(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "mqsim:", err)
		return 2
	}
	if o.cpuProf != "" {
		f, err := os.Create(o.cpuProf)
		if err != nil {
			fmt.Fprintln(stderr, "mqsim:", err)
			return 1
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintln(stderr, "mqsim: failed to start the CPU profile:", err)
			return 1
		}
		defer pprof.StopCPUProfile()
	}
	exec := execute
	if o.floor {
		exec = func(o options, stdout, _ io.Writer) error { return executeFloor(o, stdout) }
	}
	if err := exec(o, stdout, stderr); err != nil {
		fmt.Fprintln(stderr, "mqsim:", err)
		return 1
	}
	return 0
}

func parse(args []string, stderr io.Writer) (options, error) {
	var o options
	var mode string
	fs := flag.NewFlagSet("mqsim", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.preset, "preset", "shopify", "preset: "+strings.Join(sim.PresetNames(), ", "))
	fs.BoolVar(&o.all, "all", false, "run every preset and the validation, print the whole report")
	fs.BoolVar(&o.validate, "validate", false, "run only the validation against closed forms")
	fs.StringVar(&o.policy, "policy", "all", "comma-separated policies: all, oracle, serial, bors, github, zuul, ours")
	fs.Uint64Var(&o.seed, "seed", 1, "random seed (same seed, same result); the first one with -seeds")
	fs.IntVar(&o.seeds, "seeds", 0, "number of seeds (seed, seed+1, …): more than one reports medians and 10th–90th percentiles (0 = 10 with -all, else 1)")
	fs.StringVar(&o.svg, "svg", "", "with several seeds, write the plot of median p95 time-to-merge against CI runs per merge to this file")
	fs.IntVar(&o.prs, "prs", 0, fmt.Sprintf("number of PRs per preset and seed (0 = %d for one seed, for several the preset's: %d unless it needs more to reach steady state or to tell its settings apart)", sim.DefaultPRs, sim.MultiSeedPRs))
	fs.IntVar(&o.workers, "workers", runtime.GOMAXPROCS(0), "simulations run at once")
	fs.Float64Var(&o.scale, "validate-scale", 1, "sample size factor of the validation")
	fs.DurationVar(&o.maxDrain, "max-drain", 0, "how long a simulation may run after the last arrival (0 = 30 days)")
	fs.BoolVar(&o.verbose, "v", false, "print each simulation's wall time to stderr")
	fs.BoolVar(&o.trace, "trace", false, "one seed only: after each run of ours, print what the engine did over time (restarts by reason, ALL PRs, 15-minute buckets)")
	fs.IntVar(&o.maxQueue, "max-queue", 0, "stop a simulation as unstable once more PRs than this are queued (0 = the preset's)")
	fs.BoolVar(&o.commonRandom, "common-random", true, "every policy draws the same CI duration and flake for a PR's n-th run (common random numbers, so the policies' differences are less noisy); false draws them in the order runs start")
	fs.BoolVar(&o.noAuto, "no-auto", false, "leave out ours(auto), the self-tuning queue (its estimates are most of a run's time)")
	fs.StringVar(&o.cpuProf, "cpuprofile", "", "write a CPU profile of the run to this file (go tool pprof)")
	fs.StringVar(&mode, "ours-mode", "", "our queue mode: single or parallel (default: parallel when the preset has targets)")
	fs.IntVar(&o.ours.Concurrency, "ours-concurrency", 0, "our concurrency (test runs at once)")
	fs.IntVar(&o.ours.BatchingMinSize, "ours-batch", 0, "our batchingMinSize; > 0 turns batching on")
	fs.IntVar(&o.ours.BatchingMaxSize, "ours-batch-max", 0, "our batchingMaxSize (0 = batchingMinSize)")
	fs.IntVar(&o.ours.BatchingMaxWaitMinutes, "ours-batch-wait", 0, "our batchingMaxWaitTimeMinutes (0 = default 5)")
	fs.IntVar(&o.ours.BisectionConcurrency, "ours-bisection", 0, "our bisectionConcurrency (0 = concurrency)")
	fs.IntVar(&o.ours.PendingFailureDepth, "ours-depth", 0, "our pendingFailureDepth")
	fs.BoolVar(&o.ours.CanOptimisticallyMerge, "ours-optimistic", false, "our canOptimisticallyMerge")
	fs.BoolVar(&o.ours.SkipRedundantTests, "ours-skip-redundant", false, "optimizationMode bisection_skip_redundant_tests")
	fs.IntVar(&o.ours.BisectionParts, "ours-bisection-parts", 0, "our bisectionParts: parts a failed batch is split into (0 = halves)")
	fs.BoolVar(&o.gitBuilds, "git-builds", false, "every policy of ours: charge test branches as built with git (github.test_branches: git: a clone and one push, no API request) instead of the merges API")
	fs.BoolVar(&o.fastForward, "fast-forward", false, "every policy of ours: land each passed unit by one fast-forward of the target branch (fastForwardLanding, mergeMethod merge_commit) instead of one PR merge per PR")
	fs.BoolVar(&o.floor, "floor", false, "print the preset's in-order floors instead of simulating: how close to the Oracle a queue that merges in dependency order can come, per seed (-seed, -seeds, -prs)")
	fs.IntVar(&o.ours.CheckRetries, "ours-retries", 0, "our checkRetries: a run that failed on its check is tried again on a new test commit")
	fs.IntVar(&o.autoMaxRuns, "ours-auto", 0, "run only ours(auto), the self-tuning queue, with at most this many CI runs at once (the other -ours-* flags do not apply)")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	fs.Visit(func(f *flag.Flag) { o.oursSet = o.oursSet || strings.HasPrefix(f.Name, "ours-") })
	if mode != "" {
		m, err := queue.ParseEnum("ours-mode", mode, queue.ModeSingle, queue.ModeParallel)
		if err != nil {
			return o, err
		}
		o.ours.Mode = m
	}
	o.ours.Batch = o.ours.BatchingMinSize > 0
	if o.autoMaxRuns < 0 {
		return o, fmt.Errorf("-ours-auto must not be negative, got %d", o.autoMaxRuns)
	}
	if o.autoMaxRuns > 0 {
		o.ours = sim.AutoConfig(o.ours.Mode, o.autoMaxRuns)
	}
	switch {
	case o.seeds < 0:
		return o, fmt.Errorf("-seeds must be positive, got %d", o.seeds)
	case o.seeds == 0 && o.all:
		o.seeds = 10
	case o.seeds == 0:
		o.seeds = 1
	}
	if o.svg != "" && o.seeds < 2 {
		return o, fmt.Errorf("-svg needs several seeds (-seeds 2 or more)")
	}
	if o.floor && (o.all || o.validate || o.trace) {
		return o, fmt.Errorf("-floor goes with -preset, -seed, -seeds and -prs only")
	}
	if o.trace && (o.seeds > 1 || o.all) {
		return o, fmt.Errorf("-trace needs one seed (no -seeds, no -all)")
	}
	if o.maxQueue < 0 {
		return o, fmt.Errorf("-max-queue must not be negative, got %d", o.maxQueue)
	}
	if _, err := sim.PresetByName(o.preset); err != nil && !o.all && !o.validate {
		return o, err
	}
	if _, err := selectPolicies(sim.Presets()[0], o); err != nil {
		return o, err
	}
	return o, nil
}

// selectPolicies picks the rows of a preset's table from -policy and the
// -ours-* flags (which replace the preset's candidates of ours).
func selectPolicies(p sim.Preset, o options) ([]sim.PolicySpec, error) {
	want := map[sim.Kind]bool{}
	for _, name := range strings.Split(o.policy, ",") {
		name = strings.ToLower(strings.TrimSpace(name))
		if name == "all" {
			for _, k := range sim.Kinds {
				want[k] = true
			}
			continue
		}
		k, err := queue.ParseEnum("policy", name, sim.Kinds...)
		if err != nil {
			return nil, err
		}
		want[k] = true
	}
	var out []sim.PolicySpec
	for _, pol := range p.Policies() {
		if !want[pol.Kind] || (pol.Kind == sim.KindOurs && (o.oursSet || (o.noAuto && pol.Ours.AutoTune))) {
			continue
		}
		if pol.Kind == sim.KindOurs {
			o.applyCosts(&pol)
		}
		out = append(out, pol)
	}
	if want[sim.KindOurs] && o.oursSet {
		cfg := o.ours
		if cfg.Concurrency == 0 && !cfg.AutoTune {
			cfg.Concurrency = p.Concurrency
		}
		if cfg.Mode == "" && p.Workload.Targets > 0 {
			cfg.Mode = queue.ModeParallel
		}
		pol := sim.PolicySpec{Kind: sim.KindOurs, Ours: cfg}
		o.applyCosts(&pol)
		out = append(out, pol)
	}
	return out, nil
}

// applyCosts applies -git-builds and -fast-forward to a policy of ours,
// naming it after them.
func (o options) applyCosts(pol *sim.PolicySpec) {
	if !o.gitBuilds && !o.fastForward {
		return
	}
	pol.Ours.GitBuilds, pol.Ours.FastForwardLanding = o.gitBuilds, o.fastForward
	pol.Name = pol.Label()
	if o.gitBuilds {
		pol.Name += " (git builds)"
	}
}
