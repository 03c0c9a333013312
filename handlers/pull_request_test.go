package handlers

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
)

const testBot = "merge-queue[bot]"

var helloWorld = queue.Repo{Host: "github.com", Owner: "Codertocat", Name: "Hello-World"}

func testConfig() Config { return Config{BotLogin: testBot} }

func TestPullRequestFacts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file     string
		edit     func(m map[string]any)
		wantOpen bool
		draft    bool
	}{
		{file: "pull_request/opened.payload.json", wantOpen: true},
		{file: "pull_request/opened.with-null-body.json", wantOpen: true},
		{file: "pull_request/reopened.payload.json", wantOpen: true},
		{file: "pull_request/synchronize.payload.json", wantOpen: true},
		{file: "pull_request/closed.payload.json"},
		{file: "pull_request/converted_to_draft.payload.json", wantOpen: true, draft: true},
		{file: "pull_request/ready_for_review.with-organization.payload.json", wantOpen: true},
		{file: "pull_request/opened.payload.json", wantOpen: true,
			edit: func(m map[string]any) { m["action"] = "edited" }},
		{file: "pull_request/opened.payload.json", wantOpen: true, // no installation
			edit: func(m map[string]any) { delete(m, "installation") }},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			svc := newFakeService()
			payload := loadExample(t, tt.file)
			if tt.edit != nil {
				payload = patchJSON(t, payload, tt.edit)
			}
			h := NewPullRequestHandler(testConfig(), svc, svc, newFakeGitHub())
			if err := h.Handle(context.Background(), "pull_request", "d", payload); err != nil {
				t.Fatal(err)
			}
			if len(svc.prs) != 1 {
				t.Fatalf("OnPullRequest called %d times, want 1", len(svc.prs))
			}
			pr := svc.prs[0]
			if pr.Number != 2 || pr.HeadSHA != "ec26c3e57ca3a959ca5aad62de7213c562f8c821" ||
				pr.BaseBranch != "master" || pr.Author != "Codertocat" ||
				pr.Open != tt.wantOpen || pr.Draft != tt.draft || pr.Merged || pr.MergeCommitSHA != "" {
				t.Fatalf("facts %+v", pr)
			}
			if pr.ReadAt.IsZero() || pr.ReadAt.Location() != time.UTC {
				t.Fatalf("ReadAt = %v, want updated_at in UTC", pr.ReadAt)
			}
		})
	}
}

func TestPullRequestMergedFacts(t *testing.T) {
	t.Parallel()
	svc := newFakeService()
	payload := patchJSON(t, loadExample(t, "pull_request/closed.payload.json"), func(m map[string]any) {
		obj(m, "pull_request")["merged"] = true
	})
	if err := NewPullRequestHandler(testConfig(), svc, svc, newFakeGitHub()).Handle(context.Background(), "pull_request", "d", payload); err != nil {
		t.Fatal(err)
	}
	if pr := svc.prs[0]; !pr.Merged || pr.Open || pr.MergeCommitSHA == "" {
		t.Fatalf("facts %+v, want merged with its merge commit", pr)
	}
}

func TestPullRequestIgnoredActions(t *testing.T) {
	t.Parallel()
	for _, file := range []string{"assigned.payload.json", "locked.payload.json", "review_requested.payload.json", "unlocked.payload.json"} {
		t.Run(file, func(t *testing.T) {
			t.Parallel()
			svc, gh := newFakeService(), newFakeGitHub()
			if err := NewPullRequestHandler(testConfig(), svc, svc, gh).Handle(context.Background(), "pull_request", "d", loadExample(t, "pull_request/"+file)); err != nil {
				t.Fatal(err)
			}
			if len(svc.calls) != 0 || svc.getQueues != 0 || gh.permCalls != 0 {
				t.Fatalf("calls %v", svc.calls)
			}
		})
	}
}

func TestPullRequestServiceErrorIsReturned(t *testing.T) {
	t.Parallel()
	svc := newFakeService()
	svc.err = errors.New("store down")
	err := NewPullRequestHandler(testConfig(), svc, svc, newFakeGitHub()).Handle(context.Background(), "pull_request", "d", loadExample(t, "pull_request/opened.payload.json"))
	if err == nil || !strings.Contains(err.Error(), "store down") || IsPermanent(err) {
		t.Fatalf("err = %v, want the retryable service error", err)
	}
}

func TestPullRequestMalformedPayloadIsPermanent(t *testing.T) {
	t.Parallel()
	err := NewPullRequestHandler(testConfig(), newFakeService(), newFakeService(), newFakeGitHub()).Handle(context.Background(), "pull_request", "d", []byte(`{"action":`))
	if !IsPermanent(err) {
		t.Fatalf("err = %v, want a permanent error", err)
	}
}

// labelPayload is the labeled/unlabeled example with label name and sender.
func labelPayload(t *testing.T, action, label, sender string) []byte {
	return patchJSON(t, loadExample(t, "pull_request/"+action+".payload.json"), func(m map[string]any) {
		obj(m, "label")["name"] = label
		obj(m, "sender")["login"] = sender
		obj(m, "sender")["type"] = accountType(sender)
	})
}

func TestEnqueueLabel(t *testing.T) {
	t.Parallel()
	master := queue.QueueKey{Repo: helloWorld, Branch: "master"}
	custom := queue.DefaultSettings()
	custom.EnqueueingLabel = "ship-it"
	off := queue.DefaultSettings()
	off.LabelCommandsEnabled = false

	tests := []struct {
		name        string
		action      string
		label       string
		sender      string
		perm        string
		settings    *queue.Settings // queue for master, nil = none
		submitErr   error
		wantSubmit  bool
		wantCancel  bool
		wantComment string
	}{
		{name: "writer submits", action: "labeled", label: "merge-queue", sender: "alice", perm: "write",
			settings: ptr(queue.DefaultSettings()), wantSubmit: true},
		{name: "label compared case-insensitively", action: "labeled", label: "Merge-Queue", sender: "alice", perm: "maintain",
			settings: ptr(queue.DefaultSettings()), wantSubmit: true},
		{name: "reader refused", action: "labeled", label: "merge-queue", sender: "bob", perm: "triage",
			settings: ptr(queue.DefaultSettings()), wantComment: "@bob you need write access"},
		{name: "other label ignored", action: "labeled", label: "bug", sender: "alice", perm: "write",
			settings: ptr(queue.DefaultSettings())},
		{name: "bot ignored", action: "labeled", label: "merge-queue", sender: testBot, perm: "admin",
			settings: ptr(queue.DefaultSettings())},
		{name: "queue label wins", action: "labeled", label: "ship-it", sender: "alice", perm: "write",
			settings: &custom, wantSubmit: true},
		{name: "default label not the queue's", action: "labeled", label: "merge-queue", sender: "alice", perm: "write",
			settings: &custom},
		{name: "label commands disabled", action: "labeled", label: "merge-queue", sender: "alice", perm: "write",
			settings: &off},
		{name: "no queue for branch", action: "labeled", label: "merge-queue", sender: "alice", perm: "write",
			submitErr: &queue.Refusal{Reason: queue.RefusedNoQueue, Err: queue.ErrNotFound}, wantComment: "no merge queue for branch `master`"},
		{name: "unlabel cancels", action: "unlabeled", label: "merge-queue", sender: "carol", perm: "read",
			settings: ptr(queue.DefaultSettings()), wantCancel: true},
		{name: "bot unlabel ignored", action: "unlabeled", label: "merge-queue", sender: testBot,
			settings: ptr(queue.DefaultSettings())},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			svc, gh := newFakeService(), newFakeGitHub()
			if tt.settings != nil {
				svc.addQueue(master, *tt.settings)
			}
			svc.submitEr = tt.submitErr
			gh.perms[tt.sender] = tt.perm
			h := NewPullRequestHandler(testConfig(), svc, svc, gh)
			if err := h.Handle(context.Background(), "pull_request", "d", labelPayload(t, tt.action, tt.label, tt.sender)); err != nil {
				t.Fatal(err)
			}
			wantSubmits := 0
			if tt.wantSubmit {
				wantSubmits = 1
				want := queue.SubmitRequest{Key: master, PRNumber: 2, Submitter: tt.sender, Source: "label"}
				if len(svc.submits) != 1 || svc.submits[0] != want {
					t.Fatalf("submits %+v, want %+v", svc.submits, want)
				}
			}
			if len(svc.submits) != wantSubmits {
				t.Fatalf("submits %+v, want %d", svc.submits, wantSubmits)
			}
			if tt.wantCancel {
				want := cancelCall{helloWorld, 2, queue.ReasonLabelRemoved, "label removed by @" + tt.sender}
				if len(svc.cancels) != 1 || svc.cancels[0] != want {
					t.Fatalf("cancels %+v, want %+v", svc.cancels, want)
				}
			} else if len(svc.cancels) != 0 {
				t.Fatalf("unexpected cancels %+v", svc.cancels)
			}
			if tt.wantComment == "" && len(svc.comments) != 0 {
				t.Fatalf("unexpected comments %+v", svc.comments)
			}
			if tt.wantComment != "" && (len(svc.comments) != 1 || !strings.Contains(svc.comments[0].Body, tt.wantComment)) {
				t.Fatalf("comments %+v, want one containing %q", svc.comments, tt.wantComment)
			}
			if len(svc.prs) != 0 {
				t.Fatal("label events are not PR facts")
			}
			if slices.Contains(svc.calls, "OnPullRequest") {
				t.Fatal("OnPullRequest called for a label event")
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

// The enqueue label on one of the queue's own test PRs (its head is a test
// branch) is ignored: a test PR is never queued.
func TestEnqueueLabelOnTestPRIgnored(t *testing.T) {
	t.Parallel()
	master := queue.QueueKey{Repo: helloWorld, Branch: "master"}
	svc, gh := newFakeService(), newFakeGitHub()
	svc.addQueue(master, queue.DefaultSettings())
	gh.perms["alice"] = "write"
	payload := patchJSON(t, labelPayload(t, "labeled", "merge-queue", "alice"), func(m map[string]any) {
		obj(obj(m, "pull_request"), "head")["ref"] = "mq-merge/pr-1/run"
	})
	if err := NewPullRequestHandler(testConfig(), svc, svc, gh).Handle(context.Background(), "pull_request", "d", payload); err != nil {
		t.Fatal(err)
	}
	if len(svc.submits) != 0 || len(svc.notices) != 0 {
		t.Fatalf("submits %+v, notices %+v; want none", svc.submits, svc.notices)
	}
}

// A bot listed in allowedBotSubmitters submits by label without a
// permission on the repository.
func TestEnqueueLabelByAllowedBot(t *testing.T) {
	t.Parallel()
	master := queue.QueueKey{Repo: helloWorld, Branch: "master"}
	svc, gh := newFakeService(), newFakeGitHub()
	s := queue.DefaultSettings()
	s.AllowedBotSubmitters = []string{"renovate[bot]"}
	svc.addQueue(master, s)
	if err := NewPullRequestHandler(testConfig(), svc, svc, gh).Handle(context.Background(), "pull_request", "d",
		labelPayload(t, "labeled", "merge-queue", "renovate[bot]")); err != nil {
		t.Fatal(err)
	}
	if len(svc.submits) != 1 || svc.submits[0].Submitter != "renovate[bot]" || gh.permCalls != 0 {
		t.Fatalf("submits %+v, permission reads %d; want one submission and no permission read", svc.submits, gh.permCalls)
	}
}
