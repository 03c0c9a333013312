package handlers_test

// The command path against the real service, githubx and the fake GitHub,
// counting what a command reads.

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mergequeue/mq/githubx"
	"github.com/mergequeue/mq/githubx/fakegithub"
	"github.com/mergequeue/mq/handlers"
	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/memstore"
	"github.com/mergequeue/mq/queue/readside"
	"github.com/mergequeue/mq/queue/service"
)

// countingStore counts queue lookups by key.
type countingStore struct {
	queue.Store
	getQueue atomic.Int32
}

func (s *countingStore) GetQueue(ctx context.Context, key queue.QueueKey) (*queue.Queue, error) {
	s.getQueue.Add(1)
	return s.Store.GetQueue(ctx, key)
}

// commandWorld is a repository on the fake GitHub with PR number open
// into main, which has a queue; writer may write.
type commandWorld struct {
	fake   *fakegithub.Server
	store  *countingStore
	svc    *service.Service
	reads  *readside.Reads
	h      *handlers.IssueCommentHandler
	repo   queue.Repo
	number int
}

func newCommandWorld(t *testing.T, settings queue.Settings, head string) *commandWorld {
	t.Helper()
	fake, err := fakegithub.New(fakegithub.Options{CI: fakegithub.CIOptions{Disabled: true}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(fake.Close)
	w := &commandWorld{fake: fake, store: &countingStore{Store: memstore.New()}, repo: queue.Repo{Host: "github.com", Owner: "acme", Name: "widgets"}}
	if err := fake.CreateRepo(w.repo.Owner, w.repo.Name, map[string]string{"README.md": "x\n"}); err != nil {
		t.Fatal(err)
	}
	if _, err := fake.PushToBranch(w.repo.Owner, w.repo.Name, head, map[string]string{"a.txt": "a\n"}); err != nil {
		t.Fatal(err)
	}
	if w.number, err = fake.OpenPR(w.repo.Owner, w.repo.Name, fakegithub.PROptions{Head: head}); err != nil {
		t.Fatal(err)
	}
	if err := fake.SetPermission(w.repo.Owner, w.repo.Name, "writer", "write"); err != nil {
		t.Fatal(err)
	}
	gh, err := githubx.New(githubx.Config{V3APIURL: fake.URL() + "/", V4APIURL: fake.URL() + "/graphql", WebURL: fake.URL(),
		AppID: fake.AppID(), PrivateKey: fake.AppPrivateKeyPEM(), Host: "github.com"})
	if err != nil {
		t.Fatal(err)
	}
	w.svc = service.NewService(w.store, gh, service.Options{})
	if _, err := w.svc.CreateQueue(t.Context(), queue.QueueKey{Repo: w.repo, Branch: "main"}, settings); err != nil {
		t.Fatal(err)
	}
	w.reads = readside.New(w.store, readside.Options{})
	w.h = handlers.NewIssueCommentHandler(handlers.Config{}, w.svc, w.reads, gh)
	return w
}

// comment delivers a new comment by writer with body on the PR and
// returns how many times the PR and the queue were read for it.
func (w *commandWorld) comment(t *testing.T, body string) (prReads, queueReads int) {
	t.Helper()
	const route = "GET /repos/{owner}/{repo}/pulls/{number}"
	before := w.fake.Calls(route)
	w.store.getQueue.Store(0)
	user := map[string]any{"login": "writer", "type": "User"}
	payload, err := json.Marshal(map[string]any{
		"action":     "created",
		"issue":      map[string]any{"number": w.number, "pull_request": map[string]any{}},
		"comment":    map[string]any{"id": 7, "body": body, "user": user, "updated_at": "2026-03-01T10:00:00Z"},
		"repository": map[string]any{"name": w.repo.Name, "owner": map[string]any{"login": w.repo.Owner}},
		"sender":     user,
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.h.Handle(t.Context(), "issue_comment", "d", payload); err != nil {
		t.Fatal(err)
	}
	return w.fake.Calls(route) - before, int(w.store.getQueue.Load())
}

// A /mq merge reads the PR once and its queue once: the service reads
// both for the command (CommandTarget) and submits what it read
// (SubmitTarget), where the handler and Submit each read both before.
func TestMergeCommandReadsEachThingOnce(t *testing.T) {
	t.Parallel()
	w := newCommandWorld(t, queue.DefaultSettings(), "feature")
	prReads, queueReads := w.comment(t, "/mq merge")
	entries, err := w.reads.ActiveEntries(t.Context(), w.repo, w.number)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Submitter != "writer" || entries[0].Source != "comment" {
		t.Fatalf("entries %+v, want #%d submitted by writer through a comment", entries, w.number)
	}
	if notices, err := w.store.DueNotices(t.Context(), time.Now().Add(time.Hour), 10); err != nil || len(notices) != 1 || notices[0].Kind != queue.NoticeReaction {
		t.Errorf("notices %+v (%v), want the +1 reaction", notices, err)
	}
	if prReads != 1 || queueReads != 1 {
		t.Errorf("/mq merge read the PR %d times and its queue %d times, want once each", prReads, queueReads)
	}
}

// A /mq merge on one of the queue's own test PRs changes nothing and is
// not answered: the service refuses it (RefusedTestPR), having read the PR
// and the queue once, and the commenter's permission is never asked.
func TestMergeCommandOnATestPRIsIgnored(t *testing.T) {
	t.Parallel()
	w := newCommandWorld(t, queue.DefaultSettings(), queue.DefaultTestBranchPrefix+"pr-1/run")
	const permRoute = "GET /repos/{owner}/{repo}/collaborators/{user}/permission"
	prReads, queueReads := w.comment(t, "/mq merge")
	entries, err := w.reads.ActiveEntries(t.Context(), w.repo, w.number)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 0 {
		t.Errorf("entries %+v, want none for a test PR", entries)
	}
	if got := w.fake.Calls(permRoute); got != 0 {
		t.Errorf("%d permission reads for a command on a test PR, want none", got)
	}
	if notices, err := w.store.DueNotices(t.Context(), time.Now().Add(time.Hour), 10); err != nil || len(notices) != 0 {
		t.Errorf("notices %+v, want no reply or reaction", notices)
	}
	if prReads != 1 || queueReads != 1 {
		t.Errorf("read the PR %d times and its queue %d times, want once each", prReads, queueReads)
	}
}
