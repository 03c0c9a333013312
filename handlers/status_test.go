package handlers

import (
	"context"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
)

func TestStatus(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		file      string
		state     string // "" keeps the example's
		wantState queue.CheckState
	}{
		{"success", "payload.json", "", queue.CheckSuccess},
		{"with installation", "with-installation.payload.json", "", queue.CheckSuccess},
		{"null author and committer", "with-author-committer-null.payload.json", "", queue.CheckSuccess},
		{"pending", "payload.json", "pending", queue.CheckPending},
		{"failure", "payload.json", "failure", queue.CheckFailure},
		{"error", "payload.json", "error", queue.CheckFailure},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			svc := newFakeService()
			payload := loadExample(t, "status/"+tt.file)
			raw := "success"
			if tt.state != "" {
				raw = tt.state
				payload = patchJSON(t, payload, func(m map[string]any) {
					m["state"] = tt.state
					m["target_url"] = "https://ci.example/1"
				})
			}
			if err := NewStatusHandler(testConfig(), svc).Handle(context.Background(), "status", "d", payload); err != nil {
				t.Fatal(err)
			}
			want := queue.CheckResult{
				SHA: "6113728f27ae82c7b1a177c8d03f9e96e0adf246", Kind: queue.KindStatus, Name: "default",
				State: tt.wantState, Raw: raw,
				UpdatedAt: time.Date(2019, 5, 15, 15, 20, 55, 0, time.UTC),
			}
			if tt.state != "" {
				want.URL = "https://ci.example/1"
			}
			if len(svc.checks) != 1 || !sameCheck(svc.checks[0], want) {
				t.Fatalf("checks %+v, want %+v", svc.checks, want)
			}
		})
	}
}

func sameCheck(a, b queue.CheckResult) bool {
	return a.SHA == b.SHA && a.Kind == b.Kind && a.Name == b.Name && a.State == b.State &&
		a.Raw == b.Raw && a.URL == b.URL && a.UpdatedAt.Equal(b.UpdatedAt)
}
