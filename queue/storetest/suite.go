package storetest

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
)

// Factory returns a new, empty store, cleaned up when t ends.
type Factory func(t *testing.T) queue.Store

type testCase struct {
	name string
	fn   func(t *testing.T, s queue.Store)
}

// Run runs every conformance test on a fresh store from newStore, in
// parallel subtests.
func Run(t *testing.T, newStore Factory) {
	var all []testCase
	for _, group := range [][]testCase{queueTests, entryTests, runTests, logTests, txTests, copyTests, repoCaseTests, surfaceTests, claimTests, versionTests, replicaWriteTests, tuningTests} {
		all = append(all, group...)
	}
	for _, tc := range all {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.fn(t, newStore(t))
		})
	}
}

// t0 is a fixed instant with nanoseconds, to prove full precision.
var t0 = time.Date(2026, 7, 23, 1, 32, 50, 123456789, time.UTC)

func at(d time.Duration) time.Time { return t0.Add(d) }

func boolp(b bool) *bool { return &b }

var (
	ctx       = context.Background()
	testRepo  = queue.Repo{Host: queue.DefaultHost, Owner: "acme", Name: "widgets"}
	otherRepo = queue.Repo{Host: queue.DefaultHost, Owner: "acme", Name: "gadgets"}
)

func newQueue(repo queue.Repo, branch string) *queue.Queue {
	return &queue.Queue{
		Key:       queue.QueueKey{Repo: repo, Branch: branch},
		State:     queue.QueueRunning,
		Settings:  queue.DefaultSettings(),
		CreatedAt: t0,
		UpdatedAt: t0,
		NextSeq:   1,
	}
}

// mustQueue creates a queue for testRepo on branch.
func mustQueue(t *testing.T, s queue.Store, branch string) *queue.Queue {
	t.Helper()
	return mustQueueIn(t, s, testRepo, branch)
}

func mustQueueIn(t *testing.T, s queue.Store, repo queue.Repo, branch string) *queue.Queue {
	t.Helper()
	q := newQueue(repo, branch)
	if err := s.CreateQueue(ctx, q); err != nil {
		t.Fatalf("CreateQueue: %v", err)
	}
	return q
}

// fullEntry is an entry with every field set to a non-zero value.
func fullEntry(id string, queueID int64, pr int) *queue.Entry {
	return &queue.Entry{
		ID: id, QueueID: queueID, PRNumber: pr, PRSHA: "abc123",
		PR: queue.PRFacts{
			Title: "Add widgets", Body: "Body\nwith lines", Author: "alice",
			HeadSHA: "abc123", BaseBranch: "main", Open: true, Draft: true, Merged: true,
			MergeCommitSHA: "def456", MergeableState: "clean", Mergeable: boolp(true), ReadAt: at(time.Second),
		},
		State: queue.StatePendingFailure, StateReason: queue.ReasonTestsFailed,
		StateReasonDetail: "ci/test failed", StateChangedAt: at(2 * time.Second),
		PriorityValue: 7, PriorityName: "high", UsedDefaultPriorityName: true, NoBatch: true, Direct: true,
		Submitter: "bob", Source: "comment",
		SubmittedAt: at(3 * time.Second), AdmittedAt: at(4 * time.Second), ConcludedAt: at(5 * time.Second),
		Seq: 42, Position: 11, Vouched: true, MergeBase: "base123", RunID: "run-1", BlockedBy: "entry-0", MergeIntent: true, MergeAttempts: 3,
		NextAttemptAt: at(6 * time.Second), Restarts: 2, PRCheckedAt: at(7 * time.Second), ChecksMissing: 1, CheckAttempts: 1, CheckRetryLog: "ci/test failed: https://ci/1",
		DirectBase: "base456", DirectContains: true, CancelReason: queue.ReasonUserRequested, CancelDetail: "by @carol",
		Conflict: &queue.Conflict{Base: "base789", Before: []string{"e7", "e8"}, Probed: true, Alone: true, With: "e8"},
	}
}

// pendingEntry is a minimal pending entry.
func pendingEntry(id string, queueID int64, pr int) *queue.Entry {
	return &queue.Entry{ID: id, QueueID: queueID, PRNumber: pr, State: queue.StatePending, SubmittedAt: t0}
}

func fullRun(id string, queueID int64) *queue.TestRun {
	return &queue.TestRun{
		ID: id, QueueID: queueID,
		EntryIDs: []string{"e1", "e2"}, PRNumbers: []int{1, 2}, PRSHAs: []string{"a1", "b2"},
		Ahead: []string{"e0"}, BaseSHA: "base", Branch: queue.DefaultTestBranchPrefix + id, SHA: "sha-" + id,
		RequiredChecks: []string{"ci/test"}, RequiredSource: queue.RequiredFromQueue, Bisection: true, Parent: "parent-run",
		Status: queue.RunFailed, FailureReason: queue.ReasonTestTimeout, FailureDetail: "took too long",
		CreatedAt: at(time.Second), StartedAt: at(2 * time.Second), FinishedAt: at(3 * time.Second),
		Closed: true, RerunChecks: []int64{41, 42},
	}
}

// assertEqual fails the test unless got and want are deeply equal.
func assertEqual(t *testing.T, got, want any) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("mismatch\n got: %s\nwant: %s", show(got), show(want))
	}
}

func show(v any) string {
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Pointer && !rv.IsNil() {
		return fmt.Sprintf("%+v", rv.Elem().Interface())
	}
	return fmt.Sprintf("%+v", v)
}

func entryIDs(es []*queue.Entry) []string {
	out := []string{}
	for _, e := range es {
		out = append(out, e.ID)
	}
	return out
}

func runIDs(rs []*queue.TestRun) []string {
	out := []string{}
	for _, r := range rs {
		out = append(out, r.ID)
	}
	return out
}

// must fails the test on err.
func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
