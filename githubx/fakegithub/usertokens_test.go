package fakegithub

import (
	"net/http"
	"testing"

	"github.com/google/go-github/v66/github"
)

// A personal access token acts as its user: what it writes is theirs, and
// webhooks name them as sender.
func TestUserTokenActsAsTheUser(t *testing.T) {
	t.Parallel()
	s := newServer(t, Options{})
	hooks := newHookSink(t, s)
	alice := tokenClient(t, s, s.IssueUserToken("alice"))
	ctx := t.Context()
	if _, err := s.Commit(testOwner, testRepo, "feature", map[string]string{"f.txt": "f\n"}, "Add f"); err != nil {
		t.Fatal(err)
	}
	hooks.reset()

	pr, _, err := alice.PullRequests.Create(ctx, testOwner, testRepo, &github.NewPullRequest{Title: github.String("Add f"), Head: github.String("feature"), Base: github.String("main")})
	if err != nil || pr.GetUser().GetLogin() != "alice" {
		t.Fatalf("PR opened with alice's token: author %q, %v", pr.GetUser().GetLogin(), err)
	}
	cm, _, err := alice.Issues.CreateComment(ctx, testOwner, testRepo, pr.GetNumber(), &github.IssueComment{Body: github.String("/mq merge")})
	if err != nil || cm.GetUser().GetLogin() != "alice" {
		t.Fatalf("comment with alice's token: author %q, %v", cm.GetUser().GetLogin(), err)
	}
	if _, _, err := alice.Issues.AddLabelsToIssue(ctx, testOwner, testRepo, pr.GetNumber(), []string{"merge-queue"}); err != nil {
		t.Fatalf("label with alice's token: %v", err)
	}
	waitIdle(t, s)
	got := map[string]string{}
	for _, ev := range hooks.all() {
		got[ev.Event+"."+ev.Action] = ev.Sender
	}
	for _, name := range []string{"pull_request.opened", "issue_comment.created", "pull_request.labeled"} {
		if got[name] != "alice" {
			t.Errorf("%s sender = %q, want alice (all: %v)", name, got[name], got)
		}
	}

	// Only Apps write check runs, and a user token is no App credential.
	_, resp, err := alice.Checks.CreateCheckRun(ctx, testOwner, testRepo, github.CreateCheckRunOptions{Name: "ci", HeadSHA: pr.GetHead().GetSHA()})
	if statusOf(resp) != http.StatusForbidden {
		t.Errorf("check run with a user token = %d (%v), want 403", statusOf(resp), err)
	}
	if _, resp, err := alice.Apps.Get(ctx, ""); statusOf(resp) != http.StatusUnauthorized {
		t.Errorf("GET /app with a user token = %d (%v), want 401", statusOf(resp), err)
	}
	// The App's own token still acts as its bot.
	bot, _, err := newClient(t, s, "/").Issues.CreateComment(ctx, testOwner, testRepo, pr.GetNumber(), &github.IssueComment{Body: github.String("ok")})
	if err != nil || bot.GetUser().GetLogin() != BotLogin {
		t.Errorf("comment with an installation token: author %q, %v; want %s", bot.GetUser().GetLogin(), err, BotLogin)
	}
}
