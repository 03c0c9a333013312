package storetest

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
)

var logTests = []testCase{
	{"check/record keeps the newest", func(t *testing.T, s queue.Store) {
		base := queue.CheckResult{SHA: "abc", Kind: queue.KindCheckRun, Name: "test", State: queue.CheckPending,
			Raw: "queued", URL: "https://ci.example/1", UpdatedAt: at(10 * time.Second)}
		with := func(state queue.CheckState, raw string, updated time.Time) queue.CheckResult {
			c := base
			c.State, c.Raw, c.UpdatedAt = state, raw, updated
			return c
		}
		must(t, s.RecordCheck(ctx, testRepo, base))
		for _, tc := range []struct {
			name         string
			record, want queue.CheckResult
		}{ // sequential: each case builds on the previous
			{"newer replaces", with(queue.CheckSuccess, "success", at(20*time.Second)), with(queue.CheckSuccess, "success", at(20*time.Second))},
			{"older is ignored", with(queue.CheckFailure, "failure", at(15*time.Second)), with(queue.CheckSuccess, "success", at(20*time.Second))},
			{"zero time is oldest", with(queue.CheckFailure, "failure", time.Time{}), with(queue.CheckSuccess, "success", at(20*time.Second))},
			{"equal time replaces", with(queue.CheckFailure, "timed_out", at(20*time.Second)), with(queue.CheckFailure, "timed_out", at(20*time.Second))},
		} {
			must(t, s.RecordCheck(ctx, testRepo, tc.record))
			got, err := s.ListChecks(ctx, testRepo, "abc")
			must(t, err)
			if len(got) != 1 || got[0] != tc.want {
				t.Errorf("%s: got %+v, want %+v", tc.name, got, tc.want)
			}
		}
	}},
	{"check/record keeps the check run's identity", func(t *testing.T, s queue.Store) {
		c := queue.CheckResult{SHA: "abc", Kind: queue.KindCheckRun, Name: "test", State: queue.CheckFailure, Raw: "failure",
			UpdatedAt: at(10 * time.Second), CheckRunID: 41, SuiteID: 7, App: queue.GitHubActionsApp}
		must(t, s.RecordCheck(ctx, testRepo, c))
		rerun := c // the failed job re-run: a new check run in the same suite
		rerun.State, rerun.Raw, rerun.CheckRunID, rerun.UpdatedAt = queue.CheckPending, "queued", 43, at(20*time.Second)
		for _, want := range []queue.CheckResult{c, rerun} {
			must(t, s.RecordCheck(ctx, testRepo, want))
			got, err := s.ListChecks(ctx, testRepo, "abc")
			must(t, err)
			assertEqual(t, got, []queue.CheckResult{want})
		}
	}},
	{"check/list by commit, kind and name", func(t *testing.T, s queue.Store) {
		status := queue.CheckResult{SHA: "abc", Kind: queue.KindStatus, Name: "test", State: queue.CheckSuccess, UpdatedAt: t0}
		run := queue.CheckResult{SHA: "abc", Kind: queue.KindCheckRun, Name: "test", State: queue.CheckFailure, UpdatedAt: t0}
		lint := queue.CheckResult{SHA: "abc", Kind: queue.KindCheckRun, Name: "lint", State: queue.CheckPending}
		for _, c := range []queue.CheckResult{status, run, lint, {SHA: "def", Kind: queue.KindStatus, Name: "test"}} {
			must(t, s.RecordCheck(ctx, testRepo, c))
		}
		must(t, s.RecordCheck(ctx, otherRepo, queue.CheckResult{SHA: "abc", Kind: queue.KindStatus, Name: "test", State: queue.CheckFailure}))
		got, err := s.ListChecks(ctx, testRepo, "abc")
		must(t, err)
		assertEqual(t, got, []queue.CheckResult{lint, run, status})
		if got, err := s.ListChecks(ctx, testRepo, "nope"); err != nil || len(got) != 0 {
			t.Errorf("ListChecks(unknown sha) = %v, %v", got, err)
		}
	}},
	{"targets/round trip", func(t *testing.T, s queue.Store) {
		q := mustQueue(t, s, "main")
		if _, err := s.GetTargets(ctx, q.ID, 1); !errors.Is(err, queue.ErrNotFound) {
			t.Fatalf("GetTargets before set: %v, want ErrNotFound", err)
		}
		for _, want := range []queue.Targets{
			{QueueID: q.ID, PRNumber: 1, SHA: "a", List: []string{"//x:y", "//z"}, UpdatedAt: t0, Source: queue.TargetsFromToken},
			{QueueID: q.ID, PRNumber: 1, SHA: "b", All: true, List: []string{}, UpdatedAt: at(time.Second), Source: queue.TargetsFromForkRun},
			{QueueID: q.ID, PRNumber: 1, SHA: "b", List: []string{"//w"}, UpdatedAt: at(2 * time.Second), Source: queue.TargetsFromToken},
		} {
			must(t, s.SetTargets(ctx, want))
			got, err := s.GetTargets(ctx, q.ID, 1)
			must(t, err)
			assertEqual(t, *got, want)
		}
		must(t, s.SetTargets(ctx, queue.Targets{QueueID: q.ID, PRNumber: 2, SHA: "c"}))
		got, err := s.GetTargets(ctx, q.ID, 2)
		must(t, err)
		if got.List == nil || len(got.List) != 0 {
			t.Errorf("a nil target list came back as %#v, want empty", got.List)
		}
	}},
	{"event/since, oldest first", func(t *testing.T, s queue.Store) {
		q := mustQueue(t, s, "main")
		var lastID int64
		for _, i := range []int{2, 0, 1, 1} {
			ev := &queue.Event{QueueID: q.ID, EntryID: "e1", PRNumber: 1, At: at(time.Duration(i) * time.Minute),
				From: queue.StatePending, To: queue.StateTesting, Reason: queue.ReasonTesting, Detail: fmt.Sprint(i), RunID: "r"}
			must(t, s.AddEvent(ctx, ev))
			if ev.ID <= lastID {
				t.Fatalf("AddEvent set ID %d after %d, want increasing", ev.ID, lastID)
			}
			lastID = ev.ID
		}
		got, err := s.ListEvents(ctx, q.ID, at(time.Minute))
		must(t, err)
		var details []string
		for _, ev := range got {
			details = append(details, ev.Detail)
		}
		assertEqual(t, details, []string{"1", "1", "2"})
		if len(got) > 0 && (got[0].ID >= got[1].ID || got[0].To != queue.StateTesting || !got[0].At.Equal(at(time.Minute))) {
			t.Errorf("ListEvents = %+v", got)
		}
		// As in SQL, where the zero time is NULL, a zero since matches nothing.
		if got, err := s.ListEvents(ctx, q.ID, time.Time{}); err != nil || len(got) != 0 {
			t.Errorf("ListEvents(zero since) = %d events, %v; want none (NULL comparison)", len(got), err)
		}
	}},
	{"event/last of an entry", func(t *testing.T, s queue.Store) {
		q := mustQueue(t, s, "main")
		other := mustQueue(t, s, "dev")
		if _, err := s.LastEvent(ctx, q.ID, "e1"); !errors.Is(err, queue.ErrNotFound) {
			t.Errorf("LastEvent without events = %v, want ErrNotFound", err)
		}
		// The last recorded wins, whatever its time; other entries and
		// queues do not count.
		add := func(queueID int64, entry string, minute int, to queue.EntryState, run string) {
			must(t, s.AddEvent(ctx, &queue.Event{QueueID: queueID, EntryID: entry, PRNumber: 1,
				At: at(time.Duration(minute) * time.Minute), To: to, RunID: run}))
		}
		add(q.ID, "e1", 5, queue.StateTesting, "r1")
		add(q.ID, "e1", 4, queue.StateFailed, "r1")
		add(q.ID, "e2", 6, queue.StateMerged, "r2")
		add(other.ID, "e1", 7, queue.StateCancelled, "")
		got, err := s.LastEvent(ctx, q.ID, "e1")
		must(t, err)
		if got.To != queue.StateFailed || got.RunID != "r1" || got.EntryID != "e1" || got.QueueID != q.ID || got.ID == 0 {
			t.Errorf("LastEvent = %+v, want the failed event of e1 in its queue", got)
		}
		got.RunID = "changed"
		again, err := s.LastEvent(ctx, q.ID, "e1")
		must(t, err)
		if again.RunID != "r1" {
			t.Errorf("LastEvent aliases the stored event: %+v", again)
		}
	}},
	{"merge/last n oldest first", func(t *testing.T, s queue.Store) {
		q := mustQueue(t, s, "main")
		other := mustQueue(t, s, "dev")
		var all []queue.MergeRecord
		for i := 1; i <= 5; i++ {
			m := queue.MergeRecord{QueueID: q.ID, EntryID: "e", PRNumber: i, RunID: "r", Before: "b", After: "a", At: at(time.Duration(i) * time.Second)}
			must(t, s.AddMerge(ctx, m))
			all = append(all, m)
			must(t, s.AddMerge(ctx, queue.MergeRecord{QueueID: other.ID, PRNumber: 100 + i}))
		}
		for _, tc := range []struct {
			name  string
			limit int
			want  []queue.MergeRecord
		}{
			{"all", 0, all}, {"negative is all", -1, all}, {"last two, oldest first", 2, all[3:]}, {"limit above count", 50, all},
		} {
			got, err := s.ListMerges(ctx, q.ID, tc.limit)
			must(t, err)
			assertEqual(t, got, tc.want)
		}
		if got, err := s.ListMerges(ctx, 9999, 0); err != nil || len(got) != 0 {
			t.Errorf("ListMerges(unknown queue) = %v, %v", got, err)
		}
	}},
	{"merge/from the oldest of some bases", func(t *testing.T, s queue.Store) {
		q := mustQueue(t, s, "main")
		other := mustQueue(t, s, "dev")
		// A chain h0 → h1 → … → h5; the other queue's log has h2 too.
		var all []queue.MergeRecord
		for i := 1; i <= 5; i++ {
			m := queue.MergeRecord{QueueID: q.ID, EntryID: fmt.Sprintf("e%d", i), PRNumber: i, RunID: "r",
				Before: fmt.Sprintf("h%d", i-1), After: fmt.Sprintf("h%d", i), At: at(time.Duration(i) * time.Second)}
			must(t, s.AddMerge(ctx, m))
			all = append(all, m)
		}
		must(t, s.AddMerge(ctx, queue.MergeRecord{QueueID: other.ID, PRNumber: 100, Before: "h0", After: "x"}))
		for _, tc := range []struct {
			name    string
			befores []string
			want    []queue.MergeRecord
		}{
			{"none asked", nil, nil},
			{"one base", []string{"h3"}, all[3:]},
			{"the oldest of several wins", []string{"h4", "h1", "nowhere", "h2"}, all[1:]},
			{"the first base", []string{"h0"}, all},
			{"the head is no recorded before", []string{"h5"}, nil},
			{"unknown", []string{"nowhere"}, nil},
		} {
			got, err := s.ListMergesFrom(ctx, q.ID, tc.befores)
			must(t, err)
			if len(got) == 0 && len(tc.want) == 0 {
				continue
			}
			assertEqual(t, got, tc.want)
		}
		if got, err := s.ListMergesFrom(ctx, 9999, []string{"h0"}); err != nil || len(got) != 0 {
			t.Errorf("ListMergesFrom(unknown queue) = %v, %v", got, err)
		}
		// A base taken back (a rolled-back transaction) is unknown again.
		err := s.WithTx(ctx, func(tx queue.Store) error {
			must(t, tx.AddMerge(ctx, queue.MergeRecord{QueueID: q.ID, PRNumber: 6, Before: "h5", After: "h6"}))
			return errors.New("rolled back")
		})
		if err == nil {
			t.Fatal("WithTx did not return fn's error")
		}
		if got, err := s.ListMergesFrom(ctx, q.ID, []string{"h5"}); err != nil || len(got) != 0 {
			t.Errorf("ListMergesFrom after a rolled-back merge = %v, %v", got, err)
		}
	}},
}
