package sqlite

import (
	"context"
	"testing"

	"github.com/mergequeue/mq/queue"
)

func TestQueueSettingsRoundTrip(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openTest(t)
	every := queue.Settings{
		Mode: queue.ModeParallel, Concurrency: 3, TestingTimeoutMinutes: 45,
		CanOptimisticallyMerge: true, PendingFailureDepth: 2, Batch: true,
		BatchingMaxWaitTimeMinutes: 7, BatchingMinSize: 2, BatchingMaxSize: 9,
		CreatePrsForTestingBranches: true, CommentsEnabled: true, CommandsEnabled: true,
		StatusCheckEnabled: true, BisectionConcurrency: 4,
		RequiredStatuses: []string{"ci/test", "lint"}, DirectMergeMode: queue.DirectMergeAlways,
		OptimizationMode: queue.OptimizationBisectionSkipTests, MergeMethod: queue.Rebase,
		EnqueueingLabel: "ship-it", LabelCommandsEnabled: true, StateLabelsEnabled: true,
		ExtensionEnabled: true, NotReadyTimeoutHours: 12, BisectionParts: 4,
		TestBranchConstructionMode: queue.RenameTempBranch,
		AllowedBotSubmitters:       []string{"renovate[bot]", "release-bot"},
		TestBranchPrefix:           "ci/merge-queue/",
	}
	cases := []struct {
		name     string
		settings queue.Settings
	}{
		{"defaults", queue.DefaultSettings()},
		{"every field set", every},
		{"required statuses nil", func() queue.Settings { s := every; s.RequiredStatuses = nil; return s }()},
		{"required statuses empty", func() queue.Settings { s := every; s.RequiredStatuses = []string{}; return s }()},
		{"all zero", queue.Settings{}},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			q := newQueue(testRepo, "branch-"+string(rune('a'+i)))
			q.Settings = tc.settings
			if err := s.CreateQueue(ctx, q); err != nil {
				t.Fatal(err)
			}
			got, err := s.GetQueueByID(ctx, q.ID)
			if err != nil {
				t.Fatal(err)
			}
			assertEqual(t, got.Settings, tc.settings)
			if (got.Settings.RequiredStatuses == nil) != (tc.settings.RequiredStatuses == nil) {
				t.Errorf("RequiredStatuses nil-ness changed: got %#v, want %#v", got.Settings.RequiredStatuses, tc.settings.RequiredStatuses)
			}

			// The same through UpdateQueue, flipping nil and empty.
			flipped := tc.settings
			if flipped.RequiredStatuses == nil {
				flipped.RequiredStatuses = []string{}
			} else {
				flipped.RequiredStatuses = nil
			}
			got.Settings = flipped
			if err := s.UpdateQueue(ctx, got); err != nil {
				t.Fatal(err)
			}
			again, err := s.GetQueueByID(ctx, q.ID)
			if err != nil {
				t.Fatal(err)
			}
			if (again.Settings.RequiredStatuses == nil) != (flipped.RequiredStatuses == nil) {
				t.Errorf("after update RequiredStatuses = %#v, want %#v", again.Settings.RequiredStatuses, flipped.RequiredStatuses)
			}
			assertEqual(t, again.Settings, flipped)
		})
	}
}
