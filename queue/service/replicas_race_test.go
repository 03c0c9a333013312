package service_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/sim"
)

// pausedSaves is a replica's view of the shared store whose next
// SaveEntry of an entry waits: it tells when that save began (read, on
// GetEntryByID of the entry just before), then waits for release.
type pausedSaves struct {
	queue.Store
	entryID string
	read    chan struct{} // closed once the entry was read
	release chan struct{} // the save goes on once closed
	once    sync.Once
}

func (p *pausedSaves) GetEntryByID(ctx context.Context, id string) (*queue.Entry, error) {
	e, err := p.Store.GetEntryByID(ctx, id)
	if id == p.entryID {
		p.once.Do(func() { close(p.read) })
	}
	return e, err
}

func (p *pausedSaves) SaveEntry(ctx context.Context, e *queue.Entry) error {
	if e.ID == p.entryID {
		<-p.release
	}
	return p.Store.SaveEntry(ctx, e)
}

// webhookDuringMerge is the holder's GitHub: right after it merges a PR,
// the PR's webhook reaches another replica (onMerged), which reads the
// entry while the holder has not yet recorded the merge.
type webhookDuringMerge struct {
	*sim.World
	onMerged func(number int)
}

func (g *webhookDuringMerge) MergePullRequest(ctx context.Context, repo queue.Repo, number int, req queue.MergeRequest) (string, error) {
	sha, err := g.World.MergePullRequest(ctx, repo, number, req)
	if err == nil && g.onMerged != nil {
		g.onMerged(number)
		g.onMerged = nil
	}
	return sha, err
}

// Two replicas share one store: the queue's holder merges a PR, and the
// PR's "closed, merged" webhook reaches the other replica, which reads the
// entry before the holder records the merge and saves it after. The stale
// save changes nothing (the entry stays merged), and the merge is
// recorded once in the merge log (it was recorded twice: the stale row,
// its merge intent still set, made the holder read the PR back and record
// the merge again).
func TestAStaleWebhookSaveOnAnotherReplicaDoesNotUndoAMerge(t *testing.T) {
	w := newSimWorld(t)
	ctx, store, world, repo := w.ctx, w.store, w.world, simRepo
	gh := &webhookDuringMerge{World: world}
	holder := w.replica(store, gh, time.Minute)
	q := w.createQueue(holder, quietSettings(func(s *queue.Settings) { s.Concurrency = 1 }))
	pr, e := w.submit(holder, q, "change")
	other := &pausedSaves{Store: store, entryID: e.ID, read: make(chan struct{}), release: make(chan struct{})}
	replica := w.replica(other, world, time.Minute)
	webhook := make(chan error, 1)
	gh.onMerged = func(n int) {
		go func() { webhook <- replica.OnPullRequest(ctx, repo, world.PR(n)) }()
		select {
		case <-other.read:
		case err := <-webhook:
			t.Errorf("the webhook on the other replica ended before it read the entry: %v", err)
		case <-time.After(10 * time.Second):
			t.Error("the webhook on the other replica did not read the entry")
		}
	}
	sync := func() {
		t.Helper()
		if _, err := holder.Sync(ctx, q.ID); err != nil {
			t.Fatalf("sync: %v", err)
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for len(world.Merged()) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the PR did not merge")
		}
		sync()
		w.reportCI(holder, true)
		w.advance(time.Second)
	}
	close(other.release)
	select {
	case err := <-webhook:
		if err != nil {
			t.Errorf("the webhook on the other replica: %v (it should redo its change on the merged entry: nothing to do)", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the webhook on the other replica did not end")
	}
	for range 3 {
		sync()
	}
	merges, err := store.ListMerges(ctx, q.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	var prs []int
	for _, m := range merges {
		prs = append(prs, m.PRNumber)
	}
	if len(prs) != 1 || prs[0] != pr {
		t.Errorf("merge log: PRs %v, want [%d] (merged once on GitHub: %v)", prs, pr, world.Merged())
	}
	got, err := store.GetEntryByID(ctx, e.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.State != queue.StateMerged || got.MergeIntent {
		t.Errorf("entry after the stale save: state %s, merge intent %v; want merged, no intent", got.State, got.MergeIntent)
	}
}

// savedAfterRead is the holder's view of the shared store: once armed, its
// first read of the entry is followed at once by another replica's save of
// it (before the holder saves what it read).
type savedAfterRead struct {
	queue.Store
	entryID string
	armed   bool
	other   func()
}

func (s *savedAfterRead) GetEntryByID(ctx context.Context, id string) (*queue.Entry, error) {
	e, err := s.Store.GetEntryByID(ctx, id)
	if id == s.entryID && s.armed {
		s.armed = false
		s.other()
	}
	return e, err
}

// The holder merges a PR and reads its entry to record the merge; the PR's
// webhook, on another replica, saves the entry's new facts before the
// holder saves: the holder's record finds the entry changed and is redone
// on fresh state in the same sync (the merge recorded once, the entry
// merged), not left to a later sync that reads the PR back.
func TestAMergeRecordedAfterAWebhookSaveOnAnotherReplica(t *testing.T) {
	w := newSimWorld(t)
	ctx, mem, world, repo := w.ctx, w.store, w.world, simRepo
	replica := w.replica(mem, world, time.Minute)
	view := &savedAfterRead{Store: mem}
	gh := &webhookDuringMerge{World: world}
	holder := w.replica(view, gh, time.Minute)
	q := w.createQueue(holder, quietSettings(func(s *queue.Settings) { s.Concurrency = 1 }))
	pr, e := w.submit(holder, q, "change")
	view.entryID = e.ID
	view.other = func() {
		if err := replica.OnPullRequest(ctx, repo, world.PR(pr)); err != nil {
			t.Errorf("the webhook on the other replica: %v", err)
		}
	}
	gh.onMerged = func(int) { view.armed = true }
	for range 20 {
		if _, err := holder.Sync(ctx, q.ID); err != nil {
			t.Fatalf("sync: %v", err)
		}
		if len(world.Merged()) > 0 {
			break
		}
		w.reportCI(holder, true)
		w.advance(time.Second)
	}
	if len(world.Merged()) == 0 {
		t.Fatal("the PR did not merge")
	}
	got, err := mem.GetEntryByID(ctx, e.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.State != queue.StateMerged || got.MergeIntent {
		t.Errorf("after the sync that merged: state %s, merge intent %v; want merged", got.State, got.MergeIntent)
	}
	if merges, err := mem.ListMerges(ctx, q.ID, 0); err != nil || len(merges) != 1 {
		t.Errorf("merge log %v, %v; want the one merge", merges, err)
	}
}

// firstSubmitElsewhere is a replica's view of the shared store on which
// another replica submits the same PR between this one's read (no entry)
// and its insert.
type firstSubmitElsewhere struct {
	queue.Store
	other func()
	once  sync.Once
}

func (f *firstSubmitElsewhere) GetEntry(ctx context.Context, queueID int64, pr int) (*queue.Entry, error) {
	e, err := f.Store.GetEntry(ctx, queueID, pr)
	f.once.Do(f.other)
	return e, err
}

// Two replicas submit the same PR at once (a label and a comment, handled
// on different replicas): both read no entry; the second insert finds the
// first's entry and the submission is decided again on it, instead of
// failing (the webhook was given up in the failover test).
func TestASubmissionRacingAnotherReplicasIsDecidedOnItsEntry(t *testing.T) {
	w := newSimWorld(t)
	ctx, mem, world := w.ctx, w.store, w.world
	first := w.replica(mem, world, time.Minute)
	q := w.createQueue(first, queue.DefaultSettings())
	pr := world.OpenPR(sim.PRSpec{Title: "change"})
	var firstEntry *queue.Entry
	view := &firstSubmitElsewhere{Store: mem, other: func() {
		var err error
		if firstEntry, err = first.Submit(ctx, queue.SubmitRequest{Key: q.Key, PRNumber: pr, Submitter: "dev", Source: "label"}); err != nil {
			t.Errorf("the first replica's submission: %v", err)
		}
	}}
	second := w.replica(view, world, time.Minute)
	e, err := second.Submit(ctx, queue.SubmitRequest{Key: q.Key, PRNumber: pr, Submitter: "dev", Source: "comment", Priority: "high"})
	if err != nil {
		t.Fatalf("the second replica's submission of the same PR: %v", err)
	}
	if firstEntry == nil || e.ID != firstEntry.ID {
		t.Fatalf("the second submission answered entry %s, want the first's", e.ID)
	}
	got, err := mem.GetEntry(ctx, q.ID, pr)
	if err != nil {
		t.Fatal(err)
	}
	if got.PriorityName != "high" {
		t.Errorf("the second submission's priority was not applied: %q", got.PriorityName)
	}
}
