package sqlite

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
)

// t0 is a fixed instant with nanoseconds, to prove full precision.
var t0 = time.Date(2026, 7, 23, 1, 32, 50, 123456789, time.UTC)

func at(d time.Duration) time.Time { return t0.Add(d) }

func boolp(b bool) *bool { return &b }

var testRepo = queue.Repo{Host: "github.com", Owner: "acme", Name: "widgets"}

// openTest opens a store on a fresh file and closes it when the test ends.
func openTest(t *testing.T) *Store {
	t.Helper()
	return openAt(t, filepath.Join(t.TempDir(), "mq.db"))
}

func openAt(t *testing.T, path string) *Store {
	t.Helper()
	s, err := Open(context.Background(), path)
	if err != nil {
		t.Fatalf("Open(%q): %v", path, err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return s
}

func newQueue(repo queue.Repo, branch string) *queue.Queue {
	return &queue.Queue{
		Key:       queue.QueueKey{Repo: repo, Branch: branch},
		State:     queue.QueueRunning,
		Settings:  queue.DefaultSettings(),
		CreatedAt: t0,
		UpdatedAt: t0,
	}
}

// mustQueue creates a queue for testRepo on branch.
func mustQueue(t *testing.T, s queue.Store, branch string) *queue.Queue {
	t.Helper()
	q := newQueue(testRepo, branch)
	if err := s.CreateQueue(context.Background(), q); err != nil {
		t.Fatalf("CreateQueue: %v", err)
	}
	return q
}

// fullEntry is an entry with every field set to a non-zero value.
func fullEntry(id string, queueID int64, pr int) *queue.Entry {
	return &queue.Entry{
		ID:       id,
		QueueID:  queueID,
		PRNumber: pr,
		PRSHA:    "abc123",
		PR: queue.PRFacts{
			Title: "Add widgets", Body: "Body\nwith lines", Author: "alice",
			HeadSHA: "abc123", BaseBranch: "main",
			Open: true, Draft: true, Merged: true,
			MergeCommitSHA: "def456", MergeableState: "clean",
			Mergeable: boolp(true), ReadAt: at(time.Second),
		},
		State:                   queue.StatePendingFailure,
		StateReason:             queue.ReasonTestsFailed,
		StateReasonDetail:       "ci/test failed: https://ci.example/1",
		StateChangedAt:          at(2 * time.Second),
		PriorityValue:           7,
		PriorityName:            "high",
		UsedDefaultPriorityName: true,
		NoBatch:                 true,
		Direct:                  true,
		Submitter:               "bob",
		Source:                  "comment",
		SubmittedAt:             at(3 * time.Second),
		AdmittedAt:              at(4 * time.Second),
		ConcludedAt:             at(5 * time.Second),
		Seq:                     42,
		RunID:                   "run-1",
		BlockedBy:               "entry-0",
		MergeIntent:             true,
		MergeAttempts:           3,
		NextAttemptAt:           at(6 * time.Second),
		Restarts:                2,
		Position:                7,
		Vouched:                 true,
		MergeBase:               "base123",
	}
}

// pendingEntry is a minimal pending entry.
func pendingEntry(id string, queueID int64, pr int) *queue.Entry {
	return &queue.Entry{ID: id, QueueID: queueID, PRNumber: pr, State: queue.StatePending, SubmittedAt: t0}
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
