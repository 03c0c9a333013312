package sandbox

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/mergequeue/mq/githubx/fakegithub"
)

// notReadyTimeoutHours 2562048 once overflowed hours × time.Hour and
// cancelled every waiting entry at once. On the real stack it is now a 400
// on createQueue (no queue is created) and on updateQueue (the setting and
// the waiting PR are left as they were), and the bound itself is accepted.
func TestOverflowingSettingsAreRefused(t *testing.T) {
	t.Parallel()
	h := newHarness(t, fakegithub.CIOptions{})

	status, out := h.post("createQueue", sessionBody(map[string]any{"notReadyTimeoutHours": 2562048}))
	if status != http.StatusBadRequest || !strings.Contains(string(out), "notReadyTimeoutHours must be between 0 and 8760") {
		t.Fatalf("createQueue with notReadyTimeoutHours 2562048: %d %s, want 400 naming the bound", status, out)
	}
	h.sessionStatus("getQueue", sessionBody(nil), http.StatusNotFound)

	h.mustPost("createQueue", sessionBody(map[string]any{"state": "paused"}))
	pr := h.openPR("waits", map[string]string{"waits.txt": "1\n"})
	h.submit(pr)
	h.waitState(pr, "not_ready")

	for field, v := range map[string]int{"notReadyTimeoutHours": 2562048, "testingTimeoutMinutes": 153722868, "batchingMaxWaitTimeMinutes": 307445735} {
		status, out := h.post("updateQueue", sessionBody(map[string]any{field: v, "concurrency": 3}))
		if status != http.StatusBadRequest || !strings.Contains(string(out), field) {
			t.Errorf("updateQueue %s %d: %d %s, want 400 naming the field", field, v, status, out)
		}
	}
	var q struct {
		Concurrency                int `json:"concurrency"`
		NotReadyTimeoutHours       int `json:"notReadyTimeoutHours"`
		TestingTimeoutMinutes      int `json:"testingTimeoutMinutes"`
		BatchingMaxWaitTimeMinutes int `json:"batchingMaxWaitTimeMinutes"`
	}
	if err := json.Unmarshal(h.mustPost("getQueue", sessionBody(nil)), &q); err != nil {
		t.Fatal(err)
	}
	if q.Concurrency != 1 || q.NotReadyTimeoutHours != 0 || q.TestingTimeoutMinutes != 60 || q.BatchingMaxWaitTimeMinutes != 5 {
		t.Errorf("after refused updates the queue reads %+v; want the defaults, nothing changed", q)
	}
	if e, _ := h.entry(pr); e.State != "not_ready" {
		t.Errorf("#%d is %+v after the refused updates, want not_ready", pr, e)
	}
	h.mustPost("updateQueue", sessionBody(map[string]any{"notReadyTimeoutHours": 8760}))
}
