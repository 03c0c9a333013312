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

// Each change of a queue's settings by autoTune (no PR) reaches webhook
// targets as a queue_autotune event with its reason, and Slack targets as
// a summary line; an abandoned choice too.
func TestAutoTuneChangesAreNotified(t *testing.T) {
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
	for _, ev := range []queue.Event{
		queue.QueueTuningEvent(f.q.ID, queue.ReasonQueueAutoTuned, "flake rate rose to 9 %: batches off, depth 2 (now k=4, batches off, depth 2)", f.now),
		queue.QueueTuningEvent(f.q.ID, queue.ReasonQueueAutoTuneAbandoned, "autoTune's choice took longer than its budget", f.now),
	} {
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
		t.Fatalf("webhook got %v, want the change and the abandoned choice", got)
	}
	for i, want := range []struct{ action, reason string }{{"changed", "queue_autotuned"}, {"abandoned", "queue_autotune_abandoned"}} {
		m := got[i]
		if m["type"] != "queue_autotune" || m["action"] != want.action || m["reason"] != want.reason || m["target_branch"] != "main" {
			t.Errorf("message %d = %v; want queue_autotune %s", i, m, want.action)
		}
		if _, named := m["pr_number"]; named {
			t.Errorf("message %d names a PR: %v", i, m)
		}
	}
	if got[0]["detail"] != "flake rate rose to 9 %: batches off, depth 2 (now k=4, batches off, depth 2)" {
		t.Errorf("the change's detail %q is not its reason", got[0]["detail"])
	}
	texts := chat.messages(t)
	if len(texts) != 2 || texts[0]["text"] != "acme/widgets → main: autoTune changed — flake rate rose to 9 %: batches off, depth 2 (now k=4, batches off, depth 2)" {
		t.Errorf("slack got %v", texts)
	}
}
