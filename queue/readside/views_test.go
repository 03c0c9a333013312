package readside_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/readside"
	"github.com/mergequeue/mq/queue/sqlite"
	"github.com/mergequeue/mq/queue/sqlite/sqlitetest"
)

// countingStore is the SQLite store counting the reads GetQueue and
// GetSubmitted may make.
type countingStore struct {
	*sqlite.Store
	mu    sync.Mutex
	reads map[string]int
}

func (c *countingStore) count(name string) {
	c.mu.Lock()
	c.reads[name]++
	c.mu.Unlock()
}

func (c *countingStore) n(name string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.reads[name]
}

func (c *countingStore) total() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, v := range c.reads {
		n += v
	}
	return n
}

func (c *countingStore) GetQueue(ctx context.Context, key queue.QueueKey) (*queue.Queue, error) {
	c.count("GetQueue")
	return c.Store.GetQueue(ctx, key)
}

func (c *countingStore) GetQueueByID(ctx context.Context, id int64) (*queue.Queue, error) {
	c.count("GetQueueByID")
	return c.Store.GetQueueByID(ctx, id)
}

func (c *countingStore) ListActiveEntries(ctx context.Context, id int64) ([]*queue.Entry, error) {
	c.count("ListActiveEntries")
	return c.Store.ListActiveEntries(ctx, id)
}

func (c *countingStore) GetEntry(ctx context.Context, id int64, pr int) (*queue.Entry, error) {
	c.count("GetEntry")
	return c.Store.GetEntry(ctx, id, pr)
}

func (c *countingStore) ListOpenRuns(ctx context.Context, id int64) ([]*queue.TestRun, error) {
	c.count("ListOpenRuns")
	return c.Store.ListOpenRuns(ctx, id)
}

func (c *countingStore) RecentRuns(ctx context.Context, id int64, limit int) ([]*queue.TestRun, error) {
	c.count("RecentRuns")
	return c.Store.RecentRuns(ctx, id, limit)
}

func (c *countingStore) GetTargets(ctx context.Context, id int64, pr int) (*queue.Targets, error) {
	c.count("GetTargets")
	return c.Store.GetTargets(ctx, id, pr)
}

func (c *countingStore) GetRun(ctx context.Context, id string) (*queue.TestRun, error) {
	c.count("GetRun")
	return c.Store.GetRun(ctx, id)
}

func (c *countingStore) LastEvent(ctx context.Context, id int64, entryID string) (*queue.Event, error) {
	c.count("LastEvent")
	return c.Store.LastEvent(ctx, id, entryID)
}

// viewFixture is Reads over a counting SQLite store with a settable
// clock; the state is written straight to the store.
type viewFixture struct {
	t     *testing.T
	ctx   context.Context
	store *countingStore
	reads *readside.Reads
	q     *queue.Queue

	mu  sync.Mutex
	now time.Time
}

func newViewFixture(t *testing.T, entries int) *viewFixture {
	t.Helper()
	s := sqlitetest.Open(t)
	f := &viewFixture{t: t, ctx: context.Background(), store: &countingStore{Store: s, reads: map[string]int{}}, now: testNow}
	f.reads = readside.New(f.store, readside.Options{Now: f.clock})
	f.q = createQueue(t, f.store, testKey, queue.DefaultSettings())
	for n := 1; n <= entries; n++ {
		f.save(n, queue.StatePending, func(*queue.Entry) {})
	}
	return f
}

func (f *viewFixture) clock() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

func (f *viewFixture) advance(d time.Duration) {
	f.mu.Lock()
	f.now = f.now.Add(d)
	f.mu.Unlock()
}

// save stores the entry of PR n in state st, changed by mod.
func (f *viewFixture) save(n int, st queue.EntryState, mod func(*queue.Entry)) {
	f.t.Helper()
	e := &queue.Entry{ID: fmt.Sprintf("e%d", n), QueueID: f.q.ID, PRNumber: n, PRSHA: fmt.Sprintf("sha%d", n),
		PR:    queue.PRFacts{Title: fmt.Sprintf("PR %d", n), HeadSHA: fmt.Sprintf("sha%d", n), BaseBranch: "main", Open: true, ReadAt: testNow},
		State: st, StateChangedAt: testNow, PriorityValue: queue.DefaultPriority, SubmittedAt: testNow, AdmittedAt: testNow, Seq: int64(n)}
	if st.Terminal() {
		e.ConcludedAt = testNow.Add(time.Minute)
	}
	mod(e)
	if cur, err := f.store.Store.GetEntryByID(f.ctx, e.ID); err == nil { // uncounted: the version the save replaces
		e.Version = cur.Version
	}
	if err := f.store.SaveEntry(f.ctx, e); err != nil {
		f.t.Fatal(err)
	}
}

func (f *viewFixture) submitted(n int) *queue.SubmittedPR {
	f.t.Helper()
	sub, err := f.reads.GetSubmitted(f.ctx, testKey, n)
	if err != nil {
		f.t.Fatalf("GetSubmitted(#%d): %v", n, err)
	}
	return sub
}

// Reads of a queue nothing was written to since are answered from memory:
// a hundred point reads and getQueue calls load the queue's entries once,
// and describe each PR once. A write makes the next read load again, and
// shows the write.
func TestReadModelAnswersRepeatedReadsFromMemory(t *testing.T) {
	t.Parallel()
	f := newViewFixture(t, 5)
	for i := range 100 {
		f.submitted(i%5 + 1)
		if _, entries, err := f.reads.GetQueue(f.ctx, testKey); err != nil || len(entries) != 5 {
			t.Fatalf("GetQueue = %d entries, %v", len(entries), err)
		}
	}
	if n := f.store.n("ListActiveEntries"); n != 1 {
		t.Errorf("200 reads listed the queue's entries %d times, want once", n)
	}
	if n := f.store.n("GetTargets"); n != 5 {
		t.Errorf("100 point reads of 5 PRs read targets %d times, want 5", n)
	}
	if n := f.store.n("GetEntry"); n != 0 {
		t.Errorf("point reads of active entries read entries one by one %d times", n)
	}
	before := f.store.total()
	f.submitted(3)
	if _, _, err := f.reads.GetQueue(f.ctx, testKey); err != nil {
		t.Fatal(err)
	}
	if after := f.store.total(); after != before {
		t.Errorf("reads of an unchanged queue read the store %d times", after-before)
	}

	f.save(3, queue.StateTesting, func(e *queue.Entry) { e.RunID = "r1"; e.Position = 1 })
	if got := f.submitted(3); got.Entry.State != queue.StateTesting || got.TestRunID != "r1" || got.QueuePosition != 1 {
		t.Errorf("after a write: %+v, want testing on r1 at position 1", got)
	}
	if n := f.store.n("ListActiveEntries"); n != 2 {
		t.Errorf("after one write the entries were listed %d times in all, want 2", n)
	}
	paused := *f.q
	paused.State = queue.QueuePaused
	if err := f.store.UpdateQueue(f.ctx, &paused); err != nil {
		t.Fatal(err)
	}
	if q, _, err := f.reads.GetQueue(f.ctx, testKey); err != nil || q.State != queue.QueuePaused {
		t.Errorf("after UpdateQueue: %+v, %v", q, err)
	}
}

// A PR that ended, and one never submitted, are read from the store once
// per version of the queue; a write shows at once.
func TestReadModelEndedAndUnknownPRs(t *testing.T) {
	t.Parallel()
	f := newViewFixture(t, 1)
	f.save(7, queue.StateMerged, func(e *queue.Entry) { e.StateReason = queue.ReasonMergedByQueue })
	for range 3 {
		if got := f.submitted(7); got.Entry.State != queue.StateMerged || got.IsCurrentlySubmitted {
			t.Fatalf("ended PR: %+v", got)
		}
		if _, err := f.reads.GetSubmitted(f.ctx, testKey, 8); !errors.Is(err, queue.ErrNotFound) {
			t.Fatalf("never submitted: %v, want ErrNotFound", err)
		}
	}
	if n := f.store.n("GetEntry"); n != 2 {
		t.Errorf("3 reads each of an ended and an unknown PR read entries %d times, want 2", n)
	}
	f.save(8, queue.StateNotReady, func(*queue.Entry) {})
	if got := f.submitted(8); got.Entry.State != queue.StateNotReady || !got.IsCurrentlySubmitted {
		t.Errorf("submitted after a 404: %+v", got)
	}
}

// A deleted queue is gone at once, and one created again under the same key
// is found; another spelling of the key finds the same queue, as the store
// does.
func TestReadModelFollowsQueuesCreatedAndDeleted(t *testing.T) {
	t.Parallel()
	f := newViewFixture(t, 0)
	if _, _, err := f.reads.GetQueue(f.ctx, testKey); err != nil {
		t.Fatal(err)
	}
	shouty := testKey
	shouty.Repo.Owner, shouty.Repo.Name = "ACME", "Widgets"
	if q, _, err := f.reads.GetQueue(f.ctx, shouty); err != nil || q.ID != f.q.ID {
		t.Fatalf("GetQueue(%s) = %+v, %v; want queue %d", shouty, q, err, f.q.ID)
	}
	if err := f.store.DeleteQueue(f.ctx, f.q.ID); err != nil {
		t.Fatal(err)
	}
	for _, key := range []queue.QueueKey{testKey, shouty} {
		if _, _, err := f.reads.GetQueue(f.ctx, key); !errors.Is(err, queue.ErrNotFound) {
			t.Fatalf("deleted queue %s: %v, want ErrNotFound", key, err)
		}
	}
	q := createQueue(t, f.store, testKey, queue.DefaultSettings())
	for _, key := range []queue.QueueKey{testKey, shouty} {
		if got, _, err := f.reads.GetQueue(f.ctx, key); err != nil || got.ID != q.ID {
			t.Fatalf("queue created again, %s: %+v, %v; want queue %d", key, got, err, q.ID)
		}
	}
}

// The ETA moves with the clock although nothing was written.
func TestReadModelEstimatesFollowTheClock(t *testing.T) {
	t.Parallel()
	f := newViewFixture(t, 2)
	started := testNow.Add(-20 * time.Minute)
	run := &queue.TestRun{ID: "done", QueueID: f.q.ID, Status: queue.RunSucceeded, Closed: true, CreatedAt: started,
		StartedAt: started, FinishedAt: started.Add(10 * time.Minute), EntryIDs: []string{"x"}}
	if err := f.store.SaveRun(f.ctx, run); err != nil {
		t.Fatal(err)
	}
	first := f.submitted(2).EstimatedMergeAt
	if first.IsZero() {
		t.Fatal("no ETA with a finished run")
	}
	f.advance(time.Hour)
	if later := f.submitted(2).EstimatedMergeAt; !later.Equal(first.Add(time.Hour)) {
		t.Errorf("an hour later the ETA is %s, want %s", later, first.Add(time.Hour))
	}
}

// Readers racing a writer never see a state older than a write that
// returned before their read began.
func TestReadModelReadYourWritesUnderLoad(t *testing.T) {
	t.Parallel()
	f := newViewFixture(t, 20)
	ctx, cancel := context.WithCancel(f.ctx)
	var wg sync.WaitGroup
	for r := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ctx.Err() == nil; i++ {
				if _, err := f.reads.GetSubmitted(f.ctx, testKey, (r+i)%20+1); err != nil {
					t.Errorf("reader: %v", err)
					return
				}
				if _, _, err := f.reads.GetQueue(f.ctx, testKey); err != nil {
					t.Errorf("reader: %v", err)
					return
				}
			}
		}()
	}
	for i := 1; i <= 30; i++ {
		f.save(1, queue.StatePending, func(e *queue.Entry) { e.PriorityValue = i })
		if got := f.submitted(1).Entry.PriorityValue; got != i {
			t.Fatalf("write %d returned, then a read shows priority %d", i, got)
		}
		_, entries, err := f.reads.GetQueue(f.ctx, testKey)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if e.PRNumber == 1 && e.PriorityValue != i {
				t.Fatalf("write %d returned, then getQueue shows priority %d", i, e.PriorityValue)
			}
		}
	}
	cancel()
	wg.Wait()
}

// QueueSnapshot hands out the same snapshot while nothing was written to
// the queue, and what is derived from it is computed once; a write brings a
// new snapshot that shows it.
func TestQueueSnapshotIsSharedUntilAWrite(t *testing.T) {
	t.Parallel()
	f := newViewFixture(t, 3)
	a, err := f.reads.QueueSnapshot(f.ctx, testKey)
	if err != nil {
		t.Fatal(err)
	}
	b, err := f.reads.QueueSnapshot(f.ctx, testKey)
	if err != nil {
		t.Fatal(err)
	}
	if a != b || len(a.Entries) != 3 {
		t.Fatalf("two snapshots of an unchanged queue: %p %p, %d entries", a, b, len(a.Entries))
	}
	encodes := 0
	encode := func(s *readside.QueueSnapshot) ([]byte, error) {
		encodes++
		return []byte(fmt.Sprint(len(s.Entries))), nil
	}
	if _, err := a.Encoded(func(*readside.QueueSnapshot) ([]byte, error) { return nil, errors.New("full disk") }); err == nil {
		t.Fatal("a failed encoding was not returned")
	}
	for range 3 {
		if got, err := b.Encoded(encode); err != nil || string(got) != "3" {
			t.Fatalf("Encoded = %q, %v", got, err)
		}
	}
	if encodes != 1 {
		t.Errorf("encoded %d times, want once (a failure is not kept)", encodes)
	}
	f.save(4, queue.StatePending, func(*queue.Entry) {})
	c, err := f.reads.QueueSnapshot(f.ctx, testKey)
	if err != nil {
		t.Fatal(err)
	}
	if c == a || len(c.Entries) != 4 {
		t.Errorf("after a write: the old snapshot (%v) or %d entries", c == a, len(c.Entries))
	}
	if _, err := f.reads.QueueSnapshot(f.ctx, queue.QueueKey{Repo: testKey.Repo, Branch: "nope"}); !errors.Is(err, queue.ErrNotFound) {
		t.Errorf("unknown queue: %v", err)
	}
}
