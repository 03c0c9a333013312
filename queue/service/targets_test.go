package service_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
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
			want.QueueID, want.UpdatedAt, want.Source = q.ID, opsNow, queue.TargetsFromToken
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

// forkRun is the own pull_request run of PR #5 from the fork
// forker/widgets, on branch fix at head.
func forkRun(status, head string) queue.WorkflowRun {
	return queue.WorkflowRun{ID: 77, Status: status, Event: "pull_request", HeadSHA: head, HeadBranch: "fix", HeadRepo: "forker/widgets"}
}

// forkPR is PR #5 from the fork forker/widgets, branch fix, at head.
func forkPR(head string) *queue.PullRequest {
	return &queue.PullRequest{Number: 5, HeadRef: "fix", HeadRepo: "forker/widgets", PRFacts: queue.PRFacts{HeadSHA: head}}
}

func TestConfirmForkedRun(t *testing.T) {
	t.Parallel()
	const head = "1111111111111111111111111111111111111111"
	with := func(r queue.WorkflowRun, edit func(r *queue.WorkflowRun)) *queue.WorkflowRun {
		edit(&r)
		return &r
	}
	inProgress := forkRun("in_progress", head)
	tests := []struct {
		name          string
		run           *queue.WorkflowRun
		runErr        error
		pr            *queue.PullRequest
		prErr         error
		sha           string
		wantConfirmed bool
		wantTransient bool
		wantWhy       string
	}{
		{"in progress on the PR head", &inProgress, nil, forkPR(head), nil, head, true, false, ""},
		{"queued on the PR head", with(inProgress, func(r *queue.WorkflowRun) { r.Status = "queued" }), nil, forkPR(head), nil, head, true, false, ""},
		{"names compare case-insensitively", with(inProgress, func(r *queue.WorkflowRun) { r.HeadRepo = "Forker/Widgets" }), nil, forkPR(head), nil, head, true, false, ""},
		{"completed run", with(inProgress, func(r *queue.WorkflowRun) { r.Status = "completed" }), nil, forkPR(head), nil, head, false, false, "not in progress"},
		{"run on another SHA", with(inProgress, func(r *queue.WorkflowRun) { r.HeadSHA = "2222" }), nil, forkPR(head), nil, head, false, false, "runs 2222"},
		{"PR moved on", &inProgress, nil, forkPR("3333"), nil, head, false, false, "head is 3333"},
		{"unknown run", nil, nil, forkPR(head), nil, head, false, false, "404"},
		{"unknown PR", &inProgress, nil, nil, nil, head, false, false, "not found"},
		{"GitHub down reading the run", nil, fmt.Errorf("502: %w", queue.ErrTransient), forkPR(head), nil, head, false, true, "502"},
		{"GitHub down reading the PR", &inProgress, nil, forkPR(head), fmt.Errorf("502: %w", queue.ErrTransient), head, false, true, "502"},
		{"empty sha", with(inProgress, func(r *queue.WorkflowRun) { r.HeadSHA = "" }), nil, nil, nil, "", false, false, "incomplete"},
		// Issue #15: the run must be the fork PR's own run.
		{"push run at the PR head", with(inProgress, func(r *queue.WorkflowRun) { r.Event = "push" }), nil, forkPR(head), nil, head, false, false, `triggered by "push"`},
		{"pull_request_target run", with(inProgress, func(r *queue.WorkflowRun) { r.Event = "pull_request_target" }), nil, forkPR(head), nil, head, false, false, "pull_request_target"},
		{"run from the base repository", with(inProgress, func(r *queue.WorkflowRun) { r.HeadRepo = "acme/widgets" }), nil,
			&queue.PullRequest{Number: 5, HeadRef: "fix", HeadRepo: "acme/widgets", PRFacts: queue.PRFacts{HeadSHA: head}}, nil, head, false, false, "not of a fork"},
		{"run from the base repository, spelled otherwise", with(inProgress, func(r *queue.WorkflowRun) { r.HeadRepo = "ACME/Widgets" }), nil,
			forkPR(head), nil, head, false, false, "not of a fork"},
		{"run for another PR's fork at the same SHA", with(inProgress, func(r *queue.WorkflowRun) { r.HeadRepo = "mallory/widgets" }), nil,
			forkPR(head), nil, head, false, false, `from "mallory/widgets"`},
		{"run on another branch of the fork", with(inProgress, func(r *queue.WorkflowRun) { r.HeadBranch = "other" }), nil,
			forkPR(head), nil, head, false, false, `runs "other"`},
		{"run listed for other PRs", with(inProgress, func(r *queue.WorkflowRun) { r.PullRequests = []int{6} }), nil,
			forkPR(head), nil, head, false, false, "pull requests [6]"},
		{"run without a head repository", with(inProgress, func(r *queue.WorkflowRun) { r.HeadRepo = "" }), nil,
			forkPR(head), nil, head, false, false, "no head repository"},
		{"PR whose fork was deleted", &inProgress, nil,
			&queue.PullRequest{Number: 5, HeadRef: "fix", PRFacts: queue.PRFacts{HeadSHA: head}}, nil, head, false, false, `comes from ""`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newOpsFixture(t)
			if tt.run != nil {
				f.gh.runs[77] = *tt.run
			}
			f.gh.runErr, f.gh.prErr = tt.runErr, tt.prErr
			if tt.pr != nil {
				f.gh.prs[5] = tt.pr
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
			if !strings.Contains(err.Error(), tt.wantWhy) {
				t.Errorf("err = %v, want it to say %q", err, tt.wantWhy)
			}
		})
	}
}

// TestForkRunCannotReplaceTokenTargets: a forked run's upload over targets
// a token set for the same SHA is refused and changes nothing; over a
// token's targets for an older SHA (stale) or over another fork upload it
// is stored; a token's upload always is.
func TestForkRunCannotReplaceTokenTargets(t *testing.T) {
	t.Parallel()
	const (
		oldSHA = "1111111111111111111111111111111111111111"
		newSHA = "2222222222222222222222222222222222222222"
	)
	token := func(sha string, list ...string) queue.TargetsUpdate {
		return queue.TargetsUpdate{Key: opsKey, PRNumber: 5, SHA: sha, List: list}
	}
	fork := func(sha string, list ...string) queue.TargetsUpdate {
		u := token(sha, list...)
		u.Source = queue.TargetsFromForkRun
		return u
	}
	tests := []struct {
		name    string
		before  []queue.TargetsUpdate
		upload  queue.TargetsUpdate
		refused bool
		want    queue.Targets // stored afterwards (QueueID and UpdatedAt aside)
	}{
		{"fork over token, same SHA", []queue.TargetsUpdate{token(newSHA, "//a")}, fork(newSHA), true,
			queue.Targets{PRNumber: 5, SHA: newSHA, List: []string{"//a"}, Source: queue.TargetsFromToken}},
		{"fork over token, SHA in upper case", []queue.TargetsUpdate{token(strings.ToUpper(newSHA), "//a")}, fork(newSHA), true,
			queue.Targets{PRNumber: 5, SHA: strings.ToUpper(newSHA), List: []string{"//a"}, Source: queue.TargetsFromToken}},
		{"fork over token, after a fork upload replaced by the token", []queue.TargetsUpdate{fork(newSHA, "//f"), token(newSHA, "//a")}, fork(newSHA), true,
			queue.Targets{PRNumber: 5, SHA: newSHA, List: []string{"//a"}, Source: queue.TargetsFromToken}},
		{"fork over a token's stale SHA", []queue.TargetsUpdate{token(oldSHA, "//a")}, fork(newSHA, "//b"), false,
			queue.Targets{PRNumber: 5, SHA: newSHA, List: []string{"//b"}, Source: queue.TargetsFromForkRun}},
		{"fork over fork", []queue.TargetsUpdate{fork(newSHA, "//a")}, fork(newSHA, "//b"), false,
			queue.Targets{PRNumber: 5, SHA: newSHA, List: []string{"//b"}, Source: queue.TargetsFromForkRun}},
		{"fork first", nil, fork(newSHA, "//b"), false,
			queue.Targets{PRNumber: 5, SHA: newSHA, List: []string{"//b"}, Source: queue.TargetsFromForkRun}},
		{"token over fork", []queue.TargetsUpdate{fork(newSHA, "//a")}, token(newSHA, "//b"), false,
			queue.Targets{PRNumber: 5, SHA: newSHA, List: []string{"//b"}, Source: queue.TargetsFromToken}},
		{"token over token", []queue.TargetsUpdate{token(newSHA, "//a")}, token(newSHA), false,
			queue.Targets{PRNumber: 5, SHA: newSHA, List: []string{}, Source: queue.TargetsFromToken}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newOpsFixture(t)
			q := f.queue("main", queue.DefaultSettings())
			for _, u := range tt.before {
				if err := f.svc.SetImpactedTargets(f.ctx, u); err != nil {
					t.Fatal(err)
				}
			}
			wakes := f.wakeCount()
			err := f.svc.SetImpactedTargets(f.ctx, tt.upload)
			if got := errors.Is(err, queue.ErrTargetsSetByToken); got != tt.refused {
				t.Fatalf("SetImpactedTargets = %v, refused %v; want refused %v", err, got, tt.refused)
			}
			if !tt.refused && err != nil {
				t.Fatal(err)
			}
			if tt.refused && f.wakeCount() != wakes {
				t.Error("a refused upload woke the queue")
			}
			got, err := f.store.GetTargets(f.ctx, q.ID, 5)
			if err != nil {
				t.Fatal(err)
			}
			want := tt.want
			want.QueueID, want.UpdatedAt = q.ID, opsNow
			opsEqual(t, "stored targets", *got, want)
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
