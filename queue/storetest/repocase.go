package storetest

import (
	"errors"
	"testing"

	"github.com/mergequeue/mq/queue"
)

// shouty is testRepo spelled the way another client (or GitHub's canonical
// casing) might spell it.
var shouty = queue.Repo{Host: "GitHub.com", Owner: "ACME", Name: "Widgets"}

var repoCaseTests = []testCase{
	{"repo case/queues match whatever the spelling of the repository", func(t *testing.T, s queue.Store) {
		q := mustQueue(t, s, "main")
		got, err := s.GetQueue(ctx, queue.QueueKey{Repo: shouty, Branch: "main"})
		must(t, err)
		if got.ID != q.ID || got.Key != q.Key {
			t.Errorf("GetQueue(%s) = queue %d %s, want %d %s (as created)", shouty, got.ID, got.Key, q.ID, q.Key)
		}
		if err := s.CreateQueue(ctx, newQueue(shouty, "main")); !errors.Is(err, queue.ErrExists) {
			t.Errorf("CreateQueue(%s) beside %s = %v, want ErrExists", shouty, testRepo, err)
		}
		if _, err := s.GetQueue(ctx, queue.QueueKey{Repo: testRepo, Branch: "Main"}); !errors.Is(err, queue.ErrNotFound) {
			t.Errorf("branch names are case-sensitive: GetQueue(Main) = %v, want ErrNotFound", err)
		}
	}},
	{"repo case/entries, runs and checks are found under another spelling", func(t *testing.T, s queue.Store) {
		q := mustQueue(t, s, "main")
		must(t, s.SaveEntry(ctx, pendingEntry("e7", q.ID, 7)))
		must(t, s.SaveRun(ctx, &queue.TestRun{ID: "r", QueueID: q.ID, SHA: "x"}))
		entries, err := s.FindActiveEntries(ctx, shouty, 7)
		must(t, err)
		assertEqual(t, entryIDs(entries), []string{"e7"})
		runs, err := s.FindRunsBySHA(ctx, shouty, "x")
		must(t, err)
		assertEqual(t, runIDs(runs), []string{"r"})
		c := queue.CheckResult{SHA: "x", Kind: queue.KindStatus, Name: "ci", State: queue.CheckSuccess, Raw: "success", UpdatedAt: t0}
		must(t, s.RecordCheck(ctx, shouty, c))
		checks, err := s.ListChecks(ctx, testRepo, "x")
		must(t, err)
		if len(checks) != 1 || checks[0] != c {
			t.Errorf("ListChecks(%s) = %+v, want the result recorded under %s", testRepo, checks, shouty)
		}
	}},
}
