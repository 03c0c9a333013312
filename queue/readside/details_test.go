package readside_test

import (
	"errors"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/readside"
)

func TestTestingDetails(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	q := f.queue("main", queue.DefaultSettings())
	merged := f.entry(q, 1, queue.StateMerged, testNow)
	ahead := f.entry(q, 2, queue.StateTestsPassed, testNow)
	e3 := f.entry(q, 3, queue.StateTesting, testNow)
	e4 := f.entry(q, 4, queue.StateTesting, testNow)
	run := f.run(q, "run-1", queue.RunInProgress, []*queue.Entry{e3, e4}, []*queue.Entry{merged, ahead})
	for _, c := range []queue.CheckResult{
		{SHA: run.SHA, Kind: queue.KindStatus, Name: "ci/test", State: queue.CheckPending, Raw: "pending", URL: "https://ci/1", UpdatedAt: testNow},
		{SHA: run.SHA, Kind: queue.KindCheckRun, Name: "build", State: queue.CheckSuccess, Raw: "success", URL: "https://ci/2", UpdatedAt: testNow},
	} {
		if err := f.store.RecordCheck(f.ctx, q.Key.Repo, c); err != nil {
			t.Fatal(err)
		}
	}
	for _, tg := range []queue.Targets{
		{QueueID: q.ID, PRNumber: 3, SHA: "sha3", List: []string{"//a", "//b"}, UpdatedAt: testNow},
		{QueueID: q.ID, PRNumber: 4, SHA: "sha4", List: []string{"//b", "//c"}, UpdatedAt: testNow},
	} {
		if err := f.store.SetTargets(f.ctx, tg); err != nil {
			t.Fatal(err)
		}
	}

	d, err := f.reads.TestingDetails(f.ctx, testKey, "run-1")
	if err != nil {
		t.Fatalf("TestingDetails: %v", err)
	}
	equal(t, "run", d.Run.ID, "run-1")
	equal(t, "tested", d.Tested, []readside.TestedPR{{Number: 3, SHA: "sha3", Title: "PR 3"}, {Number: 4, SHA: "sha4", Title: "PR 4"}})
	equal(t, "dependent PRs (merged #1 excluded)", d.DependentPRs, []int{2})
	if d.WaitingOn != nil {
		t.Errorf("waitingOn = %v while in progress", d.WaitingOn)
	}
	if len(d.Checks) != 2 || d.Checks[0].Name != "build" || d.Checks[1].Name != "ci/test" {
		t.Errorf("checks = %+v, want build and ci/test", d.Checks)
	}
	if d.Union == nil || d.Union.All {
		t.Fatalf("union = %+v, want a list", d.Union)
	}
	equal(t, "union", d.Union.List, []string{"//a", "//b", "//c"})
	if len(d.Targets) != 2 {
		t.Errorf("targets by PR = %v", d.Targets)
	}
}

func TestTestingDetailsWaitingOnAndUnion(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		status      queue.RunStatus
		targets     []queue.Targets
		wantWaiting []int
		wantUnion   string // "", "all" or "list"
	}{
		{"succeeded with an entry ahead", queue.RunSucceeded, nil, []int{2}, ""},
		{"failed: not waiting", queue.RunFailed, nil, nil, ""},
		{"one PR impacts all", queue.RunSucceeded, []queue.Targets{
			{PRNumber: 3, SHA: "sha3", All: true},
		}, []int{2}, "all"},
		{"targets for an older head are unknown", queue.RunInProgress, []queue.Targets{
			{PRNumber: 3, SHA: "old", List: []string{"//a"}},
		}, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			q := f.queue("main", queue.DefaultSettings())
			ahead := f.entry(q, 2, queue.StateTesting, testNow)
			e := f.entry(q, 3, queue.StateTesting, testNow)
			f.run(q, "run-1", tt.status, []*queue.Entry{e}, []*queue.Entry{ahead})
			for _, tg := range tt.targets {
				tg.QueueID, tg.UpdatedAt = q.ID, testNow.Add(-time.Minute)
				if err := f.store.SetTargets(f.ctx, tg); err != nil {
					t.Fatal(err)
				}
			}
			d, err := f.reads.TestingDetails(f.ctx, testKey, "run-1")
			if err != nil {
				t.Fatal(err)
			}
			equal(t, "waitingOn", d.WaitingOn, tt.wantWaiting)
			got := ""
			if d.Union != nil {
				got = "list"
				if d.Union.All {
					got = "all"
				}
			}
			equal(t, "union", got, tt.wantUnion)
		})
	}
}

func TestTestingDetailsNotFound(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	q := f.queue("main", queue.DefaultSettings())
	other := f.queue("dev", queue.DefaultSettings())
	f.run(other, "run-dev", queue.RunInProgress, []*queue.Entry{f.entry(other, 1, queue.StateTesting, testNow)}, nil)
	f.run(q, "run-main", queue.RunInProgress, []*queue.Entry{f.entry(q, 1, queue.StateTesting, testNow)}, nil)
	unknown := testKey
	unknown.Branch = "nope"
	tests := []struct {
		name string
		key  queue.QueueKey
		run  string
	}{
		{"unknown run", testKey, "nope"},
		{"run of another queue", testKey, "run-dev"},
		{"unknown queue", unknown, "run-main"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := f.reads.TestingDetails(f.ctx, tt.key, tt.run); !errors.Is(err, queue.ErrNotFound) {
				t.Errorf("err = %v, want ErrNotFound", err)
			}
		})
	}
}
