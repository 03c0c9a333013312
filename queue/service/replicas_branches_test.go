package service_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/sim"
)

// recordedThen is the holder's view of the shared store: right after it
// records a test branch (before it goes on to build it), another replica
// runs (then), once.
type recordedThen struct {
	queue.Store
	then   func()
	branch string
}

func (r *recordedThen) RecordRef(ctx context.Context, ref queue.Ref) error {
	if err := r.Store.RecordRef(ctx, ref); err != nil {
		return err
	}
	if r.then != nil && strings.HasPrefix(ref.Name, queue.DefaultTestBranchPrefix) {
		r.branch = ref.Name
		then := r.then
		r.then = nil
		then()
	}
	return nil
}

// The queue's holder records a test branch before it builds it; another
// replica's branch clean-up runs in between, more than a reconcile
// interval later (the holder slowed down). It leaves the branch alone: it
// neither deletes it nor forgets its record, and once the holder has
// published it and its run is testing, the clean-up's sweep of GitHub does
// not take it for an orphan. (The clean-up judged the branch by the
// in-flight set of its own process: on another replica a branch whose run
// was not yet saved was dead, its record forgotten, and the branch, once
// published, deleted under its running CI.)
func TestAnotherReplicasCleanUpLeavesATestBranchBeingBuilt(t *testing.T) {
	w := newSimWorld(t)
	other := w.replica(w.store, w.world, time.Minute)
	view := &recordedThen{Store: w.store}
	holder := w.replica(view, w.world, time.Minute)
	q := w.createQueue(holder, quietSettings(nil))
	w.submit(holder, q, "change")
	view.then = func() {
		for range 2 {
			w.advance(2 * time.Minute)
			if _, err := other.Reconciler().Pass(w.ctx); err != nil {
				t.Errorf("the other replica's pass: %v", err)
			}
		}
	}
	if _, err := holder.Sync(w.ctx, q.ID); err != nil {
		t.Fatalf("sync: %v", err)
	}
	if view.branch == "" {
		t.Fatal("the holder recorded no test branch")
	}
	for range 3 { // past the interval of the other replica's sweep
		w.advance(2 * time.Minute)
		if _, err := other.Reconciler().Pass(w.ctx); err != nil {
			t.Fatalf("the other replica's pass: %v", err)
		}
	}
	branches, err := w.world.ListBranches(w.ctx, simRepo, queue.DefaultTestBranchPrefix)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(branches, view.branch) {
		t.Errorf("the test branch %s of the running test is gone from GitHub (branches %v)", view.branch, branches)
	}
	refs, err := w.store.ListRefs(w.ctx, simRepo)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(refs, func(r queue.Ref) bool { return r.Name == view.branch }) {
		t.Errorf("the record of the test branch %s is gone (records %+v)", view.branch, refs)
	}
	if jobs := w.world.PendingCI(); len(jobs) != 1 || jobs[0].Branch != view.branch {
		t.Errorf("CI jobs %+v, want the one on %s", jobs, view.branch)
	}
}

// buildWatch is the holder's GitHub: it runs during (once armed) when a
// test branch's build begins, and keeps what each build was to delete and
// what it deleted.
type buildWatch struct {
	*sim.World
	during  func()
	toKill  []string
	deleted []string
}

func (b *buildWatch) BuildBranch(ctx context.Context, repo queue.Repo, spec queue.BranchSpec) (queue.Built, error) {
	if spec.Name != "" && b.during != nil {
		during := b.during
		b.during = nil
		during()
	}
	built, err := b.World.BuildBranch(ctx, repo, spec)
	if spec.Name != "" {
		b.toKill, b.deleted = spec.Delete, built.Deleted
	}
	return built, err
}

// A test branch that ended (its run failed) is deleted in the request
// that publishes the next test branch. While the holder builds that next
// branch, another replica's clean-up, a reconcile interval after the end,
// leaves the ended branch to the build: had it deleted it, GitHub would
// refuse the publish that also deletes a missing branch, and the branch be
// published again alone (a write more; the process's in-flight set kept
// only its own clean-up away).
func TestAnotherReplicasCleanUpLeavesTheEndedBranchesABuildDeletes(t *testing.T) {
	w := newSimWorld(t)
	other := w.replica(w.store, w.world, time.Minute)
	gh := &buildWatch{World: w.world}
	holder := w.replica(w.store, gh, time.Minute)
	q := w.createQueue(holder, quietSettings(nil))
	sync := func() {
		t.Helper()
		if _, err := holder.Sync(w.ctx, q.ID); err != nil {
			t.Fatalf("sync: %v", err)
		}
	}
	_, first := w.submit(holder, q, "broken")
	sync()
	w.reportCI(holder, false)
	sync()
	if e, err := w.store.GetEntryByID(w.ctx, first.ID); err != nil || e.State != queue.StateFailed {
		t.Fatalf("the first PR: %+v, %v; want failed", e, err)
	}
	ended, err := w.world.ListBranches(w.ctx, simRepo, queue.DefaultTestBranchPrefix)
	if err != nil || len(ended) != 1 {
		t.Fatalf("branches %v, %v; want the ended run's", ended, err)
	}
	w.advance(10 * time.Second)
	w.submit(holder, q, "change")
	gh.during = func() {
		w.advance(2 * time.Minute)
		if _, err := other.Reconciler().Pass(w.ctx); err != nil {
			t.Errorf("the other replica's pass: %v", err)
		}
	}
	sync()
	if gh.during != nil {
		t.Fatal("no test branch was built for the second PR")
	}
	if !slices.Equal(gh.toKill, ended) {
		t.Fatalf("the build was to delete %v, want the ended branch %v", gh.toKill, ended)
	}
	if !slices.Equal(gh.deleted, ended) {
		t.Errorf("the publish deleted %v, want %v: the ended branch was deleted under the build by the other replica", gh.deleted, ended)
	}
}
