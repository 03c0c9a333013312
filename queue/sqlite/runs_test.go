package sqlite

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
)

func fullRun(id string, queueID int64) *queue.TestRun {
	return &queue.TestRun{
		ID: id, QueueID: queueID,
		EntryIDs: []string{"e1", "e2"}, PRNumbers: []int{1, 2}, PRSHAs: []string{"a1", "b2"},
		Ahead: []string{"e0"}, BaseSHA: "base", Branch: "mq/main/" + id, SHA: "sha-" + id,
		RequiredChecks: []string{"ci/test"}, Bisection: true,
		Status: queue.RunFailed, FailureReason: queue.ReasonTestTimeout, FailureDetail: "took too long",
		CreatedAt: at(time.Second), StartedAt: at(2 * time.Second), FinishedAt: at(3 * time.Second),
		Closed: true,
	}
}

func TestRunRoundTrip(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openTest(t)
	q := mustQueue(t, s, "main")
	cases := []struct {
		name string
		run  *queue.TestRun
	}{
		{"every field", fullRun("full", q.ID)},
		{"nil lists", &queue.TestRun{ID: "nil", QueueID: q.ID, Status: queue.RunBuilding}},
		{"empty lists", &queue.TestRun{ID: "empty", QueueID: q.ID, EntryIDs: []string{}, PRNumbers: []int{},
			PRSHAs: []string{}, Ahead: []string{}, RequiredChecks: []string{}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if err := s.SaveRun(ctx, tc.run); err != nil {
				t.Fatalf("SaveRun: %v", err)
			}
			got, err := s.GetRun(ctx, tc.run.ID)
			if err != nil {
				t.Fatalf("GetRun: %v", err)
			}
			assertEqual(t, got, tc.run)
			if (got.RequiredChecks == nil) != (tc.run.RequiredChecks == nil) || (got.Ahead == nil) != (tc.run.Ahead == nil) {
				t.Errorf("nil-ness of lists changed: got %#v", got)
			}
		})
	}

	// Replace by ID.
	r := fullRun("full", q.ID)
	r.Status, r.Closed, r.Ahead = queue.RunSucceeded, false, nil
	if err := s.SaveRun(ctx, r); err != nil {
		t.Fatal(err)
	}
	got, err := s.GetRun(ctx, "full")
	if err != nil {
		t.Fatal(err)
	}
	assertEqual(t, got, r)

	if _, err := s.GetRun(ctx, "nope"); !errors.Is(err, queue.ErrNotFound) {
		t.Errorf("GetRun(unknown) = %v, want ErrNotFound", err)
	}
	if err := s.SaveRun(ctx, &queue.TestRun{QueueID: q.ID}); err == nil {
		t.Error("SaveRun with an empty ID succeeded")
	}
}

func runIDs(rs []*queue.TestRun) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.ID)
	}
	return out
}

func TestListOpenRuns(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openTest(t)
	q := mustQueue(t, s, "main")
	other := mustQueue(t, s, "dev")
	for _, r := range []*queue.TestRun{
		{ID: "newest", QueueID: q.ID, CreatedAt: at(3 * time.Second)},
		{ID: "closed", QueueID: q.ID, CreatedAt: at(0), Closed: true},
		{ID: "oldest", QueueID: q.ID, CreatedAt: at(time.Second)},
		{ID: "middle", QueueID: q.ID, CreatedAt: at(2 * time.Second), Status: queue.RunSucceeded},
		{ID: "other", QueueID: other.ID, CreatedAt: at(0)},
	} {
		if err := s.SaveRun(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.ListOpenRuns(ctx, q.ID)
	if err != nil {
		t.Fatal(err)
	}
	assertEqual(t, runIDs(got), []string{"oldest", "middle", "newest"})
}

func TestFindRunsBySHA(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openTest(t)
	mainQ := mustQueue(t, s, "main")
	dev := mustQueue(t, s, "dev")
	gadgets := newQueue(queue.Repo{Host: "github.com", Owner: "acme", Name: "gadgets"}, "main")
	if err := s.CreateQueue(ctx, gadgets); err != nil {
		t.Fatal(err)
	}
	for _, r := range []*queue.TestRun{
		{ID: "main-x", QueueID: mainQ.ID, SHA: "x", CreatedAt: at(time.Second)},
		{ID: "dev-x", QueueID: dev.ID, SHA: "x", CreatedAt: at(2 * time.Second)},
		{ID: "main-x-closed", QueueID: mainQ.ID, SHA: "x", Closed: true},
		{ID: "main-y", QueueID: mainQ.ID, SHA: "y"},
		{ID: "gadgets-x", QueueID: gadgets.ID, SHA: "x"},
		{ID: "building", QueueID: mainQ.ID, SHA: ""},
	} {
		if err := s.SaveRun(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		name string
		repo queue.Repo
		sha  string
		want []string
	}{
		{"open runs of every queue of the repo", testRepo, "x", []string{"main-x", "dev-x"}},
		{"one match", testRepo, "y", []string{"main-y"}},
		{"other repo", gadgets.Key.Repo, "x", []string{"gadgets-x"}},
		{"unknown sha", testRepo, "z", nil},
		{"empty sha matches no building run", testRepo, "", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := s.FindRunsBySHA(ctx, tc.repo, tc.sha)
			if err != nil {
				t.Fatal(err)
			}
			assertEqual(t, runIDs(got), tc.want)
		})
	}
}
