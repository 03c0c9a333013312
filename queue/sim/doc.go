// Package sim simulates a GitHub repository with CI around the real merge
// queue engine: a randomized invariant suite, and a discrete-event
// simulator comparing the engine with baseline policies.
//
// # The World
//
// World (world*.go) is one simulated repository implementing queue.GitHub
// on an abstract content model. A commit's content is a set of patches:
// each PR has one patch (kept across pushes, which only make a new head
// SHA), and every external push to the target adds an anonymous one. Equal
// trees (TreeSHA) mean equal patch sets. BuildBranch merges heads one merge
// commit each: a head the PR never had is an error, a patch conflicting
// (PRSpec.Conflicts, symmetric) with the content so far is a
// *queue.ConflictError, a patch already contained is a no-op. Branches
// under TestBranchPrefix ("mq-merge/") are test runs: publishing one calls
// the OnPublish function and adds a CIJob to PendingCI; ReportCI records
// the result of every configured check (feed them to Service.OnCheck).
// GetPullRequest says "dirty" when the PR's patch conflicts with the
// target, "clean" otherwise. MergePullRequest refuses a moved head
// (queue.ErrHeadMoved) and closed, merged or conflicting PRs (405);
// FailNextMerges arms faults for the next merges ("base branch was
// modified", a 502 before the merge, or a 502 after it landed). A PR head
// is a commit on the target it was pushed on, so Contains (the optional
// queue.AncestryChecker) tells whether it is up to date, for direct merges.
// DiffFiles (the optional queue.FileDiffer; the driver turns it on with
// SetFileDiffs(true), the simulator leaves it off)
// sees each PR as writing one file per impacted target, ALL PRs and
// external pushes as writing a root file.
//
// The simulator drives a World with:
//
//	NewWorld(WorldConfig{Now: clock})            // Repo github.com/sim/repo, Branch main, Checks [ci]
//	OpenPR(PRSpec) int; PushPR(n) string; ClosePR(n); MergeManually(n) (string, error)
//	PushTarget() string; PR(n) queue.PullRequest  // facts for Service.OnPullRequest
//	SetOnPublish(func(CIJob)); PendingCI() []CIJob; Intrinsic(sha) bool
//	ReportCI(sha, pass) []queue.CheckResult
//	Merged(), MergedByQueue() []int; Calls() map[string]int
//	InFlight(), MaxInFlight() int; SetMaxInFlight(n); SetTestTimeout(d)
//	Violations() []string
//	FailNextMerges(...MergeFault); PendingFaults() int; SetParallel(bool); SetParallelFunc(func() bool)
//	SetFileDiffs(bool)
//	TargetHead() string; Dirty(n) bool; Conflicts(n) []int; PRsIn(sha) []int; Config()
//	Requests(), RequestsByCall(); WriteHeadroom(repo) float64; PeakHourlyWrites() int
//
// The World charges every call with the GitHub requests the real client
// (githubx) sends for it, content-creating writes apart from reads
// (world_cost.go), and from them answers queue.WriteHeadroom with GitHub's
// secondary limits (80 writes a minute, 500 an hour) in simulated time. It
// counts; it does not refuse. The ended branches a publish deletes go in
// its request all or none, as with GitHub's updateRefs: one missing makes
// the publish go alone and delete nothing.
//
// Intrinsic(sha) is true when the commit contains no Bad PR: a simulator
// reports that, or a flaky failure. OnPublish runs synchronously inside
// the Service's BuildBranch call: it may schedule CI, but must not call the
// Service.
//
// # Invariants
//
// The World checks, and Violations lists, every breach of what the queue
// guarantees (SPEC §5): a PR merged twice by the queue; a queue merge of a
// head that no passing test commit merged (never merge a head other than
// the tested one); a queue merge after which the target's content is not
// that of a passing test commit that merged that head, at or after that
// merge in its history (never merge an untested tree — batches land one PR
// at a time on prefixes of their tested branch, and the order of merges is
// fixed by the tested branch); a Bad PR landing through the queue; and, at
// every publish, more test runs in flight (published, not deleted, CI not
// reported, not timed out per SetTestTimeout) than SetMaxInFlight allows
// (concurrency + bisectionConcurrency). A passing CI on a PR head counts as
// a test of that head's tree (direct merges). In parallel mode
// (SetParallel, or SetParallelFunc asked at each merge) independent units
// land untested together, so only the patches overlapping the merged PR's
// targets (PRSpec.Targets; with AllTargets, every patch that impacts some
// target) must be those tested; an external push touches every target.
//
// # The invariant suite
//
// Driver (driver*.go) runs the real queue.Service over a memstore and a
// World through a seeded random sequence of events — submissions (Bad PRs,
// conflicting PRs, priorities including urgent, noBatch), CI results with
// flakes, cancels, pushes, resubmissions, closes, manual merges, pushes to
// the target, restarts, clock jumps past the testing timeout, lost
// webhooks healed by reconciliation, pauses, draining, mode switches, merge
// faults, CI on PR heads and impacted-target uploads — with random queue
// settings (either mode, batching, bisection, pending-failure depth,
// optimistic merging, direct merges). After every step
// it asserts the World's invariants, at most concurrency +
// bisectionConcurrency runs in progress, entries and GitHub agreeing about
// every merge, no good PR failing without an excuse (flake, timeout,
// conflict, push, close, cancel), that the queue never paused itself, and
// the queue states (SPEC §4: no admission unless running, no run started
// while paused or switching modes, no merge while paused).
// Then it drains the queue (every CI job reports its intrinsic result) and
// asserts liveness: every entry ends within a bounded number of rounds,
// every good PR without an excuse is merged by the queue, no Bad PR is
// merged. Each engine bug it found has a hand-written regression test
// (TestRegression*, regressions_test.go); the random events steer around
// the bugs not fixed yet (listed in driver.go; -knownbugs runs into them). TestSuiteCatchesBrokenPorts
// proves the suite notices a port that lies about CI or leaves the PRs
// ahead out of test branches.
//
//	go test ./queue/sim -run 'TestInvariants$'                  # 2000 seeds (~3 s; ~15 s with -race)
//	go test ./queue/sim -run 'TestInvariants$' -seeds 100000    # more
//	go test ./queue/sim -run 'TestInvariants$' -seed N -steps K -v  # replay one, with its log
//	go test ./queue/sim -run 'TestInvariants$' -seed N -enginelog -v  # with the engine's decisions
//	go test ./queue/sim -run 'TestInvariants$' -knownbugs       # run into the bugs not fixed yet
//
// A failing run prints the seed, the shortest failing prefix of its steps,
// and the full event log (steps and every entry state change).
//
// # The simulator
//
// Workload, Sim, the baselines, Run and RunPreset (workload*.go, events.go,
// baseline*.go, runner*.go, metrics*.go, presets.go) run Poisson arrivals
// with log-normal CI through the real engine on a World, and through
// baseline policies, and compare time-to-merge, CI cost and, for our
// engine, its GitHub requests per merged PR (cmd/mqsim).
package sim
