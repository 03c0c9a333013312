package sqlite

import "github.com/mergequeue/mq/queue"

// settingsDoc is the stored JSON form of queue.Settings. Its tags, not the
// Go field names, are the storage format, so renaming a field of
// queue.Settings does not lose stored values. The two types convert into
// each other, so the compiler insists that they list the same fields in the
// same order (the order of the declaration, queue/settingdecl): a setting
// added there must be added here too. A key missing from an older row
// decodes as the zero value: test_branch_construction_mode,
// allowed_bot_submitters and test_branch_prefix, added after the first
// release, as "" (rename_temp_branch), nil (no bot) and "" (mq-merge/);
// isolation_runs (issue #11) as false.
type settingsDoc struct {
	Concurrency                 int                              `json:"concurrency"`
	TestingTimeoutMinutes       int                              `json:"testing_timeout_minutes"`
	Mode                        queue.Mode                       `json:"mode"`
	CanOptimisticallyMerge      bool                             `json:"can_optimistically_merge"`
	PendingFailureDepth         int                              `json:"pending_failure_depth"`
	Batch                       bool                             `json:"batch"`
	BatchingMaxWaitTimeMinutes  int                              `json:"batching_max_wait_time_minutes"`
	BatchingMinSize             int                              `json:"batching_min_size"`
	CreatePrsForTestingBranches bool                             `json:"create_prs_for_testing_branches"`
	CommentsEnabled             bool                             `json:"comments_enabled"`
	CommandsEnabled             bool                             `json:"commands_enabled"`
	StatusCheckEnabled          bool                             `json:"status_check_enabled"`
	BisectionConcurrency        int                              `json:"bisection_concurrency"`
	RequiredStatuses            []string                         `json:"required_statuses"` // null = branch protection, [] = none
	AllowedBotSubmitters        []string                         `json:"allowed_bot_submitters"`
	DirectMergeMode             queue.DirectMergeMode            `json:"direct_merge_mode"`
	OptimizationMode            queue.OptimizationMode           `json:"optimization_mode"`
	MergeMethod                 queue.MergeMethod                `json:"merge_method"`
	TestBranchConstructionMode  queue.TestBranchConstructionMode `json:"test_branch_construction_mode"`
	EnqueueingLabel             string                           `json:"enqueueing_label"`
	LabelCommandsEnabled        bool                             `json:"label_commands_enabled"`
	StateLabelsEnabled          bool                             `json:"state_labels_enabled"`
	ExtensionEnabled            bool                             `json:"extension_enabled"`
	BatchingMaxSize             int                              `json:"batching_max_size"`
	NotReadyTimeoutHours        int                              `json:"not_ready_timeout_hours"`
	BisectionParts              int                              `json:"bisection_parts"`
	TestBranchPrefix            string                           `json:"test_branch_prefix"`
	IsolationRuns               bool                             `json:"isolation_runs"`
}

func toSettingsDoc(s queue.Settings) settingsDoc {
	return settingsDoc(s)
}

func fromSettingsDoc(d settingsDoc) queue.Settings {
	return queue.Settings(d)
}
