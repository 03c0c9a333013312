package readside_test

// Fixture of the read side's tests: a real SQLite store (which counts its
// writes per queue, so the read model is on) with the state written
// straight to it, and Reads over it at a fixed clock.

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/readside"
	"github.com/mergequeue/mq/queue/sqlite"
	"github.com/mergequeue/mq/queue/sqlite/sqlitetest"
)

var testNow = time.Date(2026, 7, 23, 12, 0, 0, 0, time.UTC)

var testKey = queue.QueueKey{Repo: queue.Repo{Host: "github.com", Owner: "acme", Name: "widgets"}, Branch: "main"}

// fixture is Reads over a fresh store at testNow.
type fixture struct {
	t     *testing.T
	ctx   context.Context
	store *sqlite.Store
	reads *readside.Reads
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	store := openStore(t)
	return &fixture{t: t, ctx: context.Background(), store: store,
		reads: readside.New(store, readside.Options{Now: func() time.Time { return testNow }})}
}

// openStore opens a SQLite store in the test's directory.
func openStore(t *testing.T) *sqlite.Store {
	t.Helper()
	store := sqlitetest.Open(t)
	return store
}

// createQueue stores a running queue for key with settings s and the
// defaults fixed at creation, as the service creates one.
func createQueue(t *testing.T, store queue.Store, key queue.QueueKey, s queue.Settings) *queue.Queue {
	t.Helper()
	q := &queue.Queue{Key: key, State: queue.QueueRunning, Settings: s.WithCreationDefaults(), CreatedAt: testNow, UpdatedAt: testNow, NextSeq: 1}
	if err := store.CreateQueue(context.Background(), q); err != nil {
		t.Fatalf("CreateQueue: %v", err)
	}
	return q
}

// queue creates the testKey queue (or another branch) with settings s.
func (f *fixture) queue(branch string, s queue.Settings) *queue.Queue {
	f.t.Helper()
	key := testKey
	key.Branch = branch
	return createQueue(f.t, f.store, key, s)
}

// entry stores an entry for PR n in state st, submitted at submitted.
func (f *fixture) entry(q *queue.Queue, n int, st queue.EntryState, submitted time.Time, mod ...func(e *queue.Entry)) *queue.Entry {
	f.t.Helper()
	e := &queue.Entry{
		ID: fmt.Sprintf("e-%d-%d", q.ID, n), QueueID: q.ID, PRNumber: n, PRSHA: fmt.Sprintf("sha%d", n),
		PR:    queue.PRFacts{Title: fmt.Sprintf("PR %d", n), Author: "dev", HeadSHA: fmt.Sprintf("sha%d", n), BaseBranch: q.Key.Branch, Open: true, MergeableState: "clean", ReadAt: submitted},
		State: st, StateReason: queue.ReasonSubmitted, StateChangedAt: submitted,
		PriorityValue: queue.DefaultPriority, PriorityName: "medium", UsedDefaultPriorityName: true,
		SubmittedAt: submitted, Seq: int64(n), Source: "api",
	}
	if st != queue.StateNotReady {
		e.AdmittedAt = submitted
	}
	if st.Terminal() {
		e.ConcludedAt = submitted.Add(time.Minute)
	}
	for _, m := range mod {
		m(e)
	}
	if err := f.store.SaveEntry(f.ctx, e); err != nil {
		f.t.Fatalf("SaveEntry: %v", err)
	}
	return e
}

// run stores a run of q testing entries on top of ahead.
func (f *fixture) run(q *queue.Queue, id string, status queue.RunStatus, unit []*queue.Entry, ahead []*queue.Entry) *queue.TestRun {
	f.t.Helper()
	r := &queue.TestRun{ID: id, QueueID: q.ID, BaseSHA: "base", Status: status, CreatedAt: testNow.Add(-time.Minute),
		RequiredChecks: []string{"ci"}, Branch: fmt.Sprintf("mq-merge/pr-%d/%s", unit[0].PRNumber, id), SHA: "test-" + id}
	for _, e := range unit {
		r.EntryIDs = append(r.EntryIDs, e.ID)
		r.PRNumbers = append(r.PRNumbers, e.PRNumber)
		r.PRSHAs = append(r.PRSHAs, e.PRSHA)
	}
	for _, e := range ahead {
		r.Ahead = append(r.Ahead, e.ID)
	}
	if err := f.store.SaveRun(f.ctx, r); err != nil {
		f.t.Fatalf("SaveRun: %v", err)
	}
	return r
}

// event appends an event of entry e.
func (f *fixture) event(e *queue.Entry, at time.Time, from, to queue.EntryState, reason queue.Reason) {
	f.t.Helper()
	ev := &queue.Event{QueueID: e.QueueID, EntryID: e.ID, PRNumber: e.PRNumber, At: at, From: from, To: to, Reason: reason}
	if err := f.store.AddEvent(f.ctx, ev); err != nil {
		f.t.Fatalf("AddEvent: %v", err)
	}
}

func equal(t *testing.T, what string, got, want any) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s = %+v, want %+v", what, got, want)
	}
}
