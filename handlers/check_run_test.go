package handlers

import (
	"context"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
)

func TestCheckRunEvents(t *testing.T) {
	t.Parallel()
	const sha = "ec26c3e57ca3a959ca5aad62de7213c562f8c821"
	const url = "https://github.com/Codertocat/Hello-World/runs/128620228"
	at := time.Date(2019, 5, 15, 15, 21, 12, 0, time.UTC)
	tests := []struct {
		file string
		edit func(m map[string]any)
		want *queue.CheckResult
	}{
		{file: "completed.payload.json", want: &queue.CheckResult{SHA: sha, Kind: queue.KindCheckRun,
			Name: "Octocoders-linter", State: queue.CheckSuccess, Raw: "success", URL: url, UpdatedAt: at}},
		{file: "completed.1.payload.json", want: &queue.CheckResult{SHA: sha, Kind: queue.KindCheckRun,
			Name: "Octocoders-linter", State: queue.CheckFailure, Raw: "failure", URL: url, UpdatedAt: at}},
		{file: "created.payload.json", want: &queue.CheckResult{SHA: sha, Kind: queue.KindCheckRun,
			Name: "Octocoders-linter", State: queue.CheckPending, Raw: "queued", URL: url, UpdatedAt: at}},
		{file: "rerequested.payload.json", want: &queue.CheckResult{SHA: "d6fde92930d4715a2b49857d24b940956b26d2d3",
			Kind: queue.KindCheckRun, Name: "randscape", State: queue.CheckSuccess, Raw: "neutral",
			URL: "http://github.com/github/hello-world/runs/4", UpdatedAt: time.Date(2018, 5, 4, 1, 14, 52, 0, time.UTC)}},
		{file: "requested_action.payload.json"},
		{file: "completed.payload.json", edit: func(m map[string]any) {
			obj(m, "check_run")["name"] = "Merge Queue (main)"
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			svc := newFakeService()
			payload := loadExample(t, "check_run/"+tt.file)
			if tt.edit != nil {
				payload = patchJSON(t, payload, tt.edit)
			}
			if err := NewCheckRunHandler(testConfig(), svc).Handle(context.Background(), "check_run", "d", payload); err != nil {
				t.Fatal(err)
			}
			if tt.want == nil {
				if len(svc.checks) != 0 {
					t.Fatalf("checks %+v, want none", svc.checks)
				}
				return
			}
			if len(svc.checks) != 1 || !sameCheck(svc.checks[0], *tt.want) {
				t.Fatalf("checks %+v, want %+v", svc.checks, *tt.want)
			}
		})
	}
}
