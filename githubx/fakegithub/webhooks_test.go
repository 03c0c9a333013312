package fakegithub

import (
	"net/http"
	"net/http/httptest"
	"reflect"
	"sync/atomic"
	"testing"

	"github.com/google/go-github/v66/github"
)

func TestWebhooksInOrderAndSigned(t *testing.T) {
	t.Parallel()
	s := newServer(t, Options{})
	sink := newHookSink(t, s)
	c := newClient(t, s, "/")
	ctx := t.Context()

	must(t)(s.Commit(testOwner, testRepo, "feat", map[string]string{"a.txt": "a"}, "a"))
	n, _ := s.OpenPR(testOwner, testRepo, PROptions{Head: "feat", Author: "alice"})
	if _, err := s.Comment(testOwner, testRepo, n, "alice", "/merge"); err != nil {
		t.Fatal(err)
	}
	noErr(t, s.AddLabel(testOwner, testRepo, n, "alice", "ready"))
	head := must(t)(s.PushToPR(testOwner, testRepo, n, map[string]string{"b.txt": "b"}))
	if _, _, err := c.Repositories.CreateStatus(ctx, testOwner, testRepo, head, &github.RepoStatus{State: github.String("success"), Context: github.String("lint")}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Checks.CreateCheckRun(ctx, testOwner, testRepo, github.CreateCheckRunOptions{Name: "Merge Queue (main)", HeadSHA: head}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.PullRequests.Merge(ctx, testOwner, testRepo, n, "", &github.PullRequestOptions{SHA: head}); err != nil {
		t.Fatal(err)
	}

	want := []string{
		"push", "pull_request.opened", "issue_comment.created", "pull_request.labeled",
		"push", "pull_request.synchronize", "status", "check_run.created",
		"push", "pull_request.closed",
	}
	if got := sink.names(s); !reflect.DeepEqual(got, want) {
		t.Fatalf("events:\n got %v\nwant %v", got, want)
	}
	if sink.bad != 0 {
		t.Fatalf("%d deliveries had bad signatures", sink.bad)
	}
	events := sink.all()
	senders := map[int]string{1: "alice", 2: "alice", 5: "alice", 8: BotLogin, 9: BotLogin}
	for i, who := range senders {
		if events[i].Sender != who {
			t.Fatalf("event %d (%s) sender %q, want %q", i, events[i].Event, events[i].Sender, who)
		}
	}
	for i, e := range events {
		inst, _ := e.Payload["installation"].(map[string]any)
		repo, _ := e.Payload["repository"].(map[string]any)
		if inst["id"] != float64(1) || repo["full_name"] != "acme/widgets" {
			t.Fatalf("event %d lacks installation/repository: %v", i, e.Payload)
		}
	}
	issue, _ := events[2].Payload["issue"].(map[string]any)
	if _, ok := issue["pull_request"]; !ok {
		t.Fatal("issue_comment payload lacks issue.pull_request")
	}
	if sender := events[9].Payload["sender"].(map[string]any); sender["type"] != "Bot" {
		t.Fatalf("bot sender type = %v", sender["type"])
	}
	closed := events[9].Payload["pull_request"].(map[string]any)
	if closed["merged"] != true {
		t.Fatalf("closed payload merged = %v", closed["merged"])
	}
	ids := map[string]bool{}
	for _, d := range s.Deliveries()[1:] { // [0]: the initial push, before the sink
		if d.StatusCode != http.StatusOK || d.Err != "" || ids[d.ID] {
			t.Fatalf("delivery %+v", d)
		}
		ids[d.ID] = true
	}
}

func TestWebhookFailuresAreRecordedNotRetried(t *testing.T) {
	t.Parallel()
	s := newServer(t, Options{})
	var hits atomic.Int32
	fail := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.WriteHeader(http.StatusInternalServerError)
	}))
	defer fail.Close()

	// The repo's initial push happened before any URL was set.
	waitIdle(t, s)
	s.SetWebhookURL(fail.URL)
	must(t)(s.Commit(testOwner, testRepo, "feat", map[string]string{"a.txt": "a"}, "a"))
	waitIdle(t, s)
	d := s.Deliveries()
	if len(d) != 2 || d[0].Err != "no webhook URL configured" || d[1].StatusCode != 500 || d[1].Err == "" || hits.Load() != 1 {
		t.Fatalf("deliveries = %+v, hits %d", d, hits.Load())
	}
}
