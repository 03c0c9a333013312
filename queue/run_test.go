package queue

import "testing"

func TestRequiredSourceFor(t *testing.T) {
	t.Parallel()
	override := DefaultSettings()
	override.RequiredStatuses = []string{"ci"}
	none := DefaultSettings()
	none.RequiredStatuses = []string{}
	tests := []struct {
		name   string
		s      Settings
		parent *TestRun
		want   RequiredSource
	}{
		{"branch protection (null)", DefaultSettings(), nil, RequiredFromBranchProtection},
		{"the queue's statuses", override, nil, RequiredFromQueue},
		{"explicitly none is the queue's", none, nil, RequiredFromQueue},
		{"a bisection keeps its parent's", override, &TestRun{RequiredSource: RequiredFromBranchProtection}, RequiredFromBranchProtection},
		{"a parent recorded before sources were kept", override, &TestRun{}, ""},
	}
	for _, tt := range tests {
		if got := RequiredSourceFor(tt.s, tt.parent); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}
