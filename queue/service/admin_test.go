package service_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/mergequeue/mq/queue"
)

func TestUpdateQueueSettings(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		start  func(s *queue.Settings)
		update queue.QueueUpdate
		want   func(s *queue.Settings)
	}{
		{"empty update changes nothing", nil, queue.QueueUpdate{}, func(*queue.Settings) {}},
		{"partial: only concurrency", nil, queue.QueueUpdate{Concurrency: opsPtr(4)},
			func(s *queue.Settings) { s.Concurrency = 4 }},
		{"batching", nil, queue.QueueUpdate{Batch: opsPtr(true), BatchingMinSize: opsPtr(2), BatchingMaxWaitTimeMinutes: opsPtr(9), BatchingMaxSize: opsPtr(6)},
			func(s *queue.Settings) {
				s.Batch, s.BatchingMinSize, s.BatchingMaxWaitTimeMinutes, s.BatchingMaxSize = true, 2, 9, 6
			}},
		{"every boolean and enum", nil, queue.QueueUpdate{
			CanOptimisticallyMerge: opsPtr(true), CreatePrsForTestingBranches: opsPtr(true), CommentsEnabled: opsPtr(false),
			CommandsEnabled: opsPtr(false), StatusCheckEnabled: opsPtr(false), LabelCommandsEnabled: opsPtr(false),
			StateLabelsEnabled: opsPtr(true), ExtensionEnabled: opsPtr(false), DirectMergeMode: opsPtr(queue.DirectMergeAlways),
			OptimizationMode: opsPtr(queue.OptimizationBisectionSkipTests), MergeMethod: opsPtr(queue.Rebase),
			EnqueueingLabel: opsPtr("ship-it"), NotReadyTimeoutHours: opsPtr(12), PendingFailureDepth: opsPtr(2),
			TestingTimeoutMinutes: opsPtr(90),
		}, func(s *queue.Settings) {
			s.CanOptimisticallyMerge, s.CreatePrsForTestingBranches, s.CommentsEnabled = true, true, false
			s.CommandsEnabled, s.StatusCheckEnabled, s.LabelCommandsEnabled = false, false, false
			s.StateLabelsEnabled, s.ExtensionEnabled = true, false
			s.DirectMergeMode, s.OptimizationMode, s.MergeMethod = queue.DirectMergeAlways, queue.OptimizationBisectionSkipTests, queue.Rebase
			s.EnqueueingLabel, s.NotReadyTimeoutHours, s.PendingFailureDepth, s.TestingTimeoutMinutes = "ship-it", 12, 2, 90
		}},
		{"required statuses explicitly none", nil, queue.QueueUpdate{RequiredStatuses: opsPtr([]string{})},
			func(s *queue.Settings) { s.RequiredStatuses = []string{} }},
		{"required statuses listed", nil, queue.QueueUpdate{RequiredStatuses: opsPtr([]string{"ci/test", "lint"})},
			func(s *queue.Settings) { s.RequiredStatuses = []string{"ci/test", "lint"} }},
		{"deleteRequiredStatuses resets to branch protection", func(s *queue.Settings) { s.RequiredStatuses = []string{"x"} },
			queue.QueueUpdate{DeleteRequiredStatuses: true}, func(s *queue.Settings) { s.RequiredStatuses = nil }},
		{"delete wins over a list", nil, queue.QueueUpdate{DeleteRequiredStatuses: true, RequiredStatuses: opsPtr([]string{"x"})},
			func(s *queue.Settings) { s.RequiredStatuses = nil }},
		{"bisection concurrency becomes explicit", nil, queue.QueueUpdate{BisectionConcurrency: opsPtr(1), Concurrency: opsPtr(5)},
			func(s *queue.Settings) { s.BisectionConcurrency, s.Concurrency = 1, 5 }},
		// A queue stored before bisectionConcurrency was fixed at creation
		// keeps the value it showed (its concurrency then).
		{"bisection concurrency of an older queue stays", func(s *queue.Settings) { s.Concurrency, s.BisectionConcurrency = 3, 0 },
			queue.QueueUpdate{Concurrency: opsPtr(5)}, func(s *queue.Settings) { s.BisectionConcurrency, s.Concurrency = 3, 5 }},
		{"enums in any case are stored in lower case", nil, queue.QueueUpdate{MergeMethod: opsPtr(queue.MergeMethod("REBASE")),
			DirectMergeMode: opsPtr(queue.DirectMergeMode("Always"))},
			func(s *queue.Settings) { s.MergeMethod, s.DirectMergeMode = queue.Rebase, queue.DirectMergeAlways }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newOpsFixture(t)
			start := queue.DefaultSettings()
			if tt.start != nil {
				tt.start(&start)
			}
			f.queue("main", start)
			got, err := f.svc.UpdateQueue(f.ctx, opsKey, tt.update)
			if err != nil {
				t.Fatalf("UpdateQueue: %v", err)
			}
			// Every update stores what a queue fixes at creation
			// (bisectionConcurrency = the concurrency it shows).
			want := start.WithCreationDefaults()
			tt.want(&want)
			opsEqual(t, "returned settings", got.Settings, want)
			opsEqual(t, "stored settings", f.stored("main").Settings, want)
			if got.State != queue.QueueRunning {
				t.Errorf("state = %s, want running", got.State)
			}
		})
	}
}

func TestUpdateQueueRejectsInvalid(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		update queue.QueueUpdate
		want   string
	}{
		{"concurrency zero", queue.QueueUpdate{Concurrency: opsPtr(0)}, "concurrency"},
		{"concurrency too high", queue.QueueUpdate{Concurrency: opsPtr(1001)}, "concurrency"},
		{"negative timeout", queue.QueueUpdate{TestingTimeoutMinutes: opsPtr(-1)}, "testingTimeoutMinutes"},
		{"max below min", queue.QueueUpdate{BatchingMinSize: opsPtr(5), BatchingMaxSize: opsPtr(3)}, "batchingMaxSize"},
		{"unknown merge method", queue.QueueUpdate{MergeMethod: opsPtr(queue.MergeMethod("fast_forward"))}, "mergeMethod"},
		{"empty required status", queue.QueueUpdate{RequiredStatuses: opsPtr([]string{"ci", " "})}, "requiredStatuses[1]"},
		{"empty label", queue.QueueUpdate{EnqueueingLabel: opsPtr("")}, "enqueueingLabel"},
		{"label too long", queue.QueueUpdate{EnqueueingLabel: opsPtr(strings.Repeat("x", 51))}, "enqueueingLabel"},
		{"state switching_modes", queue.QueueUpdate{State: opsPtr(queue.QueueSwitchingModes)}, "switching_modes"},
		{"unknown state", queue.QueueUpdate{State: opsPtr(queue.QueueState("stopped"))}, "stopped"},
		{"unknown mode", queue.QueueUpdate{Mode: opsPtr(queue.Mode("serial"))}, "serial"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newOpsFixture(t)
			before := f.queue("main", queue.DefaultSettings())
			_, err := f.svc.UpdateQueue(f.ctx, opsKey, tt.update)
			var ie *queue.InputError
			if !errors.As(err, &ie) || !strings.Contains(ie.Msg, tt.want) {
				t.Fatalf("UpdateQueue error = %v, want an InputError mentioning %q", err, tt.want)
			}
			after := f.stored("main")
			opsEqual(t, "settings after a refused update", after.Settings, before.Settings)
			opsEqual(t, "state after a refused update", after.State, before.State)
		})
	}
}

func TestUpdateQueueUnknown(t *testing.T) {
	t.Parallel()
	f := newOpsFixture(t)
	if _, err := f.svc.UpdateQueue(f.ctx, opsKey, queue.QueueUpdate{}); !errors.Is(err, queue.ErrNotFound) {
		t.Fatalf("err = %v, want ErrNotFound", err)
	}
}

func TestUpdateQueueModeAndState(t *testing.T) {
	t.Parallel()
	type queueView struct {
		State     queue.QueueState
		Mode      queue.Mode // Settings.Mode
		Pending   queue.Mode
		Resume    queue.QueueState
		Effective queue.Mode
		PausedWhy string
	}
	tests := []struct {
		name    string
		setup   func(f *opsFixture, q *queue.Queue)
		updates []queue.QueueUpdate
		want    queueView
	}{
		{"idle queue switches at once", nil,
			[]queue.QueueUpdate{{Mode: opsPtr(queue.ModeParallel)}},
			queueView{State: queue.QueueRunning, Mode: queue.ModeParallel, Effective: queue.ModeParallel}},
		{"same mode is not a change", withRun(queue.RunInProgress),
			[]queue.QueueUpdate{{Mode: opsPtr(queue.ModeSingle), State: opsPtr(queue.QueueRunning)}},
			queueView{State: queue.QueueRunning, Mode: queue.ModeSingle, Effective: queue.ModeSingle}},
		{"run in progress: switching_modes", withRun(queue.RunInProgress),
			[]queue.QueueUpdate{{Mode: opsPtr(queue.ModeParallel)}},
			queueView{State: queue.QueueSwitchingModes, Mode: queue.ModeSingle, Pending: queue.ModeParallel,
				Resume: queue.QueueRunning, Effective: queue.ModeParallel}},
		{"run building: switching_modes", withRun(queue.RunBuilding),
			[]queue.QueueUpdate{{Mode: opsPtr(queue.ModeParallel)}},
			queueView{State: queue.QueueSwitchingModes, Mode: queue.ModeSingle, Pending: queue.ModeParallel,
				Resume: queue.QueueRunning, Effective: queue.ModeParallel}},
		{"decided runs do not block the switch", withRun(queue.RunSucceeded),
			[]queue.QueueUpdate{{Mode: opsPtr(queue.ModeParallel)}},
			queueView{State: queue.QueueRunning, Mode: queue.ModeParallel, Effective: queue.ModeParallel}},
		{"paused queue resumes paused", withRun(queue.RunInProgress),
			[]queue.QueueUpdate{{State: opsPtr(queue.QueuePaused)}, {Mode: opsPtr(queue.ModeParallel)}},
			queueView{State: queue.QueueSwitchingModes, Mode: queue.ModeSingle, Pending: queue.ModeParallel,
				Resume: queue.QueuePaused, Effective: queue.ModeParallel}},
		{"echoing the pending mode and switching_modes changes nothing", withRun(queue.RunInProgress),
			[]queue.QueueUpdate{{Mode: opsPtr(queue.ModeParallel)}, {Mode: opsPtr(queue.ModeParallel), State: opsPtr(queue.QueueSwitchingModes)}},
			queueView{State: queue.QueueSwitchingModes, Mode: queue.ModeSingle, Pending: queue.ModeParallel,
				Resume: queue.QueueRunning, Effective: queue.ModeParallel}},
		{"state written while switching is resumed later", withRun(queue.RunInProgress),
			[]queue.QueueUpdate{{Mode: opsPtr(queue.ModeParallel)}, {State: opsPtr(queue.QueueDraining)}},
			queueView{State: queue.QueueSwitchingModes, Mode: queue.ModeSingle, Pending: queue.ModeParallel,
				Resume: queue.QueueDraining, Effective: queue.ModeParallel}},
		{"mode and state together while testing", withRun(queue.RunInProgress),
			[]queue.QueueUpdate{{Mode: opsPtr(queue.ModeParallel), State: opsPtr(queue.QueuePaused)}},
			queueView{State: queue.QueueSwitchingModes, Mode: queue.ModeSingle, Pending: queue.ModeParallel,
				Resume: queue.QueuePaused, Effective: queue.ModeParallel}},
		{"back to the current mode cancels the switch", withRun(queue.RunInProgress),
			[]queue.QueueUpdate{{State: opsPtr(queue.QueueDraining)}, {Mode: opsPtr(queue.ModeParallel)}, {Mode: opsPtr(queue.ModeSingle)}},
			queueView{State: queue.QueueDraining, Mode: queue.ModeSingle, Effective: queue.ModeSingle}},
		{"cancel while echoing switching_modes", withRun(queue.RunInProgress),
			[]queue.QueueUpdate{{Mode: opsPtr(queue.ModeParallel)}, {Mode: opsPtr(queue.ModeSingle), State: opsPtr(queue.QueueSwitchingModes)}},
			queueView{State: queue.QueueRunning, Mode: queue.ModeSingle, Effective: queue.ModeSingle}},
		{"cancel and set state at once", withRun(queue.RunInProgress),
			[]queue.QueueUpdate{{Mode: opsPtr(queue.ModeParallel)}, {Mode: opsPtr(queue.ModeSingle), State: opsPtr(queue.QueuePaused)}},
			queueView{State: queue.QueuePaused, Mode: queue.ModeSingle, Effective: queue.ModeSingle}},
		{"a user's state clears the queue's own pause reason", func(f *opsFixture, q *queue.Queue) {
			q.State, q.PausedReason = queue.QueuePaused, "landed tree differs"
			if err := f.store.UpdateQueue(f.ctx, q); err != nil {
				f.t.Fatal(err)
			}
		}, []queue.QueueUpdate{{State: opsPtr(queue.QueueRunning)}},
			queueView{State: queue.QueueRunning, Mode: queue.ModeSingle, Effective: queue.ModeSingle}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newOpsFixture(t)
			q := f.queue("main", queue.DefaultSettings())
			if tt.setup != nil {
				tt.setup(f, q)
			}
			wakes := f.wakeCount()
			var got *queue.Queue
			for i, u := range tt.updates {
				var err error
				if got, err = f.svc.UpdateQueue(f.ctx, opsKey, u); err != nil {
					t.Fatalf("update %d: %v", i, err)
				}
			}
			for _, q := range []*queue.Queue{got, f.stored("main")} {
				view := queueView{State: q.State, Mode: q.Settings.Mode, Pending: q.PendingMode, Resume: q.ResumeState,
					Effective: q.EffectiveMode(), PausedWhy: q.PausedReason}
				opsEqual(t, "queue", view, tt.want)
			}
			if f.wakeCount()-wakes != len(tt.updates) {
				t.Errorf("woken %d times for %d updates", f.wakeCount()-wakes, len(tt.updates))
			}
		})
	}
}

// withRun adds an open run in status st to the queue.
func withRun(st queue.RunStatus) func(f *opsFixture, q *queue.Queue) {
	return func(f *opsFixture, q *queue.Queue) {
		e := f.entry(q, 1, queue.StateTesting, opsNow)
		f.run(q, "run-1", st, []*queue.Entry{e}, nil)
	}
}

func TestCreateQueueFrom(t *testing.T) {
	t.Parallel()
	f := newOpsFixture(t)
	q, err := f.svc.CreateQueueFrom(f.ctx, opsKey, queue.QueueUpdate{State: opsPtr(queue.QueuePaused),
		Mode: opsPtr(queue.ModeParallel), MergeMethod: opsPtr(queue.MergeCommit), RequiredStatuses: opsPtr([]string{})})
	if err != nil {
		t.Fatalf("CreateQueueFrom: %v", err)
	}
	want := queue.DefaultSettings()
	want.Mode, want.MergeMethod, want.RequiredStatuses = queue.ModeParallel, queue.MergeCommit, []string{}
	want.BisectionConcurrency = want.Concurrency // fixed at creation
	stored := f.stored("main")
	opsEqual(t, "settings", stored.Settings, want)
	opsEqual(t, "state", stored.State, queue.QueuePaused)
	opsEqual(t, "id", stored.ID, q.ID)
	if f.wakeCount() != 1 {
		t.Errorf("wakes = %d, want 1", f.wakeCount())
	}
	if _, err := f.svc.CreateQueueFrom(f.ctx, opsKey, queue.QueueUpdate{}); !errors.Is(err, queue.ErrExists) {
		t.Errorf("duplicate: err = %v, want ErrExists", err)
	}
	other := opsKey
	other.Branch = "dev"
	for _, u := range []queue.QueueUpdate{{State: opsPtr(queue.QueueSwitchingModes)}, {Concurrency: opsPtr(0)}} {
		var ie *queue.InputError
		if _, err := f.svc.CreateQueueFrom(f.ctx, other, u); !errors.As(err, &ie) {
			t.Errorf("CreateQueueFrom(%+v) error = %v, want InputError", u, err)
		}
	}
}

func TestDeleteQueue(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		setup     func(f *opsFixture, q *queue.Queue)
		deleteErr error
		wantErr   string // "" = deleted
		branches  []string
	}{
		{"empty queue", nil, nil, "", nil},
		{"ended entries only, open run branch deleted", func(f *opsFixture, q *queue.Queue) {
			e := f.entry(q, 1, queue.StateMerged, opsNow)
			f.run(q, "run-9", queue.RunSucceeded, []*queue.Entry{e}, nil)
		}, nil, "", []string{"mq-merge/pr-1/run-9"}},
		{"branch deletion failure does not fail the delete", func(f *opsFixture, q *queue.Queue) {
			e := f.entry(q, 1, queue.StateCancelled, opsNow)
			f.run(q, "run-9", queue.RunCancelled, []*queue.Entry{e}, nil)
		}, errors.New("502"), "", []string{"mq-merge/pr-1/run-9"}},
		{"not_ready entry blocks", func(f *opsFixture, q *queue.Queue) {
			f.entry(q, 7, queue.StateNotReady, opsNow)
		}, nil, "#7", nil},
		{"testing entries block", func(f *opsFixture, q *queue.Queue) {
			f.entry(q, 3, queue.StateTesting, opsNow)
			f.entry(q, 4, queue.StatePending, opsNow)
		}, nil, "2 active pull request(s) (#3, #4)", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newOpsFixture(t)
			f.gh.deleteErr = tt.deleteErr
			q := f.queue("main", queue.DefaultSettings())
			if tt.setup != nil {
				tt.setup(f, q)
			}
			err := f.svc.DeleteQueue(f.ctx, opsKey)
			if tt.wantErr != "" {
				var ie *queue.InputError
				if !errors.As(err, &ie) || !strings.Contains(ie.Msg, tt.wantErr) {
					t.Fatalf("DeleteQueue error = %v, want InputError with %q", err, tt.wantErr)
				}
				f.stored("main") // still there
				return
			}
			if err != nil {
				t.Fatalf("DeleteQueue: %v", err)
			}
			if _, err := f.store.GetQueue(f.ctx, opsKey); !errors.Is(err, queue.ErrNotFound) {
				t.Errorf("queue still stored: %v", err)
			}
			opsEqual(t, "deleted branches", f.gh.deletedBranches(), tt.branches)
		})
	}
}

func TestDeleteQueueAbsentIsNoError(t *testing.T) {
	t.Parallel()
	f := newOpsFixture(t)
	if err := f.svc.DeleteQueue(f.ctx, opsKey); err != nil {
		t.Fatalf("DeleteQueue(absent) = %v, want nil", err)
	}
}
