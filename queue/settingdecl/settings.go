package settingdecl

//go:generate go run ./gen

// All are the queue's settings in the order getQueue shows them (after
// state and branch, which are the queue's, not settings).
var All = []Setting{
	{
		API: "concurrency", Field: "Concurrency", Store: "concurrency", Kind: Int,
		Default: 1, Min: 1, Max: 1000, MaxConst: "MaxConcurrency",
		Doc:     "Concurrency is how many test runs of the speculative chain may be in progress at once.",
		Example: 3,
	},
	{
		API: "testingTimeoutMinutes", Field: "TestingTimeoutMinutes", Store: "testing_timeout_minutes", Kind: Int,
		Default: 60, Min: 0, Max: 7 * 24 * 60, MaxConst: "MaxTestingTimeoutMinutes", RangeNote: "a week",
		Doc:     "TestingTimeoutMinutes ends a test run that has not finished after so many minutes (0 = no timeout).",
		Rule:    "0 = no timeout",
		Example: 90,
	},
	{
		API: "mode", Field: "Mode", Store: "mode", Kind: Enum,
		Enum: &EnumType{Name: "Mode", Doc: "Mode is the queue's testing mode.",
			Values: []EnumValue{{"ModeSingle", "single"}, {"ModeParallel", "parallel"}}},
		Default: "single", Shown: "Queue.EffectiveMode",
		Doc: "Mode is the queue's testing mode. A change while runs test waits in PendingMode (switching_modes).",
		Rule: "while the queue switches modes (`switching_modes`), `getQueue` shows the mode it switches to; " +
			"see **Changing `mode`** below",
		Example: "parallel",
	},
	{
		API: "canOptimisticallyMerge", Field: "CanOptimisticallyMerge", Store: "can_optimistically_merge", Kind: Bool,
		Doc:     "CanOptimisticallyMerge merges the PRs of a failed run once a run built on them passes.",
		Example: true,
	},
	{
		API: "pendingFailureDepth", Field: "PendingFailureDepth", Store: "pending_failure_depth", Kind: Int,
		Default: 0, Min: 0, Max: 1000, MaxConst: "MaxPendingFailureDepth",
		Doc:     "PendingFailureDepth is how many successor runs a failed run waits for before its PRs fail (pending_failure).",
		Example: 2,
	},
	{
		API: "batch", Field: "Batch", Store: "batch", Kind: Bool,
		Doc:     "Batch tests several PRs in one run.",
		Example: true,
	},
	{
		API: "batchingMaxWaitTimeMinutes", Field: "BatchingMaxWaitTimeMinutes", Store: "batching_max_wait_time_minutes", Kind: Int,
		Default: 5, Min: 0, Max: 24 * 60, MaxConst: "MaxBatchingMaxWaitTimeMinutes", RangeNote: "a day",
		Doc:     "BatchingMaxWaitTimeMinutes is how long a batch smaller than BatchingMinSize waits for more PRs.",
		Example: 7,
	},
	{
		API: "batchingMinSize", Field: "BatchingMinSize", Store: "batching_min_size", Kind: Int,
		Default: 4, Min: 1, Max: 1000, MaxConst: "MaxBatchSize",
		Doc:     "BatchingMinSize is how many PRs a batch waits for (up to BatchingMaxWaitTimeMinutes).",
		Example: 3,
	},
	{
		API: "createPrsForTestingBranches", Field: "CreatePrsForTestingBranches", Store: "create_prs_for_testing_branches", Kind: Bool,
		Doc:      "CreatePrsForTestingBranches opens a draft PR for each test branch, for CI that runs only on PRs.",
		Example:  true,
		SimFixed: "a GitHub surface (test PRs) the simulated GitHub does not model; the engine's decisions do not read it",
	},
	{
		API: "commentsEnabled", Field: "CommentsEnabled", Store: "comments_enabled", Kind: Bool, Default: true,
		Doc:     "CommentsEnabled lets the queue comment on PRs.",
		Example: false,
	},
	{
		API: "commandsEnabled", Field: "CommandsEnabled", Store: "commands_enabled", Kind: Bool, Default: true,
		Doc:      "CommandsEnabled lets /mq comments act on the queue.",
		Example:  false,
		SimFixed: "read by the comment handler, which the suite does not drive (it calls the service)",
	},
	{
		API: "statusCheckEnabled", Field: "StatusCheckEnabled", Store: "status_check_enabled", Kind: Bool, Default: true,
		Doc:     "StatusCheckEnabled shows the queue's check run on each PR.",
		Example: false,
	},
	{
		API: "bisectionConcurrency", Field: "BisectionConcurrency", Store: "bisection_concurrency", Kind: Int,
		Unset: true, Shown: "EffectiveBisectionConcurrency", DefaultFrom: "concurrency",
		Min: 1, Max: 1000, MaxConst: "MaxConcurrency",
		Doc: "BisectionConcurrency is how many bisection (and isolation) runs may be in progress at once; " +
			"0 = Concurrency, which a queue stores at creation and before Concurrency changes.",
		DefaultDoc: "`concurrency` at creation",
		Rule:       "stored at creation: a later change of `concurrency` does not move it",
		Example:    2,
	},
	{
		API: "requiredStatuses", Field: "RequiredStatuses", Store: "required_statuses", Kind: NullableList,
		WriteCheck: "checkRequiredStatuses",
		Delete:     "deleteRequiredStatuses", DeleteRule: "`true` resets `requiredStatuses` to `null` (branch protection); wins over `requiredStatuses`",
		Doc:        "RequiredStatuses are the checks a run must pass: nil = those branch protection requires; empty = explicitly none.",
		DefaultDoc: "`null`",
		Rule:       "non-empty names; `null` = the checks branch protection requires, `[]` = explicitly none (a run passes once its test branch is built)",
		Example:    []string{"ci/test", "lint"},
	},
	{
		API: "allowedBotSubmitters", Field: "AllowedBotSubmitters", Store: "allowed_bot_submitters", Kind: List, LaterKey: true,
		Check: "validateBotSubmitters",
		Doc: "AllowedBotSubmitters are the bot accounts (e.g. \"renovate[bot]\") allowed to submit pull requests, " +
			"as the hosted API names them; nil or empty = none (see docs/decisions.md for what enforces it).",
		Rule:     "at most 100 bot logins, each a GitHub login followed by `[bot]`, none twice (case-insensitive); order kept; `[]` = none",
		Example:  []string{"renovate[bot]", "Release-App[bot]"},
		SimFixed: "the permission check of the command handlers, which the suite does not drive",
	},
	{
		API: "batchingRules", Kind: EmptyList,
		Refusal: "batching rules are not supported; only [] is accepted, got %d rule(s)",
		Rule:    "only `[]` (a client echoing `getQueue`); a rule is refused: none are supported",
	},
	{
		API: "directMergeMode", Field: "DirectMergeMode", Store: "direct_merge_mode", Kind: Enum,
		Enum: &EnumType{Name: "DirectMergeMode", Doc: "DirectMergeMode controls whether an up-to-date PR may skip the test run.",
			Values: []EnumValue{{"DirectMergeOff", "off"}, {"DirectMergeAlways", "always"}}},
		Default: "off",
		Doc:     "DirectMergeMode lets an up-to-date PR that passed its own CI merge without a test run.",
		Example: "always",
	},
	{
		API: "optimizationMode", Field: "OptimizationMode", Store: "optimization_mode", Kind: Enum,
		Enum: &EnumType{Name: "OptimizationMode", Doc: "OptimizationMode controls bisection optimisations.",
			Values: []EnumValue{{"OptimizationOff", "off"}, {"OptimizationBisectionSkipTests", "bisection_skip_redundant_tests"}}},
		Default: "off",
		Doc:     "OptimizationMode skips bisection runs whose outcome is already known.",
		Example: "bisection_skip_redundant_tests",
	},
	{
		API: "mergeMethod", Field: "MergeMethod", Store: "merge_method", Kind: Enum,
		Enum: &EnumType{Name: "MergeMethod", Doc: "MergeMethod is the git strategy used to merge a PR into the target branch.",
			Values: []EnumValue{{"MergeCommit", "merge_commit"}, {"Squash", "squash"}, {"Rebase", "rebase"}}},
		Default: "squash",
		Doc:     "MergeMethod is how a PR is merged into the target branch.",
		Example: "rebase",
	},
	{
		API: "testBranchConstructionMode", Field: "TestBranchConstructionMode", Store: "test_branch_construction_mode", Kind: Enum,
		LaterKey: true,
		Enum: &EnumType{Name: "TestBranchConstructionMode",
			Doc: "TestBranchConstructionMode is how a run's test branch is built. The one mode is the hosted API's " +
				"rename_temp_branch: the merges are made on a scratch branch (ScratchPrefix) and the test branch is " +
				"created only at the finished commit, so CI sees one push of a complete tree (SPEC §6).",
			Values: []EnumValue{{"RenameTempBranch", "rename_temp_branch"}}},
		Unset: true, Shown: "EffectiveTestBranchConstructionMode",
		Doc:        "TestBranchConstructionMode is how test branches are built (\"\" = RenameTempBranch, the only mode).",
		DefaultDoc: "`rename_temp_branch`",
		Example:    "rename_temp_branch",
		SimFixed:   "it has one value",
	},
	{
		API: "enqueueingLabel", Field: "EnqueueingLabel", Store: "enqueueing_label", Kind: String,
		Default: "merge-queue", WriteCheck: "checkEnqueueingLabel",
		Doc:      "EnqueueingLabel is the label that submits a PR when added and cancels it when removed.",
		Rule:     "a GitHub label name, 1–50 printable characters",
		Example:  "ship-it",
		SimFixed: "a GitHub surface (labels) handled by the webhook handlers, which the suite does not drive",
	},
	{
		API: "labelCommandsEnabled", Field: "LabelCommandsEnabled", Store: "label_commands_enabled", Kind: Bool, Default: true,
		Doc:      "LabelCommandsEnabled turns EnqueueingLabel on.",
		Example:  false,
		SimFixed: "a GitHub surface (labels) handled by the webhook handlers, which the suite does not drive",
	},
	{
		API: "stateLabelsEnabled", Field: "StateLabelsEnabled", Store: "state_labels_enabled", Kind: Bool,
		Doc:      "StateLabelsEnabled shows each PR's queue state as a label.",
		Example:  true,
		SimFixed: "a GitHub surface (labels) the simulated GitHub does not model; the engine's decisions do not read it",
	},
	{
		API: "extensionEnabled", Field: "ExtensionEnabled", Store: "extension_enabled", Kind: Bool, Default: true,
		Doc:      "ExtensionEnabled lets the browser extension submit PRs.",
		Example:  false,
		SimFixed: "stored and shown only: nothing in the queue reads it",
	},
	{
		API: "batchingMaxSize", Field: "BatchingMaxSize", Store: "batching_max_size", Kind: Int,
		Unset: true, Shown: "EffectiveBatchingMaxSize", AtLeast: "batchingMinSize",
		Min: 1, Max: 1000, MaxConst: "MaxBatchSize",
		Doc:        "BatchingMaxSize is the most PRs one batch holds (0 = BatchingMinSize).",
		DefaultDoc: "`batchingMinSize` (following it until written)",
		Rule:       "once written it no longer follows `batchingMinSize` (our extension)",
		Example:    6,
	},
	{
		API: "notReadyTimeoutHours", Field: "NotReadyTimeoutHours", Store: "not_ready_timeout_hours", Kind: Int,
		Default: 0, Min: 0, Max: 365 * 24, MaxConst: "MaxNotReadyTimeoutHours", RangeNote: "a year",
		Doc:     "NotReadyTimeoutHours cancels a PR that waited not_ready for so many hours (0 = never).",
		Rule:    "0 = never (our extension)",
		Example: 24,
	},
	{
		API: "bisectionParts", Field: "BisectionParts", Store: "bisection_parts", Kind: Int,
		Unset: true, Shown: "EffectiveBisectionParts", Min: 2, Max: 100, MaxConst: "MaxBisectionParts",
		Doc: "BisectionParts is how many parts a failed batch is split into, in order, each tested on top of the " +
			"previous (our extension; 0 = 2, the halves of SPEC §5.4). More parts find a culprit in fewer rounds.",
		DefaultDoc: "`2` (halves)",
		Rule:       "our extension: how many parts a failed batch is split into, each tested at once on top of the previous; more parts find a culprit in fewer rounds",
		Example:    4,
	},
	{
		API: "testBranchPrefix", Field: "TestBranchPrefix", Store: "test_branch_prefix", Kind: String, LaterKey: true,
		Unset: true, Shown: "EffectiveTestBranchPrefix", Check: "ValidateTestBranchPrefix",
		Doc: "TestBranchPrefix starts the names of the queue's test branches, <prefix>pr-<N>/<testRunId> " +
			"(\"\" = DefaultTestBranchPrefix). CI must run on branches under it.",
		DefaultDoc: "`mq-merge/`",
		Rule: "our extension: a branch name followed by `/` (the `targetBranch` rules), at most 128 bytes, not `mq-temp/` " +
			"or under it. It must not put test branches under an existing branch's name (`main/` while `main` exists): " +
			"GitHub refuses to create them",
		Example:  "ci/merge-queue/",
		SimFixed: "it names test branches only; the service's tests cover other prefixes",
	},
	{
		API: "isolationRuns", Field: "IsolationRuns", Store: "isolation_runs", Kind: Bool, LaterKey: true,
		Doc: "IsolationRuns (our extension, off by default) also tests each admitted PR alone on the target head, " +
			"beside the speculative chain: a PR failing alone twice leaves the queue, and one that passed alone " +
			"is tested again once when its chain run fails as if by a flake (docs/decisions.md).",
		Rule:    "our extension: also test each admitted PR alone on the target head (see `getQueue`)",
		Example: true,
	},
	{
		// Added after queues were stored: migration 0017 writes the
		// default into the stored rows, so none lacks the key.
		API: "checksStartTimeoutMinutes", Field: "ChecksStartTimeoutMinutes", Store: "checks_start_timeout_minutes", Kind: Int,
		Default: 10, Min: 0, Max: 24 * 60, MaxConst: "MaxChecksStartTimeoutMinutes", RangeNote: "a day",
		Doc: "ChecksStartTimeoutMinutes is how long a test run waits for each required check to report anything " +
			"(even pending or queued) before it is tested once more on a new test commit; if the checks do not start " +
			"then either, the queue pauses and alerts: a CI that never starts is an outage, not a failed PR (0 = off).",
		Rule: "our extension: 0 = off. A run whose required checks report nothing at all within this time is tested " +
			"once more on a new test commit with the same tree; if they stay silent again, the PRs go back to " +
			"`pending` without blame and the queue pauses (`pausedReason` names the checks and the branch) until " +
			"it is set `running` again",
		Example:  3,
		SimFixed: "the simulated CI reports only results, never a start; the service and end-to-end tests cover it",
	},
	{
		API: "testingTimeoutFromHistory", Field: "TestingTimeoutFromHistory", Store: "testing_timeout_from_history", Kind: Bool,
		LaterKey: true,
		Doc: "TestingTimeoutFromHistory derives the testing timeout from the queue's recent successful runs once " +
			"enough finished (TestingTimeoutFor): their p95 plus a margin, never below a floor; " +
			"TestingTimeoutMinutes applies until then.",
		Rule: "our extension: the timeout is the p95 of the queue's last 20 successful runs plus half of it (at least " +
			"5 minutes), never below 10 minutes, once 5 runs succeeded; `testingTimeoutMinutes` applies until then. " +
			"Each run shows when it times out (`timesOutAt`)",
		Example: true,
	},
	{
		// Added after queues were stored: migration 0017 writes the
		// default into the stored rows, so none lacks the key.
		API: "stallAlertMinutes", Field: "StallAlertMinutes", Store: "stall_alert_minutes", Kind: Int,
		Default: 60, Min: 0, Max: 7 * 24 * 60, MaxConst: "MaxStallAlertMinutes", RangeNote: "a week",
		Doc: "StallAlertMinutes raises a stall alert when a running queue with admitted PRs has seen nothing happen " +
			"(no state change, run, check report or settings change) for so many minutes (0 = off).",
		Rule: "our extension: 0 = off. The alert is a log line, `mq_queue_stalled` and `mq_queue_stalls_total`, and a " +
			"dashboard banner saying what each PR waits for",
		Example:  45,
		SimFixed: "an alert only: it changes no decision of the engine",
	},
	{
		API: "checkRetries", Field: "CheckRetries", Store: "check_retries", Kind: Int, LaterKey: true,
		Min: 0, Max: 5, MaxConst: "MaxCheckRetries",
		Doc: "CheckRetries is how many times a run that failed on a required check is tried again (a failed check " +
			"run re-run on the same test commit, a failed commit status on a new test commit with the same tree), " +
			"while its PRs keep their place (0 = never), within CheckRetryBudgetPercent.",
		Rule: "our extension: 0 = never. The PRs keep their place and the runs behind wait as for any undecided " +
			"failure; a failed check run (GitHub Actions job, another App's check suite) is re-run on the same test " +
			"commit, a failed commit status gets a new test commit with the same tree (as does a check the App may " +
			"not re-run: see docs/github-app.md); each attempt shows as \"attempt 2 of 3\" in the state detail (check run, comment, API, " +
			"dashboard, notifications), and a PR that fails every attempt fails with all of them linked",
		Example:  2,
		SimFixed: "the suite's flakes are drawn per run; the service and end-to-end tests cover retries",
	},
	{
		API: "checkRetryBudgetPercent", Field: "CheckRetryBudgetPercent", Store: "check_retry_budget_percent", Kind: Int,
		LaterKey: true, Unset: true, Shown: "EffectiveCheckRetryBudgetPercent", DefaultDoc: "`20`",
		Min: 1, Max: 100, MaxConst: "MaxCheckRetryBudgetPercent",
		Doc: "CheckRetryBudgetPercent bounds the retries of CheckRetries to this share of the runs the queue " +
			"started in the last hour, rounded up (0 = DefaultCheckRetryBudgetPercent).",
		Rule:     "our extension: retries in the last hour stay within this share of the runs started in it (rounded up)",
		Example:  50,
		SimFixed: "the suite does not retry (checkRetries is fixed at 0)",
	},
	{
		API: "fastForwardLanding", Field: "FastForwardLanding", Store: "fast_forward_landing", Kind: Bool, LaterKey: true,
		Across: "checkFastForwardLanding", ExampleWith: map[string]any{"mergeMethod": "merge_commit"},
		Doc: "FastForwardLanding lands a passed unit by one fast-forward of the target branch to its tested commit, " +
			"whose merge commits carry GitHub's messages, instead of one PR merge per entry (our extension; " +
			"only with MergeMethod merge_commit). A refused fast-forward falls back to the PR merges.",
		Rule: "our extension, only with `mergeMethod` `merge_commit` (refused otherwise): a passed unit lands by one " +
			"non-forced update of the target branch to its tested commit, whose merge commits read \"Merge pull request " +
			"#N from owner/branch\" and the PR title (or its `merge-commit-title:`), so GitHub shows each PR merged; " +
			"if GitHub refuses the update (not a fast-forward, branch protection) the unit merges PR by PR as by default",
		Example: true,
	},
	{
		API: "autoTune", Field: "AutoTune", Store: "auto_tune", Kind: Bool, LaterKey: true,
		Across: "checkAutoTune", ExampleWith: map[string]any{"autoTuneMaxRuns": 8},
		Doc: "AutoTune (our extension, off by default) lets the queue choose its tuned settings (concurrency, " +
			"batching, bisection, pendingFailureDepth, optimistic merging, isolation runs) from its own traffic, " +
			"within AutoTuneMaxRuns and AutoTuneMaxRunsPerHundredMerges; the configured values apply again once " +
			"it is turned off.",
		Rule: "our extension, only with `autoTuneMaxRuns` set (refused otherwise): the queue measures its arrivals, CI " +
			"durations, failure and flake rates (in parallel mode also how its PRs' impacted targets overlap) and, at " +
			"intervals, chooses the tuned settings within the bounds (in parallel mode the concurrency only); " +
			"see **`autoTune`** below",
		Example:  true,
		SimFixed: "the suite draws fixed settings; ours(auto) in queue/sim runs the tuner on the engine",
	},
	{
		API: "autoTuneMaxRuns", Field: "AutoTuneMaxRuns", Store: "auto_tune_max_runs", Kind: Int, LaterKey: true,
		Min: 0, Max: 1000, MaxConst: "MaxConcurrency",
		Doc: "AutoTuneMaxRuns is the most CI runs at once autoTune may choose: the chain's concurrency plus the " +
			"bisection and isolation runs beside it (0 = not set; required with AutoTune).",
		Rule:     "our extension: 0 = not set; at least 1 when `autoTune` is on",
		Example:  8,
		SimFixed: "a bound of autoTune, which the suite does not draw",
	},
	{
		API: "autoTuneMaxRunsPerHundredMerges", Field: "AutoTuneMaxRunsPerHundredMerges", Store: "auto_tune_max_runs_per_hundred_merges",
		Kind: Int, LaterKey: true, Min: 0, Max: 100000, MaxConst: "MaxAutoTuneRunsPerHundredMerges",
		Doc: "AutoTuneMaxRunsPerHundredMerges bounds the CI runs per 100 merged PRs that a tuning autoTune chooses " +
			"may be estimated to spend (0 = no bound; 150 = 1.5 runs per merged PR).",
		Rule:     "our extension: 0 = no bound; `150` = at most 1.5 CI runs per merged PR, as estimated for the observed traffic",
		Example:  150,
		SimFixed: "a bound of autoTune, which the suite does not draw",
	},
}
