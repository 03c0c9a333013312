package notify

import (
	"net/http/httptest"
	"testing"

	"github.com/mergequeue/mq/queue"
)

// A queue alert (no PR) reaches webhook targets as a queue_alert event,
// raised then cleared, and Slack targets as a summary line.
func TestQueueAlertsAreNotified(t *testing.T) {
	f := newFixture(t)
	ep, chat := &endpoint{}, &endpoint{}
	srv, chatSrv := httptest.NewServer(ep), httptest.NewServer(chat)
	defer srv.Close()
	defer chatSrv.Close()
	hook, slack := Target{URL: srv.URL, Kind: Webhook}, Target{URL: chatSrv.URL, Kind: Slack}
	n := f.notifier(hook, slack)
	for _, tg := range []Target{hook, slack} {
		if _, err := n.Step(f.ctx, tg); err != nil { // starts the cursors
			t.Fatal(err)
		}
	}
	for _, raised := range []bool{true, false} {
		ev := queue.QueueAlertEvent(f.q.ID, queue.AlertStalled, raised, "nothing has happened in the queue for 61 minutes", f.now)
		if err := f.store.AddEvent(f.ctx, &ev); err != nil {
			t.Fatal(err)
		}
	}
	for _, tg := range []Target{hook, slack} {
		if _, err := n.Step(f.ctx, tg); err != nil {
			t.Fatalf("step %s: %v", tg.Kind, err)
		}
	}
	got := ep.messages(t)
	if len(got) != 2 {
		t.Fatalf("webhook got %v, want the alert raised and cleared", got)
	}
	for i, action := range []string{"raised", "cleared"} {
		m := got[i]
		if m["type"] != "queue_alert" || m["action"] != action || m["alert"] != "stalled" || m["target_branch"] != "main" ||
			m["detail"] != "nothing has happened in the queue for 61 minutes" || m["details_url"] != "http://mq.example/" {
			t.Errorf("message %d = %v; want queue_alert %s stalled on main", i, m, action)
		}
		if _, named := m["pr_number"]; named {
			t.Errorf("message %d names a PR: %v", i, m)
		}
	}
	texts := chat.messages(t)
	if len(texts) != 2 || texts[0]["text"] != "acme/widgets → main: queue alert stalled raised — nothing has happened in the queue for 61 minutes" {
		t.Errorf("slack got %v", texts)
	}
}
