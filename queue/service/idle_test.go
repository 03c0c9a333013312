package service_test

import (
	"context"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/memstore"
	"github.com/mergequeue/mq/queue/service"
	"github.com/mergequeue/mq/queue/sim"
)

// An idle queue (no active entry, no open run) costs no GitHub call when
// it is synced, however often: an organisation with thousands of queues,
// most idle, synced every reconcile interval would otherwise spend two
// reads per queue and interval (the target head and branch protection),
// far beyond GitHub's hourly request limit. Once a PR is submitted the
// queue reads GitHub again and tests it.
func TestIdleQueueSyncsWithoutGitHubCalls(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	repo := queue.Repo{Host: "github.com", Owner: "acme", Name: "widgets"}
	world := sim.NewWorld(sim.WorldConfig{Repo: repo, Branch: "main", Checks: []string{sim.CICheck}, Now: clock})
	svc := service.NewService(memstore.New(), world, service.Options{Now: clock, ReconcileEvery: 30 * time.Second})
	s := queue.DefaultSettings()
	s.CommentsEnabled, s.StatusCheckEnabled = false, false // branch protection decides the required checks
	q, err := svc.CreateQueue(ctx, queue.QueueKey{Repo: repo, Branch: "main"}, s)
	if err != nil {
		t.Fatal(err)
	}
	total := func() int {
		n := 0
		for _, c := range world.Calls() {
			n += c
		}
		return n
	}
	before := total()
	for range 20 {
		if _, err := svc.Sync(ctx, q.ID); err != nil {
			t.Fatalf("sync: %v", err)
		}
		now = now.Add(time.Minute) // past every cache of the head and of branch protection
	}
	if n := total() - before; n != 0 {
		t.Fatalf("20 syncs of an idle queue made %d GitHub calls (%v); want none", n, world.Calls())
	}
	pr := world.OpenPR(sim.PRSpec{Title: "a change"})
	if _, err := svc.Submit(ctx, queue.SubmitRequest{Key: q.Key, PRNumber: pr, Submitter: "dev", Source: "api"}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Sync(ctx, q.ID); err != nil {
		t.Fatalf("sync: %v", err)
	}
	if world.Calls()["BranchHead"] == 0 {
		t.Fatalf("a queue with a PR did not read its target head (%v)", world.Calls())
	}
}
