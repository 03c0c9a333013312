package readside_test

import (
	"errors"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/readside"
)

func TestListPullRequests(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	q := f.queue("main", queue.DefaultSettings())
	at := func(m int) time.Time { return testNow.Add(time.Duration(m) * time.Minute) }
	f.entry(q, 1, queue.StateMerged, at(-60))                                      // concluded at -59
	f.entry(q, 2, queue.StateTesting, at(-30), func(e *queue.Entry) { e.Seq = 2 }) // position 1
	f.entry(q, 3, queue.StatePending, at(-20), func(e *queue.Entry) { e.Seq = 3 }) // position 2
	f.entry(q, 4, queue.StateNotReady, at(-10), func(e *queue.Entry) { e.PR.BaseBranch = "dev" })
	f.entry(q, 5, queue.StateCancelled, at(-5)) // concluded at -4
	if err := f.store.SetTargets(f.ctx, queue.Targets{QueueID: q.ID, PRNumber: 3, SHA: "sha3", List: []string{}, UpdatedAt: testNow}); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name  string
		query queue.EntryQuery
		want  []int
	}{
		{"everything newest first", queue.EntryQuery{Limit: 10}, []int{5, 4, 3, 2, 1}},
		{"limit", queue.EntryQuery{Limit: 2}, []int{5, 4}},
		{"one state", queue.EntryQuery{Limit: 10, States: []queue.EntryState{queue.StateMerged}}, []int{1}},
		{"several states", queue.EntryQuery{Limit: 10, States: []queue.EntryState{queue.StateTesting, queue.StateCancelled}}, []int{5, 2}},
		{"since", queue.EntryQuery{Limit: 10, Since: at(-20)}, []int{5, 4, 3}},
		{"until (exclusive)", queue.EntryQuery{Limit: 10, Until: at(-20)}, []int{2, 1}},
		{"concluded time decides for ended entries", queue.EntryQuery{Limit: 10, Since: at(-59), Until: at(-58)}, []int{1}},
		{"after a position", queue.EntryQuery{Limit: 10, AfterAt: at(-10), AfterID: "e-1-4"}, []int{3, 2, 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := f.reads.ListPullRequests(f.ctx, testKey, tt.query)
			if err != nil {
				t.Fatalf("ListPullRequests: %v", err)
			}
			var nums []int
			for _, s := range got {
				nums = append(nums, s.Entry.PRNumber)
			}
			equal(t, "PRs", nums, tt.want)
		})
	}

	t.Run("views", func(t *testing.T) {
		got, err := f.reads.ListPullRequests(f.ctx, testKey, queue.EntryQuery{Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		byPR := map[int]*queue.SubmittedPR{}
		for _, s := range got {
			byPR[s.Entry.PRNumber] = s
		}
		type view struct {
			Pos       int
			Current   bool
			HasTarget bool
			BaseMatch bool
		}
		for n, want := range map[int]view{
			1: {0, false, false, true},
			2: {1, true, false, true},
			3: {2, true, true, true},
			4: {0, true, false, false},
		} {
			s := byPR[n]
			equal(t, "view of #"+string(rune('0'+n)), view{s.QueuePosition, s.IsCurrentlySubmitted,
				s.Readiness.HasImpactedTargets, s.Readiness.DoesBaseBranchMatch}, want)
			if s.Readiness.GitHubMergeability != "mergeable" {
				t.Errorf("#%d mergeability = %s", n, s.Readiness.GitHubMergeability)
			}
		}
	})
}

func TestListPullRequestsErrors(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.queue("main", queue.DefaultSettings())
	unknown := testKey
	unknown.Branch = "nope"
	if _, err := f.reads.ListPullRequests(f.ctx, unknown, queue.EntryQuery{Limit: 5}); !errors.Is(err, queue.ErrNotFound) {
		t.Errorf("unknown queue: %v", err)
	}
	for _, limit := range []int{0, -1, readside.MaxListTake + 2} {
		var ie *queue.InputError
		if _, err := f.reads.ListPullRequests(f.ctx, testKey, queue.EntryQuery{Limit: limit}); !errors.As(err, &ie) {
			t.Errorf("limit %d: %v, want InputError", limit, err)
		}
	}
}
