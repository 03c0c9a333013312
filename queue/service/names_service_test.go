package service_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/mergequeue/mq/queue"
)

// TestCreateQueueRefusesInvalidNames: the service stores no queue whose key
// breaks the naming rules, whichever entry point asks.
func TestCreateQueueRefusesInvalidNames(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		key  queue.QueueKey
	}{
		{"owner traversal", queue.QueueKey{Repo: queue.Repo{Host: "github.com", Owner: "acme/../evil", Name: "w"}, Branch: "main"}},
		{"name traversal", queue.QueueKey{Repo: queue.Repo{Host: "github.com", Owner: "acme", Name: "../../app/installations"}, Branch: "main"}},
		{"branch", queue.QueueKey{Repo: opsKey.Repo, Branch: "a..b"}},
		{"no host", queue.QueueKey{Repo: queue.Repo{Owner: "acme", Name: "w"}, Branch: "main"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newOpsFixture(t)
			var ie *queue.InputError
			if _, err := f.svc.CreateQueueFrom(f.ctx, tt.key, queue.QueueUpdate{}); !errors.As(err, &ie) {
				t.Errorf("CreateQueueFrom: %v, want *InputError", err)
			}
			if _, err := f.svc.CreateQueue(f.ctx, tt.key, queue.DefaultSettings()); !errors.As(err, &ie) {
				t.Errorf("CreateQueue: %v, want *InputError", err)
			}
			if qs, err := f.store.ListQueues(f.ctx); err != nil || len(qs) != 0 {
				t.Errorf("queues stored: %d (%v)", len(qs), err)
			}
		})
	}
}

// TestSetImpactedTargetsVerifyPR: with VerifyPR a PR GitHub does not know
// is ErrPRNotFound and nothing is stored; a known PR is stored.
func TestSetImpactedTargetsVerifyPR(t *testing.T) {
	t.Parallel()
	f := newOpsFixture(t)
	q := f.queue("main", queue.DefaultSettings())
	f.gh.prs[7] = &queue.PullRequest{Number: 7, PRFacts: queue.PRFacts{HeadSHA: "abc"}}

	err := f.svc.SetImpactedTargets(f.ctx, queue.TargetsUpdate{Key: opsKey, PRNumber: 8, SHA: "abc", All: true, VerifyPR: true})
	if !errors.Is(err, queue.ErrPRNotFound) {
		t.Fatalf("unknown PR: %v, want ErrPRNotFound", err)
	}
	if _, err := f.store.GetTargets(f.ctx, q.ID, 8); !errors.Is(err, queue.ErrNotFound) {
		t.Errorf("targets of an unknown PR stored (%v)", err)
	}
	if err := f.svc.SetImpactedTargets(f.ctx, queue.TargetsUpdate{Key: opsKey, PRNumber: 7, SHA: "abc", All: true, VerifyPR: true}); err != nil {
		t.Fatalf("known PR: %v", err)
	}
	if _, err := f.store.GetTargets(f.ctx, q.ID, 7); err != nil {
		t.Errorf("targets of a known PR not stored: %v", err)
	}

	f.gh.prErr = fmt.Errorf("502: %w", queue.ErrTransient)
	err = f.svc.SetImpactedTargets(f.ctx, queue.TargetsUpdate{Key: opsKey, PRNumber: 9, SHA: "abc", VerifyPR: true})
	if !errors.Is(err, queue.ErrTransient) {
		t.Errorf("GitHub down: %v, want ErrTransient", err)
	}
	// Without VerifyPR (the engine's own callers) GitHub is not asked.
	if err := f.svc.SetImpactedTargets(f.ctx, queue.TargetsUpdate{Key: opsKey, PRNumber: 9, SHA: "abc"}); err != nil {
		t.Errorf("without VerifyPR: %v", err)
	}
}

// TestConfirmForkedRunUnknownPR: a run in progress for a PR GitHub does not
// know is not a credential, and says why (ErrPRNotFound: the API's 404).
func TestConfirmForkedRunUnknownPR(t *testing.T) {
	t.Parallel()
	const head = "1111111111111111111111111111111111111111"
	f := newOpsFixture(t)
	f.gh.runs[77] = forkRun("in_progress", head)
	err := f.svc.ConfirmForkedRun(f.ctx, opsKey.Repo, 5, head, 77)
	if !errors.Is(err, queue.ErrPRNotFound) || !errors.Is(err, queue.ErrRunNotConfirmed) {
		t.Errorf("err = %v, want ErrPRNotFound and ErrRunNotConfirmed", err)
	}
}
