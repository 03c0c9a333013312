package service_test

import (
	"errors"
	"testing"

	"github.com/mergequeue/mq/queue"
)

// CommandTarget reads the PR and the queue of its base branch for a
// command, and refuses, typed, what commands are ignored on.
func TestCommandTarget(t *testing.T) {
	t.Parallel()
	disabled := queue.DefaultSettings()
	disabled.CommandsEnabled = false
	custom := queue.DefaultSettings()
	custom.TestBranchPrefix = "ours/"
	tests := []struct {
		name      string
		settings  *queue.Settings // for main; nil: no queue
		head      string
		missing   bool // GitHub does not know the PR
		want      queue.RefusalReason
		wantQueue bool
	}{
		{name: "a PR into a queue", settings: opsPtr(queue.DefaultSettings()), head: "feature", wantQueue: true},
		{name: "a PR into a branch without a queue", head: "feature"},
		{name: "a PR GitHub does not know", settings: opsPtr(queue.DefaultSettings()), missing: true, want: queue.RefusedUnknownPR},
		{name: "commands disabled", settings: &disabled, head: "feature", want: queue.RefusedCommandsDisabled},
		{name: "one of the queue's test PRs", settings: opsPtr(queue.DefaultSettings()), head: "mq-merge/pr-3/run-1", want: queue.RefusedTestPR},
		{name: "a test PR under the queue's own prefix", settings: &custom, head: "ours/pr-3/run-1", want: queue.RefusedTestPR},
		{name: "the default prefix is not this queue's", settings: &custom, head: "mq-merge/pr-3/run-1", wantQueue: true},
		{name: "no queue, no test PRs", head: "mq-merge/pr-3/run-1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newOpsFixture(t)
			if tt.settings != nil {
				f.queue("main", *tt.settings)
			}
			if !tt.missing {
				f.gh.prs[3] = &queue.PullRequest{Number: 3, HeadRef: tt.head, PRFacts: queue.PRFacts{BaseBranch: "main", Open: true}}
			}
			got, err := f.svc.CommandTarget(f.ctx, opsKey.Repo, 3)
			if tt.want != "" {
				r, ok := queue.AsRefusal(err)
				if !ok || r.Reason != tt.want || got != nil {
					t.Fatalf("CommandTarget = %+v, %v; want refused %s", got, err, tt.want)
				}
				if tt.missing && !errors.Is(err, queue.ErrPRNotFound) {
					t.Errorf("refusal %v does not wrap ErrPRNotFound", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Key() != opsKey || got.PR.Number != 3 || got.PR.HeadRef != tt.head || (got.Queue != nil) != tt.wantQueue {
				t.Fatalf("CommandTarget = %+v, want #3 into %s (queue: %v)", got, opsKey, tt.wantQueue)
			}
		})
	}
}

// SubmitTarget submits what CommandTarget read, reading nothing again: a
// PR that changed on GitHub since is submitted as it was read.
func TestSubmitTargetReadsNothing(t *testing.T) {
	t.Parallel()
	f := newOpsFixture(t)
	f.queue("main", queue.DefaultSettings())
	f.gh.prs[3] = &queue.PullRequest{Number: 3, HeadRef: "feature", PRFacts: queue.PRFacts{BaseBranch: "main", Open: true, HeadSHA: "h1", Author: "dev"}}
	target, err := f.svc.CommandTarget(f.ctx, opsKey.Repo, 3)
	if err != nil {
		t.Fatal(err)
	}
	f.gh.prErr = errors.New("GitHub read after the command's reads")
	e, err := f.svc.SubmitTarget(f.ctx, target, queue.SubmitRequest{Priority: "high", Submitter: "writer", Source: "comment"})
	if err != nil {
		t.Fatal(err)
	}
	if e.PRNumber != 3 || e.QueueID != target.Queue.ID || e.PRSHA != "h1" || e.PriorityName != "high" || e.Submitter != "writer" || e.State != queue.StateNotReady {
		t.Fatalf("entry %+v, want #3 at h1, high, by writer, not ready", e)
	}

	_, err = f.svc.SubmitTarget(f.ctx, target, queue.SubmitRequest{Priority: "soon", Submitter: "writer", Source: "comment"})
	var input *queue.InputError
	if r, ok := queue.AsRefusal(err); !ok || r.Reason != queue.RefusedInvalid || !errors.As(err, &input) {
		t.Fatalf("bad priority: %v, want refused invalid", err)
	}
	noQueue := *target
	noQueue.Queue = nil
	_, err = f.svc.SubmitTarget(f.ctx, &noQueue, queue.SubmitRequest{Submitter: "writer", Source: "comment"})
	if r, ok := queue.AsRefusal(err); !ok || r.Reason != queue.RefusedNoQueue || !errors.Is(err, queue.ErrNotFound) {
		t.Fatalf("no queue: %v, want refused no_queue wrapping ErrNotFound", err)
	}
}

// Submit refuses, typed, what the API answers with a 4xx, and the errors
// the API matches are still there behind each refusal.
func TestSubmitRefusals(t *testing.T) {
	t.Parallel()
	f := newOpsFixture(t)
	f.queue("main", queue.DefaultSettings())
	f.gh.prs[4] = &queue.PullRequest{Number: 4, HeadRef: "mq-merge/pr-3/run-1", PRFacts: queue.PRFacts{BaseBranch: "main", Open: true}}
	var input *queue.InputError
	for _, tt := range []struct {
		name  string
		req   queue.SubmitRequest
		want  queue.RefusalReason
		match func(error) bool
	}{
		{"no queue", queue.SubmitRequest{Key: queue.QueueKey{Repo: opsKey.Repo, Branch: "dev"}, PRNumber: 4}, queue.RefusedNoQueue,
			func(err error) bool { return errors.Is(err, queue.ErrNotFound) }},
		{"bad priority", queue.SubmitRequest{Key: opsKey, PRNumber: 4, Priority: "soon"}, queue.RefusedInvalid,
			func(err error) bool { return errors.As(err, &input) }},
		{"unknown PR", queue.SubmitRequest{Key: opsKey, PRNumber: 5}, queue.RefusedUnknownPR,
			func(err error) bool { return errors.Is(err, queue.ErrPRNotFound) }},
		{"a test PR", queue.SubmitRequest{Key: opsKey, PRNumber: 4}, queue.RefusedTestPR,
			func(err error) bool {
				return errors.As(err, &input) && input.Msg == "#4 is one of the queue's own test PRs (branch mq-merge/pr-3/run-1): it cannot be queued"
			}},
	} {
		_, err := f.svc.Submit(f.ctx, tt.req)
		if r, ok := queue.AsRefusal(err); !ok || r.Reason != tt.want || !tt.match(err) {
			t.Errorf("%s: Submit error %v, want refused %s", tt.name, err, tt.want)
		}
	}
}
