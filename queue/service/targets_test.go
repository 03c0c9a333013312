package service_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/service"
)

func TestSetImpactedTargets(t *testing.T) {
	t.Parallel()
	many := make([]string, 100000)
	for i := range many {
		many[i] = fmt.Sprintf("//pkg/%d:target", i)
	}
	tests := []struct {
		name string
		in   queue.TargetsUpdate
		want queue.Targets
	}{
		{"list", queue.TargetsUpdate{PRNumber: 5, SHA: "abc", List: []string{"//a", "//b"}},
			queue.Targets{PRNumber: 5, SHA: "abc", List: []string{"//a", "//b"}}},
		{"all ignores the list", queue.TargetsUpdate{PRNumber: 5, SHA: "abc", All: true, List: []string{"//a"}},
			queue.Targets{PRNumber: 5, SHA: "abc", All: true}},
		{"nil list is empty", queue.TargetsUpdate{PRNumber: 5, SHA: "abc"},
			queue.Targets{PRNumber: 5, SHA: "abc", List: []string{}}},
		{"100k targets", queue.TargetsUpdate{PRNumber: 5, SHA: "abc", List: many},
			queue.Targets{PRNumber: 5, SHA: "abc", List: many}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newOpsFixture(t)
			q := f.queue("main", queue.DefaultSettings())
			wakes := f.wakeCount()
			tt.in.Key = opsKey
			if err := f.svc.SetImpactedTargets(f.ctx, tt.in); err != nil {
				t.Fatalf("SetImpactedTargets: %v", err)
			}
			got, err := f.store.GetTargets(f.ctx, q.ID, tt.in.PRNumber)
			if err != nil {
				t.Fatalf("GetTargets: %v", err)
			}
			want := tt.want
			want.QueueID, want.UpdatedAt = q.ID, opsNow
			if got.All {
				got.List = nil // the store keeps [] for ALL
			}
			opsEqual(t, "targets", *got, want)
			if f.wakeCount() != wakes+1 {
				t.Errorf("queue not woken")
			}
		})
	}
}

func TestSetImpactedTargetsReplacesAndNeedsNoSubmission(t *testing.T) {
	t.Parallel()
	f := newOpsFixture(t)
	q := f.queue("main", queue.DefaultSettings())
	for _, u := range []queue.TargetsUpdate{
		{Key: opsKey, PRNumber: 9, SHA: "old", All: true},
		{Key: opsKey, PRNumber: 9, SHA: "new", List: []string{"//x"}},
	} {
		if err := f.svc.SetImpactedTargets(f.ctx, u); err != nil {
			t.Fatal(err)
		}
	}
	got, err := f.store.GetTargets(f.ctx, q.ID, 9)
	if err != nil {
		t.Fatal(err)
	}
	if got.SHA != "new" || got.All || len(got.List) != 1 {
		t.Errorf("targets = %+v, want the second upload", got)
	}
}

func TestSetImpactedTargetsErrors(t *testing.T) {
	t.Parallel()
	f := newOpsFixture(t)
	f.queue("main", queue.DefaultSettings())
	unknown := opsKey
	unknown.Branch = "nope"
	var ie *queue.InputError
	if err := f.svc.SetImpactedTargets(f.ctx, queue.TargetsUpdate{Key: unknown, PRNumber: 1, SHA: "a"}); !errors.Is(err, queue.ErrNotFound) {
		t.Errorf("unknown queue: %v, want ErrNotFound", err)
	}
	if err := f.svc.SetImpactedTargets(f.ctx, queue.TargetsUpdate{Key: opsKey, PRNumber: 1}); !errors.As(err, &ie) {
		t.Errorf("missing sha: %v, want InputError", err)
	}
	if err := f.svc.SetImpactedTargets(f.ctx, queue.TargetsUpdate{Key: opsKey, SHA: "a"}); !errors.As(err, &ie) {
		t.Errorf("missing number: %v, want InputError", err)
	}
}

func TestConfirmForkedRun(t *testing.T) {
	t.Parallel()
	const head = "1111111111111111111111111111111111111111"
	tests := []struct {
		name          string
		run           *opsRun
		runErr        error
		prHead        string
		prErr         error
		sha           string
		wantConfirmed bool
		wantTransient bool
	}{
		{"in progress on the PR head", &opsRun{"in_progress", head}, nil, head, nil, head, true, false},
		{"queued on the PR head", &opsRun{"queued", head}, nil, head, nil, head, true, false},
		{"completed run", &opsRun{"completed", head}, nil, head, nil, head, false, false},
		{"run on another SHA", &opsRun{"in_progress", "2222"}, nil, head, nil, head, false, false},
		{"PR moved on", &opsRun{"in_progress", head}, nil, "3333", nil, head, false, false},
		{"unknown run", nil, nil, head, nil, head, false, false},
		{"unknown PR", &opsRun{"in_progress", head}, nil, "", nil, head, false, false},
		{"GitHub down reading the run", nil, fmt.Errorf("502: %w", queue.ErrTransient), head, nil, head, false, true},
		{"GitHub down reading the PR", &opsRun{"in_progress", head}, nil, head, fmt.Errorf("502: %w", queue.ErrTransient), head, false, true},
		{"empty sha", &opsRun{"in_progress", ""}, nil, "", nil, "", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newOpsFixture(t)
			if tt.run != nil {
				f.gh.runs[77] = *tt.run
			}
			f.gh.runErr, f.gh.prErr = tt.runErr, tt.prErr
			if tt.prHead != "" {
				f.gh.prs[5] = &queue.PullRequest{Number: 5, PRFacts: queue.PRFacts{HeadSHA: tt.prHead}}
			}
			err := f.svc.ConfirmForkedRun(f.ctx, opsKey.Repo, 5, tt.sha, 77)
			if tt.wantConfirmed {
				if err != nil {
					t.Fatalf("ConfirmForkedRun: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("ConfirmForkedRun confirmed")
			}
			if got := errors.Is(err, queue.ErrRunNotConfirmed); got == tt.wantTransient {
				t.Errorf("errors.Is(ErrRunNotConfirmed) = %v for %v", got, err)
			}
			if got := errors.Is(err, queue.ErrTransient); got != tt.wantTransient {
				t.Errorf("errors.Is(ErrTransient) = %v for %v", got, err)
			}
		})
	}
}

// portWithoutRuns is a queue.GitHub that cannot read workflow runs.
type portWithoutRuns struct{ queue.GitHub }

func TestConfirmForkedRunNeedsWorkflowRuns(t *testing.T) {
	t.Parallel()
	f := newOpsFixture(t)
	svc := service.NewService(f.store, portWithoutRuns{f.gh}, service.Options{})
	err := svc.ConfirmForkedRun(context.Background(), opsKey.Repo, 5, "abc", 77)
	if !errors.Is(err, queue.ErrRunNotConfirmed) {
		t.Fatalf("err = %v, want ErrRunNotConfirmed", err)
	}
}
