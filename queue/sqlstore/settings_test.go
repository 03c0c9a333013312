package sqlstore

import (
	"encoding/json"
	"testing"

	"github.com/mergequeue/mq/queue"
)

// A settings document stored before a field existed decodes with that
// field's default.
func TestSettingsDocOlderRows(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		doc        string
		wantMode   queue.TestBranchConstructionMode
		wantPrefix string
		wantBots   []string
	}{
		{"before construction mode, bots and prefix",
			`{"mode":"single","concurrency":1,"batching_min_size":4,"merge_method":"squash","direct_merge_mode":"off","optimization_mode":"off","required_statuses":null}`,
			queue.RenameTempBranch, "mq-merge/", nil},
		{"with them",
			`{"mode":"single","concurrency":1,"batching_min_size":4,"merge_method":"squash","direct_merge_mode":"off","optimization_mode":"off",
			  "test_branch_construction_mode":"rename_temp_branch","allowed_bot_submitters":["a[bot]"],"test_branch_prefix":"ci/mq/"}`,
			queue.RenameTempBranch, "ci/mq/", []string{"a[bot]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var d settingsDoc
			if err := json.Unmarshal([]byte(tt.doc), &d); err != nil {
				t.Fatal(err)
			}
			s := fromSettingsDoc(d)
			if err := s.Validate(); err != nil {
				t.Errorf("decoded settings are invalid: %v", err)
			}
			if got := s.EffectiveTestBranchConstructionMode(); got != tt.wantMode {
				t.Errorf("construction mode %q, want %q", got, tt.wantMode)
			}
			if got := s.EffectiveTestBranchPrefix(); got != tt.wantPrefix {
				t.Errorf("prefix %q, want %q", got, tt.wantPrefix)
			}
			assertEqual(t, s.AllowedBotSubmitters, tt.wantBots)
		})
	}
}

// A row as the release before the declared settings stored it (every key,
// in its field order then) reads back as the same settings: the stored
// keys follow from the declaration and must never change.
func TestSettingsDocReadsRowsStoredBefore(t *testing.T) {
	t.Parallel()
	const row = `{"mode":"parallel","concurrency":3,"testing_timeout_minutes":90,"can_optimistically_merge":true,` +
		`"pending_failure_depth":2,"batch":true,"batching_max_wait_time_minutes":7,"batching_min_size":3,` +
		`"batching_max_size":6,"create_prs_for_testing_branches":true,"comments_enabled":false,"commands_enabled":false,` +
		`"status_check_enabled":false,"bisection_concurrency":2,"required_statuses":["ci/test"],"direct_merge_mode":"always",` +
		`"optimization_mode":"bisection_skip_redundant_tests","merge_method":"rebase","enqueueing_label":"ship-it",` +
		`"label_commands_enabled":false,"state_labels_enabled":true,"extension_enabled":false,"not_ready_timeout_hours":24,` +
		`"bisection_parts":4,"test_branch_construction_mode":"rename_temp_branch","allowed_bot_submitters":["a[bot]"],` +
		`"test_branch_prefix":"ci/mq/","isolation_runs":true,"checks_start_timeout_minutes":10,"testing_timeout_from_history":true,"stall_alert_minutes":60,"check_retries":2,"check_retry_budget_percent":20,"fast_forward_landing":false,"auto_tune":false,"auto_tune_max_runs":0,"auto_tune_max_runs_per_hundred_merges":0}`
	want := queue.Settings{Mode: queue.ModeParallel, Concurrency: 3, TestingTimeoutMinutes: 90, CanOptimisticallyMerge: true,
		PendingFailureDepth: 2, Batch: true, BatchingMaxWaitTimeMinutes: 7, BatchingMinSize: 3, BatchingMaxSize: 6,
		CreatePrsForTestingBranches: true, BisectionConcurrency: 2, RequiredStatuses: []string{"ci/test"},
		DirectMergeMode: queue.DirectMergeAlways, OptimizationMode: queue.OptimizationBisectionSkipTests, MergeMethod: queue.Rebase,
		EnqueueingLabel: "ship-it", StateLabelsEnabled: true, NotReadyTimeoutHours: 24, BisectionParts: 4,
		TestBranchConstructionMode: queue.RenameTempBranch, AllowedBotSubmitters: []string{"a[bot]"}, TestBranchPrefix: "ci/mq/",
		IsolationRuns: true, ChecksStartTimeoutMinutes: 10, TestingTimeoutFromHistory: true, StallAlertMinutes: 60, CheckRetries: 2, CheckRetryBudgetPercent: 20}
	var d settingsDoc
	if err := json.Unmarshal([]byte(row), &d); err != nil {
		t.Fatal(err)
	}
	assertEqual(t, fromSettingsDoc(d), want)
	// And what is stored now reads back as the same row would.
	b, err := json.Marshal(toSettingsDoc(want))
	if err != nil {
		t.Fatal(err)
	}
	var again, old map[string]any
	if err := json.Unmarshal(b, &again); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(row), &old); err != nil {
		t.Fatal(err)
	}
	assertEqual(t, again, old)
}
