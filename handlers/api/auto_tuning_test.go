package api

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/mergequeue/mq/queue"
)

// getQueue shows the configured values at the top level and autoTune's
// effective ones, with its bounds and last change, in autoTuning; turning
// autoTune off shows the configured values in force again at once.
func TestGetQueueShowsConfiguredAndEffectiveValues(t *testing.T) {
	t.Parallel()
	h := newLiveHarness(t)
	wantEmptyObject(t, h.post("createQueue", branchBody(t, "main", map[string]any{"concurrency": 2, "autoTune": true,
		"autoTuneMaxRuns": 8, "autoTuneMaxRunsPerHundredMerges": 150})))
	ctx := context.Background()
	q, err := h.store.GetQueue(ctx, testKey)
	if err != nil {
		t.Fatal(err)
	}
	tuned := queue.TunedValuesOf(q.Settings)
	tuned.Concurrency, tuned.PendingFailureDepth, tuned.CanOptimisticallyMerge = 6, 1, true
	if err := h.store.SaveQueueTuning(ctx, queue.QueueTuning{QueueID: q.ID, Values: tuned, From: queue.TunedValuesOf(q.Settings),
		Reason: "flake rate rose to 9 %: concurrency 6, depth 1, optimistic merging on", At: testNow}); err != nil {
		t.Fatal(err)
	}
	type view struct {
		Concurrency int `json:"concurrency"`
		AutoTuning  struct {
			Enabled                 bool `json:"enabled"`
			MaxRuns                 int  `json:"maxRuns"`
			MaxRunsPerHundredMerges int  `json:"maxRunsPerHundredMerges"`
			Effective               struct {
				Concurrency            int  `json:"concurrency"`
				PendingFailureDepth    int  `json:"pendingFailureDepth"`
				CanOptimisticallyMerge bool `json:"canOptimisticallyMerge"`
			} `json:"effective"`
			LastChange *struct {
				Reason string `json:"reason"`
				At     string `json:"at"`
				From   struct {
					Concurrency int `json:"concurrency"`
				} `json:"from"`
			} `json:"lastChange"`
		} `json:"autoTuning"`
	}
	read := func() view {
		t.Helper()
		r := h.post("getQueue", branchBody(t, "main", nil))
		var v view
		if err := json.Unmarshal([]byte(r.body), &v); err != nil {
			t.Fatalf("getQueue: %v: %s", err, r.body)
		}
		return v
	}
	v := read()
	a := v.AutoTuning
	if v.Concurrency != 2 || !a.Enabled || a.MaxRuns != 8 || a.MaxRunsPerHundredMerges != 150 ||
		a.Effective.Concurrency != 6 || a.Effective.PendingFailureDepth != 1 || !a.Effective.CanOptimisticallyMerge {
		t.Errorf("getQueue shows %+v; want concurrency 2 configured, 6 with depth 1 and optimistic merging in force, bounds 8 and 150", v)
	}
	if a.LastChange == nil || a.LastChange.Reason != "flake rate rose to 9 %: concurrency 6, depth 1, optimistic merging on" ||
		a.LastChange.At != "2026-07-23T01:32:50.000Z" || a.LastChange.From.Concurrency != 2 {
		t.Errorf("last change %+v; want its reason, time and the concurrency before", a.LastChange)
	}
	if r := h.post("updateQueue", branchBody(t, "main", map[string]any{"autoTune": false})); r.status != 200 {
		t.Fatalf("updateQueue: %d %s", r.status, r.body)
	}
	v = read()
	if v.AutoTuning.Enabled || v.AutoTuning.Effective.Concurrency != 2 || v.AutoTuning.LastChange != nil {
		t.Errorf("with autoTune off getQueue shows %+v; want the configured concurrency 2 in force and no last change", v.AutoTuning)
	}
}
