package storetest

import (
	"errors"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
)

var runTests = []testCase{
	{"run/round trip keeps nil and empty lists", func(t *testing.T, s queue.Store) {
		q := mustQueue(t, s, "main")
		for _, r := range []*queue.TestRun{
			fullRun("full", q.ID),
			{ID: "nil", QueueID: q.ID, Status: queue.RunBuilding},
			{ID: "empty", QueueID: q.ID, EntryIDs: []string{}, PRNumbers: []int{}, PRSHAs: []string{}, Ahead: []string{}, RequiredChecks: []string{}},
		} {
			must(t, s.SaveRun(ctx, r))
			got, err := s.GetRun(ctx, r.ID)
			must(t, err)
			assertEqual(t, got, r)
			if (got.RequiredChecks == nil) != (r.RequiredChecks == nil) || (got.Ahead == nil) != (r.Ahead == nil) {
				t.Errorf("nil-ness of lists changed: got %#v", got)
			}
		}
		r := fullRun("full", q.ID)
		r.Status, r.Closed, r.Ahead = queue.RunSucceeded, false, nil
		must(t, s.SaveRun(ctx, r))
		got, err := s.GetRun(ctx, "full")
		must(t, err)
		assertEqual(t, got, r)
		if _, err := s.GetRun(ctx, "nope"); !errors.Is(err, queue.ErrNotFound) {
			t.Errorf("GetRun(unknown) = %v, want ErrNotFound", err)
		}
		if err := s.SaveRun(ctx, &queue.TestRun{QueueID: q.ID}); err == nil {
			t.Error("SaveRun with an empty ID succeeded")
		}
	}},
	{"run/list open oldest first", func(t *testing.T, s queue.Store) {
		q := mustQueue(t, s, "main")
		other := mustQueue(t, s, "dev")
		for _, r := range []*queue.TestRun{
			{ID: "newest", QueueID: q.ID, CreatedAt: at(3 * time.Second)},
			{ID: "closed", QueueID: q.ID, CreatedAt: at(0), Closed: true},
			{ID: "oldest", QueueID: q.ID, CreatedAt: at(time.Second)},
			{ID: "b-tie", QueueID: q.ID, CreatedAt: at(2 * time.Second)},
			{ID: "a-tie", QueueID: q.ID, CreatedAt: at(2 * time.Second), Status: queue.RunSucceeded},
			{ID: "other", QueueID: other.ID, CreatedAt: at(0)},
		} {
			must(t, s.SaveRun(ctx, r))
		}
		got, err := s.ListOpenRuns(ctx, q.ID)
		must(t, err)
		assertEqual(t, runIDs(got), []string{"oldest", "a-tie", "b-tie", "newest"})
		// Closing a run takes it off the list.
		closed := got[0]
		closed.Closed = true
		must(t, s.SaveRun(ctx, closed))
		got, err = s.ListOpenRuns(ctx, q.ID)
		must(t, err)
		assertEqual(t, runIDs(got), []string{"a-tie", "b-tie", "newest"})
	}},
	{"run/find by sha", func(t *testing.T, s queue.Store) {
		mainQ := mustQueue(t, s, "main")
		dev := mustQueue(t, s, "dev")
		gadgets := mustQueueIn(t, s, otherRepo, "main")
		for _, r := range []*queue.TestRun{
			{ID: "main-x", QueueID: mainQ.ID, SHA: "x", CreatedAt: at(time.Second)},
			{ID: "dev-x", QueueID: dev.ID, SHA: "x", CreatedAt: at(2 * time.Second)},
			{ID: "main-x-closed", QueueID: mainQ.ID, SHA: "x", Closed: true},
			{ID: "main-y", QueueID: mainQ.ID, SHA: "y"},
			{ID: "gadgets-x", QueueID: gadgets.ID, SHA: "x"},
			{ID: "building", QueueID: mainQ.ID, SHA: ""},
			{ID: "moved", QueueID: mainQ.ID, SHA: "x"},
		} {
			must(t, s.SaveRun(ctx, r))
		}
		// A run whose SHA changes is found under the new one only.
		must(t, s.SaveRun(ctx, &queue.TestRun{ID: "moved", QueueID: mainQ.ID, SHA: "w"}))
		cases := []struct {
			name string
			repo queue.Repo
			sha  string
			want []string
		}{
			{"open runs of every queue of the repo", testRepo, "x", []string{"main-x", "dev-x"}},
			{"one match", testRepo, "y", []string{"main-y"}},
			{"moved run", testRepo, "w", []string{"moved"}},
			{"other repo", otherRepo, "x", []string{"gadgets-x"}},
			{"unknown sha", testRepo, "z", []string{}},
			{"empty sha matches no building run", testRepo, "", []string{}},
		}
		for _, tc := range cases {
			got, err := s.FindRunsBySHA(ctx, tc.repo, tc.sha)
			must(t, err)
			if ids := runIDs(got); len(ids) != len(tc.want) || (len(ids) > 0 && !equalStrings(ids, tc.want)) {
				t.Errorf("%s: got %v, want %v", tc.name, ids, tc.want)
			}
		}
	}},
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
