package sqlite

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
