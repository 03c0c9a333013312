package handlers

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/mergequeue/mq/queue"
)

const exampleCommentID = 492700400

// prComment is the issue_comment example turned into a comment on PR #1.
func prComment(t *testing.T, file, login, body string) []byte {
	return patchJSON(t, loadExample(t, "issue_comment/"+file), func(m map[string]any) {
		obj(m, "issue")["pull_request"] = map[string]any{
			"url": "https://api.github.com/repos/Codertocat/Hello-World/pulls/1",
		}
		c := obj(m, "comment")
		c["body"] = body
		obj(c, "user")["login"] = login
		obj(c, "user")["type"] = accountType(login)
		obj(m, "sender")["login"] = login
		obj(m, "sender")["type"] = accountType(login)
	})
}

// commentWorld is a fake service and GitHub where PR #1 targets main, which
// has a queue with default settings.
func commentWorld() (*fakeService, *fakeGitHub) {
	svc, gh := newFakeService(), newFakeGitHub()
	svc.gh = gh
	svc.addQueue(queue.QueueKey{Repo: helloWorld, Branch: "main"}, queue.DefaultSettings())
	gh.prs[1] = &queue.PullRequest{Number: 1, PRFacts: queue.PRFacts{BaseBranch: "main", Open: true}}
	gh.perms = map[string]string{"reader": "read", "writer": "write", "maintainer": "maintain", "admin": "admin"}
	return svc, gh
}

func TestCommandMerge(t *testing.T) {
	t.Parallel()
	main := queue.QueueKey{Repo: helloWorld, Branch: "main"}
	tests := []struct {
		name        string
		login       string
		body        string
		submitErr   error
		want        *queue.SubmitRequest
		wantComment string
	}{
		{name: "writer merges", login: "writer", body: "/mq merge",
			want: &queue.SubmitRequest{Key: main, PRNumber: 1, Submitter: "writer", Source: "comment"}},
		{name: "priority and no-batch", login: "maintainer", body: "Ready.\n/mq merge -p high --no-batch",
			want: &queue.SubmitRequest{Key: main, PRNumber: 1, Priority: "high", NoBatch: true, Submitter: "maintainer", Source: "comment"}},
		{name: "reader refused", login: "reader", body: "/mq merge",
			wantComment: "@reader you need write access to this repository to use `/mq merge`."},
		{name: "stranger refused", login: "stranger", body: "/mq merge",
			wantComment: "@stranger you need write access"},
		{name: "direct needs admin", login: "writer", body: "/mq merge --direct",
			wantComment: "@writer you need admin access to this repository to use `/mq merge --direct`."},
		{name: "urgent needs admin", login: "maintainer", body: "/mq merge -p urgent",
			wantComment: "@maintainer you need admin access to this repository to use the urgent priority."},
		{name: "zero is urgent", login: "writer", body: "/mq merge --priority 0",
			wantComment: "you need admin access"},
		{name: "admin may do both", login: "admin", body: "/mq merge --direct -p urgent",
			want: &queue.SubmitRequest{Key: main, PRNumber: 1, Priority: "urgent", Direct: true, Submitter: "admin", Source: "comment"}},
		{name: "bad priority replies", login: "writer", body: "/mq merge -p soon",
			wantComment: "unknown priority `soon`"},
		{name: "no queue for branch", login: "writer", body: "/mq merge", submitErr: &queue.Refusal{Reason: queue.RefusedNoQueue, Err: queue.ErrNotFound},
			wantComment: "@writer there is no merge queue for branch `main`."},
		{name: "input error shown", login: "writer", body: "/mq merge", submitErr: &queue.Refusal{Reason: queue.RefusedInvalid, Msg: "priority is invalid"},
			wantComment: "could not submit this pull request: priority is invalid"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			svc, gh := commentWorld()
			svc.submitEr = tt.submitErr
			h := NewIssueCommentHandler(testConfig(), svc, svc, gh)
			if err := h.Handle(context.Background(), "issue_comment", "d", prComment(t, "created.payload.json", tt.login, tt.body)); err != nil {
				t.Fatal(err)
			}
			if tt.want != nil {
				if len(svc.submits) != 1 || svc.submits[0] != *tt.want {
					t.Fatalf("submits %+v, want %+v", svc.submits, *tt.want)
				}
				if len(svc.reactions) != 1 || svc.reactions[0] != (reaction{exampleCommentID, "+1"}) {
					t.Fatalf("reactions %+v, want +1 on the comment", svc.reactions)
				}
				if gh.prReads != 1 || svc.getQueues != 1 {
					t.Fatalf("%d PR reads, %d queue reads; want one each", gh.prReads, svc.getQueues)
				}
			} else if len(svc.submits) != 0 {
				t.Fatalf("unexpected submits %+v", svc.submits)
			}
			assertComment(t, svc, tt.wantComment)
		})
	}
}

func TestCommandRefusalChangesNothing(t *testing.T) {
	t.Parallel()
	for _, body := range []string{"/mq merge", "/mq cancel", "/mq status", "/mq help", "/mq restart", "/mq frobnicate"} {
		t.Run(body, func(t *testing.T) {
			t.Parallel()
			svc, gh := commentWorld()
			h := NewIssueCommentHandler(testConfig(), svc, svc, gh)
			if err := h.Handle(context.Background(), "issue_comment", "d", prComment(t, "created.payload.json", "reader", body)); err != nil {
				t.Fatal(err)
			}
			if len(svc.calls) != 0 || len(svc.reactions) != 0 {
				t.Fatalf("service calls %v, reactions %v; want none", svc.calls, svc.reactions)
			}
			assertComment(t, svc, "@reader you need write access")
		})
	}
}

func TestCommandOthers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		body        string
		active      []*queue.Entry
		wantCalls   []string
		wantCancel  bool
		wantComment string
	}{
		{name: "cancel", body: "/mq cancel", active: []*queue.Entry{{QueueID: 1}},
			wantCalls: []string{"CancelPR"}, wantCancel: true},
		{name: "cancel with nothing active", body: "/mq cancel",
			wantCalls: []string{"CancelPR"}, wantCancel: true, wantComment: "@writer this pull request is not in a merge queue."},
		{name: "restart", body: "/mq restart", active: []*queue.Entry{{QueueID: 1}}, wantCalls: []string{"Restart"}},
		{name: "restart when not queued", body: "/mq restart", wantCalls: []string{"Restart"},
			wantComment: "@writer this pull request is not in a merge queue."},
		{name: "status lists entries", body: "/mq status", wantCalls: []string{"ActiveEntries"},
			active: []*queue.Entry{{QueueID: 1, State: queue.StatePendingFailure, StateReason: queue.ReasonTestsFailed,
				StateReasonDetail: "ci/build failed", PriorityName: "medium", PriorityValue: 100}},
			wantComment: "- `main`: **pending_failure** (tests_failed, priority medium/100), position 1 of 1, expected to merge around 2026-11-23 10:00 UTC: ci/build failed"},
		{name: "status when not queued", body: "/mq status", wantCalls: []string{"ActiveEntries"},
			wantComment: "not in a merge queue"},
		{name: "help", body: "/mq help", wantComment: "/mq merge [-p|--priority <urgent|high|medium|low|0-255>] [--no-batch] [--direct]"},
		{name: "unknown", body: "/mq frobnicate", wantComment: "@writer unknown command `/mq frobnicate`."},
		{name: "extra arguments", body: "/mq cancel all", wantComment: "`cancel` takes no arguments"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			svc, gh := commentWorld()
			svc.active = tt.active
			h := NewIssueCommentHandler(testConfig(), svc, svc, gh)
			if err := h.Handle(context.Background(), "issue_comment", "d", prComment(t, "created.payload.json", "writer", tt.body)); err != nil {
				t.Fatal(err)
			}
			if strings.Join(svc.calls, ",") != strings.Join(tt.wantCalls, ",") {
				t.Fatalf("service calls %v, want %v", svc.calls, tt.wantCalls)
			}
			if tt.wantCancel {
				want := cancelCall{helloWorld, 1, queue.ReasonUserRequested, "cancelled by @writer"}
				if len(svc.cancels) != 1 || svc.cancels[0] != want {
					t.Fatalf("cancels %+v, want %+v", svc.cancels, want)
				}
			}
			assertComment(t, svc, tt.wantComment)
		})
	}
}

func TestCommentsIgnored(t *testing.T) {
	t.Parallel()
	disabled := queue.DefaultSettings()
	disabled.CommandsEnabled = false
	tests := []struct {
		name     string
		payload  func(t *testing.T) []byte
		settings *queue.Settings
	}{
		{"comment on an issue", func(t *testing.T) []byte {
			return patchJSON(t, loadExample(t, "issue_comment/created.payload.json"), func(m map[string]any) {
				obj(m, "comment")["body"] = "/mq merge"
			})
		}, nil},
		{"edited comment", func(t *testing.T) []byte { return prComment(t, "edited.payload.json", "writer", "/mq merge") }, nil},
		{"deleted comment", func(t *testing.T) []byte { return prComment(t, "deleted.payload.json", "writer", "/mq merge") }, nil},
		{"bot's own comment", func(t *testing.T) []byte { return prComment(t, "created.payload.json", testBot, "/mq merge") }, nil},
		{"no command", func(t *testing.T) []byte { return prComment(t, "created.payload.json", "writer", "LGTM") }, nil},
		{"commands disabled", func(t *testing.T) []byte { return prComment(t, "created.payload.json", "writer", "/mq merge") }, &disabled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			svc, gh := commentWorld()
			if tt.settings != nil {
				svc.addQueue(queue.QueueKey{Repo: helloWorld, Branch: "main"}, *tt.settings)
			}
			gh.perms[testBot] = "admin"
			h := NewIssueCommentHandler(testConfig(), svc, svc, gh)
			if err := h.Handle(context.Background(), "issue_comment", "d", tt.payload(t)); err != nil {
				t.Fatal(err)
			}
			if len(svc.calls) != 0 || len(svc.reactions) != 0 || len(svc.comments) != 0 || gh.permCalls != 0 {
				t.Fatalf("calls %v, reactions %v, comments %v, permission calls %d; want none",
					svc.calls, svc.reactions, svc.comments, gh.permCalls)
			}
		})
	}
}

// What the service refuses a command for (CommandTarget: a PR GitHub does
// not know, commands disabled, one of the queue's own test PRs) ignores
// the command: no permission read, reaction, reply or submission, and the
// handler reads nothing itself.
func TestCommandRefusedByTheServiceIsIgnored(t *testing.T) {
	t.Parallel()
	disabled := queue.DefaultSettings()
	disabled.CommandsEnabled = false
	for name, edit := range map[string]func(svc *fakeService, gh *fakeGitHub){
		"unknown PR": func(_ *fakeService, gh *fakeGitHub) { delete(gh.prs, 1) },
		"commands disabled": func(svc *fakeService, _ *fakeGitHub) {
			svc.addQueue(queue.QueueKey{Repo: helloWorld, Branch: "main"}, disabled)
		},
		"test PR": func(_ *fakeService, gh *fakeGitHub) { gh.prs[1].HeadRef = "mq-merge/pr-7/run" },
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			svc, gh := commentWorld()
			edit(svc, gh)
			h := NewIssueCommentHandler(testConfig(), svc, svc, gh)
			if err := h.Handle(context.Background(), "issue_comment", "d", prComment(t, "created.payload.json", "admin", "/mq merge")); err != nil {
				t.Fatal(err)
			}
			if len(svc.calls) != 0 || len(svc.notices) != 0 || gh.permCalls != 0 || gh.prReads != 1 {
				t.Fatalf("calls %v, notices %+v, permission reads %d, PR reads %d; want one PR read (the service's) and nothing else",
					svc.calls, svc.notices, gh.permCalls, gh.prReads)
			}
		})
	}
}

func TestCommandCustomPrefixAndInstallation(t *testing.T) {
	t.Parallel()
	svc, gh := commentWorld()
	cfg := testConfig()
	cfg.CommandPrefix = "@queue"
	h := NewIssueCommentHandler(cfg, svc, svc, gh)
	payload := prComment(t, "created.with-installation.payload.json", "writer", "@queue merge")
	if err := h.Handle(context.Background(), "issue_comment", "d", payload); err != nil {
		t.Fatal(err)
	}
	if len(svc.submits) != 1 {
		t.Fatalf("submits %+v, want 1", svc.submits)
	}
}

func TestCommandErrorsAreRetryable(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		setup func(svc *fakeService, gh *fakeGitHub)
	}{
		{"permission API down", func(_ *fakeService, gh *fakeGitHub) { gh.permErr = errors.New("502") }},
		{"submit fails", func(svc *fakeService, _ *fakeGitHub) { svc.submitEr = errors.New("database is locked") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			svc, gh := commentWorld()
			tt.setup(svc, gh)
			h := NewIssueCommentHandler(testConfig(), svc, svc, gh)
			err := h.Handle(context.Background(), "issue_comment", "d", prComment(t, "created.payload.json", "writer", "/mq merge"))
			if err == nil || IsPermanent(err) {
				t.Fatalf("err = %v, want a retryable error", err)
			}
			if len(svc.comments) != 0 {
				t.Fatalf("replied %+v to an internal failure", svc.comments)
			}
		})
	}
}

// assertComment checks that exactly one reply containing want was posted as
// a new comment on PR #1 (or none when want is empty).
func assertComment(t *testing.T, svc *fakeService, want string) {
	t.Helper()
	if want == "" {
		if len(svc.comments) != 0 {
			t.Fatalf("unexpected comments %+v", svc.comments)
		}
		return
	}
	if len(svc.comments) != 1 || !strings.Contains(svc.comments[0].Body, want) {
		t.Fatalf("comments %+v, want one containing %q", svc.comments, want)
	}
	if c := svc.comments[0]; c.Number != 1 || c.ID != 0 {
		t.Fatalf("comment %+v, want a new comment on #1", c)
	}
}

// A bot listed in the queue's allowedBotSubmitters may submit with a plain
// merge, without a permission on the repository; nothing more.
func TestAllowedBotSubmitters(t *testing.T) {
	t.Parallel()
	main := queue.QueueKey{Repo: helloWorld, Branch: "main"}
	tests := []struct {
		name, login, body string
		submit            bool
		wantComment       string
	}{
		{"listed bot merges", "renovate[bot]", "/mq merge", true, ""},
		{"listed in another case", "Renovate[bot]", "/mq merge --no-batch", true, ""},
		{"not urgent", "renovate[bot]", "/mq merge -p urgent", false, "you need admin access"},
		{"not direct", "renovate[bot]", "/mq merge --direct", false, "you need admin access"},
		{"not cancel", "renovate[bot]", "/mq cancel", false, "you need write access"},
		{"an unlisted bot is refused", "dependabot[bot]", "/mq merge", false, "you need write access"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			svc, gh := commentWorld()
			s := queue.DefaultSettings()
			s.AllowedBotSubmitters = []string{"renovate[bot]"}
			svc.addQueue(main, s)
			h := NewIssueCommentHandler(testConfig(), svc, svc, gh)
			if err := h.Handle(context.Background(), "issue_comment", "d", prComment(t, "created.payload.json", tt.login, tt.body)); err != nil {
				t.Fatal(err)
			}
			if got := len(svc.submits); got != map[bool]int{true: 1, false: 0}[tt.submit] {
				t.Fatalf("submits %+v, want submitted=%v", svc.submits, tt.submit)
			}
			assertComment(t, svc, tt.wantComment)
		})
	}
}

// The allowedBotSubmitters exemption needs a bot account: a person (GitHub
// user type "User") whose login is listed, whether as an entry stored
// before entries had to end in [bot] or as a payload claiming a listed
// bot's name for a person, is asked about like anyone else and, without
// write access, refused; the listed bot itself (type "Bot") still merges
// without a permission read. Both the comment and the label path.
func TestAllowedBotSubmittersNeedABotAccount(t *testing.T) {
	t.Parallel()
	main := queue.QueueKey{Repo: helloWorld, Branch: "main"}
	master := queue.QueueKey{Repo: helloWorld, Branch: "master"}
	tests := []struct {
		name, login, typ string
		submit           bool
	}{
		{"a person listed before the [bot] rule", "ci-user", "User", false},
		{"a person claiming a listed bot's name", "renovate[bot]", "User", false},
		{"no account type in the payload", "renovate[bot]", "", false},
		{"the listed bot", "renovate[bot]", "Bot", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := queue.DefaultSettings()
			s.AllowedBotSubmitters = []string{"renovate[bot]", "ci-user"} // as stored before the rule

			svc, gh := commentWorld()
			svc.addQueue(main, s)
			comment := patchJSON(t, prComment(t, "created.payload.json", tt.login, "/mq merge"), func(m map[string]any) {
				obj(obj(m, "comment"), "user")["type"] = tt.typ
				obj(m, "sender")["type"] = tt.typ
			})
			if err := NewIssueCommentHandler(testConfig(), svc, svc, gh).Handle(context.Background(), "issue_comment", "d", comment); err != nil {
				t.Fatal(err)
			}
			if got, want := len(svc.submits), map[bool]int{true: 1, false: 0}[tt.submit]; got != want {
				t.Errorf("comment: %d submissions, want %d", got, want)
			}
			if wantReads := map[bool]int{true: 0, false: 1}[tt.submit]; gh.permCalls != wantReads {
				t.Errorf("comment: %d permission reads, want %d", gh.permCalls, wantReads)
			}

			svc, gh = newFakeService(), newFakeGitHub()
			svc.addQueue(master, s)
			label := patchJSON(t, labelPayload(t, "labeled", "merge-queue", tt.login), func(m map[string]any) {
				obj(m, "sender")["type"] = tt.typ
			})
			if err := NewPullRequestHandler(testConfig(), svc, svc, gh).Handle(context.Background(), "pull_request", "d", label); err != nil {
				t.Fatal(err)
			}
			if got, want := len(svc.submits), map[bool]int{true: 1, false: 0}[tt.submit]; got != want {
				t.Errorf("label: %d submissions, want %d", got, want)
			}
		})
	}
}
