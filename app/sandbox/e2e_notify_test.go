package sandbox

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/mergequeue/mq/app"
	"github.com/mergequeue/mq/app/notify"
)

// Queue activity reaches a configured webhook endpoint, signed, in the
// order it happened: a passing PR is reported submitted, queued, testing
// and merged, a failing one failed with its reason.
func TestNotificationsReachTheEndpoint(t *testing.T) {
	t.Parallel()
	const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	var mu sync.Mutex
	var got []map[string]any
	badSig := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		defer mu.Unlock()
		if r.Header.Get("webhook-signature") != notify.Sign(secret, r.Header.Get("webhook-id"), r.Header.Get("webhook-timestamp"), body) {
			badSig++
		}
		var m map[string]any
		if json.Unmarshal(body, &m) == nil {
			got = append(got, m)
		}
	}))
	defer srv.Close()
	h := newHarnessWith(t, Options{Notifications: []app.NotificationTarget{{URL: srv.URL, Secret: secret, Kind: app.NotifyWebhook}}})
	h.createQueue(2)
	good := h.openPR("good", map[string]string{"good.txt": "1\n"})
	bad := h.openPR("bad", map[string]string{"FAIL": "boom\n"})
	h.submit(good)
	h.submit(bad)
	h.waitState(good, "merged")
	h.waitState(bad, "failed")
	actions := func(pr int) string {
		mu.Lock()
		defer mu.Unlock()
		var out []string
		for _, m := range got {
			if n, _ := m["pr_number"].(float64); int(n) == pr && m["type"] == "pull_request" {
				out = append(out, m["action"].(string))
			}
		}
		return strings.Join(out, " ")
	}
	h.waitFor("notifications of both PRs", func() bool {
		return strings.HasSuffix(actions(good), "merged") && strings.HasSuffix(actions(bad), "failed")
	}, func() string { return "good: " + actions(good) + "; bad: " + actions(bad) })
	if a := actions(good); !strings.HasPrefix(a, "submitted queued testing") {
		t.Errorf("#%d notified %q, want submitted queued testing … merged", good, a)
	}
	mu.Lock()
	defer mu.Unlock()
	if badSig > 0 {
		t.Errorf("%d deliveries had a wrong signature", badSig)
	}
	for _, m := range got {
		if n, _ := m["pr_number"].(float64); int(n) == bad && m["action"] == "failed" && m["failure_reason"] != "tests_failed" {
			t.Errorf("failed notification %v, want failure_reason tests_failed", m)
		}
	}
}
