package api

import "testing"

// autoTune tunes single-mode queues only: turning it on for a parallel
// queue, creating a parallel queue with it, or switching a queue with
// autoTune on to parallel mode is refused with an error saying why, and
// changes nothing; turning it off and switching in one request is fine.
func TestAutoTuneIsRefusedInParallelMode(t *testing.T) {
	t.Parallel()
	h := newLiveHarness(t)
	wantError(t, h.post("createQueue", branchBody(t, "main", map[string]any{"mode": "parallel", "autoTune": true, "autoTuneMaxRuns": 8})),
		400, "autoTune", "single mode")
	if r := h.post("getQueue", branchBody(t, "main", nil)); r.status != 404 {
		t.Fatalf("a refused createQueue created the queue: %d %s", r.status, r.body)
	}
	wantEmptyObject(t, h.post("createQueue", branchBody(t, "main", map[string]any{"mode": "parallel"})))
	before := h.post("getQueue", branchBody(t, "main", nil)).body
	wantError(t, h.post("updateQueue", branchBody(t, "main", map[string]any{"autoTune": true, "autoTuneMaxRuns": 8})),
		400, "autoTune", "single mode")
	if after := h.post("getQueue", branchBody(t, "main", nil)).body; after != before {
		t.Errorf("a refused update changed the queue:\n%s\n%s", before, after)
	}
	wantEmptyObject(t, h.post("createQueue", branchBody(t, "other", map[string]any{"autoTune": true, "autoTuneMaxRuns": 8})))
	before = h.post("getQueue", branchBody(t, "other", nil)).body
	wantError(t, h.post("updateQueue", branchBody(t, "other", map[string]any{"mode": "parallel"})), 400, "autoTune", "single mode")
	if after := h.post("getQueue", branchBody(t, "other", nil)).body; after != before {
		t.Errorf("a refused switch to parallel mode changed the queue:\n%s\n%s", before, after)
	}
	got, _ := rawFields(t, h.post("updateQueue", branchBody(t, "other", map[string]any{"mode": "parallel", "autoTune": false})))
	if string(got["mode"]) != `"parallel"` || string(got["autoTune"]) != "false" {
		t.Errorf("autoTune off and parallel mode in one request: mode %s, autoTune %s", got["mode"], got["autoTune"])
	}
}
