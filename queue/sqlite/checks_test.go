package sqlite

import (
	"context"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
)

func TestRecordCheck(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openTest(t)
	base := queue.CheckResult{SHA: "abc", Kind: queue.KindCheckRun, Name: "test", State: queue.CheckPending,
		Raw: "queued", URL: "https://ci.example/1", UpdatedAt: at(10 * time.Second)}
	with := func(state queue.CheckState, raw string, updated time.Time) queue.CheckResult {
		c := base
		c.State, c.Raw, c.UpdatedAt = state, raw, updated
		return c
	}
	cases := []struct {
		name   string
		record queue.CheckResult
		want   queue.CheckResult
	}{
		{"newer replaces", with(queue.CheckSuccess, "success", at(20*time.Second)), with(queue.CheckSuccess, "success", at(20*time.Second))},
		{"older is ignored", with(queue.CheckFailure, "failure", at(15*time.Second)), with(queue.CheckSuccess, "success", at(20*time.Second))},
		{"zero time is oldest", with(queue.CheckFailure, "failure", time.Time{}), with(queue.CheckSuccess, "success", at(20*time.Second))},
		{"equal time replaces", with(queue.CheckFailure, "timed_out", at(20*time.Second)), with(queue.CheckFailure, "timed_out", at(20*time.Second))},
	}
	if err := s.RecordCheck(ctx, testRepo, base); err != nil {
		t.Fatal(err)
	}
	for _, tc := range cases { // sequential: each case builds on the previous
		if err := s.RecordCheck(ctx, testRepo, tc.record); err != nil {
			t.Fatalf("%s: RecordCheck: %v", tc.name, err)
		}
		got, err := s.ListChecks(ctx, testRepo, "abc")
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 {
			t.Fatalf("%s: %d checks, want 1", tc.name, len(got))
		}
		if got[0] != tc.want {
			t.Errorf("%s: got %+v, want %+v", tc.name, got[0], tc.want)
		}
	}
}

func TestListChecksKeys(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openTest(t)
	other := queue.Repo{Host: "github.com", Owner: "acme", Name: "gadgets"}
	record := func(repo queue.Repo, c queue.CheckResult) {
		t.Helper()
		if err := s.RecordCheck(ctx, repo, c); err != nil {
			t.Fatal(err)
		}
	}
	status := queue.CheckResult{SHA: "abc", Kind: queue.KindStatus, Name: "test", State: queue.CheckSuccess, UpdatedAt: t0}
	run := queue.CheckResult{SHA: "abc", Kind: queue.KindCheckRun, Name: "test", State: queue.CheckFailure, UpdatedAt: t0}
	lint := queue.CheckResult{SHA: "abc", Kind: queue.KindCheckRun, Name: "lint", State: queue.CheckPending}
	record(testRepo, status)
	record(testRepo, run)
	record(testRepo, lint)
	record(testRepo, queue.CheckResult{SHA: "def", Kind: queue.KindStatus, Name: "test", State: queue.CheckSuccess})
	record(other, queue.CheckResult{SHA: "abc", Kind: queue.KindStatus, Name: "test", State: queue.CheckFailure})

	got, err := s.ListChecks(ctx, testRepo, "abc")
	if err != nil {
		t.Fatal(err)
	}
	assertEqual(t, got, []queue.CheckResult{lint, run, status})

	if got, err := s.ListChecks(ctx, testRepo, "nope"); err != nil || len(got) != 0 {
		t.Errorf("ListChecks(unknown sha) = %v, %v", got, err)
	}
}
