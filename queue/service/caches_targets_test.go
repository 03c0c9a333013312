package service

import (
	"testing"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/engine"
)

// The target cache keeps its own map: a snapshot's targets, which the
// engine reads without the cache's lock, do not change when an upload
// makes the cache forget a PR (before, the delete raced the engine's
// reads: a data race under -race, a fatal concurrent map access without).
func TestTargetCacheForgetLeavesTheSnapshotsTargets(t *testing.T) {
	c := newTargetCache()
	snap := map[int]*engine.TargetSet{
		1: engine.NewTargetSet(&queue.Targets{PRNumber: 1, List: []string{"a"}}),
		2: nil,
	}
	c.replace(7, snap)
	c.forget(7, 1)
	if _, ok := snap[1]; !ok || len(snap) != 2 {
		t.Errorf("forgetting #1 changed the snapshot's targets: %v", snap)
	}
	if _, ok := c.lookup(7, 1); ok {
		t.Error("#1 is still cached after forget")
	}
	if ts, ok := c.lookup(7, 2); !ok || ts != nil {
		t.Errorf("#2 (no targets uploaded) = %v, %v; want cached as none", ts, ok)
	}
}
