package service_test

import (
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
)

// An idle queue (no active entry, no open run) costs no GitHub call when
// it is synced, however often: an organisation with thousands of queues,
// most idle, synced every reconcile interval would otherwise spend two
// reads per queue and interval (the target head and branch protection),
// far beyond GitHub's hourly request limit. Once a PR is submitted the
// queue reads GitHub again and tests it.
func TestIdleQueueSyncsWithoutGitHubCalls(t *testing.T) {
	w := newSimWorld(t)
	ctx, world := w.ctx, w.world
	svc := w.replica(w.store, world, 30*time.Second)
	s := queue.DefaultSettings()
	s.CommentsEnabled, s.StatusCheckEnabled = false, false // branch protection decides the required checks
	q := w.createQueue(svc, s)
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
		w.advance(time.Minute) // past every cache of the head and of branch protection
	}
	if n := total() - before; n != 0 {
		t.Fatalf("20 syncs of an idle queue made %d GitHub calls (%v); want none", n, world.Calls())
	}
	w.submit(svc, q, "a change")
	if _, err := svc.Sync(ctx, q.ID); err != nil {
		t.Fatalf("sync: %v", err)
	}
	if world.Calls()["BranchHead"] == 0 {
		t.Fatalf("a queue with a PR did not read its target head (%v)", world.Calls())
	}
}
