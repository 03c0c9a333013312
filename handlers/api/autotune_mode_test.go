package api

import "testing"

// autoTune tunes parallel-mode queues too (their concurrency): creating a
// parallel queue with it, turning it on for one, and switching a queue
// with autoTune on to parallel mode are accepted and read back; autoTune
// without its bound is still refused there and changes nothing.
func TestAutoTuneInParallelMode(t *testing.T) {
	t.Parallel()
	h := newLiveHarness(t)
	wantError(t, h.post("createQueue", branchBody(t, "main", map[string]any{"mode": "parallel", "autoTune": true})),
		400, "autoTuneMaxRuns")
	if r := h.post("getQueue", branchBody(t, "main", nil)); r.status != 404 {
		t.Fatalf("a refused createQueue created the queue: %d %s", r.status, r.body)
	}
	wantEmptyObject(t, h.post("createQueue", branchBody(t, "main", map[string]any{"mode": "parallel", "autoTune": true, "autoTuneMaxRuns": 8})))
	got, _ := rawFields(t, h.post("getQueue", branchBody(t, "main", nil)))
	if string(got["mode"]) != `"parallel"` || string(got["autoTune"]) != "true" || string(got["autoTuneMaxRuns"]) != "8" {
		t.Errorf("parallel queue with autoTune: mode %s, autoTune %s, autoTuneMaxRuns %s", got["mode"], got["autoTune"], got["autoTuneMaxRuns"])
	}
	wantEmptyObject(t, h.post("createQueue", branchBody(t, "other", map[string]any{"mode": "parallel"})))
	got, _ = rawFields(t, h.post("updateQueue", branchBody(t, "other", map[string]any{"autoTune": true, "autoTuneMaxRuns": 16})))
	if string(got["autoTune"]) != "true" || string(got["mode"]) != `"parallel"` {
		t.Errorf("autoTune turned on for a parallel queue: mode %s, autoTune %s", got["mode"], got["autoTune"])
	}
	wantEmptyObject(t, h.post("createQueue", branchBody(t, "third", map[string]any{"autoTune": true, "autoTuneMaxRuns": 8})))
	got, _ = rawFields(t, h.post("updateQueue", branchBody(t, "third", map[string]any{"mode": "parallel"})))
	if string(got["mode"]) != `"parallel"` || string(got["autoTune"]) != "true" {
		t.Errorf("a queue with autoTune switched to parallel mode: mode %s, autoTune %s", got["mode"], got["autoTune"])
	}
}
