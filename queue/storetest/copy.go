package storetest

import (
	"slices"
	"testing"

	"github.com/mergequeue/mq/queue"
)

// copyTests prove that callers never alias stored state: changing a value
// after saving it, or a value read back, changes nothing stored.
var copyTests = []testCase{
	{"copy/queue settings", func(t *testing.T, s queue.Store) {
		q := newQueue(testRepo, "main")
		q.Settings.RequiredStatuses = []string{"ci"}
		q.Settings.AllowedBotSubmitters = []string{"a[bot]"}
		must(t, s.CreateQueue(ctx, q))
		q.Settings.RequiredStatuses[0] = "changed-after-save"
		q.Settings.AllowedBotSubmitters[0] = "changed-after-save"
		got, err := s.GetQueueByID(ctx, q.ID)
		must(t, err)
		got.Settings.RequiredStatuses[0] = "changed-after-read"
		got.Settings.AllowedBotSubmitters[0] = "changed-after-read"
		again, err := s.GetQueueByID(ctx, q.ID)
		must(t, err)
		assertEqual(t, again.Settings.RequiredStatuses, []string{"ci"})
		assertEqual(t, again.Settings.AllowedBotSubmitters, []string{"a[bot]"})
	}},
	{"copy/entry mergeable", func(t *testing.T, s queue.Store) {
		q := mustQueue(t, s, "main")
		e := fullEntry("e", q.ID, 1)
		must(t, s.SaveEntry(ctx, e))
		*e.PR.Mergeable = false
		got, err := s.GetEntryByID(ctx, "e")
		must(t, err)
		*got.PR.Mergeable = false
		for _, list := range [][]*queue.Entry{
			must2(s.ListActiveEntries(ctx, q.ID)),
			must2(s.ListEntries(ctx, queue.EntryQuery{QueueID: q.ID})),
			must2(s.FindActiveEntries(ctx, testRepo, 1)),
		} {
			for _, le := range list {
				*le.PR.Mergeable = false
				le.State = queue.StateFailed
			}
		}
		again, err := s.GetEntry(ctx, q.ID, 1)
		must(t, err)
		if again.PR.Mergeable == nil || !*again.PR.Mergeable || again.State != queue.StatePendingFailure {
			t.Errorf("stored entry changed through a copy: %+v", again)
		}
	}},
	{"copy/run lists", func(t *testing.T, s queue.Store) {
		q := mustQueue(t, s, "main")
		r := fullRun("r", q.ID)
		r.Closed = false
		must(t, s.SaveRun(ctx, r))
		r.EntryIDs[0], r.PRNumbers[0], r.PRSHAs[0], r.Ahead[0], r.RequiredChecks[0] = "x", 99, "x", "x", "x"
		for _, list := range [][]*queue.TestRun{
			{must2(s.GetRun(ctx, "r"))},
			must2(s.ListOpenRuns(ctx, q.ID)),
			must2(s.FindRunsBySHA(ctx, testRepo, "sha-r")),
		} {
			for _, lr := range list {
				lr.EntryIDs[0], lr.PRNumbers[0], lr.PRSHAs[0], lr.Ahead[0], lr.RequiredChecks[0] = "y", 98, "y", "y", "y"
			}
		}
		want := fullRun("r", q.ID)
		want.Closed = false
		assertEqual(t, must2(s.GetRun(ctx, "r")), want)
	}},
	{"copy/run lists apart", func(t *testing.T, s queue.Store) {
		// Appending to one list of a run read back never writes into
		// another list of that run, nor of another run read with it.
		q := mustQueue(t, s, "main")
		for _, id := range []string{"r1", "r2"} {
			r := fullRun(id, q.ID)
			r.Closed, r.Status = false, queue.RunSucceeded
			must(t, s.SaveRun(ctx, r))
		}
		for _, list := range [][]*queue.TestRun{
			must2(s.ListOpenRuns(ctx, q.ID)),
			must2(s.RecentRuns(ctx, q.ID, 0)),
			{must2(s.GetRun(ctx, "r1"))},
		} {
			for _, lr := range list {
				_ = append(lr.EntryIDs, "appended")
				_ = append(lr.PRSHAs, "appended")
				_ = append(lr.Ahead, "appended")
				_ = append(lr.RequiredChecks, "appended")
			}
			for _, lr := range list {
				want := fullRun(lr.ID, q.ID)
				if !slices.Equal(lr.EntryIDs, want.EntryIDs) || !slices.Equal(lr.PRSHAs, want.PRSHAs) ||
					!slices.Equal(lr.Ahead, want.Ahead) || !slices.Equal(lr.RequiredChecks, want.RequiredChecks) {
					t.Errorf("an append to one list of a run read back wrote into another: %+v", lr)
				}
			}
		}
	}},
	{"copy/targets list", func(t *testing.T, s queue.Store) {
		q := mustQueue(t, s, "main")
		tg := queue.Targets{QueueID: q.ID, PRNumber: 1, SHA: "a", List: []string{"//a"}, UpdatedAt: t0}
		must(t, s.SetTargets(ctx, tg))
		tg.List[0] = "changed"
		got := must2(s.GetTargets(ctx, q.ID, 1))
		got.List[0] = "changed"
		assertEqual(t, must2(s.GetTargets(ctx, q.ID, 1)).List, []string{"//a"})
	}},
}

// must2 returns v, panicking on err (the suite's stores do not fail reads).
func must2[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
