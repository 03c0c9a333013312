package fakegithub

import (
	"net/http"
	"testing"

	"github.com/google/go-github/v66/github"
)

func TestPullRequestsAPI(t *testing.T) {
	t.Parallel()
	s := newServer(t, Options{})
	c := newClient(t, s, "/")
	ctx := t.Context()
	head := must(t)(s.Commit(testOwner, testRepo, "feat/one", map[string]string{"a.txt": "a"}, "a"))
	must(t)(s.Commit(testOwner, testRepo, "empty", nil, "nothing"))
	must(t)(s.Commit(testOwner, testRepo, "empty", map[string]string{"README.md": "hello\n"}, "same"))

	pr, resp, err := c.PullRequests.Create(ctx, testOwner, testRepo, &github.NewPullRequest{
		Title: github.String("One"), Head: github.String("feat/one"), Base: github.String("main"), Body: github.String("body"),
	})
	if err != nil || statusOf(resp) != http.StatusCreated {
		t.Fatalf("Create = %d, %v", statusOf(resp), err)
	}
	if pr.GetNumber() != 1 || pr.GetHead().GetSHA() != head || pr.GetHead().GetRef() != "feat/one" || pr.GetBase().GetRef() != "main" ||
		pr.GetUser().GetLogin() != BotLogin || pr.GetMergeableState() != "clean" || !pr.GetMergeable() || pr.GetHTMLURL() == "" {
		t.Fatalf("created PR = %+v", pr)
	}
	refusals := []struct {
		name string
		np   github.NewPullRequest
	}{
		{"duplicate", github.NewPullRequest{Title: github.String("x"), Head: github.String("feat/one"), Base: github.String("main")}},
		{"missing head", github.NewPullRequest{Title: github.String("x"), Head: github.String("nope"), Base: github.String("main")}},
		{"no commits", github.NewPullRequest{Title: github.String("x"), Head: github.String("main"), Base: github.String("feat/one")}},
	}
	for _, tc := range refusals {
		if _, resp, _ := c.PullRequests.Create(ctx, testOwner, testRepo, &tc.np); statusOf(resp) != http.StatusUnprocessableEntity {
			t.Fatalf("%s: Create = %d, want 422", tc.name, statusOf(resp))
		}
	}

	n2, err := s.OpenPR(testOwner, testRepo, PROptions{Head: "empty", Title: "Two", Author: "bob", Draft: true})
	if err != nil {
		t.Fatal(err)
	}
	lists := []struct {
		name string
		opts github.PullRequestListOptions
		want []int
	}{
		{"open", github.PullRequestListOptions{}, []int{n2, 1}},
		{"by head", github.PullRequestListOptions{Head: "acme:feat/one"}, []int{1}},
		{"by base", github.PullRequestListOptions{Base: "other"}, nil},
		{"closed", github.PullRequestListOptions{State: "closed"}, nil},
	}
	for _, tc := range lists {
		got, _, err := c.PullRequests.List(ctx, testOwner, testRepo, &tc.opts)
		if err != nil || len(got) != len(tc.want) {
			t.Fatalf("%s: List = %d PRs, %v", tc.name, len(got), err)
		}
		for i, p := range got {
			if p.GetNumber() != tc.want[i] {
				t.Fatalf("%s: PR %d = #%d, want #%d", tc.name, i, p.GetNumber(), tc.want[i])
			}
		}
	}

	edited, _, err := c.PullRequests.Edit(ctx, testOwner, testRepo, 1, &github.PullRequest{Title: github.String("One!"), State: github.String("closed")})
	if err != nil || edited.GetTitle() != "One!" || edited.GetState() != "closed" || edited.GetMerged() {
		t.Fatalf("Edit = %v, %v", edited, err)
	}
	if got, _, _ := c.PullRequests.List(ctx, testOwner, testRepo, &github.PullRequestListOptions{State: "closed"}); len(got) != 1 {
		t.Fatalf("closed list = %d", len(got))
	}
	if _, resp, _ := c.PullRequests.Get(ctx, testOwner, testRepo, 99); statusOf(resp) != http.StatusNotFound {
		t.Fatalf("missing PR = %d", statusOf(resp))
	}
}

func TestMergeableState(t *testing.T) {
	t.Parallel()
	s := newServer(t, Options{})
	c := newClient(t, s, "/")
	ctx := t.Context()
	must(t)(s.Commit(testOwner, testRepo, "feat", map[string]string{"a.txt": "a"}, "a"))
	n, err := s.OpenPR(testOwner, testRepo, PROptions{Head: "feat", Author: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	get := func() *github.PullRequest {
		t.Helper()
		pr, _, err := c.PullRequests.Get(ctx, testOwner, testRepo, n)
		if err != nil {
			t.Fatal(err)
		}
		return pr
	}
	steps := []struct {
		name      string
		act       func()
		mergeable *bool
		state     string
	}{
		{"clean", func() {}, github.Bool(true), "clean"},
		{"draft", func() { noErr(t, s.SetDraft(testOwner, testRepo, n, "alice", true)) }, github.Bool(true), "draft"},
		{"behind", func() {
			noErr(t, s.SetDraft(testOwner, testRepo, n, "alice", false))
			must(t)(s.PushToBranch(testOwner, testRepo, "main", map[string]string{"m.txt": "m"}))
		}, github.Bool(true), "behind"},
		{"unknown once", func() { noErr(t, s.SetMergeableUnknown("acme/widgets", n, 1)) }, nil, "unknown"},
		{"computed again", func() {}, github.Bool(true), "behind"},
		{"dirty", func() { must(t)(s.PushToBranch(testOwner, testRepo, "main", map[string]string{"a.txt": "main's a"})) }, github.Bool(false), "dirty"},
	}
	for _, st := range steps {
		st.act()
		pr := get()
		if pr.GetMergeableState() != st.state || (pr.Mergeable == nil) != (st.mergeable == nil) ||
			pr.Mergeable != nil && *pr.Mergeable != *st.mergeable {
			t.Fatalf("%s: mergeable %v state %q", st.name, pr.Mergeable, pr.GetMergeableState())
		}
	}
}

func TestIssuesCommentsReactionsLabels(t *testing.T) {
	t.Parallel()
	s := newServer(t, Options{})
	c := newClient(t, s, "/")
	ctx := t.Context()
	must(t)(s.Commit(testOwner, testRepo, "feat", map[string]string{"a.txt": "a"}, "a"))
	n, _ := s.OpenPR(testOwner, testRepo, PROptions{Head: "feat", Author: "alice"})
	userComment, err := s.Comment(testOwner, testRepo, n, "alice", "/merge")
	if err != nil {
		t.Fatal(err)
	}

	bot, _, err := c.Issues.CreateComment(ctx, testOwner, testRepo, n, &github.IssueComment{Body: github.String("queued")})
	if err != nil || bot.GetUser().GetLogin() != BotLogin {
		t.Fatalf("CreateComment = %v, %v", bot, err)
	}
	if _, _, err := c.Issues.EditComment(ctx, testOwner, testRepo, bot.GetID(), &github.IssueComment{Body: github.String("merged")}); err != nil {
		t.Fatal(err)
	}
	got, _, err := c.Issues.GetComment(ctx, testOwner, testRepo, bot.GetID())
	if err != nil || got.GetBody() != "merged" {
		t.Fatalf("GetComment = %v, %v", got, err)
	}
	list, _, err := c.Issues.ListComments(ctx, testOwner, testRepo, n, nil)
	if err != nil || len(list) != 2 || list[0].GetID() != userComment || list[1].GetBody() != "merged" {
		t.Fatalf("ListComments = %v, %v", list, err)
	}
	if _, resp, err := c.Reactions.CreateIssueCommentReaction(ctx, testOwner, testRepo, userComment, "eyes"); err != nil || statusOf(resp) != http.StatusCreated {
		t.Fatalf("reaction = %d, %v", statusOf(resp), err)
	}
	if _, resp, _ := c.Reactions.CreateIssueCommentReaction(ctx, testOwner, testRepo, userComment, "bogus"); statusOf(resp) != http.StatusUnprocessableEntity {
		t.Fatalf("bogus reaction = %d", statusOf(resp))
	}
	if r := s.Reactions(userComment); len(r) != 1 || r[0] != "eyes" {
		t.Fatalf("Reactions = %v", r)
	}

	labels, _, err := c.Issues.AddLabelsToIssue(ctx, testOwner, testRepo, n, []string{"queued", "prio"})
	if err != nil || len(labels) != 2 {
		t.Fatalf("AddLabels = %v, %v", labels, err)
	}
	if _, err := c.Issues.RemoveLabelForIssue(ctx, testOwner, testRepo, n, "queued"); err != nil {
		t.Fatal(err)
	}
	if resp, _ := c.Issues.RemoveLabelForIssue(ctx, testOwner, testRepo, n, "queued"); statusOf(resp) != http.StatusNotFound {
		t.Fatalf("removing missing label = %d", statusOf(resp))
	}
	labels, _, err = c.Issues.ListLabelsByIssue(ctx, testOwner, testRepo, n, nil)
	if err != nil || len(labels) != 1 || labels[0].GetName() != "prio" {
		t.Fatalf("ListLabels = %v, %v", labels, err)
	}
}
